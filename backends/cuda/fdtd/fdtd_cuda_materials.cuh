#pragma once
// Material coefficient lookups shared by the cuda/split and cuda/wavefront
// kernels (CUDA only): 1-byte ids with the table in shared memory, 2- or
// 4-byte ids with the table read through L1, or no ids for one material.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "backends/cuda/fdtd/fdtd_cuda_split_kernels.hpp"
#include "ppkit/fdtd/materials.hpp"

namespace ppkit::fdtd::cuda_split {
namespace detail {

using std::int64_t;

struct OneMaterial {};  // id type of a grid with a single material: no id array

constexpr int shared_materials = 256;  // all of them for 1-byte ids

// Loads the two coefficients a half step needs into shared memory (1-byte ids
// only): (dh, 0) for H, (ca, cb) for E. Every thread of the block must call it.
template <class Id>
__device__ __forceinline__ void load_table(const StepArgs& s, float2* table, bool electric) {
  if constexpr (std::is_same_v<Id, unsigned char>) {
    const int count = min(s.materials, shared_materials);
    for (int m = threadIdx.y * blockDim.x + threadIdx.x; m < count; m += blockDim.x * blockDim.y) {
      const float* row = s.a.material_table + m * material_stride;
      table[m] =
          electric ? make_float2(row[coef_ca], row[coef_cb]) : make_float2(row[coef_dh], 0.f);
    }
    __syncthreads();
  }
}

template <class Id>
__device__ __forceinline__ unsigned material_of(const StepArgs& s, int64_t n) {
  return __ldg(static_cast<const Id*>(s.ids) + n);
}

template <class Id>
__device__ __forceinline__ float h_coefficient(const StepArgs& s, const float2* table, int64_t n) {
  if constexpr (std::is_same_v<Id, OneMaterial>) {
    return s.dh0;
  } else if constexpr (std::is_same_v<Id, unsigned char>) {
    return table[material_of<Id>(s, n)].x;
  } else {
    return __ldg(s.a.material_table + int64_t(material_of<Id>(s, n)) * material_stride + coef_dh);
  }
}

template <class Id>
__device__ __forceinline__ float2 e_coefficients(const StepArgs& s, const float2* table,
                                                 int64_t n) {
  if constexpr (std::is_same_v<Id, OneMaterial>) {
    return make_float2(s.ca0, s.cb0);
  } else if constexpr (std::is_same_v<Id, unsigned char>) {
    return table[material_of<Id>(s, n)];
  } else {
    const float* row = s.a.material_table + int64_t(material_of<Id>(s, n)) * material_stride;
    return make_float2(__ldg(row + coef_ca), __ldg(row + coef_cb));
  }
}

template <class F>
void with_id_type(int bytes, F&& f) {
  switch (bytes) {
    case 0:
      f(OneMaterial{});
      break;
    case 1:
      f((unsigned char)0);
      break;
    case 2:
      f((unsigned short)0);
      break;
    default:
      f(0u);
      break;
  }
}

}  // namespace detail
}  // namespace ppkit::fdtd::cuda_split
