#pragma once
// The paper's cantilever (Kiran et al. 2019, section 5): a beam of equal-sided
// bricks along x, fixed at x = 0 (all DOFs of the "fixed" nodes), a total
// load P in -z spread over the free end x = L as a uniform traction
// (consistent nodal forces), solved with Jacobi-preconditioned CG. The tip
// deflection is compared with Timoshenko beam theory:
//   delta = P L^3 / (3 E I) + P L / (kappa G A),  I = b h^3 / 12, A = b h,
//   kappa = 10 (1 + nu) / (12 + 11 nu) (Cowper's rectangular section).
#include <array>
#include <string>
#include <vector>

#include "ppkit/fem/assemble.hpp"
#include "ppkit/fem/cg_solver.hpp"

namespace ppkit::fem {

struct CantileverSpec {
  std::array<int, 3> elements{40, 4, 4};       // along x (length), y (width b), z (height h)
  std::array<double, 3> size{10.0, 1.0, 1.0};  // L, b, h
  double youngs_modulus = 2.0e11;              // Pa (steel)
  double poisson_ratio = 0.3;
  double load = 1.0e5;           // N, total, in -z at x = L
  std::string variant = "auto";  // fem.assemble variant
  CgOptions cg;
};

struct CantileverResult {
  AssemblyProblem problem;
  std::vector<double> displacement;  // 3 per node
  double tip_deflection = 0;         // mean -u_z over the nodes at x = L
  double theory = 0;                 // Timoshenko
  double relative_error = 0;         // |tip - theory| / theory
  CgResult cg;
  std::string variant;  // the assembly variant used
  double assembly_seconds = 0, solve_seconds = 0;
};

double timoshenko_tip_deflection(const CantileverSpec& spec);
CantileverResult solve_cantilever(const CantileverSpec& spec);

}  // namespace ppkit::fem
