#pragma once
// Portable axhelm kernel (Kokkos), shared by the sem.axhelm variants and the
// Nekbone solver; GPU spaces run the register-column kernel of
// axhelm_kokkos_columns.hpp instead for N = 1..9. One team per element; the element's Nq x Nq (i,
// j) columns are the team's lanes (TeamThreadRange: threads of a block on a GPU, a loop on Serial),
// each lane runs the k-loop of its column (Cao et al., section 4.1). Per-element state lives in
// team scratch: D, the GLL nodes and weights, the trilinear coefficients, X of the element and the
// G-weighted gradients.
//
// Geometry per element: if factor_slot[e] >= 0 the 6 (7) factors are loaded
// from factors[slot]; otherwise the element is trilinear and the factors are
// recomputed from its 8 vertices (paper section 3.2):
//   x(r,s,t) = C0 + C1 r + C2 s + C3 rs + C4 t + C5 rt + C6 st + C7 rst
//   J_r = (C1 + s C3) + t (C5 + s C7) = E0(j) + t E1(j)     (j-only terms)
//   J_s = (C2 + r C3) + t (C6 + r C7) = F0(i) + t F1(i)     (i-only terms)
//   J_t =  C4 + r C5 + s C6 + rs C7                          (outside the k-loop)
// lambda0 and lambda1 are folded into the factors (Helmholtz, section 3.3).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "ppkit/core/error.hpp"
#include "ppkit/sem/axhelm.hpp"
#include "ppkit/sem/axhelm_kokkos_columns.hpp"
#include "ppkit/sem/geometry.hpp"
#include "ppkit/sem/kokkos_views.hpp"

namespace ppkit::sem {

template <class MemSpace>
struct AxhelmDeviceMesh {
  int nq = 0;
  std::int64_t elements = 0;
  int ncol = 1;
  bool helmholtz = false;
  double lambda0 = 1, lambda1 = 0;
  Kokkos::View<double*, MemSpace> derivative, nodes, weights, vertices, factors;
  Kokkos::View<std::int64_t*, MemSpace> factor_slot;  // [E]: >= 0 load, -1 recompute
  bool any_recompute = false;                         // some factor_slot < 0
  std::int64_t field_stride() const { return elements * nq * nq * nq; }
};

// Uploads the operator's data. recompute_trilinear: trilinear elements get
// slot -1 and only the other elements' factors are uploaded (compacted).
template <class MemSpace>
AxhelmDeviceMesh<MemSpace> upload_axhelm_mesh(const AxhelmProblem& p, bool recompute_trilinear) {
  validate_axhelm_problem(p);
  AxhelmDeviceMesh<MemSpace> m;
  m.nq = p.nq();
  m.elements = p.elements;
  m.ncol = p.ncol;
  m.helmholtz = p.helmholtz();
  m.lambda0 = p.lambda0;
  m.lambda1 = p.lambda1;
  m.derivative = to_device<double, MemSpace>(p.derivative, "sem::D");
  m.nodes = to_device<double, MemSpace>(p.nodes, "sem::nodes");
  m.weights = to_device<double, MemSpace>(p.weights, "sem::weights");
  m.vertices = to_device<double, MemSpace>(p.vertices, "sem::vertices");
  const std::size_t per_element = std::size_t(factors_per_node) * p.np();
  std::vector<std::int64_t> slot(p.elements);
  std::vector<double> loaded;
  std::int64_t next = 0;
  for (std::int64_t e = 0; e < p.elements; ++e) {
    if (recompute_trilinear && p.trilinear[e]) {
      slot[e] = -1;
      continue;
    }
    slot[e] = next++;
    loaded.insert(loaded.end(), p.factors.begin() + e * per_element,
                  p.factors.begin() + (e + 1) * per_element);
  }
  if (loaded.empty()) loaded.push_back(0.0);  // keep a valid (unused) allocation
  m.factors = to_device<double, MemSpace>(loaded, "sem::factors");
  m.factor_slot = to_device<std::int64_t, MemSpace>(slot, "sem::factor_slot");
  m.any_recompute = next < p.elements;
  return m;
}

// Input of an axhelm read through a local-to-global index: local node l of
// the operator takes values(global_of_local(l)). The assembled-vector CG
// (nekbone_kokkos.cpp) applies the operator to a vector of global nodes
// without forming its local copies first.
template <class MemSpace>
struct GatheredInput {
  Kokkos::View<const double*, MemSpace> values;                 // [G]
  Kokkos::View<const std::int32_t*, MemSpace> global_of_local;  // [E * Np]
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t l) const {
    return values(global_of_local(l));
  }
};

// y = A x on every element, ncol fields (x, y: [ncol][E * Np]); x is a View
// or a GatheredInput, y a View or an AssembledOutput (one field).
template <class Exec, class Input, class Output>
void apply_axhelm_input(const AxhelmDeviceMesh<typename Exec::memory_space>& m, const Input& x,
                        const Output& y, const Exec& exec = Exec()) {
  // GPU spaces, N = 1..9: the register-column kernel (axhelm_kokkos_columns.hpp).
  if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                            typename Exec::memory_space>::accessible) {
    if (kokkos_columns::apply_columns(exec, m, x, y)) return;
  }
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<double*, typename Exec::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const int nq = m.nq, nq2 = nq * nq, np = nq2 * nq, ncol = m.ncol;
  const bool helmholtz = m.helmholtz;
  const double lambda0 = m.lambda0, lambda1 = m.lambda1;
  const std::int64_t stride = m.field_stride();
  const int field_arrays = (helmholtz ? 5 : 4) * ncol;
  const int scratch_doubles = nq2 + 2 * nq + 24 + field_arrays * np;
  const std::size_t scratch_bytes = Scratch::shmem_size(scratch_doubles);
  const int level = int(scratch_bytes) <= Policy::scratch_size_max(0) ? 0 : 1;
  const auto D = m.derivative;
  const auto nodes = m.nodes;
  const auto weights = m.weights;
  const auto vertices = m.vertices;
  const auto factors = m.factors;
  const auto factor_slot = m.factor_slot;

  auto body = KOKKOS_LAMBDA(const Member& team) {
    const std::int64_t e = team.league_rank();
    Scratch scratch(team.team_scratch(level), scratch_doubles);
    double* sD = scratch.data();      // D[a * nq + b]
    double* sr = sD + nq2;            // GLL nodes
    double* sw = sr + nq;             // GLL weights
    double* sC = sw + nq;             // trilinear coefficients C[q][d]
    double* su = sC + 24;             // X of the element, [ncol][np]
    double* sgr = su + ncol * np;     // lambda0 (G grad u)_r, [ncol][np]
    double* sgs = sgr + ncol * np;    // lambda0 (G grad u)_s
    double* sgt = sgs + ncol * np;    // lambda0 (G grad u)_t
    double* smass = sgt + ncol * np;  // lambda1 w|J| u (Helmholtz only)
    const std::int64_t slot = factor_slot(e);
    const bool recompute = slot < 0;

    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nq2), [&](int a) { sD[a] = D(a); });
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nq), [&](int a) {
      sr[a] = nodes(a);
      sw[a] = weights(a);
    });
    if (recompute) {
      // C_q = 1/8 sum_v sign(v, q) V_v, sign = product over the bits of q of (+-1).
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 24), [&](int qd) {
        const int q = qd / 3, d = qd % 3;
        double sum = 0;
        for (int v = 0; v < 8; ++v) {
          double sign = 1;
          for (int b = 0; b < 3; ++b)
            if ((q >> b) & 1) sign *= ((v >> b) & 1) ? 1.0 : -1.0;
          sum += sign * vertices((e * 8 + v) * 3 + d);
        }
        sC[qd] = 0.125 * sum;
      });
    }
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ncol * np), [&](int cn) {
      const int c = cn / np, n = cn % np;
      su[cn] = x(c * stride + e * np + n);
    });
    team.team_barrier();

    // Lane (i, j): k-loop over its column; geometry once per node for all fields.
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nq2), [&](int ij) {
      const int i = ij % nq, j = ij / nq;
      double e0[3] = {0, 0, 0}, e1[3] = {0, 0, 0}, f0[3] = {0, 0, 0}, f1[3] = {0, 0, 0};
      double jt[3] = {0, 0, 0};
      const double r = sr[i], s = sr[j], wij = sw[i] * sw[j];
      if (recompute) {
        for (int d = 0; d < 3; ++d) {
          e0[d] = sC[3 * 1 + d] + s * sC[3 * 3 + d];
          e1[d] = sC[3 * 5 + d] + s * sC[3 * 7 + d];
          f0[d] = sC[3 * 2 + d] + r * sC[3 * 3 + d];
          f1[d] = sC[3 * 6 + d] + r * sC[3 * 7 + d];
          jt[d] = sC[3 * 4 + d] + r * sC[3 * 5 + d] + s * (sC[3 * 6 + d] + r * sC[3 * 7 + d]);
        }
      }
      for (int k = 0; k < nq; ++k) {
        const int n = ij + nq2 * k;
        double g00, g01, g02, g11, g12, g22, wj;
        if (recompute) {
          const double t = sr[k];
          const double jr[3] = {e0[0] + t * e1[0], e0[1] + t * e1[1], e0[2] + t * e1[2]};
          const double js[3] = {f0[0] + t * f1[0], f0[1] + t * f1[1], f0[2] + t * f1[2]};
          const double ar[3] = {js[1] * jt[2] - js[2] * jt[1], js[2] * jt[0] - js[0] * jt[2],
                                js[0] * jt[1] - js[1] * jt[0]};
          const double as[3] = {jt[1] * jr[2] - jt[2] * jr[1], jt[2] * jr[0] - jt[0] * jr[2],
                                jt[0] * jr[1] - jt[1] * jr[0]};
          const double at[3] = {jr[1] * js[2] - jr[2] * js[1], jr[2] * js[0] - jr[0] * js[2],
                                jr[0] * js[1] - jr[1] * js[0]};
          const double det = jr[0] * ar[0] + jr[1] * ar[1] + jr[2] * ar[2];
          const double w = wij * sw[k];
          const double scale = lambda0 * w / det;
          g00 = scale * (ar[0] * ar[0] + ar[1] * ar[1] + ar[2] * ar[2]);
          g01 = scale * (ar[0] * as[0] + ar[1] * as[1] + ar[2] * as[2]);
          g02 = scale * (ar[0] * at[0] + ar[1] * at[1] + ar[2] * at[2]);
          g11 = scale * (as[0] * as[0] + as[1] * as[1] + as[2] * as[2]);
          g12 = scale * (as[0] * at[0] + as[1] * at[1] + as[2] * at[2]);
          g22 = scale * (at[0] * at[0] + at[1] * at[1] + at[2] * at[2]);
          wj = lambda1 * w * det;
        } else {
          const std::int64_t base = slot * 7 * np + n;
          g00 = lambda0 * factors(base + G00 * np);
          g01 = lambda0 * factors(base + G01 * np);
          g02 = lambda0 * factors(base + G02 * np);
          g11 = lambda0 * factors(base + G11 * np);
          g12 = lambda0 * factors(base + G12 * np);
          g22 = lambda0 * factors(base + G22 * np);
          wj = helmholtz ? lambda1 * factors(base + GWJ * np) : 0.0;
        }
        for (int c = 0; c < ncol; ++c) {
          const double* u = su + c * np;
          double qr = 0, qs = 0, qt = 0;
          for (int m2 = 0; m2 < nq; ++m2) {
            qr += sD[i * nq + m2] * u[m2 + nq * j + nq2 * k];
            qs += sD[j * nq + m2] * u[i + nq * m2 + nq2 * k];
            qt += sD[k * nq + m2] * u[ij + nq2 * m2];
          }
          sgr[c * np + n] = g00 * qr + g01 * qs + g02 * qt;
          sgs[c * np + n] = g01 * qr + g11 * qs + g12 * qt;
          sgt[c * np + n] = g02 * qr + g12 * qs + g22 * qt;
          if (helmholtz) smass[c * np + n] = wj * u[n];
        }
      }
    });
    team.team_barrier();

    // Transposed gradient: y_ijk = sum_m D_mi gr_mjk + D_mj gs_imk + D_mk gt_ijm (+ mass);
    // dot accumulates x . y (the assembled operator's dot_sum).
    auto transposed = [&](int ij, double& dot) {
      const int i = ij % nq, j = ij / nq;
      for (int c = 0; c < ncol; ++c) {
        const double* gr = sgr + c * np;
        const double* gs = sgs + c * np;
        const double* gt = sgt + c * np;
        for (int k = 0; k < nq; ++k) {
          double sum = helmholtz ? smass[c * np + ij + nq2 * k] : 0.0;
          for (int m2 = 0; m2 < nq; ++m2)
            sum += sD[m2 * nq + i] * gr[m2 + nq * j + nq2 * k] +
                   sD[m2 * nq + j] * gs[i + nq * m2 + nq2 * k] +
                   sD[m2 * nq + k] * gt[ij + nq2 * m2];
          store_result(y, c * stride + e * np + ij + nq2 * k, sum);
          dot += su[c * np + ij + nq2 * k] * sum;
        }
      }
    };
    if constexpr (is_assembled_output<Output>::value) {
      double dot = 0;
      Kokkos::parallel_reduce(Kokkos::TeamThreadRange(team, nq2), transposed, dot);
      Kokkos::single(Kokkos::PerTeam(team), [&] { Kokkos::atomic_add(&y.dot_sum(), dot); });
    } else {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nq2), [&](int ij) {
        double unused = 0;
        transposed(ij, unused);
      });
    }
  };

  const int league = int(m.elements);
  Policy probe(exec, league, 1);
  probe.set_scratch_size(level, Kokkos::PerTeam(scratch_bytes));
  const int team_max = probe.team_size_max(body, Kokkos::ParallelForTag());
  // A CPU runs one element per thread: a team of OpenMP threads (team_size_max
  // is the whole pool) would meet at a team barrier after every stage of every
  // element. A GPU team spreads an element's nq^2 columns over its threads.
  constexpr bool host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
  const int team_size = host ? 1 : team_max < nq2 ? team_max : nq2;
  Policy policy(exec, league, team_size);
  policy.set_scratch_size(level, Kokkos::PerTeam(scratch_bytes));
  Kokkos::parallel_for("ppkit::sem::axhelm", policy, body);
}

// y = A x, x and y local vectors ([ncol][E * Np]), queued on exec.
template <class Exec>
void apply_axhelm(const AxhelmDeviceMesh<typename Exec::memory_space>& m,
                  const Kokkos::View<const double*, typename Exec::memory_space>& x,
                  const Kokkos::View<double*, typename Exec::memory_space>& y,
                  const Exec& exec = Exec()) {
  apply_axhelm_input<Exec>(m, x, y, exec);
}

// y = A Q x: x a vector of global nodes, read at every local node through
// global_of_local ([E * Np], 32-bit), y local; one field.
template <class Exec>
void apply_axhelm_gathered(
    const AxhelmDeviceMesh<typename Exec::memory_space>& m,
    const Kokkos::View<const std::int32_t*, typename Exec::memory_space>& global_of_local,
    const Kokkos::View<const double*, typename Exec::memory_space>& x,
    const Kokkos::View<double*, typename Exec::memory_space>& y) {
  require(m.ncol == 1, "axhelm on a gathered input with " + std::to_string(m.ncol) + " fields",
          "one field (ncol = 1)");
  apply_axhelm_input<Exec>(m, GatheredInput<typename Exec::memory_space>{x, global_of_local}, y);
}

// The assembled operator on vectors of global nodes: y += Q^T A_L Q x (atomic
// adds at the global nodes, unmasked; y holds zeros first) and
// dot_sum += x . Q^T A_L Q x, element by element (AssembledOutput);
// one field.
template <class Exec>
void apply_axhelm_assembled(
    const AxhelmDeviceMesh<typename Exec::memory_space>& m,
    const Kokkos::View<const std::int32_t*, typename Exec::memory_space>& global_of_local,
    const Kokkos::View<const double*, typename Exec::memory_space>& x,
    const Kokkos::View<double*, typename Exec::memory_space>& y,
    const Kokkos::View<double, typename Exec::memory_space>& dot_sum) {
  require(m.ncol == 1, "axhelm on assembled vectors with " + std::to_string(m.ncol) + " fields",
          "one field (ncol = 1)");
  using Mem = typename Exec::memory_space;
  apply_axhelm_input<Exec>(m, GatheredInput<Mem>{x, global_of_local},
                           AssembledOutput<Mem>{y, global_of_local, dot_sum});
}

}  // namespace ppkit::sem
