#pragma once
// Vector kernels of the Nekbone CG loop (Nekbone's cg.f), shared by the
// single-process Kokkos variants (nekbone_kokkos.cpp) and the MPI solver
// (nekbone_mpi.cpp). Free functions: device lambdas may not live in private
// member functions.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

#include "ppkit/sem/axhelm_kokkos.hpp"

namespace ppkit::sem {

template <class Exec>
using DeviceVector = Kokkos::View<double*, typename Exec::memory_space>;

// y = a y + b x
template <class Exec>
void axpby(const DeviceVector<Exec>& y, double a, const DeviceVector<Exec>& x, double b) {
  Kokkos::parallel_for(
      "ppkit::sem::axpby", Kokkos::RangePolicy<Exec>(0, y.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t l) { y(l) = a * y(l) + b * x(l); });
}
// y = y * m (the Dirichlet mask)
template <class Exec>
void multiply(const DeviceVector<Exec>& y, const DeviceVector<Exec>& m) {
  Kokkos::parallel_for(
      "ppkit::sem::mask", Kokkos::RangePolicy<Exec>(0, y.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t l) { y(l) *= m(l); });
}
// sum over l of term(l, s) accumulating into s: the inner products below.
template <class Exec, class Term>
double sum_over(const char* name, std::int64_t n, const Term& term) {
  double sum = 0;
  Kokkos::parallel_reduce(name, Kokkos::RangePolicy<Exec>(0, n), term, sum);
  return sum;
}

// sum a c b (Nekbone's glsc3; c = 1 / multiplicity counts each global node once)
template <class Exec>
double weighted_dot(const DeviceVector<Exec>& a, const DeviceVector<Exec>& c,
                    const DeviceVector<Exec>& b) {
  return sum_over<Exec>(
      "ppkit::sem::glsc3", a.extent(0),
      KOKKOS_LAMBDA(const std::int64_t l, double& s) { s += a(l) * c(l) * b(l); });
}

// Fused sweeps of the CG loop: each updates its vectors and returns this
// process's weighted inner product in one pass (the unfused loop took 23
// vector reads and writes per iteration besides axhelm and dssum, these 19):
// z = d r, returns sum r c z (the Jacobi step and glsc3(r, c, z)).
template <class Exec>
double jacobi_dot(const DeviceVector<Exec>& z, const DeviceVector<Exec>& r,
                  const DeviceVector<Exec>& d, const DeviceVector<Exec>& c) {
  return sum_over<Exec>(
      "ppkit::sem::jacobi_glsc3", z.extent(0), KOKKOS_LAMBDA(const std::int64_t l, double& s) {
        const double zl = d(l) * r(l);
        z(l) = zl;
        s += r(l) * c(l) * zl;
      });
}
// w = w m (the Dirichlet mask), returns sum w c p.
template <class Exec>
double mask_dot(const DeviceVector<Exec>& w, const DeviceVector<Exec>& m,
                const DeviceVector<Exec>& c, const DeviceVector<Exec>& p) {
  return sum_over<Exec>(
      "ppkit::sem::mask_glsc3", w.extent(0), KOKKOS_LAMBDA(const std::int64_t l, double& s) {
        const double wl = w(l) * m(l);
        w(l) = wl;
        s += wl * c(l) * p(l);
      });
}
// x += alpha p, r -= alpha w, returns sum r c r (the new residual's glsc3).
template <class Exec>
double update_dot(const DeviceVector<Exec>& x, const DeviceVector<Exec>& r,
                  const DeviceVector<Exec>& p, const DeviceVector<Exec>& w, double alpha,
                  const DeviceVector<Exec>& c) {
  return sum_over<Exec>(
      "ppkit::sem::update_glsc3", x.extent(0), KOKKOS_LAMBDA(const std::int64_t l, double& s) {
        x(l) += alpha * p(l);
        const double rl = r(l) - alpha * w(l);
        r(l) = rl;
        s += rl * c(l) * rl;
      });
}

// b = mask QQ^T (M f - A u_D), the lifted right-hand side, with `dssum` the
// caller's direct stiffness summation QQ^T (one process or across ranks).
template <class Exec, class Dssum>
DeviceVector<Exec> lifted_rhs(const std::vector<double>& mass_times_f,
                              const AxhelmDeviceMesh<typename Exec::memory_space>& mesh,
                              const DeviceVector<Exec>& dirichlet, const DeviceVector<Exec>& mask,
                              Dssum&& dssum) {
  DeviceVector<Exec> b = to_device<double, typename Exec::memory_space>(mass_times_f, "sem::b");
  DeviceVector<Exec> a_dirichlet("sem::A_uD", b.extent(0));
  apply_axhelm<Exec>(mesh, dirichlet, a_dirichlet);
  axpby<Exec>(b, 1.0, a_dirichlet, -1.0);
  dssum(b);
  multiply<Exec>(b, mask);
  return b;
}

}  // namespace ppkit::sem
