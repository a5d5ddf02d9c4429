#pragma once
// Temporally blocked Yee update (kokkos-<space>/blocked-k2, -k4): one Kokkos
// TeamPolicy launch advances the whole grid by `steps` (<= steps per pass)
// leapfrog steps, so the fields, ids and psi cross DRAM once per pass instead
// of once per step.
//
// Tiling. The y-z plane is cut into tiles of tile_y x tile_z nodes (the
// core); a team owns one tile and marches along x through every x-plane
// (wavefront along x, overlapped tiles in y and z). It holds in team scratch
// a window of the core plus `halo` nodes on each side along y and z (clipped
// at the grid), for `ring` = steps + 2 consecutive x-planes of each of the six
// components (level 0 on devices) and the 12 CPML psi arrays (level 1). At march
// position p the team loads plane p of the pass's input, then for t = 0 ..
// steps-1 advances plane x = p-1-t from level t to t+1: H^{n+t+1/2} (Taflove
// & Hagness eq. 3.18 with the CPML of sec. 7.9), E^{n+t+1} (eq. 3.19), the
// point sources of step n+t, then the probes and energy of that step; finally
// it stores plane p-steps, now at level n+steps, for the core nodes only.
// Why one ring slot per plane suffices: H(x) at level t reads E(x), E(x+1) at
// level t; E(x+1) moves to level t+1 only at position x+2+t, later. E(x) at
// level t+1 reads H(x), H(x-1) at level t+1/2; H(x-1) moves on at the same
// position but in the loop iteration t+1, after. The live planes at position
// p are p-steps-1 .. p: steps + 2 slots.
//
// Halo (light cone). Along y, H at window row r reads E at r+1 and E at r
// reads H at r-1, so a team updates H only where r+1 is in its window and E
// only where r-1 is (unless that edge of the window is the grid's face, where
// the PEC conditions stop the stencil). The rows holding level-t values the
// serial order would give shrink by one at each interior window edge per
// step: after `steps` steps the core is exact when halo >= steps. The halo
// nodes are computed again by the neighbouring tiles (redundant work, no
// communication); a tile writes only its core. Because neighbouring teams
// read their halo while others may already have stored theirs, a pass reads
// one set of buffers and writes another (double buffering of fields and psi).
//
// Each node's arithmetic is that of update_h / update_e (yee_kokkos_kernels.hpp)
// and of the serial reference in the same order, so every value equals the
// serial result (IEEE, no contraction differences).
#include <Kokkos_Core.hpp>

#include "ppkit/fdtd/materials.hpp"
#include "ppkit/fdtd/yee_kernel_args.hpp"
#include "ppkit/fdtd/yee_kokkos_kernels.hpp"

namespace ppkit::fdtd::blocked {

// psi arrays in the order of YeeKernelArgsT: x layers, y layers, z layers.
enum PsiArray : int {
  psi_eyx,
  psi_ezx,
  psi_hyx,
  psi_hzx,
  psi_exy,
  psi_ezy,
  psi_hxy,
  psi_hzy,
  psi_exz,
  psi_eyz,
  psi_hxz,
  psi_hyz,
  psi_arrays
};
KOKKOS_INLINE_FUNCTION int psi_axis(int q) { return q / 4; }
KOKKOS_INLINE_FUNCTION bool psi_electric(int q) { return q % 4 < 2; }

// Geometry of the tiles of a pass (host-computed by make_tiling).
struct Tiling {
  std::int64_t tile_y = 0, tile_z = 0;      // core nodes per tile
  std::int64_t halo = 0;                    // window nodes beyond the core per side (y, z)
  std::int64_t tiles_y = 0, tiles_z = 0;    // tiles along y and z
  std::int64_t window_y = 0, window_z = 0;  // scratch extents (core + 2 halo, clipped)
  std::int64_t ring = 0;                    // x-planes held: steps per pass + 2
  std::int64_t tiles() const { return tiles_y * tiles_z; }
};

// ny1, nz1: nodes along y and z.
inline Tiling make_tiling(std::int64_t ny1, std::int64_t nz1, std::int64_t tile_y,
                          std::int64_t tile_z, std::int64_t halo, int steps_per_pass) {
  Tiling t;
  t.tile_y = tile_y < ny1 ? tile_y : ny1;
  t.tile_z = tile_z < nz1 ? tile_z : nz1;
  t.halo = halo;
  t.tiles_y = (ny1 + t.tile_y - 1) / t.tile_y;
  t.tiles_z = (nz1 + t.tile_z - 1) / t.tile_z;
  t.window_y = t.tile_y + 2 * halo < ny1 ? t.tile_y + 2 * halo : ny1;
  t.window_z = t.tile_z + 2 * halo < nz1 ? t.tile_z + 2 * halo : nz1;
  t.ring = steps_per_pass + 2;
  return t;
}

template <class Real>
struct PassArgs {
  // Grid, materials, CPML profiles; its field and psi pointers are the pass's
  // input (read only). Rows are not padded: z pitch nz + 1.
  YeeKernelArgsT<Real> g;
  const Real* src_field[6];
  const Real* src_psi[psi_arrays];
  Real* dst_field[6];
  Real* dst_psi[psi_arrays];
  // Point sources and probes: node (i, j, k) at [3 q .. 3 q + 2].
  std::int64_t n_sources, n_probes, steps_total;
  const std::int64_t* source_node;
  const std::int32_t* source_component;  // 0..2
  const std::int32_t* source_hard;
  const Real* source_values;  // [q * steps_total + step]
  const std::int64_t* probe_node;
  const std::int32_t* probe_component;  // 0..5
  Real* probe_values;                   // [q * steps_total + step]
  const std::int32_t* energy_after;     // [step]: 1 when the energy is taken after it
  double* energy_partial;               // [tile * ring + t]: the core's share after step first + t
  std::int64_t first_step;              // the step the pass starts with
  std::int64_t steps;                   // steps in this pass (<= ring - 2)
};

template <class Exec, class Real>
struct BlockedPass {
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<Real*, typename Exec::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  PassArgs<Real> a;
  Tiling t;
  // Team scratch level of the field ring: 0 (shared memory) on devices, 1 on
  // hosts, whose level 0 holds only 32 KiB per team; psi is always level 1.
  static constexpr int field_level =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible ? 1
                                                                                             : 0;

  static std::size_t field_scratch(const Tiling& t) {
    return Scratch::shmem_size(std::size_t(6 * t.ring * t.window_y * t.window_z));
  }
  static std::size_t psi_scratch(const Tiling& t) {
    return Scratch::shmem_size(std::size_t(psi_arrays * t.ring * t.window_y * t.window_z));
  }

  // The tile's window: rows [wy0, wy0 + ny) x [wz0, wz0 + nz) of the grid,
  // core [cy0, cy1) x [cz0, cz1).
  struct Window {
    std::int64_t wy0, wz0, ny, nz, cy0, cy1, cz0, cz1;
    bool y_low_open, y_high_open, z_low_open, z_high_open;  // an edge inside the grid
  };

  KOKKOS_INLINE_FUNCTION std::int64_t slot_of(std::int64_t x) const { return x % t.ring; }
  // Scratch index of component c (0..5) or psi array q at window node (ly, lz) of ring slot s.
  KOKKOS_INLINE_FUNCTION std::int64_t at(std::int64_t s, int c, std::int64_t ly,
                                         std::int64_t lz) const {
    return ((s * 6 + c) * t.window_y + ly) * t.window_z + lz;
  }
  KOKKOS_INLINE_FUNCTION std::int64_t psi_at(std::int64_t s, int q, std::int64_t ly,
                                             std::int64_t lz) const {
    return ((s * psi_arrays + q) * t.window_y + ly) * t.window_z + lz;
  }
  KOKKOS_INLINE_FUNCTION std::int64_t node(std::int64_t i, std::int64_t j, std::int64_t k) const {
    return (i * (a.g.ny + 1) + j) * (a.g.nz + 1) + k;
  }
  // The psi slot of array q at node (i, j, k), or -1 outside its layers.
  KOKKOS_INLINE_FUNCTION std::int32_t psi_slot(int q, std::int64_t i, std::int64_t j,
                                               std::int64_t k) const {
    const int d = psi_axis(q);
    const std::int64_t u = d == 0 ? i : d == 1 ? j : k;
    return psi_electric(q) ? a.g.axis[d].e_slot[u] : a.g.axis[d].h_slot[u];
  }
  // Index into the global psi array q (layouts of yee_kernel_args.hpp).
  KOKKOS_INLINE_FUNCTION std::int64_t psi_index(int q, std::int32_t slot, std::int64_t i,
                                                std::int64_t j, std::int64_t k) const {
    const std::int64_t ny1 = a.g.ny + 1, nz1 = a.g.nz + 1, layers = a.g.layers;
    switch (psi_axis(q)) {
      case 0:
        return (std::int64_t(slot) * ny1 + j) * nz1 + k;
      case 1:
        return (i * layers + slot) * nz1 + k;
      default:
        return (i * ny1 + j) * layers + slot;
    }
  }

  // Visits the window nodes [ly0, ly1) x [lz0, lz1): rows over the team's
  // threads, z over the vector lanes.
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_nodes(const Member& team, std::int64_t ly0, std::int64_t ly1,
                                        std::int64_t lz0, std::int64_t lz1, const F& f) const {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ly0, ly1), [&](std::int64_t ly) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lz0, lz1),
                           [&](std::int64_t lz) { f(ly, lz); });
    });
  }

  KOKKOS_INLINE_FUNCTION void load(const Member& team, const Window& w, Real* F, Real* P,
                                   std::int64_t x) const {
    const std::int64_t s = slot_of(x);
    for_nodes(team, 0, w.ny, 0, w.nz, [&](std::int64_t ly, std::int64_t lz) {
      const std::int64_t j = w.wy0 + ly, k = w.wz0 + lz, n = node(x, j, k);
      for (int c = 0; c < 6; ++c) F[at(s, c, ly, lz)] = a.src_field[c][n];
      for (int q = 0; q < psi_arrays; ++q) {
        const std::int32_t slot = psi_slot(q, x, j, k);
        if (slot >= 0) P[psi_at(s, q, ly, lz)] = a.src_psi[q][psi_index(q, slot, x, j, k)];
      }
    });
  }

  KOKKOS_INLINE_FUNCTION void store(const Member& team, const Window& w, const Real* F,
                                    const Real* P, std::int64_t x) const {
    const std::int64_t s = slot_of(x);
    for_nodes(team, w.cy0 - w.wy0, w.cy1 - w.wy0, w.cz0 - w.wz0, w.cz1 - w.wz0,
              [&](std::int64_t ly, std::int64_t lz) {
                const std::int64_t j = w.wy0 + ly, k = w.wz0 + lz, n = node(x, j, k);
                for (int c = 0; c < 6; ++c) a.dst_field[c][n] = F[at(s, c, ly, lz)];
                for (int q = 0; q < psi_arrays; ++q) {
                  const std::int32_t slot = psi_slot(q, x, j, k);
                  if (slot >= 0)
                    a.dst_psi[q][psi_index(q, slot, x, j, k)] = P[psi_at(s, q, ly, lz)];
                }
              });
  }

  // H of plane x, one level up: where the forward neighbours along y and z
  // are in the window (or beyond the grid's last face, where none is read).
  KOKKOS_INLINE_FUNCTION void update_h(const Member& team, const Window& w, Real* F, Real* P,
                                       std::int64_t x) const {
    const std::int64_t s = slot_of(x), s1 = slot_of(x + 1);
    const YeeKernelArgsT<Real>& g = a.g;
    for_nodes(team, 0, w.ny - (w.y_high_open ? 1 : 0), 0, w.nz - (w.z_high_open ? 1 : 0),
              [&](std::int64_t ly, std::int64_t lz) {
                const std::int64_t j = w.wy0 + ly, k = w.wz0 + lz;
                const Real dh =
                    g.material_table[g.material_id[node(x, j, k)] * material_stride + coef_dh];
                const CpmlAxisArgsT<Real>&X = g.axis[0], &Y = g.axis[1], &Z = g.axis[2];
                const std::int64_t c = at(s, 0, ly, lz) - at(s, 0, 0, 0);  // offset in a component
                Real* ex = F + at(s, 0, 0, 0);
                Real* ey = F + at(s, 1, 0, 0);
                Real* ez = F + at(s, 2, 0, 0);
                const Real* ey1 = F + at(s1, 1, 0, 0);  // plane x + 1
                const Real* ez1 = F + at(s1, 2, 0, 0);
                const std::int64_t sy = t.window_z, p = psi_at(s, 0, ly, lz) - psi_at(s, 0, 0, 0);
                Real* psi = P + psi_at(s, 0, 0, 0);
                const std::int64_t qs = psi_at(0, 1, 0, 0);  // between psi arrays
                if (j < g.ny && k < g.nz) {
                  const Real dez = ez[c + sy] - ez[c], dey = ey[c + 1] - ey[c];
                  const Real curl = cpml_term(dez, Y.h_inv_kd[j], Y.h_slot[j], Y.h_b[j], Y.h_c_d[j],
                                              psi + psi_hxy * qs, p) -
                                    cpml_term(dey, Z.h_inv_kd[k], Z.h_slot[k], Z.h_b[k], Z.h_c_d[k],
                                              psi + psi_hxz * qs, p);
                  F[at(s, 3, ly, lz)] -= dh * curl;
                }
                if (x < g.nx && k < g.nz) {
                  const Real dex = ex[c + 1] - ex[c], dez = ez1[c] - ez[c];
                  const Real curl = cpml_term(dex, Z.h_inv_kd[k], Z.h_slot[k], Z.h_b[k], Z.h_c_d[k],
                                              psi + psi_hyz * qs, p) -
                                    cpml_term(dez, X.h_inv_kd[x], X.h_slot[x], X.h_b[x], X.h_c_d[x],
                                              psi + psi_hyx * qs, p);
                  F[at(s, 4, ly, lz)] -= dh * curl;
                }
                if (x < g.nx && j < g.ny) {
                  const Real dey = ey1[c] - ey[c], dex = ex[c + sy] - ex[c];
                  const Real curl = cpml_term(dey, X.h_inv_kd[x], X.h_slot[x], X.h_b[x], X.h_c_d[x],
                                              psi + psi_hzx * qs, p) -
                                    cpml_term(dex, Y.h_inv_kd[j], Y.h_slot[j], Y.h_b[j], Y.h_c_d[j],
                                              psi + psi_hzy * qs, p);
                  F[at(s, 5, ly, lz)] -= dh * curl;
                }
              });
  }

  // E of plane x, one level up: where the backward neighbours along y and z
  // are in the window (or before the grid's first face); tangential E on the
  // PEC faces is not updated.
  KOKKOS_INLINE_FUNCTION void update_e(const Member& team, const Window& w, Real* F, Real* P,
                                       std::int64_t x) const {
    const std::int64_t s = slot_of(x), s0 = slot_of(x + t.ring - 1);  // plane x - 1
    const YeeKernelArgsT<Real>& g = a.g;
    for_nodes(team, w.y_low_open ? 1 : 0, w.ny, w.z_low_open ? 1 : 0, w.nz,
              [&](std::int64_t ly, std::int64_t lz) {
                const std::int64_t j = w.wy0 + ly, k = w.wz0 + lz;
                const Real* coef =
                    g.material_table + g.material_id[node(x, j, k)] * material_stride;
                const Real ca = coef[coef_ca], cb = coef[coef_cb];
                const CpmlAxisArgsT<Real>&X = g.axis[0], &Y = g.axis[1], &Z = g.axis[2];
                const std::int64_t c = at(s, 0, ly, lz) - at(s, 0, 0, 0);
                const Real* hx = F + at(s, 3, 0, 0);
                const Real* hy = F + at(s, 4, 0, 0);
                const Real* hz = F + at(s, 5, 0, 0);
                const Real* hy0 = F + at(s0, 4, 0, 0);  // plane x - 1
                const Real* hz0 = F + at(s0, 5, 0, 0);
                const std::int64_t sy = t.window_z, p = psi_at(s, 0, ly, lz) - psi_at(s, 0, 0, 0);
                Real* psi = P + psi_at(s, 0, 0, 0);
                const std::int64_t qs = psi_at(0, 1, 0, 0);
                const bool inner_x = x >= 1 && x < g.nx, inner_y = j >= 1 && j < g.ny,
                           inner_z = k >= 1 && k < g.nz;
                if (x < g.nx && inner_y && inner_z) {
                  const Real dhz = hz[c] - hz[c - sy], dhy = hy[c] - hy[c - 1];
                  const Real curl = cpml_term(dhz, Y.e_inv_kd[j], Y.e_slot[j], Y.e_b[j], Y.e_c_d[j],
                                              psi + psi_exy * qs, p) -
                                    cpml_term(dhy, Z.e_inv_kd[k], Z.e_slot[k], Z.e_b[k], Z.e_c_d[k],
                                              psi + psi_exz * qs, p);
                  Real& e = F[at(s, 0, ly, lz)];
                  e = ca * e + cb * curl;
                }
                if (inner_x && j < g.ny && inner_z) {
                  const Real dhx = hx[c] - hx[c - 1], dhz = hz[c] - hz0[c];
                  const Real curl = cpml_term(dhx, Z.e_inv_kd[k], Z.e_slot[k], Z.e_b[k], Z.e_c_d[k],
                                              psi + psi_eyz * qs, p) -
                                    cpml_term(dhz, X.e_inv_kd[x], X.e_slot[x], X.e_b[x], X.e_c_d[x],
                                              psi + psi_eyx * qs, p);
                  Real& e = F[at(s, 1, ly, lz)];
                  e = ca * e + cb * curl;
                }
                if (inner_x && inner_y && k < g.nz) {
                  const Real dhy = hy[c] - hy0[c], dhx = hx[c] - hx[c - sy];
                  const Real curl = cpml_term(dhy, X.e_inv_kd[x], X.e_slot[x], X.e_b[x], X.e_c_d[x],
                                              psi + psi_ezx * qs, p) -
                                    cpml_term(dhx, Y.e_inv_kd[j], Y.e_slot[j], Y.e_b[j], Y.e_c_d[j],
                                              psi + psi_ezy * qs, p);
                  Real& e = F[at(s, 2, ly, lz)];
                  e = ca * e + cb * curl;
                }
              });
  }

  // Sources of step `step` on plane x anywhere in the window (halo nodes
  // carry them too), in the order of the problem, as the serial loop.
  KOKKOS_INLINE_FUNCTION void sources(const Member& team, const Window& w, Real* F, std::int64_t x,
                                      std::int64_t step) const {
    Kokkos::single(Kokkos::PerTeam(team), [&] {
      for (std::int64_t q = 0; q < a.n_sources; ++q) {
        const std::int64_t* n = a.source_node + 3 * q;
        const std::int64_t ly = n[1] - w.wy0, lz = n[2] - w.wz0;
        if (n[0] != x || ly < 0 || ly >= w.ny || lz < 0 || lz >= w.nz) continue;
        Real& e = F[at(slot_of(x), a.source_component[q], ly, lz)];
        const Real value = a.source_values[q * a.steps_total + step];
        e = a.source_hard[q] ? value : e + value;
      }
    });
  }

  // Probes on core nodes of plane x after step `step` (E^{step+1}, H^{step+1/2}),
  // and the core's share of the energy when it is taken after that step.
  KOKKOS_INLINE_FUNCTION void record(const Member& team, const Window& w, const Real* F,
                                     std::int64_t x, std::int64_t step, std::int64_t level) const {
    const std::int64_t s = slot_of(x);
    Kokkos::single(Kokkos::PerTeam(team), [&] {
      for (std::int64_t q = 0; q < a.n_probes; ++q) {
        const std::int64_t* n = a.probe_node + 3 * q;
        if (n[0] != x || n[1] < w.cy0 || n[1] >= w.cy1 || n[2] < w.cz0 || n[2] >= w.cz1) continue;
        a.probe_values[q * a.steps_total + step] =
            F[at(s, a.probe_component[q], n[1] - w.wy0, n[2] - w.wz0)];
      }
    });
    if (!a.energy_after[step]) return;
    const std::int64_t cy = w.cy1 - w.cy0, cz = w.cz1 - w.cz0;
    double sum = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, cy * cz),
        [&](std::int64_t m, double& acc) {
          const std::int64_t ly = w.cy0 - w.wy0 + m / cz, lz = w.cz0 - w.wz0 + m % cz;
          const Real* coef = a.g.material_table +
                             a.g.material_id[node(x, w.wy0 + ly, w.wz0 + lz)] * material_stride;
          const Real ex = F[at(s, 0, ly, lz)], ey = F[at(s, 1, ly, lz)], ez = F[at(s, 2, ly, lz)];
          const Real hx = F[at(s, 3, ly, lz)], hy = F[at(s, 4, ly, lz)], hz = F[at(s, 5, ly, lz)];
          // In double, as the serial reference: only the summation order differs.
          const double e2 = double(ex) * ex + double(ey) * ey + double(ez) * ez;
          const double h2 = double(hx) * hx + double(hy) * hy + double(hz) * hz;
          acc += 0.5 * (coef[coef_eps] * e2 + coef[coef_mu] * h2);
        },
        sum);
    Kokkos::single(Kokkos::PerTeam(team),
                   [&] { a.energy_partial[team.league_rank() * t.ring + level] += sum; });
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t tile = team.league_rank();
    const std::int64_t ny1 = a.g.ny + 1, nz1 = a.g.nz + 1, nx = a.g.nx;
    Window w;
    w.cy0 = (tile / t.tiles_z) * t.tile_y;
    w.cz0 = (tile % t.tiles_z) * t.tile_z;
    w.cy1 = w.cy0 + t.tile_y < ny1 ? w.cy0 + t.tile_y : ny1;
    w.cz1 = w.cz0 + t.tile_z < nz1 ? w.cz0 + t.tile_z : nz1;
    w.wy0 = w.cy0 - t.halo > 0 ? w.cy0 - t.halo : 0;
    w.wz0 = w.cz0 - t.halo > 0 ? w.cz0 - t.halo : 0;
    const std::int64_t wy1 = w.cy1 + t.halo < ny1 ? w.cy1 + t.halo : ny1;
    const std::int64_t wz1 = w.cz1 + t.halo < nz1 ? w.cz1 + t.halo : nz1;
    w.ny = wy1 - w.wy0;
    w.nz = wz1 - w.wz0;
    w.y_low_open = w.wy0 > 0;
    w.z_low_open = w.wz0 > 0;
    w.y_high_open = wy1 < ny1;
    w.z_high_open = wz1 < nz1;
    Scratch fields(team.team_scratch(field_level),
                   std::size_t(6 * t.ring * t.window_y * t.window_z));
    Scratch psi(team.team_scratch(1), std::size_t(psi_arrays * t.ring * t.window_y * t.window_z));
    Real* F = fields.data();
    Real* P = psi.data();
    Kokkos::single(Kokkos::PerTeam(team), [&] {
      for (std::int64_t l = 0; l < a.steps; ++l) a.energy_partial[tile * t.ring + l] = 0;
    });
    for (std::int64_t pos = 0; pos <= nx + a.steps; ++pos) {
      if (pos <= nx) load(team, w, F, P, pos);
      team.team_barrier();
      for (std::int64_t level = 0; level < a.steps; ++level) {
        const std::int64_t x = pos - 1 - level;
        if (x < 0 || x > nx) continue;
        update_h(team, w, F, P, x);
        team.team_barrier();
        update_e(team, w, F, P, x);
        team.team_barrier();
        sources(team, w, F, x, a.first_step + level);
        team.team_barrier();
        record(team, w, F, x, a.first_step + level, level);
      }
      const std::int64_t done = pos - a.steps;
      if (done >= 0 && done <= nx) store(team, w, F, P, done);
      team.team_barrier();
    }
  }

  void run(const Exec& exec) const {
    Policy policy(exec, t.tiles(), Kokkos::AUTO);
    if (field_level == 0) {
      policy.set_scratch_size(0, Kokkos::PerTeam(field_scratch(t)));
      policy.set_scratch_size(1, Kokkos::PerTeam(psi_scratch(t)));
    } else {
      policy.set_scratch_size(1, Kokkos::PerTeam(field_scratch(t) + psi_scratch(t)));
    }
    Kokkos::parallel_for("fdtd.blocked_pass", policy, *this);
  }
};

}  // namespace ppkit::fdtd::blocked
