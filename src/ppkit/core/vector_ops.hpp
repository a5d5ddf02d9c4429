#pragma once
// The vector operations a host code's own Krylov solver needs on arrays in
// an operator's memory, for callers that have no device runtime of their own
// (the C, Fortran and Python APIs: ppkit_dot, ppkit_axpby). Kokkos kernels on
// the space of that memory (kokkos_instances.hpp).
#include <cstddef>

#include "ppkit/core/data_location.hpp"

namespace ppkit {

// sum x_i y_i w_i over n values in `where` (w nullptr: 1); waits for the result.
double dot(const DataLocation& where, std::size_t n, const double* x, const double* y,
           const double* w = nullptr);
// y <- alpha x + beta y over n values in `where` (waits for completion).
void axpby(const DataLocation& where, std::size_t n, double alpha, const double* x, double beta,
           double* y);

}  // namespace ppkit
