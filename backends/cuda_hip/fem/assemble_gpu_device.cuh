#pragma once
// What every fem.assemble kernel of assemble_gpu_kernels.cuh uses: the shape
// tables in constant memory, the lane maps of a 32-lane sub-group per element
// and the Jacobian and block-add helpers. Part of one translation unit per
// vendor (assemble_gpu_kernels.cuh); include nowhere else.
#include "backends/cuda_hip/fem/assemble_gpu_kernels.hpp"
#include "backends/cuda_hip/core/gpu_check.hpp"
#include "backends/cuda_hip/core/gpu_portability.hpp"
#include "ppkit/fem/hex8_shape.hpp"  // hex8_sign

#if defined(PPKIT_GPU_HIP)
#define PPKIT_FEM_SHAPE_TABLES hip_shape_tables
#else
#define PPKIT_FEM_SHAPE_TABLES cuda_shape_tables
#endif

// Shape tables at the Gauss points in constant memory, filled by
// Hex8Kernels::upload_shape_tables. External linkage on purpose: a HIP compiler
// (clang 15, whole-program mode) keeps no symbol for an internal-linkage
// device variable, so hipMemcpyToSymbol could not find it and the kernels
// would read its zero initialiser. The namespace names the backend, so a
// library built with both has one pair of tables each.
namespace ppkit::fem::PPKIT_FEM_SHAPE_TABLES {
__constant__ double c_dN[192];  // [(q*8 + a)*3 + k]
__constant__ double c_N[64];    // [q*8 + a]
}  // namespace ppkit::fem::PPKIT_FEM_SHAPE_TABLES

namespace ppkit::fem::assembly_kernels {
namespace {

using PPKIT_FEM_SHAPE_TABLES::c_dN;
using PPKIT_FEM_SHAPE_TABLES::c_N;

// The lane maps below (lanes 0..31, block positions [32 pass + lane]) are the
// paper's 32-lane warp; the host glue orders block positions the same way.
static_assert(gpu::kSubgroupWidth == 32, "the FEM lane maps are written for 32 lanes per element");

// Lane within the element's 32-lane sub-group and sub-group (element) within
// the block, from the unsigned thread index: a mask and a shift, as in the
// kernels' first CUDA form (element_lane() divides the signed value).
__device__ __forceinline__ int element_lane() {
  return static_cast<int>(threadIdx.x % gpu::kSubgroupWidth);
}
__device__ __forceinline__ int element_in_block() {
  return static_cast<int>(threadIdx.x / gpu::kSubgroupWidth);
}

// Elements (32-lane sub-groups) per block of the warp-per-element kernels: 4
// CUDA warps or 2 AMD wavefronts of 128 threads.
constexpr int kElementsPerBlock = 4;
constexpr int kThreadsPerBlock = gpu::kSubgroupWidth * kElementsPerBlock;
static_assert(kThreadsPerBlock % gpu::kWarpSize == 0, "blocks hold whole warps/wavefronts");

__device__ __forceinline__ double det3(const double* J) {
  return J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
         J[2] * (J[3] * J[7] - J[4] * J[6]);
}
// Cofactor C_ki of J (J[3k + i] = dx_i/dxi_k); cyclic indices carry the sign.
// inv[3i + k] = cofactor(J, i, k) / det J.
__device__ __forceinline__ double cofactor(const double* J, int i, int k) {
  const int k1 = (k + 1) % 3, k2 = (k + 2) % 3, i1 = (i + 1) % 3, i2 = (i + 2) % 3;
  return J[3 * k1 + i1] * J[3 * k2 + i2] - J[3 * k1 + i2] * J[3 * k2 + i1];
}
// One fp64 division per Gauss point (a division is a ~10-instruction
// sequence; nine of them per lane and Gauss point would cost as much as the
// entries themselves), then nine multiplications.
__device__ __forceinline__ double inverse_entry(const double* J, double inv_det, int i, int k) {
  return cofactor(J, i, k) * inv_det;
}

// Component i of the body force without a dynamic index into the kernel
// parameters (which would copy them to local memory).
template <class Arrays>
__device__ __forceinline__ double body_component(const Arrays& A, int i) {
  return i == 0 ? A.body_force[0] : (i == 1 ? A.body_force[1] : A.body_force[2]);
}

__device__ __forceinline__ void add_entries(double (&K)[9], double s, double lambda, double mu,
                                            const double* ga, const double* gb) {
  const double dot = ga[0] * gb[0] + ga[1] * gb[1] + ga[2] * gb[2];
#pragma unroll
  for (int i = 0; i < 3; ++i)
#pragma unroll
    for (int j = 0; j < 3; ++j)
      K[3 * i + j] += s * (lambda * ga[i] * gb[j] + mu * ga[j] * gb[i] + (i == j ? mu * dot : 0.0));
}

// Adds one lane's 3x3 block at CSR position base (rows stride apart). Taking
// the accumulators by reference keeps them in registers (no local-memory copy).
// The read-modify-write loads all 9 old values before the first store: the
// compiler cannot prove the 9 positions distinct, so `+=` entry by entry
// would wait for one global-memory round trip per entry (9 in sequence).
template <bool kAtomic>
__device__ __forceinline__ void add_block(double* values, std::int64_t base, std::int64_t stride,
                                          const double (&K)[9]) {
  double old[9];
#pragma unroll
  for (int m = 0; m < 9; ++m) old[m] = kAtomic ? 0.0 : values[base + (m / 3) * stride + m % 3];
#pragma unroll
  for (int m = 0; m < 9; ++m) {
    double* target = &values[base + (m / 3) * stride + m % 3];
    if (kAtomic)
      gpu::atomic_add(target, K[m]);
    else
      *target = old[m] + K[m];
  }
}

}  // namespace

}  // namespace ppkit::fem::assembly_kernels
