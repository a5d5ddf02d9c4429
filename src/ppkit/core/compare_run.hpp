#pragma once
// `ppkit compare` as a library call (the Python package's ppkit.compare):
// runs the selected workloads' cases and returns every row, a workload that
// throws giving one ERROR row.
#include <vector>

#include "ppkit/core/compare.hpp"

namespace ppkit {

// Throws ppkit::Error for an unknown workload name (listing the built ones).
std::vector<CompareRow> run_compare(const CompareOptions& options);

}  // namespace ppkit
