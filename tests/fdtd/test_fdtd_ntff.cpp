// Near-to-far-field transform, on every variant:
//  - a z-directed Hertzian dipole in a CPML-bounded cube: the far-field power
//    pattern follows sin^2(theta), is independent of phi, has no E_phi, and its
//    magnitude matches the analytic dipole eta0 k |I dl W(w)| sin(theta) / (4 pi);
//  - the radiation vectors of a random problem against the serial reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <complex>
#include <random>

#include "fdtd_test_problem.hpp"
#include "harness/variant_test.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/fdtd/cases.hpp"
#include "ppkit/fdtd/step_features.hpp"

namespace {
using namespace ppkit;

using fdtd::test_problem::sci;
using namespace ppkit::fdtd;
constexpr double pi = 3.14159265358979323846;

class FdtdNtffTest : public ppkit::testing::VariantTest<FdtdStep> {
 protected:
  // Temporally blocked variants refuse the transform at prepare time
  // (step_features.hpp): true after checking that refusal.
  bool refuses_far_field(const FdtdStep::Problem& p) {
    if (step_variant_supports(GetParam(), StepFeature::far_field)) return false;
    EXPECT_THROW(variant().prepare(p), ppkit::Error);
    return true;
  }
};
constexpr const char* far_field_refused =
    " refuses the near-to-far-field transform at prepare time (several steps per pass); the "
    "refusal was checked";

// 36^3 cells of 1 mm, 8-cell CPML, ricker dipole at the centre; the surface 7 cells
// from it on each side; 19 polar angles x 4 azimuths at f0 and 2 f0.
FdtdStep::Problem dipole_far_field_problem() {
  auto p = make_dipole_problem(36, 1e-3, 8, 520, {});
  // Ricker: no net charge is left behind (a gaussian current would leave a
  // static dipole field on the surface that is not radiation).
  p.sources[0].waveform = Waveform::ricker;
  NearToFarField n;
  n.box_min = {11, 11, 11};
  n.box_max = {25, 25, 25};
  const double f0 = p.sources[0].frequency;
  n.frequencies = {f0, 2 * f0};
  for (int t = 0; t <= 18; ++t)
    for (double phi : {0.0, 0.25 * pi, 0.5 * pi, 1.1 * pi})
      n.directions.push_back({t * pi / 18, phi});
  p.far_field.push_back(n);
  return p;
}

TEST_P(FdtdNtffTest, HertzianDipoleFarFieldFollowsSinSquaredTheta) {
  const auto p = dipole_far_field_problem();
  if (refuses_far_field(p)) GTEST_SKIP() << GetParam() << far_field_refused;
  auto run = variant().prepare(p);
  run->run();
  const auto r = run->result();
  const NearToFarField& n = p.far_field[0];
  const std::size_t D = n.directions.size();
  ASSERT_EQ(r.radiation.size(), n.frequencies.size() * D);
  const PointSource& src = p.sources[0];
  for (std::size_t f = 0; f < n.frequencies.size(); ++f) {
    const double freq = n.frequencies[f], w = 2 * pi * freq, k = w / speed_of_light;
    // Analytic: |E_theta| = eta0 k |I dl W(w)| sin(theta) / (4 pi) at 1 m, W the DFT of
    // the source current at its own sample times (n + 1/2) dt.
    std::complex<double> W = 0;
    for (std::int64_t s = 0; s < p.steps; ++s) {
      const double t = (double(s) + 0.5) * p.grid.dt;
      W += waveform_value(src.waveform, src.frequency, t - src.delay) * p.grid.dt *
           std::polar(1.0, -w * t);
    }
    const double analytic_peak = eta0 * k * src.amplitude * std::abs(W) / (4 * pi);
    double peak = 0;
    for (std::size_t d = 0; d < D; ++d)
      peak = std::max(peak, far_field_at_1m(r.radiation[f * D + d], freq)[0]);
    double pattern_error = 0, cross = 0, phi_spread = 0;
    for (std::size_t d = 0; d < D; ++d) {
      const auto e = far_field_at_1m(r.radiation[f * D + d], freq);
      const double st = std::sin(n.directions[d][0]);
      pattern_error = std::max(pattern_error, std::abs(e[0] * e[0] / (peak * peak) - st * st));
      cross = std::max(cross, e[1] / peak);
      const double phi0 = far_field_at_1m(r.radiation[f * D + (d / 4) * 4], freq)[0];
      phi_spread = std::max(phi_spread, std::abs(e[0] - phi0) / peak);
    }
    RecordProperty("pattern_error_f" + std::to_string(f), sci(pattern_error));
    RecordProperty("peak_vs_analytic_f" + std::to_string(f), sci(peak / analytic_peak - 1));
    // Measured (kokkos-serial): pattern 1.5e-4 (f0) and 3.2e-3 (2 f0); peak vs
    // analytic +2e-4 and +2.6e-3.
    EXPECT_LT(pattern_error, 0.01) << "f = " << freq;
    EXPECT_LT(cross, 0.01) << "f = " << freq;
    EXPECT_LT(phi_spread, 0.01) << "f = " << freq;
    EXPECT_NEAR(peak / analytic_peak, 1.0, 0.02) << "f = " << freq;
  }
}

// Random fields and sources through a small surface: radiation vectors vs the reference.
TEST_P(FdtdNtffTest, RadiationVectorsMatchSerialReference) {
  std::mt19937 rng(ppkit::testing::test_seed());
  std::uniform_real_distribution<double> unit(-1, 1);
  FdtdStep::Problem p;
  p.grid = make_grid(16, 14, 13, 16e-3, 14e-3, 13e-3, 0.95);
  p.cpml.thickness = 3;
  p.steps = 30;
  for (int c = 0; c < 6; ++c) {
    p.initial[c].resize(std::size_t(p.grid.nodes()));
    for (auto& v : p.initial[c]) v = float((c < 3 ? 1.0 : 1.0 / eta0) * unit(rng));
  }
  NearToFarField n;
  n.box_min = {4, 5, 4};
  n.box_max = {12, 9, 9};
  n.frequencies = {1.3e10, 3.1e10};
  for (int d = 0; d < 7; ++d) n.directions.push_back({pi * unit(rng), pi * unit(rng)});
  p.far_field.push_back(n);
  if (refuses_far_field(p)) GTEST_SKIP() << GetParam() << far_field_refused;
  const auto reference = reference_step(p);
  auto run = variant().prepare(p);
  run->run();
  run->run();  // restarts the DFT
  const auto r = run->result();
  ASSERT_EQ(r.radiation.size(), reference.radiation.size());
  double diff = 0, norm = 0;
  for (std::size_t m = 0; m < r.radiation.size(); ++m)
    for (int c = 0; c < 4; ++c) {
      diff += std::norm(r.radiation[m][std::size_t(c)] - reference.radiation[m][std::size_t(c)]);
      norm += std::norm(reference.radiation[m][std::size_t(c)]);
    }
  EXPECT_LT(std::sqrt(diff / norm), 1e-4);
}

PPKIT_INSTANTIATE_VARIANT_TESTS(FdtdNtffTest, FdtdStep);

TEST(FdtdNtff, SurfaceIsClosedAndOutsideTheCpml) {
  auto p = dipole_far_field_problem();
  const auto s = make_ntff_surface(p.far_field[0], p.grid);
  // A closed surface: the weights of the normal-current samples of each
  // component sum to zero over opposite faces, the areas add up.
  double area = 0;
  for (std::size_t q = 0; q < s.size(); ++q)
    if (s.magnetic[q]) area += std::abs(double(s.weight[q]));
  // Each face carries two tangential E families: twice the box area.
  const double side = 14e-3;
  EXPECT_NEAR(area, 2 * 6 * side * side, 1e-9);
  p.far_field[0].box_min[0] = 8;  // at the CPML
  EXPECT_THROW(validate(p), Error);
  p = dipole_far_field_problem();
  p.far_field[0].frequencies.clear();
  EXPECT_THROW(validate(p), Error);
}

}  // namespace
