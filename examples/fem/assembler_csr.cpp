// A host code's own CSR solver fed by ppkit::fem::Assembler: a steel
// cantilever (a 12 x 3 x 3 box of hex8 elements, clamped at x = 0, loaded by
// its weight) is assembled once, solved with a CG written here on the
// assembler's CSR pattern and values, then re-assembled for a moved mesh and
// another material, as a nonlinear solver would each step, and solved again.
//
// The pattern (row_offsets(), column_indices()) and the values live in
// K.memory(): on a host build they are the arrays this code's CSR reads,
// without a copy; a GPU code would hand the same device pointers to cuSPARSE
// (cusparseCreateCsr) or a KokkosSparse::CrsMatrix. Here a device assembler's
// arrays are copied to the host for the host CG.
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "ppkit/core/device_memory.hpp"
#include "ppkit/core/runtime.hpp"
#include "ppkit/fem/assembler.hpp"

namespace {

// The host code's own matrix type and solver.
struct Csr {
  std::int64_t rows = 0;
  const std::int64_t* row_offsets = nullptr;
  const std::int32_t* columns = nullptr;
  const double* values = nullptr;
};

void spmv(const Csr& A, const std::vector<double>& x, std::vector<double>& y) {
  for (std::int64_t r = 0; r < A.rows; ++r) {
    double sum = 0;
    for (std::int64_t k = A.row_offsets[r]; k < A.row_offsets[r + 1]; ++k)
      sum += A.values[k] * x[A.columns[k]];
    y[r] = sum;
  }
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// CG on the free DOFs (fixed[i] = 1: u_i = 0, clamped), from u = 0; returns
// the iterations taken to reduce the residual by `tolerance`.
int conjugate_gradient(const Csr& A, const std::vector<double>& f,
                       const std::vector<unsigned char>& fixed, std::vector<double>& u,
                       double tolerance, int max_iterations) {
  const std::size_t n = f.size();
  std::vector<double> r(n), p(n), Ap(n);
  u.assign(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) r[i] = fixed[i] ? 0.0 : f[i];
  p = r;
  double rr = dot(r, r);
  const double stop = tolerance * tolerance * rr;
  for (int k = 1; k <= max_iterations; ++k) {
    spmv(A, p, Ap);
    for (std::size_t i = 0; i < n; ++i)
      if (fixed[i]) Ap[i] = 0.0;
    const double alpha = rr / dot(p, Ap);
    for (std::size_t i = 0; i < n; ++i) {
      u[i] += alpha * p[i];
      r[i] -= alpha * Ap[i];
    }
    const double rr_next = dot(r, r);
    if (k % 50 == 0) std::printf("  CG iteration %3d: |r| = %.3e\n", k, std::sqrt(rr_next));
    if (rr_next <= stop) return k;
    for (std::size_t i = 0; i < n; ++i) p[i] = r[i] + rr_next / rr * p[i];
    rr = rr_next;
  }
  return max_iterations;
}

}  // namespace

int main(int argc, char* argv[]) {
  ppkit::Runtime runtime(argc, argv);
  // The mesh: nodes (i, j, k) of a 12 x 3 x 3 box, 2.4 x 0.3 x 0.3 m.
  constexpr int NX = 12, NY = 3, NZ = 3;
  const double h = 0.1;
  const auto node = [](int i, int j, int k) { return i + (NX + 1) * (j + (NY + 1) * k); };
  std::vector<double> xyz(3 * (NX + 1) * (NY + 1) * (NZ + 1));
  for (int k = 0; k <= NZ; ++k)
    for (int j = 0; j <= NY; ++j)
      for (int i = 0; i <= NX; ++i) {
        xyz[3 * node(i, j, k)] = 2 * h * i;
        xyz[3 * node(i, j, k) + 1] = h * j;
        xyz[3 * node(i, j, k) + 2] = h * k;
      }
  std::vector<std::int32_t> connectivity;  // Gmsh order: bottom face, then top face
  for (int k = 0; k < NZ; ++k)
    for (int j = 0; j < NY; ++j)
      for (int i = 0; i < NX; ++i)
        for (const auto& c : {std::array<int, 3>{0, 0, 0},
                              {1, 0, 0},
                              {1, 1, 0},
                              {0, 1, 0},
                              {0, 0, 1},
                              {1, 0, 1},
                              {1, 1, 1},
                              {0, 1, 1}})
          connectivity.push_back(node(i + c[0], j + c[1], k + c[2]));
  const std::int64_t nodes = std::int64_t(xyz.size() / 3);
  const std::int64_t elements = std::int64_t(connectivity.size() / 8);

  // Pattern and set-up once; values and load written into arrays in K.memory().
  ppkit::fem::Assembler K({nodes, xyz.data(), elements, connectivity.data()});
  const ppkit::DataLocation where = K.memory();
  std::printf("variant %s, %s: %lld rows, %lld nonzeros\n", K.variant().c_str(),
              where.describe().c_str(), (long long)K.num_rows(), (long long)K.num_nonzeros());
  ppkit::ArrayIn<double> values(where, std::size_t(K.num_nonzeros())),
      load(where, std::size_t(K.num_rows()));

  // The host CSR: the assembler's own arrays on the host, copies otherwise.
  const bool on_host = where.kind == ppkit::MemoryKind::host;
  std::vector<std::int64_t> host_offsets;
  std::vector<std::int32_t> host_columns;
  std::vector<double> host_values, f(std::size_t(K.num_rows()));
  Csr A;
  A.rows = K.num_rows();
  if (on_host) {
    A.row_offsets = K.row_offsets();
    A.columns = K.column_indices();
    A.values = values.data();
  } else {
    host_offsets.resize(std::size_t(K.num_rows() + 1));
    host_columns.resize(std::size_t(K.num_nonzeros()));
    host_values.resize(std::size_t(K.num_nonzeros()));
    ppkit::copy_from(where, host_offsets.data(), K.row_offsets(),
                     host_offsets.size() * sizeof(std::int64_t));
    ppkit::copy_from(where, host_columns.data(), K.column_indices(),
                     host_columns.size() * sizeof(std::int32_t));
    A.row_offsets = host_offsets.data();
    A.columns = host_columns.data();
    A.values = host_values.data();
  }
  std::vector<unsigned char> fixed(std::size_t(K.num_rows()), 0);
  for (std::int64_t v = 0; v < nodes; ++v)
    if (xyz[3 * v] == 0.0) fixed[3 * v] = fixed[3 * v + 1] = fixed[3 * v + 2] = 1;

  // Two "steps": steel on the straight beam, then a softer alloy on the beam
  // bent upwards by 5 cm at its tip (same connectivity: no new pattern).
  const struct { double E, nu, rho; } steps[2] = {{2.1e11, 0.3, 7850}, {0.7e11, 0.33, 2700}};
  for (int step = 0; step < 2; ++step) {
    if (step == 1) {
      std::vector<double> moved = xyz;
      for (std::int64_t v = 0; v < nodes; ++v) {
        const double s = xyz[3 * v] / (2 * h * NX);
        moved[3 * v + 2] += 0.05 * s * s;
      }
      K.update_coordinates(moved.data());
    }
    K.assemble(steps[step].E, steps[step].nu, {0.0, 0.0, -9.81 * steps[step].rho}, values.data(),
               load.data());
    K.wait();
    ppkit::copy_from(where, f.data(), load.data(), f.size() * sizeof(double));
    if (!on_host)
      ppkit::copy_from(where, host_values.data(), values.data(),
                       host_values.size() * sizeof(double));
    std::vector<double> u;
    const int iterations = conjugate_gradient(A, f, fixed, u, 1e-10, 2000);
    double tip = 0;
    for (int k = 0; k <= NZ; ++k)
      for (int j = 0; j <= NY; ++j) tip += u[3 * node(NX, j, k) + 2];
    // Euler-Bernoulli beam under its weight q = rho g A: q L^4 / (8 E I);
    // hex8 elements three deep are stiffer in bending, so below it.
    const double L = 2 * h * NX, b = h * NY, d = h * NZ;
    const double beam =
        9.81 * steps[step].rho * b * d * std::pow(L, 4) / (8 * steps[step].E * b * d * d * d / 12);
    std::printf("step %d: E = %.2e Pa, CG %d iterations, mean tip deflection %.4e m (beam %.4e)\n",
                step, steps[step].E, iterations, -tip / ((NY + 1) * (NZ + 1)), beam);
  }
  return 0;
}
