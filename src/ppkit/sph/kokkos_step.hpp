#pragma once
// The symplectic integrator's kernels (step_kokkos.cpp has the scheme), shared
// by the single-device solver (step_kokkos.cpp) and the MPI slabs
// (mpi_slabs.cpp): predictor, corrector, escape marking, the maxima of the
// variable time step and the blow-up search. Included only by Kokkos sources.
#include <algorithm>
#include <cmath>

#include "ppkit/sph/kokkos_sph.hpp"

namespace ppkit::sph::kokkos_impl {

// Wraps x into [lo, lo + length) along a periodic axis.
KOKKOS_INLINE_FUNCTION float wrap(float x, float lo, float length, int periodic) {
  if (!periodic) return x;
  if (x < lo) return x + length;
  if (x >= lo + length) return x - length;
  return x;
}

template <class Mem>
struct Predictor {
  float dt;
  float rho0;
  DomainBox d;
  ParticleArrays<Mem> s, start;  // s: current state (overwritten), start: state at t^n
  RhsArrays<Mem> rhs;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    const std::uint8_t kind = s.kind(i);
    start.x(i) = s.x(i);
    start.y(i) = s.y(i);
    start.z(i) = s.z(i);
    start.vx(i) = s.vx(i);
    start.vy(i) = s.vy(i);
    start.vz(i) = s.vz(i);
    start.rho(i) = s.rho(i);
    if (kind == kEscaped) return;
    const float half = 0.5f * dt;
    const float rho = s.rho(i) + half * rhs.drho(i);
    s.rho(i) = (kind == kBoundary && rho < rho0) ? rho0 : rho;
    if (kind != kFluid) return;
    s.x(i) = wrap(s.x(i) + half * s.vx(i), d.lo[0], d.length[0], d.periodic[0]);
    s.y(i) = wrap(s.y(i) + half * s.vy(i), d.lo[1], d.length[1], d.periodic[1]);
    s.z(i) = wrap(s.z(i) + half * s.vz(i), d.lo[2], d.length[2], d.periodic[2]);
    s.vx(i) += half * rhs.ax(i);
    s.vy(i) += half * rhs.ay(i);
    s.vz(i) += half * rhs.az(i);
  }
};

template <class Mem>
struct Corrector {
  float dt;
  float rho0;
  DomainBox d;
  ParticleArrays<Mem> s, start;
  RhsArrays<Mem> rhs;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    const std::uint8_t kind = s.kind(i);
    if (kind == kEscaped) return;
    const float eps = -rhs.drho(i) / s.rho(i) * dt;
    const float rho = start.rho(i) * (2.0f - eps) / (2.0f + eps);
    s.rho(i) = (kind == kBoundary && rho < rho0) ? rho0 : rho;
    if (kind != kFluid) return;
    const float vx = start.vx(i) + dt * rhs.ax(i);
    const float vy = start.vy(i) + dt * rhs.ay(i);
    const float vz = start.vz(i) + dt * rhs.az(i);
    const float x = start.x(i) + 0.5f * dt * (vx + start.vx(i));
    const float y = start.y(i) + 0.5f * dt * (vy + start.vy(i));
    const float z = start.z(i) + 0.5f * dt * (vz + start.vz(i));
    s.x(i) = wrap(x, d.lo[0], d.length[0], d.periodic[0]);
    s.y(i) = wrap(y, d.lo[1], d.length[1], d.periodic[1]);
    s.z(i) = wrap(z, d.lo[2], d.length[2], d.periodic[2]);
    s.vx(i) = vx;
    s.vy(i) = vy;
    s.vz(i) = vz;
  }
};

// Marks fluid particles outside the domain, or isolated ones whose density fell
// below rho0 / f (a splash particle that lost its neighbours; DualSPHysics'
// RhopOut rule), as escaped and counts them.
template <class Mem>
struct MarkEscaped {
  DomainBox d;
  float rho_min;
  ParticleArrays<Mem> s;
  KOKKOS_INLINE_FUNCTION void operator()(int i, long long& escaped) const {
    if (s.kind(i) != kFluid) return;
    const float p[3] = {s.x(i), s.y(i), s.z(i)};
    bool outside = s.rho(i) < rho_min;
    for (int a = 0; a < 3; ++a)
      if (!d.periodic[a] && (p[a] < d.lo[a] || p[a] > d.hi[a])) outside = true;
    if (!outside) return;
    s.kind(i) = kEscaped;
    s.vx(i) = s.vy(i) = s.vz(i) = 0.0f;
    ++escaped;
  }
};

// Maximum over fluid particles of |a|^2 (Field 0), rho (1) or the viscous
// time-step term (2).
template <class Mem, int Field>
struct FluidMaximum {
  ParticleArrays<Mem> s;
  RhsArrays<Mem> r;
  KOKKOS_INLINE_FUNCTION void operator()(int i, float& m) const {
    if (s.kind(i) != kFluid) return;
    float v = 0;
    if (Field == 0) v = r.ax(i) * r.ax(i) + r.ay(i) * r.ay(i) + r.az(i) * r.az(i);
    if (Field == 1) v = s.rho(i);
    if (Field == 2) v = r.visc(i);
    if (v > m) m = v;
  }
};

KOKKOS_INLINE_FUNCTION bool finite(float v) { return (v - v) == 0.0f; }

// Smallest index of a particle with a non-finite state or a density above
// f rho0 (n when none).
template <class Mem>
struct FindBlowUp {
  float rho_max;
  int n;
  ParticleArrays<Mem> s;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int& first) const {
    if (s.kind(i) == kEscaped) return;
    const float rho = s.rho(i);
    const bool bad = !(finite(s.x(i)) && finite(s.y(i)) && finite(s.z(i)) && finite(s.vx(i)) &&
                       finite(s.vy(i)) && finite(s.vz(i)) && finite(rho) && rho <= rho_max);
    if (bad && i < first) first = i;
  }
};

// dt = CFL min(sqrt(h/|a|max), h/(c_max + h visc_max)) (Monaghan & Kos 1999)
// from the maxima over fluid particles of |a|^2, rho and the viscous term,
// with c_max = c0 max(1, (rho_max/rho0)^3) (Tait, gamma = 7: c = c0 (rho/rho0)^3).
inline double time_step_from_maxima(const Parameters& p, float a2_max, float rho_max,
                                    float visc_max) {
  const double c_max = std::max(p.c0, p.c0 * std::pow(double(rho_max) / p.rho0, 3));
  const double a_max = std::sqrt(double(a2_max));
  const double dt_force = a_max > 0 ? std::sqrt(p.h / a_max) : 1e30;
  const double dt_acoustic = p.h / (c_max + p.h * double(visc_max));
  return p.cfl * std::min(dt_force, dt_acoustic);
}

// The maxima over fluid particles of |a|^2, rho and the viscous term.
template <class Space>
void fluid_maxima(const ParticleArrays<typename Space::memory_space>& s,
                  const RhsArrays<typename Space::memory_space>& r, int n, float& a2_max,
                  float& rho_max, float& visc_max) {
  using Mem = typename Space::memory_space;
  a2_max = rho_max = visc_max = 0;
  Kokkos::RangePolicy<Space> all(0, n);
  Kokkos::parallel_reduce("sph.dt.force", all, FluidMaximum<Mem, 0>{s, r},
                          Kokkos::Max<float>(a2_max));
  Kokkos::parallel_reduce("sph.dt.sound", all, FluidMaximum<Mem, 1>{s, r},
                          Kokkos::Max<float>(rho_max));
  Kokkos::parallel_reduce("sph.dt.viscous", all, FluidMaximum<Mem, 2>{s, r},
                          Kokkos::Max<float>(visc_max));
}

}  // namespace ppkit::sph::kokkos_impl
