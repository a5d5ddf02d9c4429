#pragma once
// Kokkos kernels of the near-to-far-field transform (ntff.hpp): the running
// DFT of the surface samples (parallel_for, one sample per index) and the
// radiation vectors of one (frequency, direction) as one parallel_reduce of
// eight sums (Re/Im of N_theta, N_phi, L_theta, L_phi).
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "ppkit/core/kokkos_math.hpp"
#include "ppkit/fdtd/ntff.hpp"

namespace ppkit::fdtd {

// The eight sums of one reduction (Kokkos custom reduction type: default
// constructor as identity, += for the join, a volatile += for Kokkos 3).
struct RadiationSums {
  double v[8];
  KOKKOS_INLINE_FUNCTION RadiationSums() {
    for (int n = 0; n < 8; ++n) v[n] = 0;
  }
  KOKKOS_INLINE_FUNCTION RadiationSums(const RadiationSums& o) {
    for (int n = 0; n < 8; ++n) v[n] = o.v[n];
  }
  KOKKOS_INLINE_FUNCTION RadiationSums& operator=(const RadiationSums& o) {
    for (int n = 0; n < 8; ++n) v[n] = o.v[n];
    return *this;
  }
  KOKKOS_INLINE_FUNCTION RadiationSums& operator+=(const RadiationSums& o) {
    for (int n = 0; n < 8; ++n) v[n] += o.v[n];
    return *this;
  }
  KOKKOS_INLINE_FUNCTION void operator+=(const volatile RadiationSums& o) volatile {
    for (int n = 0; n < 8; ++n) v[n] += o.v[n];
  }
};

}  // namespace ppkit::fdtd

namespace Kokkos {
template <>
struct reduction_identity<ppkit::fdtd::RadiationSums> {
  KOKKOS_FORCEINLINE_FUNCTION static ppkit::fdtd::RadiationSums sum() {
    return ppkit::fdtd::RadiationSums();
  }
};
}  // namespace Kokkos

namespace ppkit::fdtd {

// Device pointers of the surface samples and the DFT accumulators
// re/im[f * samples + q] (double).
struct NtffDeviceArgs {
  const float* field[6];
  const std::int32_t *component, *current, *magnetic;
  const std::int64_t *node_a, *node_b;
  const float *weight, *x, *y, *z;
  double *re, *im;
  std::int64_t samples, frequencies;
};

// After step s: re/im += value x dt exp(-j w t) of each sample (E at (s+1) dt, H at (s+1/2) dt).
template <class Exec>
void ntff_accumulate(const NtffDeviceArgs& a, const float* step_factors) {
  const NtffDeviceArgs args = a;
  Kokkos::parallel_for(
      "fdtd ntff dft", Kokkos::RangePolicy<Exec>(0, a.samples), KOKKOS_LAMBDA(std::int64_t q) {
        const int c = args.component[q];
        const float* field = args.field[c];
        const double value = 0.5 * (double(field[args.node_a[q]]) + double(field[args.node_b[q]]));
        const int part = c < 3 ? 0 : 2;
        for (std::int64_t f = 0; f < args.frequencies; ++f) {
          args.re[f * args.samples + q] += value * double(step_factors[f * 4 + part]);
          args.im[f * args.samples + q] += value * double(step_factors[f * 4 + part + 1]);
        }
      });
}

// {N_theta, N_phi, L_theta, L_phi} of frequency f in direction dir.
template <class Exec>
RadiationVectors ntff_radiation(const NtffDeviceArgs& a, std::int64_t f, const NtffDirection& dir) {
  const NtffDeviceArgs args = a;
  const double kx = dir.k[0], ky = dir.k[1], kz = dir.k[2];
  const double t0 = dir.theta[0], t1 = dir.theta[1], t2 = dir.theta[2];
  const double p0 = dir.phi[0], p1 = dir.phi[1], p2 = dir.phi[2];
  RadiationSums sums;
  Kokkos::parallel_reduce(
      "fdtd ntff radiation vectors", Kokkos::RangePolicy<Exec>(0, a.samples),
      KOKKOS_LAMBDA(std::int64_t q, RadiationSums & acc) {
        const double w = args.weight[q];
        const double re = args.re[f * args.samples + q] * w, im = args.im[f * args.samples + q] * w;
        const double phase = kx * args.x[q] + ky * args.y[q] + kz * args.z[q];
        const double c = ppkit::math::cos(phase), s = ppkit::math::sin(phase);
        const double tre = re * c - im * s, tim = re * s + im * c;
        const int comp = args.current[q];
        const double th = comp == 0 ? t0 : comp == 1 ? t1 : t2;
        const double ph = comp == 0 ? p0 : comp == 1 ? p1 : p2;
        const int first = args.magnetic[q] ? 4 : 0;
        acc.v[first] += tre * th;
        acc.v[first + 1] += tim * th;
        acc.v[first + 2] += tre * ph;
        acc.v[first + 3] += tim * ph;
      },
      Kokkos::Sum<RadiationSums>(sums));
  return {std::complex<double>(sums.v[0], sums.v[1]), std::complex<double>(sums.v[2], sums.v[3]),
          std::complex<double>(sums.v[4], sums.v[5]), std::complex<double>(sums.v[6], sums.v[7])};
}

}  // namespace ppkit::fdtd
