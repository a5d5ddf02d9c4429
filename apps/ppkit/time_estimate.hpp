#pragma once
// The time estimate a long run prints before it starts (docs/cli.md, "Checked
// before the work"): the run's compulsory DRAM traffic over the copy bandwidth
// of the device its variant runs on. Every variant that reads its inputs and
// writes its outputs at least once per step stays above it, so it is a lower
// bound; the progress line gives the expected end from the measured rate.
#include <fmt/format.h>

#include <iostream>
#include <string>

#include "ppkit/core/copy_probe.hpp"
#include "ppkit/core/memory_check.hpp"
#include "ppkit/core/progress.hpp"
#include "ppkit/core/stream_copy.hpp"

namespace ppkit::cli {

// Runs that move less than this finish in seconds on any device and skip the
// bandwidth probe (about 0.1 s on a CPU).
constexpr double kTimeEstimateFromBytes = 1e10;

// Prints `estimate: at least T (B of compulsory traffic at the X GB/s copy
// bandwidth of BACKEND)` when `bytes` reaches kTimeEstimateFromBytes and the
// backend has a copy probe; nothing otherwise.
inline void print_time_estimate(double bytes, const std::string& backend) {
  if (!(bytes >= kTimeEstimateFromBytes)) return;
  const double bandwidth = backend_copy_bandwidth(backend, kCopyProbeMinDoubles);
  if (!(bandwidth > 0)) return;
  const double seconds = bytes / bandwidth;
  std::cout << fmt::format(
      "estimate: at least {} ({} of compulsory traffic at the {:.3g} GB/s copy bandwidth of "
      "{})\n",
      seconds < 100 ? fmt::format("{:.2g} s", seconds) : format_duration(seconds),
      memory::format_bytes(bytes), bandwidth * 1e-9, backend);
}

}  // namespace ppkit::cli
