#pragma once
// Vector kernels of the Nekbone CG loop (Nekbone's cg.f), shared by the
// single-process Kokkos variants (nekbone_kokkos.cpp) and the MPI solver
// (nekbone_mpi.cpp). Free functions: device lambdas may not live in private
// member functions.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "ppkit/sem/axhelm_kokkos.hpp"
#include "ppkit/sem/gather_scatter.hpp"

namespace ppkit::sem {

template <class Exec>
using DeviceVector = Kokkos::View<double*, typename Exec::memory_space>;
// Per global node: 1 off the Dirichlet boundary, 0 on it (interior_global_nodes).
template <class Exec>
using InteriorFlags = Kokkos::View<const std::uint8_t*, typename Exec::memory_space>;

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
// The two weighted inner products of a residual, reduced in one pass:
// rr = sum r c r (the residual norm) and rz = sum r c M^-1 r (r.z of the
// Jacobi-preconditioned CG). A custom Kokkos::Sum value type; the volatile
// += is what Kokkos 3's reducers call, Kokkos 4 uses the other.
struct ResidualDots {
  double rr = 0, rz = 0;
  KOKKOS_INLINE_FUNCTION ResidualDots& operator+=(const ResidualDots& o) {
    rr += o.rr;
    rz += o.rz;
    return *this;
  }
  KOKKOS_INLINE_FUNCTION void operator+=(const volatile ResidualDots& o) volatile {
    rr += o.rr;
    rz += o.rz;
  }
};

}  // namespace ppkit::sem

namespace Kokkos {
template <>
struct reduction_identity<ppkit::sem::ResidualDots> {
  KOKKOS_FORCEINLINE_FUNCTION static ppkit::sem::ResidualDots sum() { return {}; }
};
}  // namespace Kokkos

namespace ppkit::sem {

// The CG scalars on the device: the residual dots of the r entering iteration
// `it` in residual[it % 2] (the previous iteration's in the other slot), and
// p.Ap. The sweeps below read beta and alpha from them, so a solve with a
// fixed iteration count never waits for the host (as the CUDA Nekbone,
// nekbone_cuda.cu); the MPI solver fills them from its sums over the ranks, so
// both run the same kernels.
template <class Exec>
struct CgScalars {
  using Dots = Kokkos::View<ResidualDots, typename Exec::memory_space>;
  Dots residual[2] = {Dots("sem::residual_even"), Dots("sem::residual_odd")};
  Kokkos::View<double, typename Exec::memory_space> pap{"sem::pap"};
};

// Reduces into `out`: a host value (blocking) or a device view (asynchronous).
template <class Exec, class Out>
auto residual_sum(Out& out) {
  if constexpr (std::is_same_v<std::decay_t<Out>, ResidualDots>)
    return Kokkos::Sum<ResidualDots>(out);
  else
    return Kokkos::Sum<ResidualDots, typename Exec::memory_space>(out);
}

// Weight of every entry in the inner products of the assembled-vector CG
// (each global node once), where the local-form loop passes 1 / multiplicity.
struct UnitWeight {
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t) const { return 1.0; }
};

// Sweeps of the CG loop as in the CUDA Nekbone (three per iteration besides
// axhelm), each updating its vectors and reducing its inner products in the
// same pass into `out`: a host value (blocking) or a device scalar
// (asynchronous). Per local node and iteration they read and write 14 vectors
// (search 4, gather-scatter 2, update 8); z = M^-1 r is never stored. The
// assembled-vector loop runs search (zeroing w and p.Ap) and update (w
// through the mask) on global vectors around the assembled axhelm, which
// adds p.Ap.
// out = the residual dots of r (before the first iteration); c a weight
// vector or UnitWeight.
template <class Exec, class Weight, class Out>
void residual_dots(const DeviceVector<Exec>& r, const Weight& c, const DeviceVector<Exec>& d,
                   Out&& out) {
  Kokkos::parallel_reduce(
      "ppkit::sem::residual_dots", Kokkos::RangePolicy<Exec>(0, r.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t l, ResidualDots& s) {
        const double rl = r(l), zl = d(l) * rl;
        s.rr += rl * c(l) * rl;
        s.rz += rl * c(l) * zl;
      },
      residual_sum<Exec>(out));
}
// p = M^-1 r + beta p, beta = rz(it) / rz(it - 1) (0 at it = 0). A solve whose
// residual reached exactly 0 keeps x (beta and alpha 0, not 0/0): with
// tolerance 0 the loop does not read the residual to stop there.
// With `zeroed` (not empty) the sweep also sets it and cg.pap to 0: the
// assembled operator's w and p.Ap, which axhelm adds into
// (apply_axhelm_assembled).
template <class Exec>
void search(const DeviceVector<Exec>& p, const DeviceVector<Exec>& r, const DeviceVector<Exec>& d,
            const CgScalars<Exec>& cg, int it, const DeviceVector<Exec>& zeroed = {}) {
  const auto now = cg.residual[it % 2], before = cg.residual[(it + 1) % 2];
  const auto pap = cg.pap;
  const bool first = it == 0, zero = zeroed.extent(0) > 0;
  Kokkos::parallel_for(
      "ppkit::sem::search", Kokkos::RangePolicy<Exec>(0, p.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t l) {
        const double beta = first || before().rz == 0.0 ? 0.0 : now().rz / before().rz;
        p(l) = beta * p(l) + d(l) * r(l);
        if (zero) {
          zeroed(l) = 0.0;
          if (l == 0) pap() = 0.0;
        }
      });
}
// w read through the Dirichlet mask (the assembled operator's unmasked sum).
template <class Exec>
struct MaskedVector {
  Kokkos::View<const double*, typename Exec::memory_space> values;
  InteriorFlags<Exec> interior;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t g) const {
    return interior(g) != 0 ? values(g) : 0.0;
  }
};
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
// off the boundary keeps its value: no store. Per global node it reads two
// 32-bit offsets, a 1-byte flag and p at one copy (13 bytes), per local node
// a 32-bit index, u and (shared copies only) the store.
template <class Exec, class Out>
void dssum_mask_dot(const GatherScatterPlan<typename Exec::memory_space>& plan,
                    const DeviceVector<Exec>& u, const InteriorFlags<Exec>& interior,
                    const DeviceVector<Exec>& p, Out&& out) {
  const auto offsets = plan.offsets;
  const auto locals = plan.locals;
  Kokkos::parallel_reduce(
      "ppkit::sem::dssum_mask_glsc3", Kokkos::RangePolicy<Exec>(0, plan.global_count),
      KOKKOS_LAMBDA(const std::int64_t g, double& s) {
        const std::int32_t begin = offsets(g), end = offsets(g + 1);
        if (begin == end) return;  // a global id no local node uses
        double sum = 0;
        for (std::int32_t a = begin; a < end; ++a) sum += u(locals(a));
        const bool keep = interior(g) != 0;
        const double value = keep ? sum : 0.0;
        if (end - begin > 1 || !keep)
          for (std::int32_t a = begin; a < end; ++a) u(locals(a)) = value;
        s += value * p(locals(begin));
      },
      out);
}

// The assembled-vector loop's gather-scatter: per global node g,
// w_g = interior_g * sum of w_local over the copies of g (Q^T w, masked), and
// out = sum_g w_g p_g (no dot when p is empty). One thread per global node,
// each reading its copies' 32-bit indices and values and writing w_g once.
template <class Exec, class Out>
void gather_sum_mask_dot(const GatherScatterPlan<typename Exec::memory_space>& plan,
                         const DeviceVector<Exec>& w_local, const InteriorFlags<Exec>& interior,
                         const DeviceVector<Exec>& p, const DeviceVector<Exec>& w, Out&& out) {
  const auto offsets = plan.offsets;
  const auto locals = plan.locals;
  const bool dot = p.extent(0) > 0;
  Kokkos::parallel_reduce(
      "ppkit::sem::gather_sum_mask_glsc3", Kokkos::RangePolicy<Exec>(0, plan.global_count),
      KOKKOS_LAMBDA(const std::int64_t g, double& s) {
        double sum = 0;
        for (std::int32_t a = offsets(g); a < offsets(g + 1); ++a) sum += w_local(locals(a));
        const double value = interior(g) != 0 ? sum : 0.0;
        w(g) = value;
        if (dot) s += value * p(g);
      },
      out);
}

// x += alpha p, r -= alpha w with alpha = rz(it) / pap (0 if pap is 0);
// out = the residual dots of the new r (weights c: a vector or UnitWeight).
// w: a vector or a MaskedVector.
template <class Exec, class W, class Weight, class Out>
void update_dot(const DeviceVector<Exec>& x, const DeviceVector<Exec>& r,
                const DeviceVector<Exec>& p, const W& w, const CgScalars<Exec>& cg, int it,
                const Weight& c, const DeviceVector<Exec>& d, Out&& out) {
  const auto dots = cg.residual[it % 2];
  const auto pap = cg.pap;
  Kokkos::parallel_reduce(
      "ppkit::sem::update_dots", Kokkos::RangePolicy<Exec>(0, x.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t l, ResidualDots& s) {
        const double alpha = pap() == 0.0 ? 0.0 : dots().rz / pap();
        x(l) += alpha * p(l);
        const double rl = r(l) - alpha * w(l), zl = d(l) * rl;
        r(l) = rl;
        s.rr += rl * c(l) * rl;
        s.rz += rl * c(l) * zl;
      },
      residual_sum<Exec>(out));
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
