#pragma once
// The interior / CPML split of the fdtd.step half steps, shared by the
// kokkos/split and cuda/split variants (plain C++ on raw pointers, usable from
// Kokkos lambdas and from CUDA kernels alike; no Kokkos types).
//
// Each half step is cut into two parts that touch disjoint nodes:
//  - the interior box: nodes where all three components are updated, no CPML
//    psi exists and 1/(kappa du) = 1/du on every axis. Its update is
//    branch-free (Taflove & Hagness eq. 3.18-3.19 with constant coefficients):
//    about 88% of the nodes of a 512^3 cube with a 10-cell CPML;
//  - the shell: every other node (CPML layers and the PEC faces), up to six
//    slabs, updated by the general code (Roden & Gedney 2000 CPML), a thin
//    kernel of its own.
// Along an axis of n cells with a CPML of t cells (cpml.cpp):
//  - H nodes u carry psi for u < t and u >= n - t, and H is updated for u < n,
//    so the H interior is u in [t, n - t);
//  - E nodes carry psi for u < t and u > n - t, and E is updated (tangential
//    components) for 1 <= u <= n - 1, so the E interior is u in
//    [max(t, 1), n - max(t, 1) + 1).
// Rows may be pitched: node (i, j, k) at i * sx + j * sy + k with sy >= nz + 1
// and sx = (ny + 1) * sy; x and y psi arrays use the same z pitch (see
// yee_kernel_args.hpp with sy in place of nz + 1).
#include <algorithm>
#include <cstdint>

#include "ppkit/fdtd/yee_kernel_args.hpp"

#if defined(__CUDACC__) || defined(__HIPCC__)
#define PPKIT_FDTD_HD __host__ __device__ __forceinline__
#else
#define PPKIT_FDTD_HD inline
#endif

namespace ppkit::fdtd::split {

// [lo, hi) per axis: 0 = x, 1 = y, 2 = z.
struct Box {
  std::int64_t lo[3], hi[3];
};

PPKIT_FDTD_HD std::int64_t box_nodes(const Box& b) {
  return (b.hi[0] - b.lo[0]) * (b.hi[1] - b.lo[1]) * (b.hi[2] - b.lo[2]);
}

// The CPML-free interior of one half step and its 1/du per axis.
template <class Real = float>
struct InteriorT {
  Box box;
  Real inv_d[3];  // 1/dx, 1/dy, 1/dz as stored in the CPML profiles outside the layers
};
using Interior = InteriorT<float>;

// The part of b on the x-planes [i0, i1) (empty: hi[0] = lo[0]).
inline Box clip_x(Box b, std::int64_t i0, std::int64_t i1) {
  b.lo[0] = std::max(b.lo[0], i0);
  b.hi[0] = std::max(b.lo[0], std::min(b.hi[0], i1));
  return b;
}

// The nodes [0, n + 1)^3 outside the interior box as up to six slabs:
// x-low, x-high (whole planes), y-low, y-high (within the interior x range),
// z-low, z-high (within the interior x and y ranges). first[s] is the flat
// index of slab s's first node; first[6] is the shell's node count.
struct Shell {
  Box slab[6];
  std::int64_t first[7];
};

// On grids thinner than two CPML layers along an axis (e.g. a 2 x 2 periodic
// column) the box is empty along it: lo is clamped to n (a valid profile
// index) and hi to lo, so shell_around then covers every node and launches
// over the box have no work.
template <class Real>
inline Box interior_box(const YeeKernelArgsT<Real>& a, bool electric) {
  const std::int64_t t = a.layers / 2, n[3] = {a.nx, a.ny, a.nz};
  Box b{};
  for (int d = 0; d < 3; ++d) {
    const std::int64_t edge = electric ? (t > 1 ? t : 1) : t;
    b.lo[d] = edge < n[d] ? edge : n[d];
    const std::int64_t hi = electric ? n[d] - edge + 1 : n[d] - t;
    b.hi[d] = hi > b.lo[d] ? hi : b.lo[d];
  }
  return b;
}

inline bool box_empty(const Box& b) {
  return b.hi[0] <= b.lo[0] || b.hi[1] <= b.lo[1] || b.hi[2] <= b.lo[2];
}

template <class Real>
inline Shell shell_around(const YeeKernelArgsT<Real>& a, const Box& in) {
  const std::int64_t full[3] = {a.nx + 1, a.ny + 1, a.nz + 1};
  Shell s{};
  auto make = [](std::int64_t x0, std::int64_t x1, std::int64_t y0, std::int64_t y1,
                 std::int64_t z0, std::int64_t z1) {
    return Box{{x0, y0, z0}, {x1, y1, z1}};
  };
  s.slab[0] = make(0, in.lo[0], 0, full[1], 0, full[2]);
  s.slab[1] = make(in.hi[0], full[0], 0, full[1], 0, full[2]);
  s.slab[2] = make(in.lo[0], in.hi[0], 0, in.lo[1], 0, full[2]);
  s.slab[3] = make(in.lo[0], in.hi[0], in.hi[1], full[1], 0, full[2]);
  s.slab[4] = make(in.lo[0], in.hi[0], in.lo[1], in.hi[1], 0, in.lo[2]);
  s.slab[5] = make(in.lo[0], in.hi[0], in.lo[1], in.hi[1], in.hi[2], full[2]);
  s.first[0] = 0;
  for (int q = 0; q < 6; ++q) s.first[q + 1] = s.first[q] + box_nodes(s.slab[q]);
  return s;
}

// The part of a shell on the x-planes [i0, i1).
inline Shell clip_x(const Shell& s, std::int64_t i0, std::int64_t i1) {
  Shell c{};
  c.first[0] = 0;
  for (int q = 0; q < 6; ++q) {
    c.slab[q] = clip_x(s.slab[q], i0, i1);
    c.first[q + 1] = c.first[q] + box_nodes(c.slab[q]);
  }
  return c;
}

// Node (i, j, k) of the shell's flat index q in [0, first[6]), z fastest in each slab.
PPKIT_FDTD_HD void shell_node(const Shell& s, std::int64_t q, std::int64_t& i, std::int64_t& j,
                              std::int64_t& k) {
  int slab = 0;
  while (slab < 5 && q >= s.first[slab + 1]) ++slab;
  const Box& b = s.slab[slab];
  const std::int64_t local = q - s.first[slab];
  const std::int64_t wz = b.hi[2] - b.lo[2], wy = b.hi[1] - b.lo[1];
  std::int64_t row, kk;
  if (local < (std::int64_t(1) << 31)) {  // 32-bit division where it fits (fast on GPUs)
    const std::uint32_t l32 = std::uint32_t(local), wz32 = std::uint32_t(wz);
    const std::uint32_t r32 = l32 / wz32;
    row = r32;
    kk = std::int64_t(l32 - r32 * wz32);
    const std::uint32_t i32 = r32 / std::uint32_t(wy);
    i = b.lo[0] + i32;
    j = b.lo[1] + std::int64_t(r32 - i32 * std::uint32_t(wy));
  } else {
    row = local / wz;
    kk = local - row * wz;
    i = b.lo[0] + row / wy;
    j = b.lo[1] + row % wy;
  }
  k = b.lo[2] + kk;
}

// One CPML-aware derivative term, d / (kappa du) + psi with psi updated first
// (Roden & Gedney 2000, cpml.hpp; as in yee_kokkos_kernels.hpp), in two parts:
// its loads, then its arithmetic and psi store. The general updates below issue
// the loads of every term and field of a node before the first store: a store
// through one pointer may alias any later load, so a psi store between the
// terms would hold the next term's loads back by a whole memory round trip
// (the shell kernels are latency-bound if their loads wait that way).
template <class Real>
struct CpmlTermLoads {
  Real inv_kd, b = 0, c_d = 0, psi = 0;
};

template <class Real>
PPKIT_FDTD_HD CpmlTermLoads<Real> cpml_loads(const Real* inv_kd, const Real* b, const Real* c_d,
                                             std::int32_t slot, std::int64_t u, const Real* psi,
                                             std::int64_t q) {
  CpmlTermLoads<Real> t{inv_kd[u]};
  if (slot >= 0) {
    t.b = b[u];
    t.c_d = c_d[u];
    t.psi = psi[q];
  }
  return t;
}

template <class Real>
PPKIT_FDTD_HD Real cpml_derivative(Real d, const CpmlTermLoads<Real>& t, std::int32_t slot,
                                   Real* psi, std::int64_t q) {
  if (slot < 0) return d * t.inv_kd;
  const Real updated = t.b * t.psi + t.c_d * d;
  psi[q] = updated;
  return d * t.inv_kd + updated;
}

// General H update of node (i, j, k) (any node of the grid): CPML where the
// node has psi slots, components beyond their extent left alone. li = plane
// in the local arrays (i for a whole grid). All loads before the first store.
template <class Real>
PPKIT_FDTD_HD void update_h_node(const YeeKernelArgsT<Real>& a, std::int64_t i, std::int64_t li,
                                 std::int64_t j, std::int64_t k, std::int64_t sy, std::int64_t sx,
                                 RealArg<Real> dh) {
  const std::int64_t n = li * sx + j * sy + k;
  const CpmlAxisArgsT<Real>&X = a.axis[0], &Y = a.axis[1], &Z = a.axis[2];
  const std::int32_t slx = X.h_slot[i], sly = Y.h_slot[j], slz = Z.h_slot[k];
  const std::int64_t qx = (std::int64_t(slx) * (a.ny + 1) + j) * sy + k;
  const std::int64_t qy = (li * a.layers + sly) * sy + k;
  const std::int64_t qz = (li * (a.ny + 1) + j) * a.layers + slz;
  const bool do_x = j < a.ny && k < a.nz, do_y = i < a.nx && k < a.nz, do_z = i < a.nx && j < a.ny;
  using Loads = CpmlTermLoads<Real>;
  Real hx = 0, hy = 0, hz = 0, dez_y = 0, dey_z = 0, dex_z = 0, dez_x = 0, dey_x = 0, dex_y = 0;
  Loads xy{0}, xz{0}, yz{0}, yx{0}, zx{0}, zy{0};
  if (do_x) {
    hx = a.hx[n];
    dez_y = a.ez[n + sy] - a.ez[n];
    dey_z = a.ey[n + 1] - a.ey[n];
    xy = cpml_loads(Y.h_inv_kd, Y.h_b, Y.h_c_d, sly, j, a.psi_hxy, qy);
    xz = cpml_loads(Z.h_inv_kd, Z.h_b, Z.h_c_d, slz, k, a.psi_hxz, qz);
  }
  if (do_y) {
    hy = a.hy[n];
    dex_z = a.ex[n + 1] - a.ex[n];
    dez_x = a.ez[n + sx] - a.ez[n];
    yz = cpml_loads(Z.h_inv_kd, Z.h_b, Z.h_c_d, slz, k, a.psi_hyz, qz);
    yx = cpml_loads(X.h_inv_kd, X.h_b, X.h_c_d, slx, i, a.psi_hyx, qx);
  }
  if (do_z) {
    hz = a.hz[n];
    dey_x = a.ey[n + sx] - a.ey[n];
    dex_y = a.ex[n + sy] - a.ex[n];
    zx = cpml_loads(X.h_inv_kd, X.h_b, X.h_c_d, slx, i, a.psi_hzx, qx);
    zy = cpml_loads(Y.h_inv_kd, Y.h_b, Y.h_c_d, sly, j, a.psi_hzy, qy);
  }
  if (do_x)
    a.hx[n] = hx - dh * (cpml_derivative(dez_y, xy, sly, a.psi_hxy, qy) -
                         cpml_derivative(dey_z, xz, slz, a.psi_hxz, qz));
  if (do_y)
    a.hy[n] = hy - dh * (cpml_derivative(dex_z, yz, slz, a.psi_hyz, qz) -
                         cpml_derivative(dez_x, yx, slx, a.psi_hyx, qx));
  if (do_z)
    a.hz[n] = hz - dh * (cpml_derivative(dey_x, zx, slx, a.psi_hzx, qx) -
                         cpml_derivative(dex_y, zy, sly, a.psi_hzy, qy));
}

// General E update of node (i, j, k): tangential E on the PEC faces is not
// updated; on a periodic axis the face u = n is updated like an interior node
// (yee_kernel_args.hpp). That face always lies in the shell: the E interior
// box ends at u = n - 1. All loads before the first store.
template <class Real>
PPKIT_FDTD_HD void update_e_node(const YeeKernelArgsT<Real>& a, std::int64_t i, std::int64_t li,
                                 std::int64_t j, std::int64_t k, std::int64_t sy, std::int64_t sx,
                                 RealArg<Real> ca, RealArg<Real> cb) {
  const std::int64_t n = li * sx + j * sy + k;
  const CpmlAxisArgsT<Real>&X = a.axis[0], &Y = a.axis[1], &Z = a.axis[2];
  const std::int32_t slx = X.e_slot[i], sly = Y.e_slot[j], slz = Z.e_slot[k];
  const std::int64_t qx = (std::int64_t(slx) * (a.ny + 1) + j) * sy + k;
  const std::int64_t qy = (li * a.layers + sly) * sy + k;
  const std::int64_t qz = (li * (a.ny + 1) + j) * a.layers + slz;
  const bool inner_x = i >= 1 && (i < a.nx || a.periodic_x),
             inner_y = j >= 1 && (j < a.ny || a.periodic_y), inner_z = k >= 1 && k < a.nz;
  const bool do_x = i < a.nx && inner_y && inner_z, do_y = inner_x && j < a.ny && inner_z,
             do_z = inner_x && inner_y && k < a.nz;
  using Loads = CpmlTermLoads<Real>;
  Real ex = 0, ey = 0, ez = 0, dhz_y = 0, dhy_z = 0, dhx_z = 0, dhz_x = 0, dhy_x = 0, dhx_y = 0;
  Loads xy{0}, xz{0}, yz{0}, yx{0}, zx{0}, zy{0};
  if (do_x) {
    ex = a.ex[n];
    dhz_y = a.hz[n] - a.hz[n - sy];
    dhy_z = a.hy[n] - a.hy[n - 1];
    xy = cpml_loads(Y.e_inv_kd, Y.e_b, Y.e_c_d, sly, j, a.psi_exy, qy);
    xz = cpml_loads(Z.e_inv_kd, Z.e_b, Z.e_c_d, slz, k, a.psi_exz, qz);
  }
  if (do_y) {
    ey = a.ey[n];
    dhx_z = a.hx[n] - a.hx[n - 1];
    dhz_x = a.hz[n] - a.hz[n - sx];
    yz = cpml_loads(Z.e_inv_kd, Z.e_b, Z.e_c_d, slz, k, a.psi_eyz, qz);
    yx = cpml_loads(X.e_inv_kd, X.e_b, X.e_c_d, slx, i, a.psi_eyx, qx);
  }
  if (do_z) {
    ez = a.ez[n];
    dhy_x = a.hy[n] - a.hy[n - sx];
    dhx_y = a.hx[n] - a.hx[n - sy];
    zx = cpml_loads(X.e_inv_kd, X.e_b, X.e_c_d, slx, i, a.psi_ezx, qx);
    zy = cpml_loads(Y.e_inv_kd, Y.e_b, Y.e_c_d, sly, j, a.psi_ezy, qy);
  }
  if (do_x)
    a.ex[n] = ca * ex + cb * (cpml_derivative(dhz_y, xy, sly, a.psi_exy, qy) -
                              cpml_derivative(dhy_z, xz, slz, a.psi_exz, qz));
  if (do_y)
    a.ey[n] = ca * ey + cb * (cpml_derivative(dhx_z, yz, slz, a.psi_eyz, qz) -
                              cpml_derivative(dhz_x, yx, slx, a.psi_eyx, qx));
  if (do_z)
    a.ez[n] = ca * ez + cb * (cpml_derivative(dhy_x, zx, slx, a.psi_ezx, qx) -
                              cpml_derivative(dhx_y, zy, sly, a.psi_ezy, qy));
}

// Interior H update of node n: all three components, no psi, constant 1/du.
template <class Real>
PPKIT_FDTD_HD void update_h_interior(const YeeKernelArgsT<Real>& a, std::int64_t n, std::int64_t sy,
                                     std::int64_t sx, const RealArg<Real> inv_d[3],
                                     RealArg<Real> dh) {
  const Real ex = a.ex[n], ey = a.ey[n], ez = a.ez[n];
  const Real curl_x = (a.ez[n + sy] - ez) * inv_d[1] - (a.ey[n + 1] - ey) * inv_d[2];
  const Real curl_y = (a.ex[n + 1] - ex) * inv_d[2] - (a.ez[n + sx] - ez) * inv_d[0];
  const Real curl_z = (a.ey[n + sx] - ey) * inv_d[0] - (a.ex[n + sy] - ex) * inv_d[1];
  a.hx[n] -= dh * curl_x;
  a.hy[n] -= dh * curl_y;
  a.hz[n] -= dh * curl_z;
}

// Interior E update of node n: all three components, no psi, constant 1/du.
template <class Real>
PPKIT_FDTD_HD void update_e_interior(const YeeKernelArgsT<Real>& a, std::int64_t n, std::int64_t sy,
                                     std::int64_t sx, const RealArg<Real> inv_d[3],
                                     RealArg<Real> ca, RealArg<Real> cb) {
  const Real hx = a.hx[n], hy = a.hy[n], hz = a.hz[n];
  const Real curl_x = (hz - a.hz[n - sy]) * inv_d[1] - (hy - a.hy[n - 1]) * inv_d[2];
  const Real curl_y = (hx - a.hx[n - 1]) * inv_d[2] - (hz - a.hz[n - sx]) * inv_d[0];
  const Real curl_z = (hy - a.hy[n - sx]) * inv_d[0] - (hx - a.hx[n - sy]) * inv_d[1];
  a.ex[n] = ca * a.ex[n] + cb * curl_x;
  a.ey[n] = ca * a.ey[n] + cb * curl_y;
  a.ez[n] = ca * a.ez[n] + cb * curl_z;
}

// Interior H update of nodes n (plane i) and n + sx (plane i + 1): every load
// is issued before the first store (more loads in flight), and E at plane
// i + 1 serves both as the x neighbour of plane i and as the centre of i + 1.
template <class Real>
PPKIT_FDTD_HD void update_h_interior_pair(const YeeKernelArgsT<Real>& a, std::int64_t n,
                                          std::int64_t sy, std::int64_t sx,
                                          const RealArg<Real> inv_d[3], RealArg<Real> dh0,
                                          RealArg<Real> dh1) {
  const std::int64_t m = n + sx;
  const Real ex0 = a.ex[n], ex0k = a.ex[n + 1], ex0j = a.ex[n + sy];
  const Real ex1 = a.ex[m], ex1k = a.ex[m + 1], ex1j = a.ex[m + sy];
  const Real ey0 = a.ey[n], ey0k = a.ey[n + 1], ey1 = a.ey[m], ey1k = a.ey[m + 1];
  const Real ez0 = a.ez[n], ez0j = a.ez[n + sy], ez1 = a.ez[m], ez1j = a.ez[m + sy];
  const Real ey2 = a.ey[m + sx], ez2 = a.ez[m + sx];
  const Real hx0 = a.hx[n], hy0 = a.hy[n], hz0 = a.hz[n];
  const Real hx1 = a.hx[m], hy1 = a.hy[m], hz1 = a.hz[m];
  a.hx[n] = hx0 - dh0 * ((ez0j - ez0) * inv_d[1] - (ey0k - ey0) * inv_d[2]);
  a.hy[n] = hy0 - dh0 * ((ex0k - ex0) * inv_d[2] - (ez1 - ez0) * inv_d[0]);
  a.hz[n] = hz0 - dh0 * ((ey1 - ey0) * inv_d[0] - (ex0j - ex0) * inv_d[1]);
  a.hx[m] = hx1 - dh1 * ((ez1j - ez1) * inv_d[1] - (ey1k - ey1) * inv_d[2]);
  a.hy[m] = hy1 - dh1 * ((ex1k - ex1) * inv_d[2] - (ez2 - ez1) * inv_d[0]);
  a.hz[m] = hz1 - dh1 * ((ey2 - ey1) * inv_d[0] - (ex1j - ex1) * inv_d[1]);
}

// Interior E update of nodes n (plane i) and n + sx (plane i + 1), loads first.
template <class Real>
PPKIT_FDTD_HD void update_e_interior_pair(const YeeKernelArgsT<Real>& a, std::int64_t n,
                                          std::int64_t sy, std::int64_t sx,
                                          const RealArg<Real> inv_d[3], RealArg<Real> ca0,
                                          RealArg<Real> cb0, RealArg<Real> ca1, RealArg<Real> cb1) {
  const std::int64_t m = n + sx, p = n - sx;
  const Real hx0 = a.hx[n], hx0k = a.hx[n - 1], hx0j = a.hx[n - sy];
  const Real hx1 = a.hx[m], hx1k = a.hx[m - 1], hx1j = a.hx[m - sy];
  const Real hy0 = a.hy[n], hy0k = a.hy[n - 1], hy1 = a.hy[m], hy1k = a.hy[m - 1];
  const Real hz0 = a.hz[n], hz0j = a.hz[n - sy], hz1 = a.hz[m], hz1j = a.hz[m - sy];
  const Real hyp = a.hy[p], hzp = a.hz[p];
  const Real ex0 = a.ex[n], ey0 = a.ey[n], ez0 = a.ez[n];
  const Real ex1 = a.ex[m], ey1 = a.ey[m], ez1 = a.ez[m];
  a.ex[n] = ca0 * ex0 + cb0 * ((hz0 - hz0j) * inv_d[1] - (hy0 - hy0k) * inv_d[2]);
  a.ey[n] = ca0 * ey0 + cb0 * ((hx0 - hx0k) * inv_d[2] - (hz0 - hzp) * inv_d[0]);
  a.ez[n] = ca0 * ez0 + cb0 * ((hy0 - hyp) * inv_d[0] - (hx0 - hx0j) * inv_d[1]);
  a.ex[m] = ca1 * ex1 + cb1 * ((hz1 - hz1j) * inv_d[1] - (hy1 - hy1k) * inv_d[2]);
  a.ey[m] = ca1 * ey1 + cb1 * ((hx1 - hx1k) * inv_d[2] - (hz1 - hz0) * inv_d[0]);
  a.ez[m] = ca1 * ez1 + cb1 * ((hy1 - hy0) * inv_d[0] - (hx1 - hx1j) * inv_d[1]);
}

}  // namespace ppkit::fdtd::split
