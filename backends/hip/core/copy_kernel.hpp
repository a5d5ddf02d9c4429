#pragma once
// Host entry of the HIP copy kernel (copy_kernel.hip): host glue compiled by the
// C++ compiler calls it without seeing device code.
#include <cstddef>

namespace ppkit::hip {

// destination[i] = source[i] for i < n by a grid-stride kernel on the null
// stream; returns after the launch (the caller synchronises). Throws
// ppkit::Error on a launch failure.
void launch_copy_kernel(const double* source, double* destination, std::size_t n);

}  // namespace ppkit::hip
