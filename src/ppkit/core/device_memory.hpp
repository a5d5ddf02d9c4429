#pragma once
// Allocation and copies in the memory an operator's data lives in
// (data_location.hpp), for the C, Fortran and Python APIs: ppkit_malloc,
// ppkit_memcpy, the staging of host arrays a host code hands to a device
// operator, and Python's own device arrays. Each backend that owns a memory
// kind registers its runtime's calls (cudaMalloc, hipMalloc, or Kokkos's
// allocation for a Kokkos device space).
#include <cstddef>
#include <optional>
#include <utility>

#include "ppkit/core/data_location.hpp"

namespace ppkit {

struct DeviceMemoryCalls {
  void* (*allocate)(std::size_t bytes, int device) = nullptr;  // throws ppkit::Error
  void (*release)(void* p, int device) = nullptr;              // never throws
  void (*to_device)(void* dst, const void* src, std::size_t bytes, int device) = nullptr;
  void (*to_host)(void* dst, const void* src, std::size_t bytes, int device) = nullptr;
  void (*device_to_device)(void* dst, const void* src, std::size_t bytes, int device) = nullptr;
  int (*current_device)() = nullptr;  // -1 when the runtime has no device
};

// Called by a backend's registration; the first registration of a kind wins.
void add_device_memory_calls(MemoryKind kind, const DeviceMemoryCalls& calls);

// The current device of the first backend that has one (CUDA before HIP),
// or std::nullopt: no device memory in this build or on this machine.
std::optional<DataLocation> default_device_location();

// Host memory for MemoryKind::host; throws ppkit::Error (with the size and
// what would be valid) when nothing in this build allocates `where`.
void* allocate_in(const DataLocation& where, std::size_t bytes);
void release_in(const DataLocation& where, void* p) noexcept;
// Copies host -> `where`, `where` -> host, and within `where`.
void copy_to(const DataLocation& where, void* dst, const void* src, std::size_t bytes);
void copy_from(const DataLocation& where, void* dst, const void* src, std::size_t bytes);
void copy_within(const DataLocation& where, void* dst, const void* src, std::size_t bytes);

// An array of n values of T in `where`, freed with it.
template <class T>
class ArrayIn {
 public:
  ArrayIn() = default;
  ArrayIn(const DataLocation& where, std::size_t n)
      : where_(where),
        n_(n),
        data_(n ? static_cast<T*>(allocate_in(where, n * sizeof(T))) : nullptr) {}
  ArrayIn(ArrayIn&& o) noexcept : where_(o.where_), n_(o.n_), data_(o.data_) {
    o.data_ = nullptr;
    o.n_ = 0;
  }
  ArrayIn& operator=(ArrayIn&& o) noexcept {
    std::swap(where_, o.where_);
    std::swap(n_, o.n_);
    std::swap(data_, o.data_);
    return *this;
  }
  ArrayIn(const ArrayIn&) = delete;
  ArrayIn& operator=(const ArrayIn&) = delete;
  ~ArrayIn() {
    if (data_) release_in(where_, data_);
  }
  T* data() const { return data_; }
  std::size_t size() const { return n_; }

 private:
  DataLocation where_;
  std::size_t n_ = 0;
  T* data_ = nullptr;
};

}  // namespace ppkit
