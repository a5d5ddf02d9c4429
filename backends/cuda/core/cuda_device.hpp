#pragma once
// CUDA device discovery and device buffers for the hand-tuned CUDA variants.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "backends/cuda/core/cuda_check.hpp"
#include "ppkit/core/backend_variant.hpp"
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

// A fixed sequence of kernel launches captured once into a CUDA graph and
// replayed on a stream of its own (CUDA C++ Programming Guide, "CUDA Graphs"):
// one call and one submission per replay instead of one per kernel, for
// prepared runs that launch the same kernels with the same arguments every
// time. The launches must not synchronise or allocate.
class LaunchGraph {
 public:
  LaunchGraph() = default;
  // Captures what launches(stream) enqueues on `stream`, a cudaStream_t
  // passed as void* (the launch helpers' type).
  template <class Launches>
  explicit LaunchGraph(Launches&& launches) {
    begin_capture();  // on failure it holds nothing
    try {
      launches(static_cast<void*>(stream_));
    } catch (...) {
      abandon_capture();
      throw;
    }
    end_capture();  // on failure it holds nothing
  }
  LaunchGraph(LaunchGraph&& other) noexcept { swap(other); }
  LaunchGraph& operator=(LaunchGraph&& other) noexcept {
    LaunchGraph(std::move(other)).swap(*this);
    return *this;
  }
  LaunchGraph(const LaunchGraph&) = delete;
  LaunchGraph& operator=(const LaunchGraph&) = delete;
  ~LaunchGraph();

  // Replays the launches and waits for them to finish; nothing if none were
  // captured.
  void run_and_wait();

 private:
  void begin_capture();
  void end_capture();
  void abandon_capture() noexcept;
  void release() noexcept;
  void swap(LaunchGraph& other) noexcept {
    std::swap(stream_, other.stream_);
    std::swap(exec_, other.exec_);
  }
  cudaStream_t stream_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

// Fills the common fields of a CUDA variant of any operation: the vendor
// model, data in CUDA device memory, the device-native tier of "auto" at
// `rank` (variant_traits.hpp).
template <class Op>
Variant<Op> cuda_variant(const std::string& strategy, int rank) {
  return backend_variant<Op>(VendorBackend{"cuda", AutoTier::device_native, MemoryKind::cuda},
                             strategy, rank, device_availability, device_description);
}

}  // namespace ppkit::cuda
