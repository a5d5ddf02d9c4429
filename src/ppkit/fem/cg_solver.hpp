#pragma once
// Jacobi-preconditioned conjugate gradients for the assembled stiffness
// matrix on Kokkos' default execution space: Kokkos Kernels spmv and BLAS-1
// where ppkit was built with Kokkos Kernels, otherwise ppkit's own Kokkos
// kernels for the same operations.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ppkit/fem/csr_pattern.hpp"

namespace ppkit::fem {

struct CgOptions {
  double relative_tolerance = 1e-10;  // stop when ||r|| <= tol * ||b||
  int max_iterations = 50000;
  // Called after every iteration with its number (1-based) and ||r|| / ||b||
  // (a progress line); empty: not called.
  std::function<void(int, double)> on_iteration;
};

struct CgResult {
  std::vector<double> solution;
  int iterations = 0;
  double relative_residual = 0;  // ||b - A x|| / ||b|| as tracked by CG
  bool converged = false;
  std::string kernels;  // "Kokkos Kernels spmv + BLAS-1" or "ppkit Kokkos kernels"
};

// Solves A x = b for the symmetric positive definite CSR matrix A.
CgResult solve_jacobi_cg(const CsrPattern& pattern, const std::vector<double>& values,
                         const std::vector<double>& rhs, const CgOptions& options);

// Imposes u = 0 at the given DOFs symmetrically: their rows and columns are
// zeroed, the diagonal keeps its value, the right-hand side is zeroed there.
void apply_zero_dirichlet(const CsrPattern& pattern, std::vector<double>& values,
                          std::vector<double>& rhs, const std::vector<std::int64_t>& fixed_dofs);

}  // namespace ppkit::fem
