#pragma once
// opencl/blocked-k2, -k4 (fdtd_opencl_blocked.cpp, kernel fdtd_blocked.cl):
// the temporally blocked fdtd.step on ppkit's OpenCL device.
#include <cstddef>

#include "ppkit/fdtd/blocked_step.hpp"

namespace ppkit::fdtd {

// Work-items of a group along z (each a quad of 4 nodes) and along y; 0: the
// device's default (CPUs 1 x 1, GPUs 16 x 8).
struct OpenClGroupShape {
  std::size_t z = 0, y = 0;
};

// Runs `problem` (restart, all its steps) through the OpenCL blocked kernel
// with the given tiling (0: the variant's default) and work-group shape and
// returns the result as the registered variant would. Throws ppkit::Error for
// a feature the blocked update does not run, a tiling that is not valid or
// one whose plane ring does not fit the device's local memory.
FdtdStep::Result run_blocked_on_opencl(const FdtdStep::Problem& problem,
                                       const BlockedTiling& tiling,
                                       const OpenClGroupShape& group = {});

}  // namespace ppkit::fdtd
