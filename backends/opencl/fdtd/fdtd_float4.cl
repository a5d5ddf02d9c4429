// opencl/float4: fdtd.step with each work-item updating four consecutive z
// nodes through float4 loads, 2D work-groups (LQ quads along z x LY rows along
// y) that stage the three fields they shift along y and z in local memory
// (block-wise instead of element-wise access), and the energy sum as float4
// loads plus the local-memory tree reduction of fdtd_common.cl.
//
// Layout as fdtd_plain.cl but with the z pitch pz a multiple of 4 (rows
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

// CPML term for an axis whose node is the same for the four lanes (x or y).
inline float4 cpml_uniform(float4 d, int slot, __global const float* prof, long n1, long u, int h,
                           __global float* psi, long q) {
  const long base = h ? 3 * n1 : 0;
  const float4 plain = d * prof[base + u];
  if (slot < 0) return plain;
  const float4 updated = prof[base + n1 + u] * vload4(0, psi + q) + prof[base + 2 * n1 + u] * d;
  vstore4(updated, 0, psi + q);
  return plain + updated;
}

// CPML term along z: the lanes sit at k0..k0+3, each with its own slot.
inline float4 cpml_z(float4 d, long k0, __global const float* prof, long pz, int h,
                     __global const int* slot, __global float* psi, long qbase) {
  const long base = h ? 3 * pz : 0;
  float4 t = d * vload4(0, prof + base + k0);
  const int4 s = vload4(0, slot + (h ? pz : 0) + k0);
  if (any(s >= 0)) {
    float dd[4], tt[4];
    int ss[4];
    vstore4(d, 0, dd);
    vstore4(t, 0, tt);
    vstore4(s, 0, ss);
    for (int l = 0; l < 4; ++l)
      if (ss[l] >= 0) {
        const long q = qbase + ss[l];
        const float updated =
            prof[base + pz + k0 + l] * psi[q] + prof[base + 2 * pz + k0 + l] * dd[l];
        psi[q] = updated;
        tt[l] += updated;
      }
    t = vload4(0, tt);
  }
  return t;
}

inline float4 gather(__global const float* table, uint4 m, int which) {
  return (float4)(table[m.s0 * STRIDE + which], table[m.s1 * STRIDE + which],
                  table[m.s2 * STRIDE + which], table[m.s3 * STRIDE + which]);
}

inline int4 lanes(long k0) { return (int4)((int)k0) + (int4)(0, 1, 2, 3); }

__kernel __attribute__((reqd_work_group_size(LQ, LY, 1))) void update_h(
    long nx, long ny, long nz, long pz, long layers, __global const float* ex,
    __global const float* ey, __global const float* ez, __global float* hx, __global float* hy,
    __global float* hz, __global const uint* material, __global const float* table,
    __global const float* px, __global const float* py, __global const float* pzp,
    __global const int* sx_slot, __global const int* sy_slot, __global const int* sz_slot,
    __global float* psix, __global float* psiy, __global float* psiz, long psix_size,
    long psiy_size, long psiz_size) {
  // Tiles: row r = local y, column c = 4 * local quad + lane; one halo row
  // (j + 1) for Ex, Ez and one halo column (k + 4 of the last quad) for Ex, Ey.
  __local float tex[(LY + 1) * (TZ + 1)];
  __local float tey[LY * (TZ + 1)];
  __local float tez[(LY + 1) * TZ];
  const int lq = get_local_id(0), ly = get_local_id(1);
  const long k0 = 4 * (long)get_global_id(0), j = get_global_id(1), i = get_global_id(2);
  const bool inside = k0 < pz && j <= ny && i <= nx;
  const long sy = pz, sx = (ny + 1) * pz, n = i * sx + j * sy + k0;
  float4 vex = 0, vey = 0, vez = 0;
  if (inside) {
    vex = vload4(0, ex + n);
    vey = vload4(0, ey + n);
    vez = vload4(0, ez + n);
  }
  vstore4(vex, 0, tex + ly * (TZ + 1) + 4 * lq);
  vstore4(vey, 0, tey + ly * (TZ + 1) + 4 * lq);
  vstore4(vez, 0, tez + ly * TZ + 4 * lq);
  if (ly == LY - 1) {
    float4 a = 0, b = 0;
    if (inside && j + 1 <= ny) {
      a = vload4(0, ex + n + sy);
      b = vload4(0, ez + n + sy);
    }
    vstore4(a, 0, tex + LY * (TZ + 1) + 4 * lq);
    vstore4(b, 0, tez + LY * TZ + 4 * lq);
  }
  if (lq == LQ - 1) {
    float a = 0, b = 0;
    if (inside && k0 + 4 < pz) {
      a = ex[n + 4];
      b = ey[n + 4];
    }
    tex[ly * (TZ + 1) + TZ] = a;
    tey[ly * (TZ + 1) + TZ] = b;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!inside) return;

  const float4 ex_kp = vload4(0, tex + ly * (TZ + 1) + 4 * lq + 1);
  const float4 ey_kp = vload4(0, tey + ly * (TZ + 1) + 4 * lq + 1);
  const float4 ex_jp = vload4(0, tex + (ly + 1) * (TZ + 1) + 4 * lq);
  const float4 ez_jp = vload4(0, tez + (ly + 1) * TZ + 4 * lq);
  float4 ey_ip = 0, ez_ip = 0;
  if (i < nx) {
    ey_ip = vload4(0, ey + n + sx);
    ez_ip = vload4(0, ez + n + sx);
  }
  const float4 dh = gather(table, vload4(0, material + n), 2);
  const int slx = sx_slot[(nx + 1) + i], sly = sy_slot[(ny + 1) + j];
  const long qx = ((long)slx * (ny + 1) + j) * pz + k0;
  const long qy = (i * layers + sly) * pz + k0;
  const long qz = (i * (ny + 1) + j) * layers;
  const int4 k = lanes(k0);
  const int4 k_lt_nz = k < (int4)((int)nz), k_le_nz = k <= (int4)((int)nz);
  if (j < ny) {
    const float4 curl = cpml_uniform(ez_jp - vez, sly, py, ny + 1, j, 1, psiy + 2 * psiy_size, qy) -
                        cpml_z(ey_kp - vey, k0, pzp, pz, 1, sz_slot, psiz + 2 * psiz_size, qz);
    const float4 old = vload4(0, hx + n);
    vstore4(select(old, old - dh * curl, k_lt_nz), 0, hx + n);
  }
  if (i < nx) {
    const float4 curl = cpml_z(ex_kp - vex, k0, pzp, pz, 1, sz_slot, psiz + 3 * psiz_size, qz) -
                        cpml_uniform(ez_ip - vez, slx, px, nx + 1, i, 1, psix + 2 * psix_size, qx);
    const float4 old = vload4(0, hy + n);
    vstore4(select(old, old - dh * curl, k_lt_nz), 0, hy + n);
  }
  if (i < nx && j < ny) {
    const float4 curl = cpml_uniform(ey_ip - vey, slx, px, nx + 1, i, 1, psix + 3 * psix_size, qx) -
                        cpml_uniform(ex_jp - vex, sly, py, ny + 1, j, 1, psiy + 3 * psiy_size, qy);
    const float4 old = vload4(0, hz + n);
    vstore4(select(old, old - dh * curl, k_le_nz), 0, hz + n);
  }
}

__kernel __attribute__((reqd_work_group_size(LQ, LY, 1))) void update_e(
    long nx, long ny, long nz, long pz, long layers, __global float* ex, __global float* ey,
    __global float* ez, __global const float* hx, __global const float* hy,
    __global const float* hz, __global const uint* material, __global const float* table,
    __global const float* px, __global const float* py, __global const float* pzp,
    __global const int* sx_slot, __global const int* sy_slot, __global const int* sz_slot,
    __global float* psix, __global float* psiy, __global float* psiz, long psix_size,
    long psiy_size, long psiz_size) {
  // Tiles: row r + 1 = local y (row 0: halo j0 - 1 for Hx, Hz), column c + 1 =
  // 4 * local quad + lane (column 0: halo k0 - 1 of the first quad for Hx, Hy).
  __local float thx[(LY + 1) * (TZ + 1)];
  __local float thy[LY * (TZ + 1)];
  __local float thz[(LY + 1) * TZ];
  const int lq = get_local_id(0), ly = get_local_id(1);
  const long k0 = 4 * (long)get_global_id(0), j = get_global_id(1), i = get_global_id(2);
  const bool inside = k0 < pz && j <= ny && i <= nx;
  const long sy = pz, sx = (ny + 1) * pz, n = i * sx + j * sy + k0;
  float4 vhx = 0, vhy = 0, vhz = 0;
  if (inside) {
    vhx = vload4(0, hx + n);
    vhy = vload4(0, hy + n);
    vhz = vload4(0, hz + n);
  }
  vstore4(vhx, 0, thx + (ly + 1) * (TZ + 1) + 1 + 4 * lq);
  vstore4(vhy, 0, thy + ly * (TZ + 1) + 1 + 4 * lq);
  vstore4(vhz, 0, thz + (ly + 1) * TZ + 4 * lq);
  if (ly == 0) {
    float4 a = 0, b = 0;
    if (inside && j >= 1) {
      a = vload4(0, hx + n - sy);
      b = vload4(0, hz + n - sy);
    }
    vstore4(a, 0, thx + 1 + 4 * lq);
    vstore4(b, 0, thz + 4 * lq);
  }
  if (lq == 0) {
    float a = 0, b = 0;
    if (inside && k0 >= 1) {
      a = hx[n - 1];
      b = hy[n - 1];
    }
    thx[(ly + 1) * (TZ + 1)] = a;
    thy[ly * (TZ + 1)] = b;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!inside) return;

  const float4 hx_km = vload4(0, thx + (ly + 1) * (TZ + 1) + 4 * lq);
  const float4 hy_km = vload4(0, thy + ly * (TZ + 1) + 4 * lq);
  const float4 hx_jm = vload4(0, thx + ly * (TZ + 1) + 1 + 4 * lq);
  const float4 hz_jm = vload4(0, thz + ly * TZ + 4 * lq);
  float4 hy_im = 0, hz_im = 0;
  if (i >= 1) {
    hy_im = vload4(0, hy + n - sx);
    hz_im = vload4(0, hz + n - sx);
  }
  const uint4 m = vload4(0, material + n);
  const float4 ca = gather(table, m, 0), cb = gather(table, m, 1);
  const int slx = sx_slot[i], sly = sy_slot[j];
  const long qx = ((long)slx * (ny + 1) + j) * pz + k0;
  const long qy = (i * layers + sly) * pz + k0;
  const long qz = (i * (ny + 1) + j) * layers;
  const int4 k = lanes(k0);
  const int4 k_inner = (k >= (int4)(1)) & (k < (int4)((int)nz)), k_lt_nz = k < (int4)((int)nz);
  // PERIODIC_X/Y (build options): the face u = n is updated too (yee_kernel_args.hpp).
  const bool inner_x = i >= 1 && (i < nx || PERIODIC_X), inner_y = j >= 1 && (j < ny || PERIODIC_Y);
  if (i < nx && inner_y) {
    const float4 curl = cpml_uniform(vhz - hz_jm, sly, py, ny + 1, j, 0, psiy, qy) -
                        cpml_z(vhy - hy_km, k0, pzp, pz, 0, sz_slot, psiz, qz);
    const float4 old = vload4(0, ex + n);
    vstore4(select(old, ca * old + cb * curl, k_inner), 0, ex + n);
  }
  if (inner_x && j < ny) {
    const float4 curl = cpml_z(vhx - hx_km, k0, pzp, pz, 0, sz_slot, psiz + psiz_size, qz) -
                        cpml_uniform(vhz - hz_im, slx, px, nx + 1, i, 0, psix, qx);
    const float4 old = vload4(0, ey + n);
    vstore4(select(old, ca * old + cb * curl, k_inner), 0, ey + n);
  }
  if (inner_x && inner_y) {
    const float4 curl = cpml_uniform(vhy - hy_im, slx, px, nx + 1, i, 0, psix + psix_size, qx) -
                        cpml_uniform(vhx - hx_jm, sly, py, ny + 1, j, 0, psiy + psiy_size, qy);
    const float4 old = vload4(0, ez + n);
    vstore4(select(old, ca * old + cb * curl, k_lt_nz), 0, ez + n);
  }
}

// First pass of the energy sum: float4 loads, per-work-item sums, tree reduction.
__kernel void energy_partial4(long quads, __global const float* ex, __global const float* ey,
                              __global const float* ez, __global const float* hx,
                              __global const float* hy, __global const float* hz,
                              __global const uint* material, __global const float* table,
                              __global float* out, __local float* sdata) {
  float acc = 0;
  for (long q = get_global_id(0); q < quads; q += get_global_size(0)) {
    const float4 a = vload4(q, ex), b = vload4(q, ey), c = vload4(q, ez);
    const float4 d = vload4(q, hx), e = vload4(q, hy), f = vload4(q, hz);
    const uint4 m = vload4(q, material);
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
