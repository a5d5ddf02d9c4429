// Physics checks of fdtd.step, each on every variant:
//  - PEC cavity resonances vs the discrete Yee dispersion relation (< 0.1%)
//    and the continuum formula (< 2% at 10+ cells per half wavelength);
//  - energy conservation in a lossless PEC box, and decay in a lossy one;
//  - CPML reflection below -40 dB against a large-domain reference;
//  - Hertzian dipole near field against the analytic solution (a few %).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>

#include "harness/variant_test.hpp"
#include "ppkit/fdtd/cases.hpp"

namespace {
using namespace ppkit;
using namespace ppkit::fdtd;
constexpr double pi = 3.14159265358979323846;

FdtdStep::Result run_variant(const Variant<FdtdStep>& v, const FdtdStep::Problem& p) {
  auto run = v.prepare(p);
  run->run();
  return run->result();
}

// |Hann-windowed DTFT| of samples x[first..] at frequency f (sample spacing dt).
double spectrum(const std::vector<double>& x, double dt, double f) {
  const std::size_t n = x.size();
  std::complex<double> sum = 0;
  for (std::size_t s = 0; s < n; ++s) {
    const double w = 0.5 - 0.5 * std::cos(2 * pi * double(s) / double(n - 1));
    sum += w * x[s] * std::polar(1.0, -2 * pi * f * double(s) * dt);
  }
  return std::abs(sum);
}

// The spectral peak within +-2% of `guess`: a scan, then golden-section refinement.
double spectral_peak(const std::vector<double>& x, double dt, double guess) {
  double best = guess, best_value = 0;
  for (int s = -100; s <= 100; ++s) {
    const double f = guess * (1 + 0.02 * s / 100.0);
    const double v = spectrum(x, dt, f);
    if (v > best_value) best_value = v, best = f;
  }
  double a = best * (1 - 0.0006), b = best * (1 + 0.0006);
  const double g = 0.5 * (std::sqrt(5.0) - 1);
  for (int it = 0; it < 60; ++it) {
    const double c = b - g * (b - a), d = a + g * (b - a);
    if (spectrum(x, dt, c) > spectrum(x, dt, d))
      b = d;
    else
      a = c;
  }
  return 0.5 * (a + b);
}

class FdtdPhysicsTest : public ppkit::testing::VariantTest<FdtdStep> {};

TEST_P(FdtdPhysicsTest, PecCavityResonancesFollowYeeDispersion) {
  const std::array<double, 3> size{1.0, 0.7, 0.45};
  auto p = make_cavity_problem(size, {20, 14, 9}, 6000);
  const auto r = run_variant(variant(), p);
  // Ez probe (probe 2); skip the source's active time.
  const std::size_t steps = std::size_t(p.steps), skip = 300;
  std::vector<double> ez;
  for (std::size_t s = skip; s < steps; ++s) ez.push_back(r.probe_values[2 * steps + s]);
  // The lowest modes with Ez (TM_z: m, n >= 1) in order of frequency.
  for (std::array<int, 3> mode : {std::array<int, 3>{1, 1, 0}, {2, 1, 0}, {1, 1, 1}}) {
    const double yee = cavity_frequency_yee(p.grid, mode);
    const double continuum = cavity_frequency_continuum(size, mode);
    const double measured = spectral_peak(ez, p.grid.dt, yee);
    const std::string label =
        "mode " + std::to_string(mode[0]) + std::to_string(mode[1]) + std::to_string(mode[2]);
    EXPECT_LT(std::abs(measured / yee - 1), 1e-3)
        << label << ": measured " << measured << " Hz, Yee " << yee;
    EXPECT_LT(std::abs(measured / continuum - 1), 2e-2) << label << ": continuum " << continuum;
    EXPECT_GT(std::abs(measured / continuum - 1), 1e-5)
        << label << ": no dispersion error at all is suspicious";
  }
}

TEST_P(FdtdPhysicsTest, LosslessPecBoxConservesEnergy) {
  auto p = make_cavity_problem({0.3, 0.25, 0.2}, {15, 12, 10}, 1200);
  p.energy_interval = 1;
  const auto r = run_variant(variant(), p);
  // After the source (gaussian, over by ~2/f0) the energy only oscillates
  // between its E and H halves by O((w dt)^2), with no drift.
  auto mean = [&](std::size_t from, std::size_t to) {
    double s = 0;
    for (std::size_t n = from; n < to; ++n) s += r.energy[n];
    return s / double(to - from);
  };
  const double early = mean(300, 500), late = mean(1000, 1200);
  EXPECT_GT(early, 0);
  EXPECT_LT(std::abs(late / early - 1), 1e-3)
      << "energy drifts: " << early << " J -> " << late << " J";
  for (std::size_t n = 300; n < 1200; ++n)
    ASSERT_LT(std::abs(r.energy[n] / early - 1), 0.05) << "step " << n;

  // The same box filled with a lossy dielectric loses energy: the check can fail.
  // sigma = 2 mS/m with eps_r = 2 gives an energy decay time eps / sigma of
  // about 9 ns, so steps 300..1100 (about 30 ns) lose ~97%: far from 50% and
  // far above fp32 round-off (a sigma of 0.05 S/m would leave only noise).
  p.materials = {Material{2.0, 1.0, 0.002, false}};
  const auto lossy = run_variant(variant(), p);
  EXPECT_LT(lossy.energy[1100], 0.5 * lossy.energy[300]);
}

TEST_P(FdtdPhysicsTest, CpmlReflectionBelowMinus40dB) {
  // Small domain: 32^3 cells with an 8-cell CPML; reference: 80^3 PEC box whose
  // walls are too far for reflections to reach the probe within the window.
  const index_t small = 32, large = 80, thickness = 8;
  const std::int64_t steps = 120;
  auto make = [&](index_t n, int pml) {
    auto p = make_benchmark_problem(n, pml, steps);
    const index_t c = n / 2;
    p.sources[0].i = p.sources[0].j = p.sources[0].k = c;
    p.sources[0].frequency =
        speed_of_light / (12 * 1e-3) / 2.5;  // 12 cells per wavelength at 2.5 f0
    // Probes 3 cells from the layer: on axis and diagonally towards a corner.
    const index_t d = small / 2 - thickness - 3;
    for (auto off : {std::array<index_t, 3>{d, 0, 0}, {d, d, 0}, {0, d, d}}) {
      Probe pr;
      pr.component = Component::ez;
      pr.i = c + off[0], pr.j = c + off[1], pr.k = c + off[2];
      p.probes.push_back(pr);
    }
    return p;
  };
  const auto absorbed = run_variant(variant(), make(small, int(thickness)));
  const auto reference = run_variant(variant(), make(large, 0));
  for (std::size_t q = 0; q < 3; ++q) {
    double peak = 0, worst = 0;
    for (std::size_t s = 0; s < std::size_t(steps); ++s) {
      const double ref = reference.probe_values[q * std::size_t(steps) + s];
      peak = std::max(peak, std::abs(ref));
      worst = std::max(worst, std::abs(absorbed.probe_values[q * std::size_t(steps) + s] - ref));
    }
    const double db = 20 * std::log10(worst / peak);
    EXPECT_LT(db, -40) << "probe " << q << ": reflection " << db << " dB";
  }
}

// Ez on the equatorial plane of a z-directed current element I dl w(t)
// (Jackson eq. 9.18 in the time domain): with p' = I dl w and tau = t - r/c,
// Ez = -1/(4 pi eps0) [ p(tau)/r^3 + p'(tau)/(c r^2) + p''(tau)/(c^2 r) ].
double dipole_ez(const PointSource& s, double r, double t) {
  const double tau = t - r / speed_of_light;
  if (tau <= 0) return 0;
  // p(tau) = I dl * integral of w, by Simpson's rule on a fine grid.
  const int n = 2000;
  const double h = tau / n;
  double integral = 0;
  for (int m = 0; m <= n; ++m) {
    const double w = waveform_value(s.waveform, s.frequency, m * h);
    integral += w * (m == 0 || m == n ? 1 : m % 2 ? 4 : 2);
  }
  integral *= h / 3;
  const double eps = 1e-3 * h;
  const double w = waveform_value(s.waveform, s.frequency, tau);
  const double dw = (waveform_value(s.waveform, s.frequency, tau + eps) -
                     waveform_value(s.waveform, s.frequency, tau - eps)) /
                    (2 * eps);
  const double c = speed_of_light;
  return -s.amplitude / (4 * pi * eps0) *
         (integral / (r * r * r) + w / (c * r * r) + dw / (c * c * r));
}

TEST_P(FdtdPhysicsTest, HertzianDipoleNearFieldMatchesAnalytic) {
  const double dx = 1e-3;
  // Ricker current: no charge is left behind, so the static lattice error of
  // the 1/r^3 term fades; 8 and 12 cells away the lattice's near-field error is small.
  auto p = make_dipole_problem(48, dx, 8, 300, {8, 12});
  p.sources[0].waveform = Waveform::ricker;
  const auto r = run_variant(variant(), p);
  const std::size_t steps = std::size_t(p.steps);
  for (std::size_t q = 0; q < p.probes.size(); ++q) {
    const double distance = double(p.probes[q].i - p.sources[0].i) * dx;
    double peak = 0, worst = 0;
    for (std::size_t s = 0; s < steps; ++s) {
      const double analytic = dipole_ez(p.sources[0], distance, double(s + 1) * p.grid.dt);
      peak = std::max(peak, std::abs(analytic));
      worst = std::max(worst, std::abs(r.probe_values[q * steps + s] - analytic));
    }
    // The lattice's near-field error falls like (dx / r)^2: 5% at 8 cells.
    const double tolerance = 0.05 * std::pow(8 * dx / distance, 2);
    EXPECT_LT(worst / peak, tolerance) << "probe at " << distance / dx << " cells";
  }
}

PPKIT_INSTANTIATE_VARIANT_TESTS(FdtdPhysicsTest, FdtdStep);

}  // namespace
