#pragma once
// The temporally blocked Yee update (kokkos-<space>/blocked-k*, cuda/blocked-k*):
// arguments, tile geometry and the per-node work of a pass, as plain structs
// and __host__ __device__ functions with no Kokkos types, shared by the
// Kokkos functor (yee_kokkos_blocked_kernels.hpp) and the CUDA kernel
// (backends/cuda/fdtd/fdtd_cuda_blocked.cu), so both do the same arithmetic;
// backends/opencl/fdtd/fdtd_blocked.cl repeats it in OpenCL C (a change here
// goes there too; FdtdBlocked.* compares all forms with the reference).
//
// A pass advances the whole grid by `steps` (<= steps per pass) leapfrog
// steps, so the fields, ids and psi cross DRAM once per pass instead of once
// per step.
//
// Tiling. The y-z plane is cut into tiles of tile_y x tile_z nodes (the
// core); a team (thread block) owns one tile and marches along x through
// every x-plane (wavefront along x, overlapped tiles in y and z). It holds in
// scratch a window of the core plus `halo` nodes on each side along y and z
// (clipped at the grid), for `ring` = steps + 2 consecutive x-planes of each
// of the six components and of the 12 CPML psi arrays. At march position p
// the team loads plane p of the pass's input, then for t = 0 .. steps-1
// advances plane x = p-1-t from level t to t+1: H^{n+t+1/2} (Taflove &
// Hagness eq. 3.18 with the CPML of sec. 7.9), E^{n+t+1} (eq. 3.19), the
// point sources of step n+t, then the probes and energy of that step;
// finally it stores plane p-steps, now at level n+steps, for the core only.
// Why one ring slot per plane suffices: H(x) at level t reads E(x), E(x+1) at
// level t; E(x+1) moves to level t+1 only at position x+2+t, later. E(x) at
// level t+1 reads H(x), H(x-1) at level t+1/2; H(x-1) moves on at the same
// position but in iteration t+1, after. The live planes at position p are
// p-steps-1 .. p: steps + 2 slots.
//
// Halo (light cone). Along y, H at window row r reads E at r+1 and E at r
// reads H at r-1, so a team updates H only where r+1 is in its window and E
// only where r-1 is (unless that edge of the window is the grid's face, where
// the PEC conditions stop the stencil). The rows holding the values the
// serial order gives shrink by one at each interior window edge per step:
// after `steps` steps the core is exact when halo >= steps. The halo nodes
// are computed again by the neighbouring tiles (redundant work, no
// communication); a tile writes only its core. Neighbouring teams read their
// halo while others may already have stored theirs, so a pass reads one set
// of buffers and writes another (double buffering of fields and psi).
//
// Each node's arithmetic is that of the serial reference (reference_step.cpp)
// in the same order, so every value equals the serial result.
#include <cstdint>

#include "ppkit/fdtd/materials.hpp"
#include "ppkit/fdtd/yee_kernel_args.hpp"
#include "ppkit/fdtd/yee_split.hpp"  // PPKIT_FDTD_HD

// The per-node functions are inlined into the loops that call them (a call
// per node would cost about as much as the node's update on a CPU).
#if defined(__CUDACC__) || defined(__HIPCC__)
#define PPKIT_FDTD_BLOCKED_HD __host__ __device__ __forceinline__
#elif defined(__GNUC__)
#define PPKIT_FDTD_BLOCKED_HD inline __attribute__((always_inline))
#else
#define PPKIT_FDTD_BLOCKED_HD inline
#endif

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
PPKIT_FDTD_HD int psi_axis(int q) { return q / 4; }
PPKIT_FDTD_HD bool psi_electric(int q) { return q % 4 < 2; }

// Geometry of the tiles of a pass (make_tiling).
struct Tiling {
  std::int64_t tile_y = 0, tile_z = 0;      // core nodes per tile
  std::int64_t halo = 0;                    // window nodes beyond the core per side (y, z)
  std::int64_t tiles_y = 0, tiles_z = 0;    // tiles along y and z
  std::int64_t window_y = 0, window_z = 0;  // scratch extents (core + 2 halo, clipped)
  std::int64_t ring = 0;                    // x-planes held: steps per pass + 2
  PPKIT_FDTD_HD std::int64_t tiles() const { return tiles_y * tiles_z; }
  // Values of one ring of the six fields, and of the 12 psi arrays.
  PPKIT_FDTD_HD std::int64_t field_values() const { return 6 * ring * window_y * window_z; }
  PPKIT_FDTD_HD std::int64_t psi_values() const { return psi_arrays * ring * window_y * window_z; }
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
  // Grid, materials, CPML profiles (its field and psi pointers are unused).
  // Rows are not padded: z pitch nz + 1.
  YeeKernelArgsT<Real> g;
  const Real* src_field[6];  // the pass's input (read only)
  const Real* src_psi[psi_arrays];
  Real* dst_field[6];  // its output
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
  // Psi ring of each tile in global memory ([tile * psi_values()]) where the
  // backend keeps it there (CUDA); nullptr where it is team scratch.
  Real* psi_ring;
  std::int64_t first_step;  // the step the pass starts with
  std::int64_t steps;       // steps in this pass (<= ring - 2)
};

// A tile's window: rows [wy0, wy0 + ny) x [wz0, wz0 + nz) of the grid, core
// [cy0, cy1) x [cz0, cz1); an edge is open when it lies inside the grid.
struct Window {
  std::int64_t wy0, wz0, ny, nz, cy0, cy1, cz0, cz1;
  bool y_low_open, y_high_open, z_low_open, z_high_open;
  // Window rows (ly) and columns (lz) where H and E are updated.
  PPKIT_FDTD_HD std::int64_t h_ly_end() const { return ny - (y_high_open ? 1 : 0); }
  PPKIT_FDTD_HD std::int64_t h_lz_end() const { return nz - (z_high_open ? 1 : 0); }
  PPKIT_FDTD_HD std::int64_t e_ly_begin() const { return y_low_open ? 1 : 0; }
  PPKIT_FDTD_HD std::int64_t e_lz_begin() const { return z_low_open ? 1 : 0; }
};

// x-plane x and the ring slots of x, x + 1 and x - 1 (computed once per
// plane: a 64-bit modulo per node would cost more than the node's update).
struct Plane {
  std::int64_t x, s, next, prev;
};

// The pass's per-node work; F: the field ring, P: the psi ring of one tile.
template <class Real>
struct Pass {
  PassArgs<Real> a;
  Tiling t;

  PPKIT_FDTD_BLOCKED_HD Window window(std::int64_t tile) const {
    const std::int64_t ny1 = a.g.ny + 1, nz1 = a.g.nz + 1;
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
    return w;
  }

  PPKIT_FDTD_BLOCKED_HD std::int64_t slot_of(std::int64_t x) const { return x % t.ring; }
  PPKIT_FDTD_BLOCKED_HD Plane plane(std::int64_t x) const {
    return {x, slot_of(x), slot_of(x + 1), slot_of(x + t.ring - 1)};
  }
  // Ring index of component c (0..5) / psi array q at window node (ly, lz) of slot s.
  PPKIT_FDTD_BLOCKED_HD std::int64_t at(std::int64_t s, int c, std::int64_t ly,
                                        std::int64_t lz) const {
    return ((s * 6 + c) * t.window_y + ly) * t.window_z + lz;
  }
  PPKIT_FDTD_BLOCKED_HD std::int64_t psi_at(std::int64_t s, int q, std::int64_t ly,
                                            std::int64_t lz) const {
    return ((s * psi_arrays + q) * t.window_y + ly) * t.window_z + lz;
  }
  PPKIT_FDTD_BLOCKED_HD std::int64_t node(std::int64_t i, std::int64_t j, std::int64_t k) const {
    return (i * (a.g.ny + 1) + j) * (a.g.nz + 1) + k;
  }
  // The psi slot of array q at node (i, j, k), or -1 outside its layers.
  PPKIT_FDTD_BLOCKED_HD std::int32_t psi_slot(int q, std::int64_t i, std::int64_t j,
                                              std::int64_t k) const {
    const int d = psi_axis(q);
    const std::int64_t u = d == 0 ? i : d == 1 ? j : k;
    return psi_electric(q) ? a.g.axis[d].e_slot[u] : a.g.axis[d].h_slot[u];
  }
  // Whether node (i, j, k) has a psi value in any array (E or H slot on some axis).
  PPKIT_FDTD_BLOCKED_HD bool in_cpml(std::int64_t i, std::int64_t j, std::int64_t k) const {
    const CpmlAxisArgsT<Real>&X = a.g.axis[0], &Y = a.g.axis[1], &Z = a.g.axis[2];
    return (X.e_slot[i] & X.h_slot[i] & Y.e_slot[j] & Y.h_slot[j] & Z.e_slot[k] & Z.h_slot[k]) >= 0;
  }
  // Index into the global psi array q (layouts of yee_kernel_args.hpp).
  PPKIT_FDTD_BLOCKED_HD std::int64_t psi_index(int q, std::int32_t slot, std::int64_t i,
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

  // One CPML-aware derivative term, d / (kappa du) + psi with psi updated
  // first (as cpml_term in yee_kokkos_kernels.hpp and the reference).
  static PPKIT_FDTD_BLOCKED_HD Real term(Real d, Real inv_kd, std::int32_t slot, Real b, Real c_d,
                                         Real* psi) {
    if (slot < 0) return d * inv_kd;
    const Real updated = b * *psi + c_d * d;
    *psi = updated;
    return d * inv_kd + updated;
  }

  // Window node (ly, lz) of plane x from the pass's input into the rings.
  PPKIT_FDTD_BLOCKED_HD void load_node(Real* F, Real* P, const Window& w, const Plane& pl,
                                       std::int64_t ly, std::int64_t lz) const {
    const std::int64_t x = pl.x, s = pl.s, j = w.wy0 + ly, k = w.wz0 + lz, n = node(x, j, k);
    for (int c = 0; c < 6; ++c) F[at(s, c, ly, lz)] = a.src_field[c][n];
    if (!in_cpml(x, j, k)) return;
    for (int q = 0; q < psi_arrays; ++q) {
      const std::int32_t slot = psi_slot(q, x, j, k);
      if (slot >= 0) P[psi_at(s, q, ly, lz)] = a.src_psi[q][psi_index(q, slot, x, j, k)];
    }
  }

  // Core node (ly, lz) of plane x from the rings into the pass's output.
  PPKIT_FDTD_BLOCKED_HD void store_node(const Real* F, const Real* P, const Window& w,
                                        const Plane& pl, std::int64_t ly, std::int64_t lz) const {
    const std::int64_t x = pl.x, s = pl.s, j = w.wy0 + ly, k = w.wz0 + lz, n = node(x, j, k);
    for (int c = 0; c < 6; ++c) a.dst_field[c][n] = F[at(s, c, ly, lz)];
    if (!in_cpml(x, j, k)) return;
    for (int q = 0; q < psi_arrays; ++q) {
      const std::int32_t slot = psi_slot(q, x, j, k);
      if (slot >= 0) a.dst_psi[q][psi_index(q, slot, x, j, k)] = P[psi_at(s, q, ly, lz)];
    }
  }

  // H of window node (ly, lz) of plane x one level up (ly < h_ly_end(), lz < h_lz_end()).
  PPKIT_FDTD_BLOCKED_HD void h_node(Real* F, Real* P, const Window& w, const Plane& pl,
                                    std::int64_t ly, std::int64_t lz) const {
    const YeeKernelArgsT<Real>& g = a.g;
    const std::int64_t x = pl.x, s = pl.s, s1 = pl.next;
    const std::int64_t j = w.wy0 + ly, k = w.wz0 + lz;
    const Real dh = g.material_table[g.material_id[node(x, j, k)] * material_stride + coef_dh];
    const CpmlAxisArgsT<Real>&X = g.axis[0], &Y = g.axis[1], &Z = g.axis[2];
    const std::int64_t sy = t.window_z;
    const Real* ex = F + at(s, 0, ly, lz);
    const Real* ey = F + at(s, 1, ly, lz);
    const Real* ez = F + at(s, 2, ly, lz);
    const Real* ey1 = F + at(s1, 1, ly, lz);  // plane x + 1
    const Real* ez1 = F + at(s1, 2, ly, lz);
    Real* psi = P + psi_at(s, 0, ly, lz);
    const std::int64_t qs = t.window_y * t.window_z;  // between psi arrays
    if (j < g.ny && k < g.nz) {
      const Real dez = ez[sy] - ez[0], dey = ey[1] - ey[0];
      const Real curl =
          term(dez, Y.h_inv_kd[j], Y.h_slot[j], Y.h_b[j], Y.h_c_d[j], psi + psi_hxy * qs) -
          term(dey, Z.h_inv_kd[k], Z.h_slot[k], Z.h_b[k], Z.h_c_d[k], psi + psi_hxz * qs);
      F[at(s, 3, ly, lz)] -= dh * curl;
    }
    if (x < g.nx && k < g.nz) {
      const Real dex = ex[1] - ex[0], dez = ez1[0] - ez[0];
      const Real curl =
          term(dex, Z.h_inv_kd[k], Z.h_slot[k], Z.h_b[k], Z.h_c_d[k], psi + psi_hyz * qs) -
          term(dez, X.h_inv_kd[x], X.h_slot[x], X.h_b[x], X.h_c_d[x], psi + psi_hyx * qs);
      F[at(s, 4, ly, lz)] -= dh * curl;
    }
    if (x < g.nx && j < g.ny) {
      const Real dey = ey1[0] - ey[0], dex = ex[sy] - ex[0];
      const Real curl =
          term(dey, X.h_inv_kd[x], X.h_slot[x], X.h_b[x], X.h_c_d[x], psi + psi_hzx * qs) -
          term(dex, Y.h_inv_kd[j], Y.h_slot[j], Y.h_b[j], Y.h_c_d[j], psi + psi_hzy * qs);
      F[at(s, 5, ly, lz)] -= dh * curl;
    }
  }

  // E of window node (ly, lz) of plane x one level up (ly >= e_ly_begin(),
  // lz >= e_lz_begin()); tangential E on the PEC faces is not updated.
  PPKIT_FDTD_BLOCKED_HD void e_node(Real* F, Real* P, const Window& w, const Plane& pl,
                                    std::int64_t ly, std::int64_t lz) const {
    const YeeKernelArgsT<Real>& g = a.g;
    const std::int64_t x = pl.x, s = pl.s, s0 = pl.prev;  // s0: plane x - 1
    const std::int64_t j = w.wy0 + ly, k = w.wz0 + lz;
    const Real* coef = g.material_table + g.material_id[node(x, j, k)] * material_stride;
    const Real ca = coef[coef_ca], cb = coef[coef_cb];
    const CpmlAxisArgsT<Real>&X = g.axis[0], &Y = g.axis[1], &Z = g.axis[2];
    const std::int64_t sy = t.window_z;
    const Real* hx = F + at(s, 3, ly, lz);
    const Real* hy = F + at(s, 4, ly, lz);
    const Real* hz = F + at(s, 5, ly, lz);
    const Real* hy0 = F + at(s0, 4, ly, lz);  // plane x - 1
    const Real* hz0 = F + at(s0, 5, ly, lz);
    Real* psi = P + psi_at(s, 0, ly, lz);
    const std::int64_t qs = t.window_y * t.window_z;
    const bool inner_x = x >= 1 && x < g.nx, inner_y = j >= 1 && j < g.ny,
               inner_z = k >= 1 && k < g.nz;
    if (x < g.nx && inner_y && inner_z) {
      const Real dhz = hz[0] - hz[-sy], dhy = hy[0] - hy[-1];
      const Real curl =
          term(dhz, Y.e_inv_kd[j], Y.e_slot[j], Y.e_b[j], Y.e_c_d[j], psi + psi_exy * qs) -
          term(dhy, Z.e_inv_kd[k], Z.e_slot[k], Z.e_b[k], Z.e_c_d[k], psi + psi_exz * qs);
      Real& e = F[at(s, 0, ly, lz)];
      e = ca * e + cb * curl;
    }
    if (inner_x && j < g.ny && inner_z) {
      const Real dhx = hx[0] - hx[-1], dhz = hz[0] - hz0[0];
      const Real curl =
          term(dhx, Z.e_inv_kd[k], Z.e_slot[k], Z.e_b[k], Z.e_c_d[k], psi + psi_eyz * qs) -
          term(dhz, X.e_inv_kd[x], X.e_slot[x], X.e_b[x], X.e_c_d[x], psi + psi_eyx * qs);
      Real& e = F[at(s, 1, ly, lz)];
      e = ca * e + cb * curl;
    }
    if (inner_x && inner_y && k < g.nz) {
      const Real dhy = hy[0] - hy0[0], dhx = hx[0] - hx[-sy];
      const Real curl =
          term(dhy, X.e_inv_kd[x], X.e_slot[x], X.e_b[x], X.e_c_d[x], psi + psi_ezx * qs) -
          term(dhx, Y.e_inv_kd[j], Y.e_slot[j], Y.e_b[j], Y.e_c_d[j], psi + psi_ezy * qs);
      Real& e = F[at(s, 2, ly, lz)];
      e = ca * e + cb * curl;
    }
  }

  // The sources of step `step` on plane x anywhere in the window (halo nodes
  // carry them too), in the problem's order as the serial loop; one thread.
  PPKIT_FDTD_BLOCKED_HD void sources(Real* F, const Window& w, std::int64_t x,
                                     std::int64_t step) const {
    for (std::int64_t q = 0; q < a.n_sources; ++q) {
      const std::int64_t* n = a.source_node + 3 * q;
      const std::int64_t ly = n[1] - w.wy0, lz = n[2] - w.wz0;
      if (n[0] != x || ly < 0 || ly >= w.ny || lz < 0 || lz >= w.nz) continue;
      Real& e = F[at(slot_of(x), a.source_component[q], ly, lz)];
      const Real value = a.source_values[q * a.steps_total + step];
      e = a.source_hard[q] ? value : e + value;
    }
  }

  // Probes on core nodes of plane x after step `step` (E^{step+1},
  // H^{step+1/2}); one thread.
  PPKIT_FDTD_BLOCKED_HD void probes(const Real* F, const Window& w, std::int64_t x,
                                    std::int64_t step) const {
    for (std::int64_t q = 0; q < a.n_probes; ++q) {
      const std::int64_t* n = a.probe_node + 3 * q;
      if (n[0] != x || n[1] < w.cy0 || n[1] >= w.cy1 || n[2] < w.cz0 || n[2] >= w.cz1) continue;
      a.probe_values[q * a.steps_total + step] =
          F[at(slot_of(x), a.probe_component[q], n[1] - w.wy0, n[2] - w.wz0)];
    }
  }

  // A core node's 1/2 (eps |E|^2 + mu |H|^2), in double as the serial reference.
  PPKIT_FDTD_BLOCKED_HD double energy(const Real* F, const Window& w, const Plane& pl,
                                      std::int64_t ly, std::int64_t lz) const {
    const std::int64_t x = pl.x, s = pl.s;
    const Real* coef =
        a.g.material_table + a.g.material_id[node(x, w.wy0 + ly, w.wz0 + lz)] * material_stride;
    const Real ex = F[at(s, 0, ly, lz)], ey = F[at(s, 1, ly, lz)], ez = F[at(s, 2, ly, lz)];
    const Real hx = F[at(s, 3, ly, lz)], hy = F[at(s, 4, ly, lz)], hz = F[at(s, 5, ly, lz)];
    const double e2 = double(ex) * ex + double(ey) * ey + double(ez) * ez;
    const double h2 = double(hx) * hx + double(hy) * hy + double(hz) * hz;
    return 0.5 * (coef[coef_eps] * e2 + coef[coef_mu] * h2);
  }
};

}  // namespace ppkit::fdtd::blocked
