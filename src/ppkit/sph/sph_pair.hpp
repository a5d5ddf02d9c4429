#pragma once
// The WCSPH pair interaction in fp32, shared by the Kokkos and hand-tuned CUDA
// kernels (plain C++, no Kokkos: nvcc sees it as __host__ __device__).
//
//   continuity:  drho_i/dt = rho_i sum_j V_j (u_i - u_j) . grad_i W_ij            (Monaghan 1992)
//                + 2 delta h c0 sum_j (rho_j - rho_i) (r_ji . grad_i W_ij)/(r^2+eta^2) V_j
//                                             (delta-SPH, Molteni & Colagrossi 2009, fluid pairs)
//   momentum:    du_i/dt = -sum_j m_j ((p_i + p_j)/(rho_i rho_j) + Pi_ij) grad_i W_ij + g
//   viscosity:   Pi_ij = -alpha c_ij mu_ij / rho_ij, mu_ij = h u_ij.r_ij/(r^2 + 0.01 h^2) when
//                u_ij.r_ij < 0 (Monaghan 1992, Eq. 4.1); c_ij, rho_ij are pair means
//   EOS:         p = B ((rho/rho0)^7 - 1), c = c0 (rho/rho0)^3 (Tait, Monaghan 1994)
//   kernel:      Wendland C2, W = aD (1 - q/2)^4 (2q + 1), q = r/h < 2, aD = 21/(16 pi h^3);
//                grad_i W_ij = -5 aD/h^2 (1 - q/2)^3 r_ij
// Boundary particles (dynamic boundary condition, Crespo et al. 2007) only
// evolve their density, from fluid neighbours; fluid particles feel all.
#include <cmath>

#include "ppkit/sph/sph_types.hpp"

#if defined(__CUDACC__) || defined(__HIPCC__)
#define PPKIT_SPH_HD __host__ __device__ inline
#else
#define PPKIT_SPH_HD inline
#endif

namespace ppkit::sph {

struct PairSums {
  float drho = 0, ax = 0, ay = 0, az = 0;
  float visc_max = 0;  // max |u_ij.r_ij| / (r^2 + eta^2): the viscous time-step limit
};

// Pressure from the Tait equation (gamma = 7).
PPKIT_SPH_HD float tait_pressure(const KernelConstants& k, float rho) {
  const float x = rho * k.inv_rho0;
  const float x3 = x * x * x;
  return k.tait_b * (x3 * x3 * x - 1.0f);
}
PPKIT_SPH_HD float sound_speed(const KernelConstants& k, float rho) {
  const float x = rho * k.inv_rho0;
  return k.c0 * x * x * x;
}

// Minimum image along periodic axes (positions are kept inside the domain).
PPKIT_SPH_HD float minimum_image(float d, float length, int periodic) {
  if (periodic) {
    if (d > 0.5f * length)
      d -= length;
    else if (d < -0.5f * length)
      d += length;
  }
  return d;
}

// Adds the contribution of neighbour j to particle i. r = r_i - r_j, u = u_i - u_j,
// r2 = |r|^2 < (2h)^2, j != i. Caller skips boundary-boundary pairs.
PPKIT_SPH_HD void add_pair(const KernelConstants& k, bool i_fluid, bool j_fluid, float rx, float ry,
                           float rz, float r2, float ux, float uy, float uz, float rho_i, float p_i,
                           float c_i, float rho_j, PairSums& s) {
  const float r = sqrtf(r2);
  const float t = 1.0f - 0.5f * r * k.inv_h;
  const float fac = k.grad_factor * t * t * t;  // grad_i W_ij = fac * r_ij (fac < 0)
  const float vol_j = k.mass / rho_j;
  const float u_dot_r = ux * rx + uy * ry + uz * rz;
  float drho = rho_i * vol_j * fac * u_dot_r;
  if (i_fluid && j_fluid)
    drho += k.delta_term * (rho_j - rho_i) * (-fac * r2) / (r2 + k.eta2) * vol_j;
  s.drho += drho;
  if (!i_fluid) return;
  const float p_j = tait_pressure(k, rho_j);
  float coeff = (p_i + p_j) / (rho_i * rho_j);
  const float dot_rr2 = u_dot_r / (r2 + k.eta2);
  if (u_dot_r < 0.0f) {
    const float c_ij = 0.5f * (c_i + sound_speed(k, rho_j));
    const float mu = k.h * dot_rr2;
    coeff += -k.alpha * c_ij * mu / (0.5f * (rho_i + rho_j));
  }
  const float f = -k.mass * coeff * fac;
  s.ax += f * rx;
  s.ay += f * ry;
  s.az += f * rz;
  const float a = dot_rr2 < 0.0f ? -dot_rr2 : dot_rr2;
  if (a > s.visc_max) s.visc_max = a;
}

// Cell coordinate along one axis, clamped into [0, n).
PPKIT_SPH_HD int cell_coordinate(float x, float lo, float inv_cell, int n) {
  int c = static_cast<int>((x - lo) * inv_cell);
  return c < 0 ? 0 : (c >= n ? n - 1 : c);
}

// Neighbouring cell coordinate c + d: wraps on periodic axes; -1 when outside.
PPKIT_SPH_HD int neighbour_coordinate(int c, int d, int n, int periodic) {
  int m = c + d;
  if (m < 0) return periodic ? m + n : -1;
  if (m >= n) return periodic ? m - n : -1;
  return m;
}

}  // namespace ppkit::sph
