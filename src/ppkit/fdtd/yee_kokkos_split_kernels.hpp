#pragma once
// The Kokkos kernels of kokkos/split (yee_split.hpp): per half step one flat
// RangePolicy over the interior box (numbered in 32 z x 8 y tiles, see
// for_interior_pairs; branch-free update without CPML; each work item
// updates a pair of x-planes, all loads before the stores) and one over
// the shell of CPML layers and PEC faces (general update). Material ids are
// 1 byte when at most 256 materials exist; with a single material no id is
// read at all.
#include <Kokkos_Core.hpp>

#include "ppkit/fdtd/materials.hpp"
#include "ppkit/fdtd/yee_split.hpp"

namespace ppkit::fdtd::split {

// Per-node coefficient lookup: ids == nullptr means one material everywhere.
template <class Id, class Real = float>
struct MaterialLookup {
  const Id* ids;
  const Real* table;
  Real ca0, cb0, dh0, eps0, mu0;  // material 0 (used when ids == nullptr)
  KOKKOS_INLINE_FUNCTION Real get(std::int64_t n, int which, Real uniform) const {
    return ids ? table[std::int64_t(ids[n]) * material_stride + which] : uniform;
  }
};

// The interior box in pairs of x-planes (the last one alone when the count is
// odd): body(i, j, k, pair) updates plane i, and i + 1 when pair. The work
// items are numbered in tiles of 32 z x 8 y nodes (256 consecutive indices,
// like the blocks of cuda/split): on a GPU a warp reads one aligned 128-byte
// z segment (the tile's z origin is rounded down to a multiple of 32, items
// outside the box return), and the y neighbour of 7 rows in 8 is read by the
// same block (L1) rather than by a block a whole row away. Tiles run z, then y,
// then x (slowest), so neighbour planes are still in L2 when read again. The
// decode uses shifts and 32-bit divisions by the tile counts: launches of
// fewer than 2^31 work items.
constexpr int split_tile_z = 32, split_tile_y = 8, split_tile = split_tile_z * split_tile_y;

template <class Exec, class Body>
void for_interior_pairs(const char* label, const Box& b, const Body& body) {
  const std::int64_t lo_z = b.lo[2], hi_z = b.hi[2], lo_y = b.lo[1], hi_y = b.hi[1];
  const std::int64_t k0 = lo_z & ~std::int64_t(split_tile_z - 1);
  const std::int64_t tiles_z = (hi_z - k0 + split_tile_z - 1) / split_tile_z;
  const std::int64_t tiles_y = (hi_y - lo_y + split_tile_y - 1) / split_tile_y;
  const std::int64_t items_per_pair = tiles_z * tiles_y * split_tile;
  const std::int64_t pairs = (b.hi[0] - b.lo[0] + 1) / 2;
  if (pairs <= 0 || tiles_z <= 0 || tiles_y <= 0) return;
  const std::int64_t max_pairs =
      std::max<std::int64_t>(1, ((std::int64_t(1) << 31) - 1) / items_per_pair);
  const std::uint32_t tz32 = std::uint32_t(tiles_z), ty32 = std::uint32_t(tiles_y);
  for (std::int64_t first = 0; first < pairs; first += max_pairs) {
    const std::int64_t count = std::min(max_pairs, pairs - first);
    const std::int64_t i0 = b.lo[0] + 2 * first, hi_x = b.hi[0];
    Kokkos::parallel_for(
        label,
        Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>, Kokkos::LaunchBounds<256>>(
            0, count * items_per_pair),
        KOKKOS_LAMBDA(std::int64_t q) {
          const std::uint32_t q32 = std::uint32_t(q), lane = q32 & (split_tile - 1);
          const std::uint32_t tile = q32 / split_tile, rest = tile / tz32, di = rest / ty32;
          const std::int64_t k = k0 + std::int64_t(tile - rest * tz32) * split_tile_z +
                                 std::int64_t(lane % split_tile_z);
          const std::int64_t j = lo_y + std::int64_t(rest - di * ty32) * split_tile_y +
                                 std::int64_t(lane / split_tile_z);
          if (k < lo_z || k >= hi_z || j >= hi_y) return;
          const std::int64_t i = i0 + 2 * std::int64_t(di);
          body(i, j, k, i + 1 < hi_x);
        });
  }
}

template <class Exec, class Id, class Real>
void update_h_split(const YeeKernelArgsT<Real> a, const MaterialLookup<Id, Real> m,
                    const InteriorT<Real> in, const Shell sh, std::int64_t sy) {
  const std::int64_t sx = (a.ny + 1) * sy;
  for_interior_pairs<Exec>(
      "fdtd.update_h_interior", in.box,
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t j, std::int64_t k, bool pair) {
        const std::int64_t n = i * sx + j * sy + k;
        if (pair)
          update_h_interior_pair(a, n, sy, sx, in.inv_d, m.get(n, coef_dh, m.dh0),
                                 m.get(n + sx, coef_dh, m.dh0));
        else
          update_h_interior(a, n, sy, sx, in.inv_d, m.get(n, coef_dh, m.dh0));
      });
  Kokkos::parallel_for(
      "fdtd.update_h_shell",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, sh.first[6]),
      KOKKOS_LAMBDA(std::int64_t q) {
        std::int64_t i, j, k;
        shell_node(sh, q, i, j, k);
        update_h_node(a, i, i, j, k, sy, sx, m.get(i * sx + j * sy + k, coef_dh, m.dh0));
      });
}

template <class Exec, class Id, class Real>
void update_e_split(const YeeKernelArgsT<Real> a, const MaterialLookup<Id, Real> m,
                    const InteriorT<Real> in, const Shell sh, std::int64_t sy) {
  const std::int64_t sx = (a.ny + 1) * sy;
  for_interior_pairs<Exec>(
      "fdtd.update_e_interior", in.box,
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t j, std::int64_t k, bool pair) {
        const std::int64_t n = i * sx + j * sy + k;
        if (pair)
          update_e_interior_pair(a, n, sy, sx, in.inv_d, m.get(n, coef_ca, m.ca0),
                                 m.get(n, coef_cb, m.cb0), m.get(n + sx, coef_ca, m.ca0),
                                 m.get(n + sx, coef_cb, m.cb0));
        else
          update_e_interior(a, n, sy, sx, in.inv_d, m.get(n, coef_ca, m.ca0),
                            m.get(n, coef_cb, m.cb0));
      });
  Kokkos::parallel_for(
      "fdtd.update_e_shell",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, sh.first[6]),
      KOKKOS_LAMBDA(std::int64_t q) {
        std::int64_t i, j, k;
        shell_node(sh, q, i, j, k);
        const std::int64_t n = i * sx + j * sy + k;
        update_e_node(a, i, i, j, k, sy, sx, m.get(n, coef_ca, m.ca0), m.get(n, coef_cb, m.cb0));
      });
}

// 1/2 sum (eps |E|^2 + mu |H|^2) over all nodes of rows pitched by sy (the
// padding holds zeros; times dV by the caller).
template <class Exec, class Id, class Real>
double field_energy_split(const YeeKernelArgsT<Real> a, const MaterialLookup<Id, Real> m,
                          std::int64_t sy) {
  double sum = 0;
  Kokkos::parallel_reduce(
      "fdtd.energy",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, (a.nx + 1) * (a.ny + 1) * sy),
      KOKKOS_LAMBDA(std::int64_t n, double& acc) {
        const Real e2 = a.ex[n] * a.ex[n] + a.ey[n] * a.ey[n] + a.ez[n] * a.ez[n];
        const Real h2 = a.hx[n] * a.hx[n] + a.hy[n] * a.hy[n] + a.hz[n] * a.hz[n];
        acc +=
            0.5 * (double(m.get(n, coef_eps, m.eps0)) * e2 + double(m.get(n, coef_mu, m.mu0)) * h2);
      },
      sum);
  return sum;
}

}  // namespace ppkit::fdtd::split
