#pragma once
// DeviceBuffer<T, Runtime>: n elements of device memory owned by a native
// backend (CUDA, HIP), movable, not copyable. Runtime is a struct of static
// functions of the vendor API (allocate, release, to_device, to_host,
// fill_bytes) that throw ppkit::Error on failure; each backend defines one, so
// the buffer logic is written once.
#include <cstddef>
#include <utility>
#include <vector>

#include "ppkit/core/error.hpp"

namespace ppkit {

template <class T, class Runtime>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) : n_(n) {
    if (n_) data_ = static_cast<T*>(Runtime::allocate(n_ * sizeof(T)));
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
    if (data_) Runtime::release(data_);
  }

  void upload(const std::vector<T>& host) {
    require(host.size() == n_, "DeviceBuffer::upload size mismatch");
    if (n_) Runtime::to_device(data_, host.data(), n_ * sizeof(T));
  }
  std::vector<T> download() const {
    std::vector<T> host(n_);
    if (n_) Runtime::to_host(host.data(), data_, n_ * sizeof(T));
    return host;
  }
  // Fills every byte with `byte` (0xFF makes NaN doubles/floats: poison).
  void fill_bytes(int byte) {
    if (n_) Runtime::fill_bytes(data_, byte, n_ * sizeof(T));
  }
  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return n_; }

 private:
  T* data_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace ppkit
