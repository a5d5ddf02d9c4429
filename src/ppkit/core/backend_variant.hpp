#pragma once
// The fields every hand-tuned variant of a vendor backend fills the same way:
// the name "<backend>/<strategy>", the backend, the strategy, the common
// traits (variant_traits.hpp: the vendor programming model, where the data
// lives, the tier for "auto") and the backend's availability and device
// description. The backends' factories (cuda::cuda_variant, hip::hip_variant,
// opencl::opencl_variant) call it with their VendorBackend and two functions;
// the registration gives the strategy, its rank for "auto" and any role or
// operation traits.
#include <optional>
#include <string>
#include <utility>

#include "ppkit/core/registry.hpp"

namespace ppkit {

struct VendorBackend {
  const char* name;                  // "cuda"
  AutoTier tier;                     // device_native for CUDA and HIP
  std::optional<MemoryKind> memory;  // where its buffers live; none for OpenCL
};

template <class Op, class AvailabilityFn, class DeviceFn>
Variant<Op> backend_variant(const VendorBackend& backend, const std::string& strategy, int rank,
                            AvailabilityFn availability, DeviceFn device) {
  Variant<Op> v;
  v.name = std::string(backend.name) + "/" + strategy;
  v.backend = backend.name;
  v.strategy = strategy;
  v.model = ProgrammingModel::vendor;
  v.memory = backend.memory;
  v.preference = AutoPreference{backend.tier, rank};
  v.availability = std::move(availability);
  v.device = std::move(device);
  return v;
}

}  // namespace ppkit
