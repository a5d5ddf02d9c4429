#include "ppkit/sem/nekbone.hpp"

#include <algorithm>
#include <cmath>

#include "ppkit/core/error.hpp"
#include "ppkit/sem/geometry.hpp"

namespace ppkit::sem {

namespace {
constexpr double pi = 3.14159265358979323846;
constexpr double k1 = 1.3 * pi, k2 = 1.1 * pi, k3 = 0.9 * pi;
double exact_solution(double x, double y, double z) {
  return std::sin(k1 * x + 0.2) * std::sin(k2 * y + 0.4) * std::sin(k3 * z + 0.1);
}
}  // namespace

std::vector<double> axhelm_local_diagonal(const AxhelmProblem& p) {
  const int nq = p.nq(), np = p.np();
  auto D = [&](int a, int b) { return p.derivative[a * nq + b]; };
  std::vector<double> diag(p.local_count());
  for (std::int64_t e = 0; e < p.elements; ++e) {
    const double* g = &p.factors[std::size_t(e) * factors_per_node * np];
    auto G = [&](int f, int i, int j, int k) { return g[f * np + i + nq * (j + nq * k)]; };
    for (int k = 0; k < nq; ++k)
      for (int j = 0; j < nq; ++j)
        for (int i = 0; i < nq; ++i) {
          // diag(A) at node p = e_p^T D^T G D e_p: squares of the derivative
          // columns weighted by G_rr, G_ss, G_tt, plus the cross terms at p itself.
          double sum = 0;
          for (int m = 0; m < nq; ++m)
            sum += D(m, i) * D(m, i) * G(G00, m, j, k) + D(m, j) * D(m, j) * G(G11, i, m, k) +
                   D(m, k) * D(m, k) * G(G22, i, j, m);
          sum += 2 * D(i, i) * D(j, j) * G(G01, i, j, k) + 2 * D(i, i) * D(k, k) * G(G02, i, j, k) +
                 2 * D(j, j) * D(k, k) * G(G12, i, j, k);
          double value = p.lambda0 * sum;
          if (p.helmholtz()) value += p.lambda1 * G(GWJ, i, j, k);
          diag[std::size_t(e) * np + i + nq * (j + nq * k)] = value;
        }
  }
  return diag;
}

NekboneProblem make_nekbone_problem(const BoxMesh& mesh, const NekboneSettings& s) {
  require(s.max_iterations >= 1, "--iterations must be at least 1", ">= 1");
  require(s.tolerance >= 0 && s.tolerance < 1, "--tol must be in [0, 1)", "0 <= tol < 1");
  require(s.lambda0 > 0, "lambda0 must be positive for a definite operator", "> 0");
  require(s.equation == Equation::poisson || s.lambda1 >= 0,
          "lambda1 must not be negative (the operator would be indefinite)", ">= 0");
  NekboneProblem p;
  AxhelmSettings as;
  as.equation = s.equation;
  as.ncol = 1;
  as.lambda0 = s.lambda0;
  as.lambda1 = s.lambda1;
  p.op = make_axhelm_problem(mesh, as, 1);
  p.global_ids = mesh.global_ids;
  p.global_count = mesh.global_count;
  p.boundary = mesh.boundary;
  p.max_iterations = s.max_iterations;
  p.tolerance = s.tolerance;
  const std::size_t L = mesh.local_count(), np = mesh.np();
  p.rhs.resize(L);
  p.dirichlet.resize(L);
  p.exact.resize(L);
  const double ksq = k1 * k1 + k2 * k2 + k3 * k3;
  for (std::size_t l = 0; l < L; ++l) {
    const double u =
        exact_solution(mesh.coordinates[l], mesh.coordinates[L + l], mesh.coordinates[2 * L + l]);
    const double f = p.op.lambda0 * ksq * u + p.op.lambda1 * u;
    const std::size_t e = l / np, n = l % np;
    p.rhs[l] = p.op.factors[(e * factors_per_node + GWJ) * np + n] * f;
    p.exact[l] = u;
    p.dirichlet[l] = mesh.boundary[l] ? u : 0.0;
  }
  p.diagonal = axhelm_local_diagonal(p.op);
  return p;
}

double max_error(const NekboneProblem& p, const std::vector<double>& solution) {
  double err = 0;
  for (std::size_t l = 0; l < p.exact.size(); ++l)
    err = std::max(err, std::fabs(solution[l] - p.exact[l]));
  return err;
}

const char* to_string(NekboneLayout layout) {
  return layout == NekboneLayout::assembled ? "assembled" : "local";
}

NekboneCost nekbone_cost(const NekboneProblem& p, GeometryCost geometry, NekboneLayout layout) {
  const AxhelmCost ax = axhelm_cost_for(p.op, geometry);
  const double L = double(p.op.local_count());
  NekboneCost c;
  // Compulsory: the geometry (the axhelm bytes less its X read and Y write per
  // local node), the 4-byte gather-scatter index per local node, and per CG
  // vector value x, r, p read + written, M^-1 and the mask read (6 x 8 + 8 + 1).
  const double geometry_bytes = ax.bytes - 2.0 * 8.0 * double(p.op.ncol) * L;
  const double values = layout == NekboneLayout::assembled ? double(p.global_count) : L;
  c.bytes_per_iteration = geometry_bytes + 4.0 * L + 57.0 * values;
  if (layout == NekboneLayout::assembled) {
    const double G = double(p.global_count), E = double(p.op.elements);
    // The assembled operator (apply_axhelm_assembled, the CUDA kernels'
    // global_of_local): per global node search 3 flops, x and r updates 4,
    // r.r 2, r.z 3; per local node the add into w and x_l y_l (3); per
    // element the add of its dot to p.Ap.
    c.flops_per_iteration = ax.flops_ax + ax.flops_geo + 12 * G + 3 * L + E;
    // axhelm reads a 4-byte index per local node instead of a local value
    // (8 B) and adds into w instead of writing a local result (8 B): p once
    // per global node, w read and written once per global node in L2's
    // atomic adds (24 B); the element dots are atomic adds to device scalars
    // (no DRAM traffic counted); search reads M^-1, r, p and writes p and
    // w = 0 (40 B per global node); update reads x, r, p, w, M^-1 and the
    // interior flag and writes x, r (57 B).
    c.modelled_bytes_per_iteration = ax.bytes + (4.0 - 8.0 - 8.0) * L + (24.0 + 40.0 + 57.0) * G;
    return c;
  }
  // Vector work per iteration on L local values: p = M^-1 r + beta p (3),
  // mask (1), p.w weighted (3), x += alpha p (2), r -= alpha w (2), r.r
  // weighted (3), r.z weighted with z = M^-1 r (4): 18 flops per local node;
  // dssum: 1 per copy.
  c.flops_per_iteration = ax.flops_ax + ax.flops_geo + 18 * L;
  // Bytes: axhelm and, per local node, search (M^-1, r, p read, p written),
  // the gather-scatter with the mask and w.p (w read and written) and update
  // with r.r and r.z (x, p, r, w, c, M^-1 read, x, r written): 14 doubles
  // (nekbone_vectors_kokkos.hpp and nekbone_cuda.cu alike), plus the
  // gather-scatter's indices: a 4-byte local index and per global node two
  // 4-byte offsets (one new per node), the interior flag and p (13 bytes),
  // the per-global-node bytes counted per local node, an upper bound.
  c.modelled_bytes_per_iteration = ax.bytes + (8.0 * 14 + 4.0 + 13.0) * L;
  return c;
}

}  // namespace ppkit::sem
