#pragma once
// The register-column axhelm kernel in Kokkos, for GPU execution spaces (the
// structure of backends/cuda/sem/axhelm_cuda_columns.cuh; Swirydowicz et al.,
// IJHPCA 2019): one team of Nq x Nq threads per element; thread (i, j) =
// team_rank keeps its column u(i, j, :) and y(i, j, :) in per-thread arrays
// (registers once the k-loop is unrolled, which Nq as a template parameter
// allows) and runs the k-loop, so the t contractions need no scratch. Each
// k-slice goes through team scratch twice, row-major and transposed, as does
// the G-weighted gradient, so every r/s contraction walks a contiguous,
// padded scratch row (16-byte loads on CUDA). D and D^T sit in scratch with
// the same padding. Launch bounds cap registers as for the CUDA kernels.
// As there (axhelm_cuda_columns.cuh, d_in_registers), where it pays the
// four D vectors of a thread (rows i and j of D and of D^T) are read
// once into 4 Nq registers, halving the shared loads of the r and s
// contractions: one field at Nq >= 8 when every element loads its factors,
// three fields at Nq = 8. Stored factors are loaded one k-slice ahead into
// registers (the CUDA kernel's cp.async staging has no portable form): the
// team barriers order memory, so loads of slice k issued after them would
// wait a whole DRAM latency per slice.
//
// This kernel relies on a team of exactly Nq^2 threads that keep private
// state across team barriers: GPU spaces only. Host spaces use the portable
// kernel of axhelm_kokkos.hpp.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "ppkit/sem/trilinear_jacobian.hpp"

namespace ppkit::sem {

// Output of the assembled operator (the Nekbone on assembled vectors, as the
// CUDA kernels' AxhelmKernelArgs::global_of_local): each local result is
// added to y at its global node (atomic adds: y = y + Q^T A_L Q x, unmasked,
// so y holds zeros first), and x_e . (A_e x_e) is
// added to dot_sum per element (atomic adds: dot_sum grows by
// x . Q^T A_L Q x). One field.
template <class MemSpace>
struct AssembledOutput {
  Kokkos::View<double*, MemSpace> y;                            // [G]
  Kokkos::View<const std::int32_t*, MemSpace> global_of_local;  // [E * Np]
  Kokkos::View<double, MemSpace> dot_sum;
};
template <class T>
struct is_assembled_output : std::false_type {};
template <class MemSpace>
struct is_assembled_output<AssembledOutput<MemSpace>> : std::true_type {};

// The result v of local node l: y(l) = v, or the assembled operator's add.
template <class Output>
KOKKOS_INLINE_FUNCTION void store_result(const Output& y, std::int64_t l, double v) {
  if constexpr (is_assembled_output<Output>::value)
    Kokkos::atomic_add(&y.y(y.global_of_local(l)), v);
  else
    y(l) = v;
}

}  // namespace ppkit::sem

namespace ppkit::sem::kokkos_columns {

// Padded scratch row: the smallest S >= Nq with S = 2 (mod 4) (16-byte rows,
// distinct starting banks).
KOKKOS_INLINE_FUNCTION constexpr int row_stride(int nq) { return nq + ((2 - nq % 4) + 4) % 4; }

template <class F, int... K>
KOKKOS_FORCEINLINE_FUNCTION void static_for_impl(F&& f, std::integer_sequence<int, K...>) {
  (f(std::integral_constant<int, K>{}), ...);
}
// f(integral_constant<int, k>) for k = 0..N-1: a k-loop with a compile-time index.
template <int N, class F>
KOKKOS_FORCEINLINE_FUNCTION void static_for(F&& f) {
  static_for_impl(f, std::make_integer_sequence<int, N>{});
}

// Two consecutive doubles of a 16-byte aligned scratch row.
struct alignas(16) DoublePair {
  double a, b;
};
KOKKOS_FORCEINLINE_FUNCTION DoublePair load_pair(const double* p) {
#if defined(__CUDA_ARCH__)
  // Explicit 16-byte shared load: the compiler splits plain pair loads, and
  // may hoist loads of D (never written in the loop) into registers.
  DoublePair v;
  asm volatile("ld.shared.v2.f64 {%0, %1}, [%2];"
               : "=d"(v.a), "=d"(v.b)
               : "r"(unsigned(__cvta_generic_to_shared(p))));
  return v;
#else
  return *reinterpret_cast<const DoublePair*>(p);
#endif
}

// sum_m d[m] row[m] over two padded scratch rows.
template <int NQ>
KOKKOS_FORCEINLINE_FUNCTION double row_dot(const double* row, const double* d) {
  double even = 0, odd = 0;
  for (int m = 0; m + 1 < NQ; m += 2) {
    const DoublePair v = load_pair(row + m), w = load_pair(d + m);
    even += w.a * v.a;
    odd += w.b * v.b;
  }
  if (NQ % 2) even += d[NQ - 1] * row[NQ - 1];
  return even + odd;
}

// sum_m d[m] row[m], the row a padded scratch row, d in registers.
template <int NQ>
KOKKOS_FORCEINLINE_FUNCTION double row_dot(const double* row, const double (&d)[NQ]) {
  double even = 0, odd = 0;
  for (int m = 0; m + 1 < NQ; m += 2) {
    const DoublePair v = load_pair(row + m);
    even += d[m] * v.a;
    odd += d[m + 1] * v.b;
  }
  if (NQ % 2) even += d[NQ - 1] * row[NQ - 1];
  return even + odd;
}

// Where the D vectors go to registers (the CUDA kernels' measured rule).
template <int NQ, int NCOL, bool MAY_RECOMPUTE>
constexpr bool d_in_registers = NCOL == 1 ? !MAY_RECOMPUTE && NQ >= 8 : NQ == 8;

// MAY_RECOMPUTE: the mesh has elements that rebuild their factors (without
// them the recompute path and its per-column registers are compiled out).
template <int NQ, int NCOL, bool MAY_RECOMPUTE, class Exec, class Mesh, class XView, class YView>
void apply(const Exec& exec, const Mesh& m, const XView& x, const YView& y) {
  constexpr int NQ2 = NQ * NQ, NP = NQ2 * NQ, S = row_stride(NQ);
  // Registers: as the CUDA kernels (128 per thread for one field; with D in
  // registers 168 at Nq = 8, 255 above; 255 for three fields).
  constexpr int registers = NCOL == 3                                  ? 255
                            : !d_in_registers<NQ, NCOL, MAY_RECOMPUTE> ? 128
                            : NQ <= 8                                  ? 168
                                                                       : 255;
  constexpr int min_blocks = 65536 / (((NQ2 + 31) / 32) * 32 * registers);
  using Policy =
      Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<NQ2, (min_blocks < 1 ? 1 : min_blocks)>>;
  using Member = typename Policy::member_type;
  constexpr int slice = NQ * S;
  constexpr int scratch_doubles = 4 * NCOL * slice + 2 * slice + 24;
  const std::size_t scratch_bytes = scratch_doubles * sizeof(double) + 16;
  const bool helmholtz = m.helmholtz;
  const double lambda0 = m.lambda0, lambda1 = m.lambda1;
  const std::int64_t stride = m.field_stride();
  const auto D = m.derivative;
  const auto nodes = m.nodes;
  const auto weights = m.weights;
  const auto vertices = m.vertices;
  const auto factors = m.factors;
  const auto factor_slot = m.factor_slot;

  auto body = KOKKOS_LAMBDA(const Member& team) {
    const std::int64_t e = team.league_rank();
    double* base = static_cast<double*>(
        team.team_scratch(0).get_shmem_aligned(scratch_doubles * sizeof(double), 16));
    double* s_u = base;                   // [NCOL][NQ][S]  slice, row j
    double* s_uT = s_u + NCOL * slice;    // [NCOL][NQ][S]  slice transposed, row i
    double* s_gr = s_uT + NCOL * slice;   // (G grad u)_r, row j
    double* s_gsT = s_gr + NCOL * slice;  // (G grad u)_s transposed, row i
    double* s_D = s_gsT + NCOL * slice;   // D, row-major
    double* s_DT = s_D + slice;           // D^T
    double* s_C = s_DT + slice;           // trilinear coefficients
    const int lane = team.team_rank(), i = lane % NQ, j = lane / NQ;
    const std::int64_t slot = factor_slot(e);
    const bool recompute = MAY_RECOMPUTE && slot < 0;

    {
      const int row = lane / NQ, col = lane % NQ;
      const double d = D(lane);
      s_D[row * S + col] = d;
      s_DT[col * S + row] = d;
    }
    for (int qd = lane; recompute && qd < 24; qd += NQ2) {
      // C_q = 1/8 sum_v sign(v, q) V_v
      const int q = qd / 3, dim = qd % 3;
      double sum = 0;
      for (int v = 0; v < 8; ++v) {
        double sign = 1;
        for (int b = 0; b < 3; ++b)
          if ((q >> b) & 1) sign = ((v >> b) & 1) ? sign : -sign;
        sum += sign * vertices((e * 8 + v) * 3 + dim);
      }
      s_C[qd] = 0.125 * sum;
    }
    double r_u[NCOL][NQ], r_y[NCOL][NQ];
    for (int c = 0; c < NCOL; ++c)
      for (int k = 0; k < NQ; ++k) {
        r_u[c][k] = x(c * stride + e * NP + k * NQ2 + lane);
        r_y[c][k] = 0;
      }
    team.team_barrier();
    // The D vectors: rows i and j of D and of D^T, from scratch or registers.
    double r_d[d_in_registers<NQ, NCOL, MAY_RECOMPUTE> ? 4 : 1][NQ];
    if constexpr (d_in_registers<NQ, NCOL, MAY_RECOMPUTE>) {
      for (int mm = 0; mm < NQ; ++mm) {
        r_d[0][mm] = s_D[i * S + mm];
        r_d[1][mm] = s_D[j * S + mm];
        r_d[2][mm] = s_DT[i * S + mm];
        r_d[3][mm] = s_DT[j * S + mm];
      }
    }
    auto dot_d = [&](const double* row, int which) {
      if constexpr (d_in_registers<NQ, NCOL, MAY_RECOMPUTE>)
        return row_dot<NQ>(row, r_d[which]);
      else
        return row_dot<NQ>(row, (which < 2 ? s_D : s_DT) + (which % 2 ? j : i) * S);
    };

    // Per-column terms of the trilinear Jacobian (paper eq. 11-13).
    const double r = nodes(i), s = nodes(j), wij = weights(i) * weights(j);
    JacobianColumn column;
    if constexpr (MAY_RECOMPUTE) column.init(s_C, r, s);
    const double(&e0)[3] = column.e0, (&e1)[3] = column.e1, (&f0)[3] = column.f0,
          (&f1)[3] = column.f1, (&jt)[3] = column.jt;
    const std::int64_t factor_base = (recompute ? 0 : slot) * 7 * NP + lane;
    // Stored factors of the next slice, loaded one slice ahead where every
    // element loads them (in the mixed kernel the registers would spill).
    double ahead[7] = {};
    auto load_factors = [&](int k) {
      const std::int64_t n = factor_base + k * NQ2;
      for (int f = 0; f < 6; ++f) ahead[f] = factors(n + f * NP);
      if (helmholtz) ahead[6] = factors(n + 6 * NP);
    };
    if constexpr (!MAY_RECOMPUTE) load_factors(0);

    static_for<NQ>([&](auto k_constant) {
      constexpr int k = decltype(k_constant)::value;
      double g[6], mass = 0;
      if (recompute) {
        const double t = nodes(k), w = wij * weights(k);
        double jr[3], js[3];
        for (int d = 0; d < 3; ++d) {
          jr[d] = e0[d] + t * e1[d];
          js[d] = f0[d] + t * f1[d];
        }
        const double ar[3] = {js[1] * jt[2] - js[2] * jt[1], js[2] * jt[0] - js[0] * jt[2],
                              js[0] * jt[1] - js[1] * jt[0]};
        const double as[3] = {jt[1] * jr[2] - jt[2] * jr[1], jt[2] * jr[0] - jt[0] * jr[2],
                              jt[0] * jr[1] - jt[1] * jr[0]};
        const double at[3] = {jr[1] * js[2] - jr[2] * js[1], jr[2] * js[0] - jr[0] * js[2],
                              jr[0] * js[1] - jr[1] * js[0]};
        const double det = jr[0] * ar[0] + jr[1] * ar[1] + jr[2] * ar[2];
        const double scale = lambda0 * w / det;
        g[0] = scale * (ar[0] * ar[0] + ar[1] * ar[1] + ar[2] * ar[2]);
        g[1] = scale * (ar[0] * as[0] + ar[1] * as[1] + ar[2] * as[2]);
        g[2] = scale * (ar[0] * at[0] + ar[1] * at[1] + ar[2] * at[2]);
        g[3] = scale * (as[0] * as[0] + as[1] * as[1] + as[2] * as[2]);
        g[4] = scale * (as[0] * at[0] + as[1] * at[1] + as[2] * at[2]);
        g[5] = scale * (at[0] * at[0] + at[1] * at[1] + at[2] * at[2]);
        mass = lambda1 * w * det;
      } else {
        if constexpr (MAY_RECOMPUTE) load_factors(k);
        for (int f = 0; f < 6; ++f) g[f] = lambda0 * ahead[f];
        mass = helmholtz ? lambda1 * ahead[6] : 0.0;
        if constexpr (!MAY_RECOMPUTE && k + 1 < NQ) load_factors(k + 1);
      }
      for (int c = 0; c < NCOL; ++c) {
        s_u[c * slice + j * S + i] = r_u[c][k];
        s_uT[c * slice + i * S + j] = r_u[c][k];
      }
      team.team_barrier();
      for (int c = 0; c < NCOL; ++c) {
        const double ur = dot_d(s_u + c * slice + j * S, 0);
        const double us = dot_d(s_uT + c * slice + i * S, 1);
        double ut = 0;
        for (int mm = 0; mm < NQ; ++mm) ut += s_D[k * S + mm] * r_u[c][mm];
        s_gr[c * slice + j * S + i] = g[0] * ur + g[1] * us + g[2] * ut;
        s_gsT[c * slice + i * S + j] = g[1] * ur + g[3] * us + g[4] * ut;
        const double gt = g[2] * ur + g[4] * us + g[5] * ut;
        for (int mm = 0; mm < NQ; ++mm) r_y[c][mm] += s_D[k * S + mm] * gt;
        if (helmholtz) r_y[c][k] += mass * r_u[c][k];
      }
      team.team_barrier();
      for (int c = 0; c < NCOL; ++c)
        r_y[c][k] += dot_d(s_gr + c * slice + j * S, 2) + dot_d(s_gsT + c * slice + i * S, 3);
    });
    for (int c = 0; c < NCOL; ++c)
      for (int k = 0; k < NQ; ++k) store_result(y, c * stride + e * NP + k * NQ2 + lane, r_y[c][k]);
    if constexpr (is_assembled_output<YView>::value) {
      // x_e . y_e: the column sums through scratch (s_u is no longer read:
      // the last slice's barrier is behind every thread), then one atomic add.
      double dot = 0;
      for (int k = 0; k < NQ; ++k) dot += r_u[0][k] * r_y[0][k];
      s_u[lane] = dot;
      team.team_barrier();
      if (lane == 0) {
        double sum = 0;
        for (int n = 0; n < NQ2; ++n) sum += s_u[n];
        Kokkos::atomic_add(&y.dot_sum(), sum);
      }
    }
  };

  Policy policy(exec, int(m.elements), NQ2);
  policy.set_scratch_size(0, Kokkos::PerTeam(scratch_bytes));
  Kokkos::parallel_for("ppkit::sem::axhelm_columns", policy, body);
}

// Inputs other than Views (GatheredInput, axhelm_kokkos.hpp) and outputs
// other than Views (AssembledOutput) hold one field: no three-field kernels
// are compiled for them.
template <int NQ, class Exec, class Mesh, class XView, class YView>
bool apply_nq(const Exec& exec, const Mesh& m, const XView& x, const YView& y) {
  constexpr bool three_fields = Kokkos::is_view<XView>::value && Kokkos::is_view<YView>::value;
  if (m.any_recompute) {
    if constexpr (three_fields)
      if (m.ncol == 3) {
        apply<NQ, 3, true>(exec, m, x, y);
        return true;
      }
    apply<NQ, 1, true>(exec, m, x, y);
  } else {
    if constexpr (three_fields)
      if (m.ncol == 3) {
        apply<NQ, 3, false>(exec, m, x, y);
        return true;
      }
    apply<NQ, 1, false>(exec, m, x, y);
  }
  return true;
}

// Dispatch on Nq (2..10) and ncol; returns false for other Nq.
template <class Exec, class Mesh, class XView, class YView>
bool apply_columns(const Exec& exec, const Mesh& m, const XView& x, const YView& y) {
  switch (m.nq) {
    case 2:
      return apply_nq<2>(exec, m, x, y);
    case 3:
      return apply_nq<3>(exec, m, x, y);
    case 4:
      return apply_nq<4>(exec, m, x, y);
    case 5:
      return apply_nq<5>(exec, m, x, y);
    case 6:
      return apply_nq<6>(exec, m, x, y);
    case 7:
      return apply_nq<7>(exec, m, x, y);
    case 8:
      return apply_nq<8>(exec, m, x, y);
    case 9:
      return apply_nq<9>(exec, m, x, y);
    case 10:
      return apply_nq<10>(exec, m, x, y);
    default:
      return false;
  }
}

}  // namespace ppkit::sem::kokkos_columns
