#pragma once
// The per-element pieces of the factored strategy (f) for Kokkos, shared by
// kokkos-<space>/factored-* (Ke staged, then added to CSR rows) and
// kokkos-<space>/tiled (blocks added into a tile accumulator). One element
// per team thread with 32 vector lanes (a warp on CUDA, a loop on Serial):
//  1. factored_geometry: Jacobians of the 8 Gauss points (72 entries), det J_q
//     and the cofactors on 8 lanes, then 192 unnormalised derivatives
//     G_a = cofactor(J_q)^T dN_a (one division per Gauss point in all);
//  2. factored_lane_blocks: lane l accumulates
//     M_ab = sum_q (w / det J_q) G_a G_b^T for its two blocks (4 threads per
//     row: rows of node l/4, columns of nodes 2(l%4) and 2(l%4)+1) and emits
//     K_ab = lambda M_ab + mu M_ab^T + mu tr(M_ab) I (isotropic D's structure);
//  3. add_body_force: sum_q N_a(q) w det J_q b_i into the load vector.
// Phases are separate vector loops; `sync` runs between them (team_barrier()
// for a one-thread team, nothing where the vector loops' own synchronisation
// of the lanes suffices, i.e. several elements per team).
#include <Kokkos_Core.hpp>

#include "ppkit/fem/assemble_kokkos.hpp"

namespace ppkit::fem::kokkos_assembly {

// Scratch of one element. G may alias x and J (they are dead once the
// cofactors exist), never C, scale or wdet.
struct FactoredElementScratch {
  double* x;      // 24 coordinates: node a, component i at 3a + i
  double* J;      // 72: J[9q + 3k + i] = dx_i / dxi_k at Gauss point q
  double* C;      // 72: C[9q + 3i + k] = cofactor (i, k) of J_q
  double* G;      // 192: G[24q + 3a + i] = sum_k C_q(i, k) dN(q, a, k)
  double* scale;  // 8: w / det J_q
  double* wdet;   // 8: w det J_q
};

template <class Member, class Table, class Sync>
KOKKOS_INLINE_FUNCTION void factored_geometry(const Member& team, const Table& natural_derivatives,
                                              const FactoredElementScratch& s, const Sync& sync) {
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 72), [&](const int m) {
    const int q = m / 9, k = (m % 9) / 3, i = m % 3;
    double sum = 0;
    for (int a = 0; a < 8; ++a) sum += natural_derivatives((q * 8 + a) * 3 + k) * s.x[3 * a + i];
    s.J[m] = sum;
  });
  sync();
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 8), [&](const int q) {
    const double* Jq = s.J + 9 * q;
    const double det = determinant3(Jq);
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) s.C[9 * q + 3 * i + k] = cofactor(Jq, i, k);
    s.scale[q] = kGaussWeight / det;
    s.wdet[q] = kGaussWeight * det;
  });
  sync();
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 192), [&](const int m) {
    const int q = m / 24, a = (m % 24) / 3, i = m % 3;
    const double* Cq = s.C + 9 * q + 3 * i;
    s.G[m] = Cq[0] * natural_derivatives((q * 8 + a) * 3) +
             Cq[1] * natural_derivatives((q * 8 + a) * 3 + 1) +
             Cq[2] * natural_derivatives((q * 8 + a) * 3 + 2);
  });
  sync();
}

// Inside a vector loop over the 32 lanes: emit(a, b, i, j, K_(a i)(b j)) for
// the lane's 18 entries (blocks (a, b0) and (a, b0 + 1), b0 even).
template <class Emit>
KOKKOS_INLINE_FUNCTION void factored_lane_blocks(int lane, const FactoredElementScratch& s,
                                                 double lambda, double mu, const Emit& emit) {
  const int a = FourThreadsPerRow::row_node(lane, 0);
  const int b0 = FourThreadsPerRow::column_node(lane, 0), b1 = b0 + 1;
  double M0[9], M1[9];
  for (int m = 0; m < 9; ++m) M0[m] = M1[m] = 0;
  for (int q = 0; q < 8; ++q) {
    const double* G = s.G + 24 * q;
    const double w = s.scale[q];
    const double ha[3] = {w * G[3 * a], w * G[3 * a + 1], w * G[3 * a + 2]};
    const double g0[3] = {G[3 * b0], G[3 * b0 + 1], G[3 * b0 + 2]};
    const double g1[3] = {G[3 * b1], G[3 * b1 + 1], G[3 * b1 + 2]};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        M0[3 * i + j] += ha[i] * g0[j];
        M1[3 * i + j] += ha[i] * g1[j];
      }
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      emit(a, b0, i, j, isotropic_block_entry(M0, lambda, mu, i, j));
      emit(a, b1, i, j, isotropic_block_entry(M1, lambda, mu, i, j));
    }
}

// Body force of element e (slot e of `nodes`): lane 3a + i adds
// sum_q N_a(q) w det J_q b_i to DOF 3 node_a + i, atomically or not.
template <bool kAtomic, class Member, class Table, class Nodes, class Load>
KOKKOS_INLINE_FUNCTION void add_body_force(const Member& team, const Table& shape_values,
                                           const double* wdet, const Nodes& nodes, std::int64_t e,
                                           const double (&body)[3], const Load& load) {
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 24), [&](const int m) {
    const int a = m / 3, i = m % 3;
    double f = 0;
    for (int q = 0; q < 8; ++q) f += shape_values(8 * q + a) * wdet[q];
    const double b = i == 0 ? body[0] : (i == 1 ? body[1] : body[2]);  // no dynamic index
    double* target = &load(3 * std::int64_t(nodes(8 * e + a)) + i);
    if (kAtomic)
      Kokkos::atomic_add(target, f * b);
    else
      *target += f * b;
  });
}

}  // namespace ppkit::fem::kokkos_assembly
