#include "ppkit/sem/axhelm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "ppkit/core/error.hpp"
#include "ppkit/sem/geometry.hpp"
#include "ppkit/sem/gll.hpp"

namespace ppkit::sem {

Equation parse_equation(const std::string& s) {
  if (s == "poisson") return Equation::poisson;
  if (s == "helmholtz") return Equation::helmholtz;
  throw Error("unknown equation '" + s + "'", "poisson, helmholtz");
}

const char* to_string(Equation e) { return e == Equation::poisson ? "poisson" : "helmholtz"; }

std::int64_t AxhelmProblem::trilinear_elements() const {
  return std::count(trilinear.begin(), trilinear.end(), std::uint8_t(1));
}

AxhelmProblem make_axhelm_problem(const BoxMesh& mesh, const AxhelmSettings& s, unsigned seed) {
  require(s.ncol == 1 || s.ncol == 3, fmt::format("ncol = {} is not supported", s.ncol), "1 or 3");
  require(std::isfinite(s.lambda0) && std::isfinite(s.lambda1),
          "lambda0 and lambda1 must be finite numbers");
  AxhelmProblem p;
  p.order = mesh.order;
  p.elements = mesh.elements();
  p.ncol = s.ncol;
  p.equation = s.equation;
  p.lambda0 = s.equation == Equation::helmholtz ? s.lambda0 : 1.0;
  p.lambda1 = s.equation == Equation::helmholtz ? s.lambda1 : 0.0;
  const GllRule gll = make_gll_rule(mesh.order);
  p.nodes = gll.nodes;
  p.weights = gll.weights;
  p.derivative = gll.derivative;
  p.vertices = mesh.vertices;
  p.trilinear = mesh.trilinear;
  p.factors = compute_geometric_factors(mesh);
  p.x.resize(std::size_t(s.ncol) * mesh.local_count());
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (auto& v : p.x) v = uniform(rng);
  return p;
}

void validate_axhelm_problem(const AxhelmProblem& p) {
  require_valid_order(p.order);
  require(p.elements > 0, fmt::format("the mesh has {} elements", p.elements), "E >= 1");
  require(p.ncol == 1 || p.ncol == 3, fmt::format("ncol = {} is not supported", p.ncol), "1 or 3");
  const std::size_t nq = p.nq(), np = p.np(), E = p.elements;
  auto size_ok = [](const char* what, std::size_t got, std::size_t want) {
    require(got == want, fmt::format("axhelm problem: {} has {} values", what, got),
            fmt::format("{}", want));
  };
  size_ok("nodes", p.nodes.size(), nq);
  size_ok("weights", p.weights.size(), nq);
  size_ok("derivative", p.derivative.size(), nq * nq);
  size_ok("vertices", p.vertices.size(), E * 24);
  size_ok("trilinear", p.trilinear.size(), E);
  size_ok("factors", p.factors.size(), E * factors_per_node * np);
  // An empty x prepares an operator (AxhelmApplier) with no input of its own.
  if (!p.x.empty()) size_ok("x", p.x.size(), std::size_t(p.ncol) * E * np);
}

std::vector<double> axhelm_reference(const AxhelmProblem& p) {
  validate_axhelm_problem(p);
  const int nq = p.nq(), np = p.np();
  const std::size_t stride = std::size_t(p.local_count());
  auto D = [&](int a, int b) { return p.derivative[a * nq + b]; };
  auto at = [nq](int i, int j, int k) { return i + nq * (j + nq * k); };
  std::vector<double> y(p.x.size());
  std::vector<double> ur(np), us(np), ut(np);
  for (std::int64_t e = 0; e < p.elements; ++e) {
    const double* g = &p.factors[std::size_t(e) * factors_per_node * np];
    for (int c = 0; c < p.ncol; ++c) {
      const double* u = &p.x[c * stride + std::size_t(e) * np];
      double* out = &y[c * stride + std::size_t(e) * np];
      // 1. Reference gradient (u_r, u_s, u_t) at every node.
      for (int k = 0; k < nq; ++k)
        for (int j = 0; j < nq; ++j)
          for (int i = 0; i < nq; ++i) {
            double dr = 0, ds = 0, dt = 0;
            for (int m = 0; m < nq; ++m) {
              dr += D(i, m) * u[at(m, j, k)];
              ds += D(j, m) * u[at(i, m, k)];
              dt += D(k, m) * u[at(i, j, m)];
            }
            // 2. Multiply by lambda0 G (symmetric 3x3).
            const int n = at(i, j, k);
            const double g00 = g[G00 * np + n], g01 = g[G01 * np + n], g02 = g[G02 * np + n];
            const double g11 = g[G11 * np + n], g12 = g[G12 * np + n], g22 = g[G22 * np + n];
            ur[n] = p.lambda0 * (g00 * dr + g01 * ds + g02 * dt);
            us[n] = p.lambda0 * (g01 * dr + g11 * ds + g12 * dt);
            ut[n] = p.lambda0 * (g02 * dr + g12 * ds + g22 * dt);
          }
      // 3. Transposed gradient: out_ijk = sum_m D_mi ur_mjk + D_mj us_imk + D_mk ut_ijm.
      for (int k = 0; k < nq; ++k)
        for (int j = 0; j < nq; ++j)
          for (int i = 0; i < nq; ++i) {
            double sum = 0;
            for (int m = 0; m < nq; ++m)
              sum +=
                  D(m, i) * ur[at(m, j, k)] + D(m, j) * us[at(i, m, k)] + D(m, k) * ut[at(i, j, m)];
            const int n = at(i, j, k);
            if (p.helmholtz()) sum += p.lambda1 * g[GWJ * np + n] * u[n];
            out[n] = sum;
          }
    }
  }
  return y;
}

AxhelmCost axhelm_cost_stored(const AxhelmProblem& p) {
  const double nq = p.nq(), np = p.np(), E = double(p.elements), ncol = p.ncol;
  AxhelmCost c;
  const double per_field = 12 * nq * np + 15 * np + (p.helmholtz() ? 5 * np : 0);
  c.flops_ax = E * ncol * per_field;
  c.flops_geo = 0;
  c.bytes = E * 8.0 * (2 * ncol * np + (p.helmholtz() ? 7 : 6) * np);
  c.dofs = E * ncol * double(p.order) * p.order * p.order;
  return c;
}

AxhelmCost axhelm_cost_trilinear(const AxhelmProblem& p) {
  const double nq = p.nq(), np = p.np(), E = double(p.elements), ncol = p.ncol;
  const double tri = double(p.trilinear_elements()), other = E - tri;
  AxhelmCost c = axhelm_cost_stored(p);
  // Recompute, as counted in the kernels (axhelm_kokkos.hpp, axhelm_cuda.cu):
  //  per element: 8 coefficient vectors from 8 vertices (8 * 3 * 8 adds/mults = 192);
  //  per (i,j) column: E0, E1, F0, F1 (4 * 6) and J_t (3 * 7) = 45, plus w_i w_j = 1;
  //  per node: J_r, J_s (12), three cross products (27), |J| (5), 1/|J| and weight (3),
  //  six dot products (30) and six scalings (6) = 83; Helmholtz: w|J| (2).
  const double per_node = 83 + (p.helmholtz() ? 2 : 0);
  c.flops_geo = tri * (192 + 46 * nq * nq + per_node * np);
  c.bytes = E * 8.0 * 2 * ncol * np + tri * 8.0 * 24 + other * 8.0 * (p.helmholtz() ? 7 : 6) * np;
  return c;
}

AxhelmCost axhelm_cost_partial(const AxhelmProblem& p) {
  const double nq = p.nq(), np = p.np(), E = double(p.elements), ncol = p.ncol;
  const double tri = double(p.trilinear_elements()), other = E - tri;
  AxhelmCost c = axhelm_cost_stored(p);
  // Per node: J_r, J_s (12), three cross products (27), six dot products (30)
  // and six scalings (6) = 75; Helmholtz: |J| (5) and w|J| (3).
  const double per_node = 75 + (p.helmholtz() ? 8 : 0);
  c.flops_geo = tri * (192 + 46 * nq * nq + per_node * np);
  c.bytes =
      E * 8.0 * 2 * ncol * np + tri * 8.0 * (24 + np) + other * 8.0 * (p.helmholtz() ? 7 : 6) * np;
  return c;
}

const char* to_string(GeometryCost g) {
  switch (g) {
    case GeometryCost::recompute:
      return "recompute";
    case GeometryCost::partial:
      return "partial";
    case GeometryCost::stored:
      break;
  }
  return "stored";
}

AxhelmCost axhelm_cost_for(const AxhelmProblem& p, GeometryCost kind) {
  switch (kind) {
    case GeometryCost::recompute:
      return axhelm_cost_trilinear(p);
    case GeometryCost::partial:
      return axhelm_cost_partial(p);
    case GeometryCost::stored:
      break;
  }
  return axhelm_cost_stored(p);
}

}  // namespace ppkit::sem
