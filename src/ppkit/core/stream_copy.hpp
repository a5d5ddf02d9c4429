#pragma once
// The memory-bandwidth probe: copy N doubles from one device buffer to another
// (STREAM "copy"; bytes moved = 2 * 8 * N: one read, one write). Every backend
// registers a variant, so roofline fractions use bandwidth measured in the
// same run on the same device.
#include <cstddef>
#include <string>
#include <vector>

#include "ppkit/core/registry.hpp"

namespace ppkit {

struct StreamCopy {
  static constexpr const char* name = "core.stream-copy";
  struct Problem {
    std::vector<double> source;
  };
  using Result = std::vector<double>;
  static double bytes_moved(const Problem& p) { return 2.0 * sizeof(double) * p.source.size(); }
};

// Seeded random source of n doubles (never zeros: they hide unwritten output).
StreamCopy::Problem make_stream_copy_problem(std::size_t n, unsigned seed);

// Median copy bandwidth in bytes/s of one variant over `repeats` runs.
double measure_copy_bandwidth(const Variant<StreamCopy>& variant, std::size_t n_doubles,
                              int repeats);

// Copy bandwidth in bytes/s of a backend's device with n_doubles per buffer,
// measured once per process (median of 5) with the backend's StreamCopy
// variant and kept; NaN when the backend has no runnable probe or it failed.
double backend_copy_bandwidth(const std::string& backend, std::size_t n_doubles);

}  // namespace ppkit
