#pragma once
// CUDA device discovery and device buffers for the hand-tuned CUDA variants.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

#include "backends/cuda/core/cuda_check.hpp"
#include "ppkit/core/registry.hpp"

namespace ppkit::cuda {

// "no CUDA device" (with the runtime's reason) when none can be used.
Availability device_availability();
// "NVIDIA H200 (132 SMs, sm_90)"
std::string device_description();

// Owns n elements of device memory; movable, not copyable.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) : n_(n) {
    if (n_) PPKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), n_ * sizeof(T)));
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : data_(o.data_), n_(o.n_) {
    o.data_ = nullptr;
    o.n_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(n_, o.n_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (data_) cudaFree(data_);
  }

  void upload(const std::vector<T>& host) {
    require(host.size() == n_, "DeviceBuffer::upload size mismatch");
    if (n_)
      PPKIT_CUDA_CHECK(cudaMemcpy(data_, host.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(n_);
    if (n_)
      PPKIT_CUDA_CHECK(cudaMemcpy(host.data(), data_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
  // Fills every byte with `byte` (0xFF makes NaN doubles/floats: poison).
  void fill_bytes(int byte) {
    if (n_) PPKIT_CUDA_CHECK(cudaMemset(data_, byte, n_ * sizeof(T)));
  }
  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return n_; }

 private:
  T* data_ = nullptr;
  std::size_t n_ = 0;
};

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
