#pragma once
// The fields every hand-tuned variant of a vendor backend fills the same way:
// the name "<backend>/<strategy>", the backend, the strategy, the preference
// for "auto" and the backend's availability and device description. The
// backends' factories (cuda::cuda_variant, hip::hip_variant,
// opencl::opencl_variant) call it with their own two functions.
#include <string>
#include <utility>

#include "ppkit/core/registry.hpp"

namespace ppkit {

template <class Op, class AvailabilityFn, class DeviceFn>
Variant<Op> backend_variant(const std::string& backend, const std::string& strategy, int preference,
                            AvailabilityFn availability, DeviceFn device) {
  Variant<Op> v;
  v.name = backend + "/" + strategy;
  v.backend = backend;
  v.strategy = strategy;
  v.preference = preference;
  v.availability = std::move(availability);
  v.device = std::move(device);
  return v;
}

}  // namespace ppkit
