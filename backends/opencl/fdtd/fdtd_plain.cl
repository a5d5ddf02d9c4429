// opencl/plain: fdtd.step with one work-item per node (z fastest), every
// work-item updating the node's three components (Taflove & Hagness eq.
// 3.18-3.19 with the CPML of Roden & Gedney 2000), plus sources, probes and a
// two-kernel energy sum with a power-of-two local-memory tree reduction.
//
// Layout (src/ppkit/fdtd/yee_kernel_args.hpp): node (i, j, k) at
// (i * (ny + 1) + j) * pz + k with pz = nz + 1 here. Per axis of n cells:
// prof[a * (n + 1) + u] for a = 0..5 (E: 1/(kappa du), b, c/du; H: same) and
// slot[u] (E), slot[(n + 1) + u] (H). psi per axis: four sub-arrays of
// psi_size each: x: eyx, ezx, hyx, hzx; y: exy, ezy, hxy, hzy; z: exz, eyz, hxz, hyz.

#define STRIDE 8  // floats per material: ca, cb, dh, eps, mu, ...

inline float cpml_term(float d, int slot, __global const float* prof, long n1, long u, int h,
                       __global float* psi, long q) {
  const long base = h ? 3 * n1 : 0;
  const float plain = d * prof[base + u];
  if (slot < 0) return plain;
  const float updated = prof[base + n1 + u] * psi[q] + prof[base + 2 * n1 + u] * d;
  psi[q] = updated;
  return plain + updated;
}

__kernel void update_h(long nx, long ny, long nz, long pz, long layers, __global const float* ex,
                       __global const float* ey, __global const float* ez, __global float* hx,
                       __global float* hy, __global float* hz, __global const uint* material,
                       __global const float* table, __global const float* px,
                       __global const float* py, __global const float* pz_prof,
                       __global const int* sx_slot, __global const int* sy_slot,
                       __global const int* sz_slot, __global float* psix, __global float* psiy,
                       __global float* psiz, long psix_size, long psiy_size, long psiz_size) {
  const long k = get_global_id(0), j = get_global_id(1), i = get_global_id(2);
  if (i > nx || j > ny || k > nz) return;
  const long sy = pz, sx = (ny + 1) * pz, n = i * sx + j * sy + k;
  const float dh = table[material[n] * STRIDE + 2];
  const int slx = sx_slot[(nx + 1) + i], sly = sy_slot[(ny + 1) + j], slz = sz_slot[(nz + 1) + k];
  const long qx = ((long)slx * (ny + 1) + j) * pz + k;
  const long qy = (i * layers + sly) * pz + k;
  const long qz = (i * (ny + 1) + j) * layers + slz;
  if (j < ny && k < nz) {
    const float dez = ez[n + sy] - ez[n], dey = ey[n + 1] - ey[n];
    const float curl = cpml_term(dez, sly, py, ny + 1, j, 1, psiy + 2 * psiy_size, qy) -
                       cpml_term(dey, slz, pz_prof, nz + 1, k, 1, psiz + 2 * psiz_size, qz);
    hx[n] -= dh * curl;
  }
  if (i < nx && k < nz) {
    const float dex = ex[n + 1] - ex[n], dez = ez[n + sx] - ez[n];
    const float curl = cpml_term(dex, slz, pz_prof, nz + 1, k, 1, psiz + 3 * psiz_size, qz) -
                       cpml_term(dez, slx, px, nx + 1, i, 1, psix + 2 * psix_size, qx);
    hy[n] -= dh * curl;
  }
  if (i < nx && j < ny) {
    const float dey = ey[n + sx] - ey[n], dex = ex[n + sy] - ex[n];
    const float curl = cpml_term(dey, slx, px, nx + 1, i, 1, psix + 3 * psix_size, qx) -
                       cpml_term(dex, sly, py, ny + 1, j, 1, psiy + 3 * psiy_size, qy);
    hz[n] -= dh * curl;
  }
}

__kernel void update_e(long nx, long ny, long nz, long pz, long layers, __global float* ex,
                       __global float* ey, __global float* ez, __global const float* hx,
                       __global const float* hy, __global const float* hz,
                       __global const uint* material, __global const float* table,
                       __global const float* px, __global const float* py,
                       __global const float* pz_prof, __global const int* sx_slot,
                       __global const int* sy_slot, __global const int* sz_slot,
                       __global float* psix, __global float* psiy, __global float* psiz,
                       long psix_size, long psiy_size, long psiz_size) {
  const long k = get_global_id(0), j = get_global_id(1), i = get_global_id(2);
  if (i > nx || j > ny || k > nz) return;
  const long sy = pz, sx = (ny + 1) * pz, n = i * sx + j * sy + k;
  __global const float* coef = table + material[n] * STRIDE;
  const float ca = coef[0], cb = coef[1];
  const int slx = sx_slot[i], sly = sy_slot[j], slz = sz_slot[k];
  const long qx = ((long)slx * (ny + 1) + j) * pz + k;
  const long qy = (i * layers + sly) * pz + k;
  const long qz = (i * (ny + 1) + j) * layers + slz;
  // PERIODIC_X/Y (build options): the face u = n is updated too (yee_kernel_args.hpp).
  const bool inner_x = i >= 1 && (i < nx || PERIODIC_X), inner_y = j >= 1 && (j < ny || PERIODIC_Y),
             inner_z = k >= 1 && k < nz;
  if (i < nx && inner_y && inner_z) {
    const float dhz = hz[n] - hz[n - sy], dhy = hy[n] - hy[n - 1];
    const float curl = cpml_term(dhz, sly, py, ny + 1, j, 0, psiy, qy) -
                       cpml_term(dhy, slz, pz_prof, nz + 1, k, 0, psiz, qz);
    ex[n] = ca * ex[n] + cb * curl;
  }
  if (inner_x && j < ny && inner_z) {
    const float dhx = hx[n] - hx[n - 1], dhz = hz[n] - hz[n - sx];
    const float curl = cpml_term(dhx, slz, pz_prof, nz + 1, k, 0, psiz + psiz_size, qz) -
                       cpml_term(dhz, slx, px, nx + 1, i, 0, psix, qx);
    ey[n] = ca * ey[n] + cb * curl;
  }
  if (inner_x && inner_y && k < nz) {
    const float dhy = hy[n] - hy[n - sx], dhx = hx[n] - hx[n - sy];
    const float curl = cpml_term(dhy, slx, px, nx + 1, i, 0, psix + psix_size, qx) -
                       cpml_term(dhx, sly, py, ny + 1, j, 0, psiy + psiy_size, qy);
    ez[n] = ca * ez[n] + cb * curl;
  }
}
