#pragma once
// Where an operator's data lives, and what a raw pointer handed to it points
// at. Host codes pass their own arrays to ppkit's operators (sem::Axhelm,
// the C handles); each operator says where it expects them (DataLocation)
// and refuses a pointer that the runtime reports elsewhere, instead of
// letting a kernel fault on it. Only the vendor runtimes can tell: each native
// backend registers an inspector (cudaPointerGetAttributes,
// hipPointerGetAttributes); with none registered, or when the runtime cannot
// tell (no device), a pointer is taken on trust.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace ppkit {

enum class MemoryKind {
  host,     // ordinary or page-locked host memory
  cuda,     // CUDA device memory (cudaMalloc, Kokkos::CudaSpace)
  hip,      // HIP device memory (hipMalloc, Kokkos::HIPSpace)
  managed,  // unified memory, accessible from host and device
};
const char* to_string(MemoryKind kind);

struct DataLocation {
  MemoryKind kind = MemoryKind::host;
  int device = -1;  // device ordinal for cuda/hip, -1 on the host
  // "host memory", "CUDA device 0 memory"
  std::string describe() const;
  bool operator==(const DataLocation& o) const { return kind == o.kind && device == o.device; }
  bool operator!=(const DataLocation& o) const { return !(*this == o); }
};

// Answers where p points, or std::nullopt when its runtime cannot tell.
using PointerInspector = std::function<std::optional<DataLocation>(const void* p)>;
// Called by a native backend's registration (once per backend).
void add_pointer_inspector(PointerInspector inspector);
// Where the registered runtimes say p points (std::nullopt: none can tell).
std::optional<DataLocation> locate_pointer(const void* p);

// Throws ppkit::Error naming `argument` when p is NULL (and count > 0), or
// when a runtime reports it in memory that `expected` cannot use: host
// memory for a device operator, device memory for a host operator, another
// device's memory. Managed memory is accepted everywhere.
void check_pointer(const void* p, std::size_t count, const DataLocation& expected,
                   const char* argument);

}  // namespace ppkit
