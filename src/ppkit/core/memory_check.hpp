#pragma once
// Memory checks before allocation (docs/reliability.md). An operation may state
// how many bytes a problem needs on the device (set_bytes_model<Op>); every
// variant's prepare() then first compares that with what its device has free
// (cudaMemGetInfo, hipMemGetInfo, CL_DEVICE_GLOBAL_MEM_SIZE, or the host's
// MemAvailable for the CPU backends) and throws a ppkit::Error saying how much
// it needs and how much is free, before anything is allocated. The wrapper is
// installed once, in Registry<Op>::add (registry.hpp).
#include <functional>
#include <optional>
#include <string>

#include "ppkit/core/data_location.hpp"

namespace ppkit::memory {

struct DeviceMemory {
  bool known = false;     // false: the backend cannot say, no check is made
  double free_bytes = 0;  // free now (OpenCL: the device's global memory size)
  double total_bytes = 0;
  std::string device;  // "NVIDIA H200", "host"
};

// Backends (or the Kokkos spaces) say how to ask their device; a backend
// without a probe whose variants keep their data in host memory (the Kokkos
// host spaces) uses the host's MemAvailable. "host" names the host itself.
using Probe = std::function<DeviceMemory()>;
void set_probe(const std::string& backend, Probe probe);
DeviceMemory free_memory(const std::string& backend,
                         const std::optional<MemoryKind>& memory = std::nullopt);
DeviceMemory host_memory();  // MemAvailable and MemTotal of /proc/meminfo

// While it lives, the checks see a host with `bytes` free (and in all): for a
// host code that keeps memory for itself, and for tests and fuzzers that show
// a problem is refused before allocation on any machine. Not nested.
class HostMemoryLimit {
 public:
  explicit HostMemoryLimit(double bytes);
  ~HostMemoryLimit();  // back to /proc/meminfo
  HostMemoryLimit(const HostMemoryLimit&) = delete;
  HostMemoryLimit& operator=(const HostMemoryLimit&) = delete;
};

// Throws ppkit::Error "<what> needs X GiB on <device>, which has Y GiB free (of Z GiB)"
// when bytes > free; does nothing when the backend's memory is unknown.
void require_fits(const std::string& what, double bytes, const std::string& backend,
                  const std::optional<MemoryKind>& memory = std::nullopt);
std::string format_bytes(double bytes);

// Bytes an operation's problem needs on the device (a lower bound: what the
// largest arrays take), declared by the workload; empty: not checked.
template <class Op>
using BytesModel = std::function<double(const typename Op::Problem&)>;
template <class Op>
BytesModel<Op>& bytes_model() {
  static BytesModel<Op> model;
  return model;
}
template <class Op>
void set_bytes_model(BytesModel<Op> model) {
  bytes_model<Op>() = std::move(model);
}
// `memory`: where the variant keeps its data (VariantInfo::memory).
template <class Op>
void check_fits(const std::string& variant, const std::string& backend,
                const std::optional<MemoryKind>& memory, const typename Op::Problem& problem) {
  const auto& model = bytes_model<Op>();
  if (model)
    require_fits(std::string(Op::name) + " on " + variant, model(problem), backend, memory);
}

}  // namespace ppkit::memory
