// opencl/blocked-k2, -k4: the temporally blocked Yee pass in OpenCL C (scheme,
// halo and ring: src/ppkit/fdtd/yee_blocked.hpp, whose per-node arithmetic
// this file repeats operation for operation, so every value equals the serial
// reference). A work-group per y-z tile marches along x; the ring of the six
// fields over RING x-planes of the tile's window is in local memory, the psi
// ring in a per-group slice of global memory (only nodes in the CPML layers
// touch it). Window rows go to local y, z to local x: in the H and E updates
// each work-item takes quads of 4 consecutive z nodes, updated as float4
// where no node of the quad is in a CPML layer (as the interior of
// opencl/float4), node by node otherwise.
//
// Layout of opencl/float4 (fdtd_float4.cl): fields with a z pitch pz, packed
// CPML profiles (6 arrays of n1 entries per axis, n1 = pz along z) and slots
// (E then H), four psi arrays per axis buffer (E then H, in the order of
// yee_kernel_args.hpp).
//
// Build options: WY, WZ (window extents), RING (x-planes held), LZ, LY
// (work-group shape), MATERIAL_T (the id type) and
// ONE_MATERIAL (no id read).

// Products and sums rounded one by one, as in the host reference (a fused
// multiply-add would round once and differ in the last bit).
#pragma OPENCL FP_CONTRACT OFF
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#ifndef MATERIAL_T
#define MATERIAL_T uint
#endif
#define STRIDE 8
#define PSI_ARRAYS 12
#define PLANE (WY * WZ)
// Ring index of component c (0..5) / psi array q at window node (ly, lz) of slot s.
#define F_AT(s, c, ly, lz) ((((s)*6 + (c)) * WY + (ly)) * WZ + (lz))
#define P_AT(s, q, ly, lz) ((((s)*PSI_ARRAYS + (q)) * WY + (ly)) * WZ + (lz))

// psi arrays as in yee_blocked.hpp: x layers, y layers, z layers; within an
// axis E (two) then H (two).
enum {
  PSI_EYX,
  PSI_EZX,
  PSI_HYX,
  PSI_HZX,
  PSI_EXY,
  PSI_EZY,
  PSI_HXY,
  PSI_HZY,
  PSI_EXZ,
  PSI_EYZ,
  PSI_HXZ,
  PSI_HYZ
};

// The pass's arguments (private copies of the kernel's arguments).
typedef struct {
  long nx, ny, nz, pz, layers;
  __global const float* src[6];
  __global float* dst[6];
  __global const float* src_psi[3];  // per axis, four arrays of psi_size[axis]
  __global float* dst_psi[3];
  long psi_size[3];
  __global const MATERIAL_T* material;
  __global const float* table;
  __global const float* prof[3];  // per axis: e_inv_kd, e_b, e_c_d, h_inv_kd, h_b, h_c_d
  __global const int* slot[3];    // per axis: e_slot, h_slot
  long n1[3];                     // profile entries per array: nx + 1, ny + 1, pz
} Pass;

// A tile's window (yee_blocked.hpp, Window): rows [wy0, wy0 + ny) x [wz0,
// wz0 + nz), core [cy0, cy1) x [cz0, cz1); an edge is open inside the grid.
typedef struct {
  long wy0, wz0, cy0, cy1, cz0, cz1;
  int ny, nz;
  int y_low_open, y_high_open, z_low_open, z_high_open;
} Window;

inline Window window_of(const Pass* p, long tile, long tile_y, long tile_z, long halo,
                        long tiles_z) {
  const long ny1 = p->ny + 1, nz1 = p->nz + 1;
  Window w;
  w.cy0 = (tile / tiles_z) * tile_y;
  w.cz0 = (tile % tiles_z) * tile_z;
  w.cy1 = min(w.cy0 + tile_y, ny1);
  w.cz1 = min(w.cz0 + tile_z, nz1);
  w.wy0 = max(w.cy0 - halo, 0L);
  w.wz0 = max(w.cz0 - halo, 0L);
  const long wy1 = min(w.cy1 + halo, ny1), wz1 = min(w.cz1 + halo, nz1);
  w.ny = (int)(wy1 - w.wy0);
  w.nz = (int)(wz1 - w.wz0);
  w.y_low_open = w.wy0 > 0;
  w.z_low_open = w.wz0 > 0;
  w.y_high_open = wy1 < ny1;
  w.z_high_open = wz1 < nz1;
  return w;
}

inline long node_of(const Pass* p, long i, long j, long k) {
  return (i * (p->ny + 1) + j) * p->pz + k;
}

inline float coefficient(const Pass* p, long n, int which) {
#ifdef ONE_MATERIAL
  return p->table[which];
#else
  return p->table[(long)p->material[n] * STRIDE + which];
#endif
}

// Profile value `which` (0..5: e_inv_kd, e_b, e_c_d, h_inv_kd, h_b, h_c_d) of axis d at u.
inline float profile(const Pass* p, int d, int which, long u) {
  return p->prof[d][which * p->n1[d] + u];
}
inline int e_slot(const Pass* p, int d, long u) { return p->slot[d][u]; }
inline int h_slot(const Pass* p, int d, long u) { return p->slot[d][p->n1[d] + u]; }

// The psi slot of array q at node (i, j, k), or -1 outside its layers.
inline int psi_slot(const Pass* p, int q, long i, long j, long k) {
  const int d = q / 4;
  const long u = d == 0 ? i : d == 1 ? j : k;
  return q % 4 < 2 ? e_slot(p, d, u) : h_slot(p, d, u);
}

// Whether node (i, j, k) has a psi value in any array.
inline bool in_cpml(const Pass* p, long i, long j, long k) {
  return (e_slot(p, 0, i) & h_slot(p, 0, i) & e_slot(p, 1, j) & h_slot(p, 1, j) & e_slot(p, 2, k) &
          h_slot(p, 2, k)) >= 0;
}

// Index of array q's value at (slot, i, j, k) in its axis buffer.
inline long psi_index(const Pass* p, int q, int slot, long i, long j, long k) {
  const long base = (q % 4) * p->psi_size[q / 4];
  switch (q / 4) {
    case 0:
      return base + ((long)slot * (p->ny + 1) + j) * p->pz + k;
    case 1:
      return base + (i * p->layers + slot) * p->pz + k;
    default:
      return base + (i * (p->ny + 1) + j) * p->layers + slot;
  }
}

// d / (kappa du) + psi with psi updated first (yee_blocked.hpp, Pass::term).
inline float term(float d, float inv_kd, int slot, float b, float c_d, __global float* psi) {
  if (slot < 0) return d * inv_kd;
  const float updated = b * *psi + c_d * d;
  *psi = updated;
  return d * inv_kd + updated;
}

// The H term of axis d at u (profiles 3..5, H slot) and the E term (0..2, E slot).
#define H_TERM(d, u, diff, psi) \
  term(diff, profile(p, d, 3, u), h_slot(p, d, u), profile(p, d, 4, u), profile(p, d, 5, u), psi)
#define E_TERM(d, u, diff, psi) \
  term(diff, profile(p, d, 0, u), e_slot(p, d, u), profile(p, d, 1, u), profile(p, d, 2, u), psi)

inline void load_node(const Pass* p, __local float* F, __global float* P, const Window* w, long x,
                      int s, int ly, int lz) {
  const long j = w->wy0 + ly, k = w->wz0 + lz, n = node_of(p, x, j, k);
  for (int c = 0; c < 6; ++c) F[F_AT(s, c, ly, lz)] = p->src[c][n];
  if (!in_cpml(p, x, j, k)) return;
  for (int q = 0; q < PSI_ARRAYS; ++q) {
    const int slot = psi_slot(p, q, x, j, k);
    if (slot >= 0) P[P_AT(s, q, ly, lz)] = p->src_psi[q / 4][psi_index(p, q, slot, x, j, k)];
  }
}

inline void store_node(const Pass* p, __local const float* F, __global const float* P,
                       const Window* w, long x, int s, int ly, int lz) {
  const long j = w->wy0 + ly, k = w->wz0 + lz, n = node_of(p, x, j, k);
  for (int c = 0; c < 6; ++c) p->dst[c][n] = F[F_AT(s, c, ly, lz)];
  if (!in_cpml(p, x, j, k)) return;
  for (int q = 0; q < PSI_ARRAYS; ++q) {
    const int slot = psi_slot(p, q, x, j, k);
    if (slot >= 0) p->dst_psi[q / 4][psi_index(p, q, slot, x, j, k)] = P[P_AT(s, q, ly, lz)];
  }
}

// H of window node (ly, lz) of plane x (ring slot s, plane x + 1 in s1) one level up.
inline void h_node(const Pass* p, __local float* F, __global float* P, const Window* w, long x,
                   int s, int s1, int ly, int lz) {
  const long j = w->wy0 + ly, k = w->wz0 + lz;
  const float dh = coefficient(p, node_of(p, x, j, k), 2);
  __local const float* ex = F + F_AT(s, 0, ly, lz);
  __local const float* ey = F + F_AT(s, 1, ly, lz);
  __local const float* ez = F + F_AT(s, 2, ly, lz);
  __local const float* ey1 = F + F_AT(s1, 1, ly, lz);
  __local const float* ez1 = F + F_AT(s1, 2, ly, lz);
  __global float* psi = P + P_AT(s, 0, ly, lz);
  if (j < p->ny && k < p->nz) {
    const float dez = ez[WZ] - ez[0], dey = ey[1] - ey[0];
    const float curl =
        H_TERM(1, j, dez, psi + PSI_HXY * PLANE) - H_TERM(2, k, dey, psi + PSI_HXZ * PLANE);
    F[F_AT(s, 3, ly, lz)] -= dh * curl;
  }
  if (x < p->nx && k < p->nz) {
    const float dex = ex[1] - ex[0], dez = ez1[0] - ez[0];
    const float curl =
        H_TERM(2, k, dex, psi + PSI_HYZ * PLANE) - H_TERM(0, x, dez, psi + PSI_HYX * PLANE);
    F[F_AT(s, 4, ly, lz)] -= dh * curl;
  }
  if (x < p->nx && j < p->ny) {
    const float dey = ey1[0] - ey[0], dex = ex[WZ] - ex[0];
    const float curl =
        H_TERM(0, x, dey, psi + PSI_HZX * PLANE) - H_TERM(1, j, dex, psi + PSI_HZY * PLANE);
    F[F_AT(s, 5, ly, lz)] -= dh * curl;
  }
}

// E of window node (ly, lz) of plane x (plane x - 1 in s0) one level up;
// tangential E on the PEC faces is not updated.
inline void e_node(const Pass* p, __local float* F, __global float* P, const Window* w, long x,
                   int s, int s0, int ly, int lz) {
  const long j = w->wy0 + ly, k = w->wz0 + lz, n = node_of(p, x, j, k);
  const float ca = coefficient(p, n, 0), cb = coefficient(p, n, 1);
  __local const float* hx = F + F_AT(s, 3, ly, lz);
  __local const float* hy = F + F_AT(s, 4, ly, lz);
  __local const float* hz = F + F_AT(s, 5, ly, lz);
  __local const float* hy0 = F + F_AT(s0, 4, ly, lz);
  __local const float* hz0 = F + F_AT(s0, 5, ly, lz);
  __global float* psi = P + P_AT(s, 0, ly, lz);
  const bool inner_x = x >= 1 && x < p->nx, inner_y = j >= 1 && j < p->ny,
             inner_z = k >= 1 && k < p->nz;
  if (x < p->nx && inner_y && inner_z) {
    const float dhz = hz[0] - hz[-WZ], dhy = hy[0] - hy[-1];
    const float curl =
        E_TERM(1, j, dhz, psi + PSI_EXY * PLANE) - E_TERM(2, k, dhy, psi + PSI_EXZ * PLANE);
    __local float* e = F + F_AT(s, 0, ly, lz);
    *e = ca * *e + cb * curl;
  }
  if (inner_x && j < p->ny && inner_z) {
    const float dhx = hx[0] - hx[-1], dhz = hz[0] - hz0[0];
    const float curl =
        E_TERM(2, k, dhx, psi + PSI_EYZ * PLANE) - E_TERM(0, x, dhz, psi + PSI_EYX * PLANE);
    __local float* e = F + F_AT(s, 1, ly, lz);
    *e = ca * *e + cb * curl;
  }
  if (inner_x && inner_y && k < p->nz) {
    const float dhy = hy[0] - hy0[0], dhx = hx[0] - hx[-WZ];
    const float curl =
        E_TERM(0, x, dhy, psi + PSI_EZX * PLANE) - E_TERM(1, j, dhx, psi + PSI_EZY * PLANE);
    __local float* e = F + F_AT(s, 2, ly, lz);
    *e = ca * *e + cb * curl;
  }
}

// A core node's 1/2 (eps |E|^2 + mu |H|^2) in double, as the serial reference.
inline double energy_of(const Pass* p, __local const float* F, const Window* w, long x, int s,
                        int ly, int lz) {
  const long n = node_of(p, x, w->wy0 + ly, w->wz0 + lz);
  const float ex = F[F_AT(s, 0, ly, lz)], ey = F[F_AT(s, 1, ly, lz)], ez = F[F_AT(s, 2, ly, lz)];
  const float hx = F[F_AT(s, 3, ly, lz)], hy = F[F_AT(s, 4, ly, lz)], hz = F[F_AT(s, 5, ly, lz)];
  const double e2 = (double)ex * ex + (double)ey * ey + (double)ez * ez;
  const double h2 = (double)hx * hx + (double)hy * hy + (double)hz * hz;
  return 0.5 * ((double)coefficient(p, n, 3) * e2 + (double)coefficient(p, n, 4) * h2);
}

// ---- quads: four consecutive window nodes along z in float4 arithmetic
// where none of them is in a CPML layer of the half step and every component
// is updated at all four (each lane does the per-node operations above in
// the same order, so the values are the same); other quads node by node.

inline float4 coefficients4(const Pass* p, long n, int which) {
#ifdef ONE_MATERIAL
  return (float4)(p->table[which]);
#else
  const uint4 m = convert_uint4(vload4(0, p->material + n));
  return (float4)(p->table[m.s0 * STRIDE + which], p->table[m.s1 * STRIDE + which],
                  p->table[m.s2 * STRIDE + which], p->table[m.s3 * STRIDE + which]);
#endif
}

// Whether the slots of axis z at k .. k + 3 (offset 0: E, n1: H) are all -1.
inline bool z_free4(const Pass* p, long offset, long k) {
  const int4 z = vload4(0, p->slot[2] + offset + k);
  return (z.s0 & z.s1 & z.s2 & z.s3) < 0;  // every sign bit set
}

// Window nodes (ly, lz .. lz + 3) of plane x between the pass's buffers and
// the rings: float4 copies of the six fields where no node of the quad has a
// psi value, node by node otherwise. `other` is unused (the signature of
// FOR_QUADS).
inline bool quad_outside_cpml(const Pass* p, long x, long j, long k) {
  return (e_slot(p, 0, x) & h_slot(p, 0, x) & e_slot(p, 1, j) & h_slot(p, 1, j)) < 0 &&
         z_free4(p, 0, k) && z_free4(p, p->n1[2], k);
}
inline void load_quad(const Pass* p, __local float* F, __global float* P, const Window* w, long x,
                      int s, int other, int ly, int lz) {
  const long j = w->wy0 + ly, k = w->wz0 + lz;
  if (!quad_outside_cpml(p, x, j, k)) {
    for (int l = 0; l < 4; ++l) load_node(p, F, P, w, x, s, ly, lz + l);
    return;
  }
  const long n = node_of(p, x, j, k);
  for (int c = 0; c < 6; ++c) vstore4(vload4(0, p->src[c] + n), 0, F + F_AT(s, c, ly, lz));
}
inline void store_quad(const Pass* p, __local float* F, __global float* P, const Window* w, long x,
                       int s, int other, int ly, int lz) {
  const long j = w->wy0 + ly, k = w->wz0 + lz;
  if (!quad_outside_cpml(p, x, j, k)) {
    for (int l = 0; l < 4; ++l) store_node(p, F, P, w, x, s, ly, lz + l);
    return;
  }
  const long n = node_of(p, x, j, k);
  for (int c = 0; c < 6; ++c) vstore4(vload4(0, F + F_AT(s, c, ly, lz)), 0, p->dst[c] + n);
}

inline void load_node_of(const Pass* p, __local float* F, __global float* P, const Window* w,
                         long x, int s, int other, int ly, int lz) {
  load_node(p, F, P, w, x, s, ly, lz);
}
inline void store_node_of(const Pass* p, __local float* F, __global float* P, const Window* w,
                          long x, int s, int other, int ly, int lz) {
  store_node(p, F, P, w, x, s, ly, lz);
}

// H of window nodes (ly, lz .. lz + 3) of plane x, lz + 4 <= the H range's end.
inline void h_quad(const Pass* p, __local float* F, __global float* P, const Window* w, long x,
                   int s, int s1, int ly, int lz) {
  const long j = w->wy0 + ly, k = w->wz0 + lz;
  if (!(x < p->nx && j < p->ny && k + 3 < p->nz && h_slot(p, 0, x) < 0 && h_slot(p, 1, j) < 0 &&
        z_free4(p, p->n1[2], k))) {
    for (int l = 0; l < 4; ++l) h_node(p, F, P, w, x, s, s1, ly, lz + l);
    return;
  }
  const float4 dh = coefficients4(p, node_of(p, x, j, k), 2);
  const float ix = profile(p, 0, 3, x), iy = profile(p, 1, 3, j);
  const float4 iz = vload4(0, p->prof[2] + 3 * p->n1[2] + k);
  __local float* ex = F + F_AT(s, 0, ly, lz);
  __local float* ey = F + F_AT(s, 1, ly, lz);
  __local float* ez = F + F_AT(s, 2, ly, lz);
  __local float* ey1 = F + F_AT(s1, 1, ly, lz);
  __local float* ez1 = F + F_AT(s1, 2, ly, lz);
  __local float* hx = F + F_AT(s, 3, ly, lz);
  __local float* hy = F + F_AT(s, 4, ly, lz);
  __local float* hz = F + F_AT(s, 5, ly, lz);
  const float4 vex = vload4(0, ex), vey = vload4(0, ey), vez = vload4(0, ez);
  const float4 curl_x = (vload4(0, ez + WZ) - vez) * iy - (vload4(0, ey + 1) - vey) * iz;
  const float4 curl_y = (vload4(0, ex + 1) - vex) * iz - (vload4(0, ez1) - vez) * ix;
  const float4 curl_z = (vload4(0, ey1) - vey) * ix - (vload4(0, ex + WZ) - vex) * iy;
  vstore4(vload4(0, hx) - dh * curl_x, 0, hx);
  vstore4(vload4(0, hy) - dh * curl_y, 0, hy);
  vstore4(vload4(0, hz) - dh * curl_z, 0, hz);
}

// E of window nodes (ly, lz .. lz + 3) of plane x, lz + 4 <= the window's nz.
inline void e_quad(const Pass* p, __local float* F, __global float* P, const Window* w, long x,
                   int s, int s0, int ly, int lz) {
  const long j = w->wy0 + ly, k = w->wz0 + lz;
  if (!(x >= 1 && x < p->nx && j >= 1 && j < p->ny && k >= 1 && k + 3 < p->nz &&
        e_slot(p, 0, x) < 0 && e_slot(p, 1, j) < 0 && z_free4(p, 0, k))) {
    for (int l = 0; l < 4; ++l) e_node(p, F, P, w, x, s, s0, ly, lz + l);
    return;
  }
  const long n = node_of(p, x, j, k);
  const float4 ca = coefficients4(p, n, 0), cb = coefficients4(p, n, 1);
  const float ix = profile(p, 0, 0, x), iy = profile(p, 1, 0, j);
  const float4 iz = vload4(0, p->prof[2] + k);
  __local float* hx = F + F_AT(s, 3, ly, lz);
  __local float* hy = F + F_AT(s, 4, ly, lz);
  __local float* hz = F + F_AT(s, 5, ly, lz);
  __local float* hy0 = F + F_AT(s0, 4, ly, lz);
  __local float* hz0 = F + F_AT(s0, 5, ly, lz);
  __local float* ex = F + F_AT(s, 0, ly, lz);
  __local float* ey = F + F_AT(s, 1, ly, lz);
  __local float* ez = F + F_AT(s, 2, ly, lz);
  const float4 vhx = vload4(0, hx), vhy = vload4(0, hy), vhz = vload4(0, hz);
  const float4 curl_x = (vhz - vload4(0, hz - WZ)) * iy - (vhy - vload4(0, hy - 1)) * iz;
  const float4 curl_y = (vhx - vload4(0, hx - 1)) * iz - (vhz - vload4(0, hz0)) * ix;
  const float4 curl_z = (vhy - vload4(0, hy0)) * ix - (vhx - vload4(0, hx - WZ)) * iy;
  vstore4(ca * vload4(0, ex) + cb * curl_x, 0, ex);
  vstore4(ca * vload4(0, ey) + cb * curl_y, 0, ey);
  vstore4(ca * vload4(0, ez) + cb * curl_z, 0, ez);
}

// This work-item's index in its group.
#define LID ((int)(get_local_id(1) * LZ + get_local_id(0)))

// Window nodes [ly0, ly1) x [lz0, lz1) of this work-item: rows strided by LY,
// z by LZ.
#define FOR_NODES(ly0, ly1, lz0, lz1)                                         \
  for (int ly = (int)(ly0) + (int)get_local_id(1); ly < (int)(ly1); ly += LY) \
    for (int lz = (int)(lz0) + (int)get_local_id(0); lz < (int)(lz1); lz += LZ)

// The same over quads: whole quads of z through `quad`, the rest of a row
// node by node through `node`.
#define FOR_QUADS(ly0, ly1, lz0, lz1, quad, node, other, plane)                           \
  for (int ly = (int)(ly0) + (int)get_local_id(1); ly < (int)(ly1); ly += LY)             \
    for (int lz = (int)(lz0) + 4 * (int)get_local_id(0); lz < (int)(lz1); lz += 4 * LZ) { \
      if (lz + 4 <= (int)(lz1))                                                           \
        quad(p, F, P, w, plane, s, other, ly, lz);                                        \
      else                                                                                \
        for (int l = lz; l < (int)(lz1); ++l) node(p, F, P, w, plane, s, other, ly, l);   \
    }

// One pass of `steps` steps from step first_step (steps <= RING - 2) over
// tiles of tile_y x tile_z nodes (tiles_z along z) with `halo` nodes beyond
// the core per side.
__kernel __attribute__((reqd_work_group_size(LZ, LY, 1))) void blocked_pass(
    long nx, long ny, long nz, long pz, long layers, long tile_y, long tile_z, long halo,
    long tiles_z, long steps, long first_step, long steps_total, __global const float* sex,
    __global const float* sey, __global const float* sez, __global const float* shx,
    __global const float* shy, __global const float* shz, __global float* dex, __global float* dey,
    __global float* dez, __global float* dhx, __global float* dhy, __global float* dhz,
    __global const float* spsix, __global const float* spsiy, __global const float* spsiz,
    __global float* dpsix, __global float* dpsiy, __global float* dpsiz, long psix_size,
    long psiy_size, long psiz_size, __global const MATERIAL_T* material,
    __global const float* table, __global const float* px, __global const float* py,
    __global const float* pzp, __global const int* slx, __global const int* sly,
    __global const int* slz, long n_sources, __global const long* source_node,
    __global const int* source_component, __global const int* source_hard,
    __global const float* source_values, long n_probes, __global const long* probe_node,
    __global const int* probe_component, __global float* probe_values,
    __global const int* energy_after, __global double* energy_partial, __global float* psi_ring,
    __local float* F) {
  // Each work-item's share of the core's energy after each step of the pass.
  __local double partial[(RING - 2) * LZ * LY];
  const Pass pass = {nx,
                     ny,
                     nz,
                     pz,
                     layers,
                     {sex, sey, sez, shx, shy, shz},
                     {dex, dey, dez, dhx, dhy, dhz},
                     {spsix, spsiy, spsiz},
                     {dpsix, dpsiy, dpsiz},
                     {psix_size, psiy_size, psiz_size},
                     material,
                     table,
                     {px, py, pzp},
                     {slx, sly, slz},
                     {nx + 1, ny + 1, pz}};
  const Pass* p = &pass;
  const long tile = get_group_id(0);
  const Window win = window_of(p, tile, tile_y, tile_z, halo, tiles_z);
  const Window* w = &win;
  __global float* P = psi_ring + tile * (long)(PSI_ARRAYS * RING * PLANE);
  for (long l = 0; l < steps; ++l) partial[l * LZ * LY + LID] = 0;
  const int h_ly_end = w->ny - w->y_high_open, h_lz_end = w->nz - w->z_high_open;
  const int e_ly_begin = w->y_low_open, e_lz_begin = w->z_low_open;
  const int cy0 = (int)(w->cy0 - w->wy0), cy1 = (int)(w->cy1 - w->wy0);
  const int cz0 = (int)(w->cz0 - w->wz0), cz1 = (int)(w->cz1 - w->wz0);
  for (long pos = 0; pos <= nx + steps; ++pos) {
    // Plane pos of the pass's input into the ring.
    if (pos <= nx) {
      const int s = (int)(pos % RING);
      FOR_QUADS(0, w->ny, 0, w->nz, load_quad, load_node_of, 0, pos);
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    // Plane pos - 1 - level from level `level` to level + 1.
    for (long level = 0; level < steps; ++level) {
      const long x = pos - 1 - level, step = first_step + level;
      if (x < 0 || x > nx) continue;  // the same for every work-item
      const int s = (int)(x % RING), s1 = (int)((x + 1) % RING), s0 = (int)((x + RING - 1) % RING);
      FOR_QUADS(0, h_ly_end, 0, h_lz_end, h_quad, h_node, s1, x);
      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
      FOR_QUADS(e_ly_begin, w->ny, e_lz_begin, w->nz, e_quad, e_node, s0, x);
      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
      // Sources of this step anywhere in the window (halo nodes carry them
      // too), in the problem's order; then the probes on core nodes.
      if (LID == 0) {
        for (long q = 0; q < n_sources; ++q) {
          __global const long* at = source_node + 3 * q;
          const long ly = at[1] - w->wy0, lz = at[2] - w->wz0;
          if (at[0] != x || ly < 0 || ly >= w->ny || lz < 0 || lz >= w->nz) continue;
          __local float* e = F + F_AT(s, source_component[q], ly, lz);
          const float value = source_values[q * steps_total + step];
          *e = source_hard[q] ? value : *e + value;
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      if (LID == 0) {
        for (long q = 0; q < n_probes; ++q) {
          __global const long* at = probe_node + 3 * q;
          if (at[0] != x || at[1] < w->cy0 || at[1] >= w->cy1 || at[2] < w->cz0 || at[2] >= w->cz1)
            continue;
          probe_values[q * steps_total + step] =
              F[F_AT(s, probe_component[q], at[1] - w->wy0, at[2] - w->wz0)];
        }
      }
      if (energy_after[step]) {  // this work-item's share of the core
        double acc = 0;
        FOR_NODES(cy0, cy1, cz0, cz1) acc += energy_of(p, F, w, x, s, ly, lz);
        partial[level * LZ * LY + LID] += acc;
      }
    }
    // Plane pos - steps is at level first_step + steps: its core to the output.
    const long done = pos - steps;
    if (done >= 0 && done <= nx) {
      const int s = (int)(done % RING);
      FOR_QUADS(cy0, cy1, cz0, cz1, store_quad, store_node_of, 0, done);
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  }
  // The tile's energy after each step: the work-items' shares in order.
  if (LID == 0)
    for (long l = 0; l < steps; ++l) {
      double sum = 0;
      for (int m = 0; m < LZ * LY; ++m) sum += partial[l * LZ * LY + m];
      energy_partial[tile * RING + l] = sum;
    }
}
