#include "ppkit/fem/cg_solver.hpp"

#include <Kokkos_Core.hpp>
#include <cmath>

#include "ppkit/core/error.hpp"
#include "ppkit/core/health_kokkos.hpp"
#include "ppkit/core/kokkos_math.hpp"

#if defined(PPKIT_HAVE_KOKKOSKERNELS)
#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_mult.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>
#endif

namespace ppkit::fem {
namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;
using Vector = Kokkos::View<double*, Mem>;

template <class T>
Kokkos::View<T*, Mem> to_device(const std::vector<T>& host, const char* label) {
  Kokkos::View<T*, Mem> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)),
                          host.size());
  Kokkos::deep_copy(
      d, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
             host.data(), host.size()));
  return d;
}

// The operations CG needs, on one of two implementations.
struct Operations {
  Kokkos::View<std::int64_t*, Mem> row_offsets;
  Kokkos::View<std::int32_t*, Mem> columns;
  Kokkos::View<double*, Mem> values;
  std::int64_t rows = 0;
#if defined(PPKIT_HAVE_KOKKOSKERNELS)
  using Matrix =
      KokkosSparse::CrsMatrix<double, std::int32_t, Kokkos::Device<Exec, Mem>, void, std::int64_t>;
  Matrix matrix;
  static const char* name() { return "Kokkos Kernels spmv + BLAS-1"; }
  void finish_setup() {
    matrix = Matrix("K", std::int32_t(rows), std::int32_t(rows), std::int64_t(values.extent(0)),
                    values, row_offsets, columns);
  }
  void spmv(const Vector& x, const Vector& y) const {
    KokkosSparse::spmv("N", 1.0, matrix, x, 0.0, y);
  }
  double dot(const Vector& a, const Vector& b) const { return KokkosBlas::dot(a, b); }
  // y = alpha x + beta y
  void axpby(double alpha, const Vector& x, double beta, const Vector& y) const {
    KokkosBlas::axpby(alpha, x, beta, y);
  }
  // z = d .* r
  void multiply(const Vector& d, const Vector& r, const Vector& z) const {
    KokkosBlas::mult(0.0, z, 1.0, d, r);
  }
#else
  static const char* name() { return "ppkit Kokkos kernels"; }
  void finish_setup() {}
  void spmv(const Vector& x, const Vector& y) const {
    auto ro = row_offsets;
    auto ci = columns;
    auto v = values;
    Kokkos::parallel_for(
        "fem cg spmv", Kokkos::RangePolicy<Exec>(0, rows), KOKKOS_LAMBDA(const std::int64_t r) {
          double sum = 0;
          for (std::int64_t k = ro(r); k < ro(r + 1); ++k) sum += v(k) * x(ci(k));
          y(r) = sum;
        });
  }
  double dot(const Vector& a, const Vector& b) const {
    double sum = 0;
    Kokkos::parallel_reduce(
        "fem cg dot", Kokkos::RangePolicy<Exec>(0, a.extent(0)),
        KOKKOS_LAMBDA(const std::int64_t i, double& s) { s += a(i) * b(i); }, sum);
    return sum;
  }
  void axpby(double alpha, const Vector& x, double beta, const Vector& y) const {
    Kokkos::parallel_for(
        "fem cg axpby", Kokkos::RangePolicy<Exec>(0, x.extent(0)),
        KOKKOS_LAMBDA(const std::int64_t i) { y(i) = alpha * x(i) + beta * y(i); });
  }
  void multiply(const Vector& d, const Vector& r, const Vector& z) const {
    Kokkos::parallel_for(
        "fem cg jacobi", Kokkos::RangePolicy<Exec>(0, r.extent(0)),
        KOKKOS_LAMBDA(const std::int64_t i) { z(i) = d(i) * r(i); });
  }
#endif
};

}  // namespace

CgResult solve_jacobi_cg(const CsrPattern& pattern, const std::vector<double>& values,
                         const std::vector<double>& rhs, const CgOptions& options) {
  require(std::int64_t(values.size()) == pattern.num_nonzeros(),
          "CG: CSR values do not match the pattern");
  require(std::int64_t(rhs.size()) == pattern.num_rows,
          "CG: right-hand side size does not match the matrix");
  require(pattern.num_rows < (std::int64_t(1) << 31), "CG: too many rows", "fewer than 2^31");
  const std::int64_t n = pattern.num_rows;
  // Jacobi preconditioner: inverse diagonal (host, once).
  std::vector<double> inverse_diagonal(n, 0.0);
  for (std::int64_t r = 0; r < n; ++r)
    for (auto k = pattern.row_offsets[r]; k < pattern.row_offsets[r + 1]; ++k)
      if (pattern.column_indices[k] == r) {
        require(values[k] > 0,
                "CG: diagonal entry of row " + std::to_string(r) + " is not positive",
                "a symmetric positive definite matrix (are rigid-body modes constrained?)");
        inverse_diagonal[r] = 1.0 / values[k];
      }
  Operations op;
  op.rows = n;
  op.row_offsets = to_device(pattern.row_offsets, "cg row offsets");
  op.columns = to_device(pattern.column_indices, "cg columns");
  op.values = to_device(values, "cg values");
  op.finish_setup();
  const Vector b = to_device(rhs, "cg b"), dinv = to_device(inverse_diagonal, "cg dinv");
  Vector x("cg x", n), r("cg r", n), z("cg z", n), p("cg p", n), Ap("cg Ap", n);

  CgResult result;
  result.kernels = Operations::name();
  Kokkos::deep_copy(r, b);  // x = 0: r = b
  const double b_norm = std::sqrt(op.dot(b, b));
  // Numerical health: a non-finite input or iterate stops the solve naming the
  // iteration and the DOF (node = DOF / 3, component = DOF % 3).
  auto fail_if_faulty = [&](const Vector& v, const char* what, int iteration) {
    const std::int64_t dof = health::first_faulty<Exec>(v);
    if (dof < 0) return;
    double value = 0;
    Kokkos::deep_copy(value, Kokkos::subview(v, dof));
    throw Error("CG " + std::string(what) + " is " + std::to_string(value) + " at iteration " +
                    std::to_string(iteration) + ", DOF " + std::to_string(dof) + " (node " +
                    std::to_string(dof / 3) + ", component " + "xyz"[dof % 3] + ")",
                "finite matrix and right-hand side entries (check the material and loads)");
  };
  if (!std::isfinite(b_norm)) fail_if_faulty(b, "right-hand side", 0);
  if (b_norm == 0) {
    result.solution.assign(n, 0.0);
    result.converged = true;
    return result;
  }
  op.multiply(dinv, r, z);
  Kokkos::deep_copy(p, z);
  double rz = op.dot(r, z);
  double r_norm = b_norm;
  for (int it = 0; it < options.max_iterations; ++it) {
    op.spmv(p, Ap);
    const double pAp = op.dot(p, Ap);
    if (!std::isfinite(pAp)) fail_if_faulty(Ap, "A p", it);
    if (!(pAp > 0))
      throw Error("CG broke down at iteration " + std::to_string(it) +
                      " (p.Ap = " + std::to_string(pAp) + ")",
                  "a symmetric positive definite matrix");
    const double alpha = rz / pAp;
    op.axpby(alpha, p, 1.0, x);
    op.axpby(-alpha, Ap, 1.0, r);
    r_norm = std::sqrt(op.dot(r, r));
    result.iterations = it + 1;
    if (!std::isfinite(r_norm)) fail_if_faulty(r, "residual", it + 1);
    if (options.on_iteration) options.on_iteration(it + 1, r_norm / b_norm);
    if (r_norm <= options.relative_tolerance * b_norm) {
      result.converged = true;
      break;
    }
    op.multiply(dinv, r, z);
    const double rz_next = op.dot(r, z);
    op.axpby(1.0, z, rz_next / rz, p);  // p = z + beta p
    rz = rz_next;
  }
  result.relative_residual = r_norm / b_norm;
  result.solution.resize(n);
  Kokkos::deep_copy(
      Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
          result.solution.data(), n),
      x);
  return result;
}

void apply_zero_dirichlet(const CsrPattern& pattern, std::vector<double>& values,
                          std::vector<double>& rhs, const std::vector<std::int64_t>& fixed_dofs) {
  std::vector<char> fixed(pattern.num_rows, 0);
  for (auto d : fixed_dofs) {
    require(d >= 0 && d < pattern.num_rows, "fixed DOF " + std::to_string(d) + " is out of range");
    fixed[d] = 1;
  }
  for (std::int64_t r = 0; r < pattern.num_rows; ++r)
    for (auto k = pattern.row_offsets[r]; k < pattern.row_offsets[r + 1]; ++k) {
      const auto c = pattern.column_indices[k];
      if ((fixed[r] || fixed[c]) && c != r) values[k] = 0;
    }
  for (std::int64_t r = 0; r < pattern.num_rows; ++r)
    if (fixed[r]) rhs[r] = 0;
}

}  // namespace ppkit::fem
