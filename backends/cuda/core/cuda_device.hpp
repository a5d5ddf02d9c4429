#pragma once
// CUDA device discovery and device buffers for the hand-tuned CUDA variants.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

#include "backends/cuda/core/cuda_check.hpp"
#include "ppkit/core/device_buffer.hpp"
#include "ppkit/core/registry.hpp"

namespace ppkit::cuda {

// "no CUDA device" (with the runtime's reason) when none can be used.
Availability device_availability();
// "NVIDIA H200 (132 SMs, sm_90)"
std::string device_description();

// The CUDA runtime calls behind ppkit::DeviceBuffer.
struct RuntimeCalls {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    PPKIT_CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  }
  static void release(void* p) noexcept { (void)cudaFree(p); }
  static void to_device(void* dst, const void* src, std::size_t bytes) {
    PPKIT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  }
  static void to_host(void* dst, const void* src, std::size_t bytes) {
    PPKIT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
  }
  static void fill_bytes(void* p, int byte, std::size_t bytes) {
    PPKIT_CUDA_CHECK(cudaMemset(p, byte, bytes));
  }
};

template <class T>
using DeviceBuffer = ppkit::DeviceBuffer<T, RuntimeCalls>;

// Fills the common fields of a CUDA variant of any operation.
template <class Op>
Variant<Op> cuda_variant(const std::string& strategy, int preference) {
  Variant<Op> v;
  v.name = "cuda/" + strategy;
  v.backend = "cuda";
  v.strategy = strategy;
  v.preference = preference;
  v.availability = device_availability;
  v.device = device_description;
  return v;
}

}  // namespace ppkit::cuda
