// opencl/float4: fdtd.step split into a CPML-free interior and a thin shell
// (src/ppkit/fdtd/yee_split.hpp explains the split):
//  - interior kernels: each work-item updates four consecutive z nodes
//    through float4 loads; 2D work-groups (LQ quads along z x LY rows along
//    y) stage the three fields they shift along y and z in local memory
//    (block-wise instead of element-wise access); no CPML branch, constant
//    1/du, the narrowest material id type (none for a single material);
//  - shell kernels: one work-item per node of the CPML layers and PEC faces
//    (and the interior nodes outside the quad-aligned z range), the general
//    update of fdtd_plain.cl;
//  - the energy sum as float4 loads plus the local-memory tree reduction of
//    fdtd_common.cl.
//
// Layout as fdtd_plain.cl but with the z pitch pz a multiple of 32 (rows
// padded with zeros that are never written); z profiles and slots have pz
// entries per array (padding: slot -1). x and y psi arrays are padded along z
// like the fields; z psi arrays are scalar [(i * (ny + 1) + j) * layers + slot].
#ifndef LQ
#define LQ 16
#endif
#ifndef LY
#define LY 4
#endif
#define TZ (LQ * 4)
#define STRIDE 8
// Material ids: MATERIAL_T (uchar, ushort or uint, the narrowest that holds
// every id); with ONE_MATERIAL no id is read (a single material).
#ifndef MATERIAL_T
#define MATERIAL_T uint
#endif

inline uint4 material_ids(__global const MATERIAL_T* material, long n) {
#ifdef ONE_MATERIAL
  return (uint4)(0);
#else
  return convert_uint4(vload4(0, material + n));
#endif
}

inline float coefficient(__global const MATERIAL_T* material, __global const float* table, long n,
                         int which) {
#ifdef ONE_MATERIAL
  return table[which];
#else
  return table[(long)material[n] * STRIDE + which];
#endif
}

inline float4 gather(__global const float* table, uint4 m, int which) {
  return (float4)(table[m.s0 * STRIDE + which], table[m.s1 * STRIDE + which],
                  table[m.s2 * STRIDE + which], table[m.s3 * STRIDE + which]);
}

// ---- interior: quads [lo2, hi2) (multiples of 4), rows [lo1, hi1), planes lo0 + gid(2);
// the quads of a work-group start at lo2 rounded down to a multiple of 32 (with
// pz a multiple of 32, every row segment of a work-group is 128-byte aligned)

__kernel __attribute__((reqd_work_group_size(LQ, LY, 1))) void update_h_interior(
    long ny, long pz, long lo0, long lo1, long hi1, long lo2, long hi2, float ix, float iy,
    float iz, __global const float* ex, __global const float* ey, __global const float* ez,
    __global float* hx, __global float* hy, __global float* hz, __global const MATERIAL_T* material,
    __global const float* table) {
  // Tiles: row r = local y, column c = 4 * local quad + lane; one halo row
  // (j + 1) for Ex, Ez and one halo column (k + 4 of the last quad) for Ex, Ey.
  __local float tex[(LY + 1) * (TZ + 1)];
  __local float tey[LY * (TZ + 1)];
  __local float tez[(LY + 1) * TZ];
  const int lq = get_local_id(0), ly = get_local_id(1);
  const long k0 = (lo2 & ~31L) + 4 * (long)get_global_id(0), j = lo1 + get_global_id(1),
             i = lo0 + get_global_id(2);
  // Work-items outside the interior still stage their values (neighbours of
  // the last interior row and quad) where the grid has them.
  const bool inside = k0 >= lo2 && k0 < hi2 && j < hi1, exists = k0 < pz && j <= ny;
  const long sy = pz, sx = (ny + 1) * pz, n = i * sx + j * sy + k0;
  float4 vex = 0, vey = 0, vez = 0;
  if (exists) {
    vex = vload4(0, ex + n);
    vey = vload4(0, ey + n);
    vez = vload4(0, ez + n);
  }
  vstore4(vex, 0, tex + ly * (TZ + 1) + 4 * lq);
  vstore4(vey, 0, tey + ly * (TZ + 1) + 4 * lq);
  vstore4(vez, 0, tez + ly * TZ + 4 * lq);
  if (ly == LY - 1) {
    float4 a = 0, b = 0;
    if (exists && j + 1 <= ny) {
      a = vload4(0, ex + n + sy);
      b = vload4(0, ez + n + sy);
    }
    vstore4(a, 0, tex + LY * (TZ + 1) + 4 * lq);
    vstore4(b, 0, tez + LY * TZ + 4 * lq);
  }
  if (lq == LQ - 1) {
    float a = 0, b = 0;
    if (exists && k0 + 4 < pz) {
      a = ex[n + 4];
      b = ey[n + 4];
    }
    tex[ly * (TZ + 1) + TZ] = a;
    tey[ly * (TZ + 1) + TZ] = b;
  }
  // Every global load of the update is issued before the barrier, so that the
  // x neighbours and the old H are in flight together with the staged fields
  // (one DRAM latency per work-item instead of two).
  float4 ey_ip = 0, ez_ip = 0, vhx = 0, vhy = 0, vhz = 0, dh = 0;
  if (inside) {
    ey_ip = vload4(0, ey + n + sx);
    ez_ip = vload4(0, ez + n + sx);
    vhx = vload4(0, hx + n);
    vhy = vload4(0, hy + n);
    vhz = vload4(0, hz + n);
    dh = gather(table, material_ids(material, n), 2);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!inside) return;

  const float4 ex_kp = vload4(0, tex + ly * (TZ + 1) + 4 * lq + 1);
  const float4 ey_kp = vload4(0, tey + ly * (TZ + 1) + 4 * lq + 1);
  const float4 ex_jp = vload4(0, tex + (ly + 1) * (TZ + 1) + 4 * lq);
  const float4 ez_jp = vload4(0, tez + (ly + 1) * TZ + 4 * lq);
  const float4 curl_x = (ez_jp - vez) * iy - (ey_kp - vey) * iz;
  const float4 curl_y = (ex_kp - vex) * iz - (ez_ip - vez) * ix;
  const float4 curl_z = (ey_ip - vey) * ix - (ex_jp - vex) * iy;
  vstore4(vhx - dh * curl_x, 0, hx + n);
  vstore4(vhy - dh * curl_y, 0, hy + n);
  vstore4(vhz - dh * curl_z, 0, hz + n);
}

__kernel __attribute__((reqd_work_group_size(LQ, LY, 1))) void update_e_interior(
    long ny, long pz, long lo0, long lo1, long hi1, long lo2, long hi2, float ix, float iy,
    float iz, __global float* ex, __global float* ey, __global float* ez, __global const float* hx,
    __global const float* hy, __global const float* hz, __global const MATERIAL_T* material,
    __global const float* table) {
  // Tiles: row r + 1 = local y (row 0: halo j0 - 1 for Hx, Hz), column c + 1 =
  // 4 * local quad + lane (column 0: halo k0 - 1 of the first quad for Hx, Hy).
  __local float thx[(LY + 1) * (TZ + 1)];
  __local float thy[LY * (TZ + 1)];
  __local float thz[(LY + 1) * TZ];
  const int lq = get_local_id(0), ly = get_local_id(1);
  const long k0 = (lo2 & ~31L) + 4 * (long)get_global_id(0), j = lo1 + get_global_id(1),
             i = lo0 + get_global_id(2);
  // Work-items outside the interior stage their values where the grid has
  // them (neighbours k0 - 1 of the first interior quad, for instance).
  const bool inside = k0 >= lo2 && k0 < hi2 && j < hi1, exists = k0 < pz && j <= ny;
  const long sy = pz, sx = (ny + 1) * pz, n = i * sx + j * sy + k0;
  float4 vhx = 0, vhy = 0, vhz = 0;
  if (exists) {
    vhx = vload4(0, hx + n);
    vhy = vload4(0, hy + n);
    vhz = vload4(0, hz + n);
  }
  vstore4(vhx, 0, thx + (ly + 1) * (TZ + 1) + 1 + 4 * lq);
  vstore4(vhy, 0, thy + ly * (TZ + 1) + 1 + 4 * lq);
  vstore4(vhz, 0, thz + (ly + 1) * TZ + 4 * lq);
  if (ly == 0) {
    float4 a = 0, b = 0;
    if (exists) {
      a = vload4(0, hx + n - sy);
      b = vload4(0, hz + n - sy);
    }
    vstore4(a, 0, thx + 1 + 4 * lq);
    vstore4(b, 0, thz + 4 * lq);
  }
  if (lq == 0) {
    float a = 0, b = 0;
    if (exists) {  // k0 = 0: the padding at the end of the previous row, never used
      a = hx[n - 1];
      b = hy[n - 1];
    }
    thx[(ly + 1) * (TZ + 1)] = a;
    thy[ly * (TZ + 1)] = b;
  }
  // All global loads before the barrier (see update_h_interior).
  float4 hy_im = 0, hz_im = 0, vex = 0, vey = 0, vez = 0, ca = 0, cb = 0;
  if (inside) {
    hy_im = vload4(0, hy + n - sx);
    hz_im = vload4(0, hz + n - sx);
    vex = vload4(0, ex + n);
    vey = vload4(0, ey + n);
    vez = vload4(0, ez + n);
    const uint4 m = material_ids(material, n);
    ca = gather(table, m, 0);
    cb = gather(table, m, 1);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!inside) return;

  const float4 hx_km = vload4(0, thx + (ly + 1) * (TZ + 1) + 4 * lq);
  const float4 hy_km = vload4(0, thy + ly * (TZ + 1) + 4 * lq);
  const float4 hx_jm = vload4(0, thx + ly * (TZ + 1) + 1 + 4 * lq);
  const float4 hz_jm = vload4(0, thz + ly * TZ + 4 * lq);
  const float4 curl_x = (vhz - hz_jm) * iy - (vhy - hy_km) * iz;
  const float4 curl_y = (vhx - hx_km) * iz - (vhz - hz_im) * ix;
  const float4 curl_z = (vhy - hy_im) * ix - (vhx - hx_jm) * iy;
  vstore4(ca * vex + cb * curl_x, 0, ex + n);
  vstore4(ca * vey + cb * curl_y, 0, ey + n);
  vstore4(ca * vez + cb * curl_z, 0, ez + n);
}

// ---- shell: one work-item per node outside the interior, general update

// shell[6 * s + 0..5]: slab s as lo0, hi0, lo1, hi1, lo2, hi2; shell[36 + s]: first node of slab
// s (shell[42]: node count), z fastest in every slab.
inline void shell_node(__global const long* shell, long q, long* i, long* j, long* k) {
  int s = 0;
  while (s < 5 && q >= shell[36 + s + 1]) ++s;
  __global const long* b = shell + 6 * s;
  const long offset = q - shell[36 + s], wz = b[5] - b[4], wy = b[3] - b[2];
  if (offset < 2147483648L) {  // 32-bit divisions where they fit (much cheaper on GPUs)
    const uint o32 = (uint)offset, wz32 = (uint)wz, wy32 = (uint)wy, row = o32 / wz32;
    const uint di = row / wy32;
    *k = b[4] + (long)(o32 - row * wz32);
    *i = b[0] + (long)di;
    *j = b[2] + (long)(row - di * wy32);
  } else {
    const long row = offset / wz;
    *k = b[4] + (offset - row * wz);
    *i = b[0] + row / wy;
    *j = b[2] + row % wy;
  }
}

// One CPML derivative term (yee_split.hpp): its loads first, then its
// arithmetic and psi store. The shell kernels issue the loads of every term
// and field of a node before the first store (a psi store may alias any later
// load, so the loads would otherwise wait a memory round trip per term).
typedef struct {
  float inv_kd, b, c, psi;
} CpmlLoads;

inline CpmlLoads cpml_loads(int slot, __global const float* prof, long n1, long u, int h,
                            __global const float* psi, long q) {
  const long base = h ? 3 * n1 : 0;
  CpmlLoads t = {prof[base + u], 0.0f, 0.0f, 0.0f};
  if (slot >= 0) {
    t.b = prof[base + n1 + u];
    t.c = prof[base + 2 * n1 + u];
    t.psi = psi[q];
  }
  return t;
}

inline float cpml_term(float d, CpmlLoads t, int slot, __global float* psi, long q) {
  const float plain = d * t.inv_kd;
  if (slot < 0) return plain;
  const float updated = t.b * t.psi + t.c * d;
  psi[q] = updated;
  return plain + updated;
}

__kernel void update_h_shell(long nx, long ny, long nz, long pz, long layers,
                             __global const long* shell, __global const float* ex,
                             __global const float* ey, __global const float* ez, __global float* hx,
                             __global float* hy, __global float* hz,
                             __global const MATERIAL_T* material, __global const float* table,
                             __global const float* px, __global const float* py,
                             __global const float* pzp, __global const int* sx_slot,
                             __global const int* sy_slot, __global const int* sz_slot,
                             __global float* psix, __global float* psiy, __global float* psiz,
                             long psix_size, long psiy_size, long psiz_size) {
  const long q = get_global_id(0);
  if (q >= shell[42]) return;
  long i, j, k;
  shell_node(shell, q, &i, &j, &k);
  const long sy = pz, sx = (ny + 1) * pz, n = i * sx + j * sy + k;
  const float dh = coefficient(material, table, n, 2);
  const int slx = sx_slot[(nx + 1) + i], sly = sy_slot[(ny + 1) + j], slz = sz_slot[pz + k];
  const long qx = ((long)slx * (ny + 1) + j) * pz + k;
  const long qy = (i * layers + sly) * pz + k;
  const long qz = (i * (ny + 1) + j) * layers + slz;
  const bool do_x = j < ny && k < nz, do_y = i < nx && k < nz, do_z = i < nx && j < ny;
  __global float *psi_xy = psiy + 2 * psiy_size, *psi_xz = psiz + 2 * psiz_size;
  __global float *psi_yz = psiz + 3 * psiz_size, *psi_yx = psix + 2 * psix_size;
  __global float *psi_zx = psix + 3 * psix_size, *psi_zy = psiy + 3 * psiy_size;
  const CpmlLoads none = {0.0f, 0.0f, 0.0f, 0.0f};
  CpmlLoads xy = none, xz = none, yz = none, yx = none, zx = none, zy = none;
  float vhx = 0, vhy = 0, vhz = 0, dez_y = 0, dey_z = 0, dex_z = 0, dez_x = 0, dey_x = 0, dex_y = 0;
  if (do_x) {
    vhx = hx[n];
    dez_y = ez[n + sy] - ez[n];
    dey_z = ey[n + 1] - ey[n];
    xy = cpml_loads(sly, py, ny + 1, j, 1, psi_xy, qy);
    xz = cpml_loads(slz, pzp, pz, k, 1, psi_xz, qz);
  }
  if (do_y) {
    vhy = hy[n];
    dex_z = ex[n + 1] - ex[n];
    dez_x = ez[n + sx] - ez[n];
    yz = cpml_loads(slz, pzp, pz, k, 1, psi_yz, qz);
    yx = cpml_loads(slx, px, nx + 1, i, 1, psi_yx, qx);
  }
  if (do_z) {
    vhz = hz[n];
    dey_x = ey[n + sx] - ey[n];
    dex_y = ex[n + sy] - ex[n];
    zx = cpml_loads(slx, px, nx + 1, i, 1, psi_zx, qx);
    zy = cpml_loads(sly, py, ny + 1, j, 1, psi_zy, qy);
  }
  if (do_x)
    hx[n] =
        vhx - dh * (cpml_term(dez_y, xy, sly, psi_xy, qy) - cpml_term(dey_z, xz, slz, psi_xz, qz));
  if (do_y)
    hy[n] =
        vhy - dh * (cpml_term(dex_z, yz, slz, psi_yz, qz) - cpml_term(dez_x, yx, slx, psi_yx, qx));
  if (do_z)
    hz[n] =
        vhz - dh * (cpml_term(dey_x, zx, slx, psi_zx, qx) - cpml_term(dex_y, zy, sly, psi_zy, qy));
}

__kernel void update_e_shell(long nx, long ny, long nz, long pz, long layers,
                             __global const long* shell, __global float* ex, __global float* ey,
                             __global float* ez, __global const float* hx, __global const float* hy,
                             __global const float* hz, __global const MATERIAL_T* material,
                             __global const float* table, __global const float* px,
                             __global const float* py, __global const float* pzp,
                             __global const int* sx_slot, __global const int* sy_slot,
                             __global const int* sz_slot, __global float* psix,
                             __global float* psiy, __global float* psiz, long psix_size,
                             long psiy_size, long psiz_size) {
  const long q = get_global_id(0);
  if (q >= shell[42]) return;
  long i, j, k;
  shell_node(shell, q, &i, &j, &k);
  const long sy = pz, sx = (ny + 1) * pz, n = i * sx + j * sy + k;
  const float ca = coefficient(material, table, n, 0), cb = coefficient(material, table, n, 1);
  const int slx = sx_slot[i], sly = sy_slot[j], slz = sz_slot[k];
  const long qx = ((long)slx * (ny + 1) + j) * pz + k;
  const long qy = (i * layers + sly) * pz + k;
  const long qz = (i * (ny + 1) + j) * layers + slz;
  // PERIODIC_X/Y (build options): the face u = n is updated too (yee_kernel_args.hpp);
  // it always lies in the shell (the interior E box ends before it).
  const bool inner_x = i >= 1 && (i < nx || PERIODIC_X), inner_y = j >= 1 && (j < ny || PERIODIC_Y),
             inner_z = k >= 1 && k < nz;
  const bool do_x = i < nx && inner_y && inner_z, do_y = inner_x && j < ny && inner_z,
             do_z = inner_x && inner_y && k < nz;
  __global float *psi_xy = psiy, *psi_xz = psiz, *psi_yz = psiz + psiz_size, *psi_yx = psix;
  __global float *psi_zx = psix + psix_size, *psi_zy = psiy + psiy_size;
  const CpmlLoads none = {0.0f, 0.0f, 0.0f, 0.0f};
  CpmlLoads xy = none, xz = none, yz = none, yx = none, zx = none, zy = none;
  float vex = 0, vey = 0, vez = 0, dhz_y = 0, dhy_z = 0, dhx_z = 0, dhz_x = 0, dhy_x = 0, dhx_y = 0;
  if (do_x) {
    vex = ex[n];
    dhz_y = hz[n] - hz[n - sy];
    dhy_z = hy[n] - hy[n - 1];
    xy = cpml_loads(sly, py, ny + 1, j, 0, psi_xy, qy);
    xz = cpml_loads(slz, pzp, pz, k, 0, psi_xz, qz);
  }
  if (do_y) {
    vey = ey[n];
    dhx_z = hx[n] - hx[n - 1];
    dhz_x = hz[n] - hz[n - sx];
    yz = cpml_loads(slz, pzp, pz, k, 0, psi_yz, qz);
    yx = cpml_loads(slx, px, nx + 1, i, 0, psi_yx, qx);
  }
  if (do_z) {
    vez = ez[n];
    dhy_x = hy[n] - hy[n - sx];
    dhx_y = hx[n] - hx[n - sy];
    zx = cpml_loads(slx, px, nx + 1, i, 0, psi_zx, qx);
    zy = cpml_loads(sly, py, ny + 1, j, 0, psi_zy, qy);
  }
  if (do_x)
    ex[n] = ca * vex +
            cb * (cpml_term(dhz_y, xy, sly, psi_xy, qy) - cpml_term(dhy_z, xz, slz, psi_xz, qz));
  if (do_y)
    ey[n] = ca * vey +
            cb * (cpml_term(dhx_z, yz, slz, psi_yz, qz) - cpml_term(dhz_x, yx, slx, psi_yx, qx));
  if (do_z)
    ez[n] = ca * vez +
            cb * (cpml_term(dhy_x, zx, slx, psi_zx, qx) - cpml_term(dhx_y, zy, sly, psi_zy, qy));
}

// First pass of the energy sum: float4 loads, per-work-item sums, tree reduction.
__kernel void energy_partial4(long quads, __global const float* ex, __global const float* ey,
                              __global const float* ez, __global const float* hx,
                              __global const float* hy, __global const float* hz,
                              __global const MATERIAL_T* material, __global const float* table,
                              __global float* out, __local float* sdata) {
  float acc = 0;
  for (long q = get_global_id(0); q < quads; q += get_global_size(0)) {
    const float4 a = vload4(q, ex), b = vload4(q, ey), c = vload4(q, ez);
    const float4 d = vload4(q, hx), e = vload4(q, hy), f = vload4(q, hz);
    const uint4 m = material_ids(material, 4 * q);
    const float4 w = 0.5f * (gather(table, m, 3) * (a * a + b * b + c * c) +
                             gather(table, m, 4) * (d * d + e * e + f * f));
    acc += (w.s0 + w.s1) + (w.s2 + w.s3);
  }
  const int tx = get_local_id(0);
  sdata[tx] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (tx < s) sdata[tx] += sdata[tx + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (tx == 0) out[get_group_id(0)] = sdata[0];
}
