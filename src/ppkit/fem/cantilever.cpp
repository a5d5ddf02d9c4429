#include "ppkit/fem/cantilever.hpp"

#include <chrono>
#include <cmath>

#include "ppkit/core/error.hpp"
#include "ppkit/core/timing.hpp"

namespace ppkit::fem {

double timoshenko_tip_deflection(const CantileverSpec& s) {
  const double L = s.size[0], b = s.size[1], h = s.size[2], nu = s.poisson_ratio,
               E = s.youngs_modulus;
  const double I = b * h * h * h / 12, A = b * h, G = E / (2 * (1 + nu));
  const double kappa = 10 * (1 + nu) / (12 + 11 * nu);
  return s.load * L * L * L / (3 * E * I) + s.load * L / (kappa * G * A);
}

CantileverResult solve_cantilever(const CantileverSpec& spec) {
  require(spec.load != 0, "cantilever load must not be zero", "P != 0");
  BoxMeshSpec box;
  box.elements = spec.elements;
  box.size = spec.size;
  Material material;
  material.youngs_modulus = spec.youngs_modulus;
  material.poisson_ratio = spec.poisson_ratio;
  CantileverResult out;
  out.problem = make_assembly_problem(make_box_mesh(box), material);
  const auto& mesh = out.problem.mesh;

  const auto& variant = Registry<FemAssemble>::find_available(spec.variant);
  out.variant = variant.name;
  auto run = variant.prepare(out.problem);
  auto start = std::chrono::steady_clock::now();
  run->run();
  out.assembly_seconds = seconds_since(start);
  AssemblyResult system = run->result();

  // End load: uniform traction over the face x = L, as consistent nodal forces
  // of the bilinear face quadrilaterals (weight 1/4 per corner per face).
  const int nx = spec.elements[0], ny = spec.elements[1], nz = spec.elements[2];
  std::vector<double> rhs(mesh.num_dofs(), 0.0);  // body force is zero
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j) {
      const double wy = (j == 0 || j == ny ? 0.5 : 1.0) / ny,
                   wz = (k == 0 || k == nz ? 0.5 : 1.0) / nz;
      const std::int64_t node = nx + std::int64_t(nx + 1) * (j + std::int64_t(ny + 1) * k);
      rhs[3 * node + 2] = -spec.load * wy * wz;
    }
  std::vector<std::int64_t> fixed;
  for (auto v : mesh.node_groups.at("fixed"))
    for (int i = 0; i < 3; ++i) fixed.push_back(3 * std::int64_t(v) + i);
  apply_zero_dirichlet(out.problem.pattern, system.values, rhs, fixed);

  start = std::chrono::steady_clock::now();
  out.cg = solve_jacobi_cg(out.problem.pattern, system.values, rhs, spec.cg);
  out.solve_seconds = seconds_since(start);
  out.displacement = out.cg.solution;
  if (!out.cg.converged)
    throw Error("CG did not converge in " + std::to_string(out.cg.iterations) +
                    " iterations (relative residual " + std::to_string(out.cg.relative_residual) +
                    ")",
                "more iterations or a looser tolerance");
  double sum = 0;
  const auto& loaded = mesh.node_groups.at("loaded");
  for (auto v : loaded) sum += -out.displacement[3 * std::int64_t(v) + 2];
  out.tip_deflection = sum / double(loaded.size());
  out.theory = timoshenko_tip_deflection(spec);
  out.relative_error = std::fabs(out.tip_deflection - out.theory) / std::fabs(out.theory);
  return out;
}

}  // namespace ppkit::fem
