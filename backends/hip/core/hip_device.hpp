#pragma once
// HIP device discovery and device buffers for the hand-tuned HIP variants
// (AMD CDNA and Hygon DCU through ROCm/DTK). Host code only: kernels live in
// `.hip` files that see plain structs of raw pointers.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "backends/hip/core/hip_check.hpp"
#include "ppkit/core/registry.hpp"

namespace ppkit::hip {

// "no HIP device" (with the runtime's reason) when none can be used.
Availability device_availability();
// "AMD Instinct MI250X (110 CUs, gfx90a, wavefront 64)"
std::string device_description();
// Lanes per wavefront of the current device (64 on CDNA and DCU, 32 on RDNA
// in wave32 mode); 0 when no device can be queried.
int device_wavefront_size();

// Owns n elements of device memory; movable, not copyable.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) : n_(n) {
    if (n_) PPKIT_HIP_CHECK(hipMalloc(reinterpret_cast<void**>(&data_), n_ * sizeof(T)));
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
    if (data_) (void)hipFree(data_);
  }

  void upload(const std::vector<T>& host) {
    require(host.size() == n_, "DeviceBuffer::upload size mismatch");
    if (n_) PPKIT_HIP_CHECK(hipMemcpy(data_, host.data(), n_ * sizeof(T), hipMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(n_);
    if (n_) PPKIT_HIP_CHECK(hipMemcpy(host.data(), data_, n_ * sizeof(T), hipMemcpyDeviceToHost));
    return host;
  }
  // Fills every byte with `byte` (0xFF makes NaN doubles/floats: poison).
  void fill_bytes(int byte) {
    if (n_) PPKIT_HIP_CHECK(hipMemset(data_, byte, n_ * sizeof(T)));
  }
  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return n_; }

 private:
  T* data_ = nullptr;
  std::size_t n_ = 0;
};

// Fills the common fields of a HIP variant of any operation.
template <class Op>
Variant<Op> hip_variant(const std::string& strategy, int preference) {
  Variant<Op> v;
  v.name = "hip/" + strategy;
  v.backend = "hip";
  v.strategy = strategy;
  v.preference = preference;
  v.availability = device_availability;
  v.device = device_description;
  return v;
}

}  // namespace ppkit::hip
