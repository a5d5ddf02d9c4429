#pragma once
// Vector kernels of the Nekbone CG loop (Nekbone's cg.f), shared by the
// single-process Kokkos variants (nekbone_kokkos.cpp) and the MPI solver
// (nekbone_mpi.cpp). Free functions: device lambdas may not live in private
// member functions.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

#include "ppkit/sem/axhelm_kokkos.hpp"
#include "ppkit/sem/gather_scatter.hpp"

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
// sum a c b (Nekbone's glsc3; c = 1 / multiplicity counts each global node once)
template <class Exec>
double weighted_dot(const DeviceVector<Exec>& a, const DeviceVector<Exec>& c,
                    const DeviceVector<Exec>& b) {
  double sum = 0;
  Kokkos::parallel_reduce(
      "ppkit::sem::glsc3", Kokkos::RangePolicy<Exec>(0, a.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t l, double& s) { s += a(l) * c(l) * b(l); }, sum);
  return sum;
}

// The CG scalars on the device: r.z of iteration `it` in rtz[it % 2] (the
// previous iteration's in the other slot), p.Ap and r.r. The sweeps below read
// beta and alpha from them, so a solve with a fixed iteration count never
// waits for the host (as the CUDA Nekbone, nekbone_cuda.cu); the MPI solver
// fills them from its sums over the ranks, so both run the same kernels.
template <class Exec>
struct CgScalars {
  using Scalar = Kokkos::View<double, typename Exec::memory_space>;
  Scalar rtz[2] = {Scalar("sem::rtz_even"), Scalar("sem::rtz_odd")};
  Scalar pap{"sem::pap"}, rr{"sem::rr"};
};

// Sweeps of the CG loop, each updating its vectors and reducing its weighted
// inner product in the same pass into `out`: a host double (blocking) or a
// device scalar (asynchronous). Per local node and iteration they read and
// write 14 vectors besides axhelm and the gather-scatter, which takes the mask
// and w.p along (dssum_mask_dot); as separate kernels it was 23 and 5 more
// launches.
// z = d r, out = sum r c z (the Jacobi step and glsc3(r, c, z)).
template <class Exec, class Out>
void jacobi_dot(const DeviceVector<Exec>& z, const DeviceVector<Exec>& r,
                const DeviceVector<Exec>& d, const DeviceVector<Exec>& c, Out&& out) {
  Kokkos::parallel_reduce(
      "ppkit::sem::jacobi_glsc3", Kokkos::RangePolicy<Exec>(0, z.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t l, double& s) {
        const double zl = d(l) * r(l);
        z(l) = zl;
        s += r(l) * c(l) * zl;
      },
      out);
}
// p = z + beta p, beta = rtz[it % 2] / rtz[(it + 1) % 2] (0 at it = 0). A
// solve whose residual reached exactly 0 keeps x (beta and alpha 0, not 0/0):
// with tolerance 0 the loop does not read the residual to stop there.
template <class Exec>
void search(const DeviceVector<Exec>& p, const DeviceVector<Exec>& z, const CgScalars<Exec>& cg,
            int it) {
  const auto now = cg.rtz[it % 2], before = cg.rtz[(it + 1) % 2];
  const bool first = it == 0;
  Kokkos::parallel_for(
      "ppkit::sem::search", Kokkos::RangePolicy<Exec>(0, p.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t l) {
        const double beta = first || before() == 0.0 ? 0.0 : now() / before();
        p(l) = beta * p(l) + z(l);
      });
}
// w = w m (the Dirichlet mask), out = sum w c p.
template <class Exec, class Out>
void mask_dot(const DeviceVector<Exec>& w, const DeviceVector<Exec>& m, const DeviceVector<Exec>& c,
              const DeviceVector<Exec>& p, Out&& out) {
  Kokkos::parallel_reduce(
      "ppkit::sem::mask_glsc3", Kokkos::RangePolicy<Exec>(0, w.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t l, double& s) {
        const double wl = w(l) * m(l);
        w(l) = wl;
        s += wl * c(l) * p(l);
      },
      out);
}
// u <- mask Q Q^T u (the gather-scatter and the Dirichlet mask in one pass,
// one thread per global node) and out = sum_g u_g p_g, which is
// sum_l c_l u_l p_l for continuous u and p. For one process holding every
// copy (the single-process loop, the MPI solver on one rank); across ranks the
// exchange comes between the sum and the mask. A global node with one copy
// and mask 1 keeps its value: no store.
template <class Exec, class Out>
void dssum_mask_dot(const GatherScatterPlan<typename Exec::memory_space>& plan,
                    const DeviceVector<Exec>& u, const DeviceVector<Exec>& mask,
                    const DeviceVector<Exec>& p, Out&& out) {
  const auto offsets = plan.offsets;
  const auto locals = plan.locals;
  Kokkos::parallel_reduce(
      "ppkit::sem::dssum_mask_glsc3", Kokkos::RangePolicy<Exec>(0, plan.global_count),
      KOKKOS_LAMBDA(const std::int64_t g, double& s) {
        const std::int64_t begin = offsets(g), end = offsets(g + 1), first = locals(begin);
        double sum = 0;
        for (std::int64_t a = begin; a < end; ++a) sum += u(locals(a));
        const double m = mask(first), value = sum * m;
        if (end - begin > 1 || m != 1.0)
          for (std::int64_t a = begin; a < end; ++a) u(locals(a)) = value;
        s += value * p(first);
      },
      out);
}

// x += alpha p, r -= alpha w with alpha = rtz[it % 2] / pap (0 if pap is 0);
// out = sum r c r.
template <class Exec, class Out>
void update_dot(const DeviceVector<Exec>& x, const DeviceVector<Exec>& r,
                const DeviceVector<Exec>& p, const DeviceVector<Exec>& w, const CgScalars<Exec>& cg,
                int it, const DeviceVector<Exec>& c, Out&& out) {
  const auto rtz = cg.rtz[it % 2], pap = cg.pap;
  Kokkos::parallel_reduce(
      "ppkit::sem::update_glsc3", Kokkos::RangePolicy<Exec>(0, x.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t l, double& s) {
        const double alpha = pap() == 0.0 ? 0.0 : rtz() / pap();
        x(l) += alpha * p(l);
        const double rl = r(l) - alpha * w(l);
        r(l) = rl;
        s += rl * c(l) * rl;
      },
      out);
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
