// fdtd.phasor_update on every variant: against the serial reference on random
// fields, boxes and running sums; the running DFT of known sinusoids recovers
// their amplitude and phase. fdtd.step with periodic x/y and phasors on, on
// every variant, against the serial reference; a plane wave in a periodic
// column stays uniform across x and y.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>

#include "harness/variant_test.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/phasors.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/fdtd/step_features.hpp"

namespace {
using namespace ppkit;
using namespace ppkit::fdtd;

class PhasorVariantTest : public ppkit::testing::VariantTest<FdtdPhasorUpdate> {};

FdtdPhasorUpdate::Problem random_phasor_problem(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(-1, 1);
  FdtdPhasorUpdate::Problem p;
  p.grid = make_grid(9, 7, 10, 9e-3, 7e-3, 10e-3, 0.9);
  for (int c = 0; c < 6; ++c) {
    p.fields[std::size_t(c)].resize(std::size_t(p.grid.nodes()));
    for (auto& v : p.fields[std::size_t(c)]) v = float((c < 3 ? 1.0 : 1 / eta0) * unit(rng));
  }
  p.config.frequencies = {3e9 * (1 + 0.5 * unit(rng)), 7e9, 1.1e10};
  p.config.box.lo = {1, 0, 2};
  p.config.box.hi = {8, 7, 10};  // 7 x 7 x 8 nodes: z extent not a multiple of 4 plus offset
  p.config.interval = 3;
  p.first_step = 5;
  p.samples = 4;
  p.initial = make_phasor_set(p.config, p.grid);
  for (auto& v : p.initial.re) v = float(1e-12 * unit(rng));
  for (auto& v : p.initial.im) v = float(1e-12 * unit(rng));
  return p;
}

TEST_P(PhasorVariantTest, MatchesSerialReference) {
  const auto problem = random_phasor_problem(ppkit::testing::test_seed());
  const auto reference = reference_phasor_update(problem);
  auto run = variant().prepare(problem);
  run->run();
  run->run();  // runs restart from the initial sums
  const auto result = run->result();
  ASSERT_EQ(result.phasors.lo, reference.phasors.lo);
  ASSERT_EQ(result.phasors.extent, reference.phasors.extent);
  // fp32 multiply-adds in the same order per sum: rounding only (~1e-7).
  EXPECT_LT(phasors_relative_error(result.phasors, reference.phasors), 1e-6);
}

TEST_P(PhasorVariantTest, RunningDftOfSinusoidRecoversAmplitudeAndPhase) {
  // Every node and component carries A cos(2 pi f t + phi) sampled at its own
  // time (E at (s+1) dt, H at (s+1/2) dt); one sample per prepared run,
  // chained through the initial sums. Over an integer number of periods,
  // P = (A T / 2) exp(i phi) (phasors.hpp).
  std::mt19937 rng(ppkit::testing::test_seed());
  std::uniform_real_distribution<double> unit(-1, 1);
  FdtdPhasorUpdate::Problem p;
  p.grid = make_grid(3, 2, 5, 3e-3, 2e-3, 5e-3, 0.9);
  const int per_period = 24, periods = 2, interval = 2;
  const double frequency = 1.0 / (per_period * interval * p.grid.dt);
  p.config.frequencies = {frequency};
  p.config.interval = interval;
  const std::size_t nodes = std::size_t(p.grid.nodes());
  std::vector<double> amplitude(6 * nodes), phase(6 * nodes);
  for (std::size_t q = 0; q < 6 * nodes; ++q) {
    amplitude[q] = 0.5 + 0.5 * std::abs(unit(rng));
    phase[q] = 3.0 * unit(rng);
  }
  const double pi = std::acos(-1.0);
  p.initial = make_phasor_set(p.config, p.grid);
  for (int u = 0; u < per_period * periods; ++u) {
    const std::int64_t step = (u + 1) * interval - 1;
    for (int c = 0; c < 6; ++c) {
      const double t = c < 3 ? double(step + 1) * p.grid.dt : (double(step) + 0.5) * p.grid.dt;
      p.fields[std::size_t(c)].resize(nodes);
      for (std::size_t n = 0; n < nodes; ++n)
        p.fields[std::size_t(c)][n] = float(
            amplitude[c * nodes + n] * std::cos(2 * pi * frequency * t + phase[c * nodes + n]));
    }
    p.first_step = u * interval;
    p.samples = 1;
    auto run = variant().prepare(p);
    run->run();
    p.initial = run->result().phasors;
  }
  const double duration = periods / frequency;
  double worst_amplitude = 0, worst_phase = 0;
  for (int c = 0; c < 6; ++c)
    for (std::size_t n = 0; n < nodes; ++n) {
      const std::size_t q = std::size_t(c) * nodes + n;  // box = whole grid, frequency 0
      const std::complex<double> sum(p.initial.re[q], p.initial.im[q]);
      const double a = 2 * std::abs(sum) / duration;
      worst_amplitude = std::max(worst_amplitude, std::abs(a - amplitude[q]) / amplitude[q]);
      worst_phase = std::max(worst_phase, std::abs(std::arg(sum * std::polar(1.0, -phase[q]))));
    }
  EXPECT_LT(worst_amplitude, 1e-5);
  EXPECT_LT(worst_phase, 1e-5);  // radians
}

PPKIT_INSTANTIATE_VARIANT_TESTS(PhasorVariantTest, FdtdPhasorUpdate);

TEST(FdtdPhasors, RejectsBadConfigurations) {
  auto p = random_phasor_problem(1);
  p.config.box.hi = {8, 9, 10};
  EXPECT_THROW(reference_phasor_update(p), Error);
  p = random_phasor_problem(1);
  p.config.frequencies = {-1};
  EXPECT_THROW(reference_phasor_update(p), Error);
  p = random_phasor_problem(1);
  p.config.interval = 0;
  EXPECT_THROW(reference_phasor_update(p), Error);
}

// ---- fdtd.step with periodic x/y and phasors accumulated during the run ----

FdtdStep::Problem periodic_problem(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(-1, 1);
  FdtdStep::Problem p;
  p.grid = make_grid(6, 5, 14, 6e-3, 5e-3, 14e-3, 0.95);
  p.periodic = {true, true, false};
  p.cpml.thickness = 3;
  p.steps = 17;
  p.energy_interval = 5;
  p.materials = {Material{}, Material{3.0, 1.0, 0.05, false}, Material{2.0, 1.3, 0, false}};
  p.material_id.resize(std::size_t(p.grid.nodes()));
  for (auto& id : p.material_id) id = std::uint32_t(rng() % 3);
  for (int c = 0; c < 6; ++c) {
    p.initial[c].resize(std::size_t(p.grid.nodes()));
    for (auto& v : p.initial[c]) v = float((c < 3 ? 1.0 : 1 / eta0) * unit(rng));
  }
  PointSource s;  // on the periodic faces: x = 0 (moved to x = n) and y = ny
  s.component = Component::ez;
  s.i = 0, s.j = 5, s.k = 6;
  s.waveform = Waveform::ricker;
  s.frequency = 2e10;
  s.amplitude = 1e-8;
  p.sources.push_back(s);
  s.component = Component::ex;
  s.i = 3, s.j = 0, s.k = 8;
  p.sources.push_back(s);
  for (Component c : {Component::ex, Component::ey, Component::hz}) {
    Probe pr;
    pr.component = c;
    pr.i = 0, pr.j = 0, pr.k = 1 + rng() % 12;
    p.probes.push_back(pr);
  }
  p.phasors.frequencies = {1e10, 2.5e10};
  p.phasors.interval = 2;
  p.phasors.box.lo = {0, 1, 3};
  p.phasors.box.hi = {7, 6, 12};
  return p;
}

class PeriodicStepTest : public ppkit::testing::VariantTest<FdtdStep> {
 protected:
  // Variants with one fused H+E launch refuse periodic axes at prepare time
  // (step_features.hpp): true after checking that refusal.
  bool refuses_periodic(const FdtdStep::Problem& problem) {
    if (step_variant_supports(GetParam(), StepFeature::periodic)) return false;
    EXPECT_THROW(variant().prepare(problem), ppkit::Error);
    return true;
  }
  // Runs the problem `runs` times (a run starts from the initial fields) and
  // checks fields and probes against the serial reference.
  FdtdStep::Result run_and_compare(const FdtdStep::Problem& problem,
                                   const FdtdStep::Result& reference, int runs = 1) {
    auto run = variant().prepare(problem);
    for (int r = 0; r < runs; ++r) run->run();
    auto result = run->result();
    EXPECT_LT(fields_relative_error(result.fields, reference.fields), 2e-5);
    EXPECT_LT(ppkit::testing::relative_l2_error(result.probe_values, reference.probe_values), 2e-5);
    return result;
  }
};
constexpr const char* refusal_checked =
    " refuses periodic boundaries at prepare time (fused H+E launch); the refusal was checked";

TEST_P(PeriodicStepTest, PeriodicColumnWithPhasorsMatchesSerialReference) {
  const auto problem = periodic_problem(ppkit::testing::test_seed());
  if (refuses_periodic(problem)) GTEST_SKIP() << GetParam() << refusal_checked;
  const auto reference = reference_step(problem);
  const auto result = run_and_compare(problem, reference, 2);
  EXPECT_LT(phasors_relative_error(result.phasors, reference.phasors), 2e-5);
  ASSERT_EQ(result.energy.size(), reference.energy.size());
  for (std::size_t n = 0; n < result.energy.size(); ++n)
    EXPECT_NEAR(result.energy[n], reference.energy[n], 1e-4 * reference.energy[n]);
}

// Phasors during fdtd.step with PEC/CPML walls on every axis, so the fused
// H+E variants (which refuse periodic axes) run the phasor hook too.
TEST_P(PeriodicStepTest, PhasorsWithoutPeriodicAxesMatchSerialReference) {
  auto problem = periodic_problem(ppkit::testing::test_seed());
  problem.periodic = {false, false, false};
  problem.cpml.thickness = 1;  // the CPML now wraps x and y too (5 cells)
  problem.sources[0].i = 2;    // off the PEC faces
  problem.sources[0].j = 3;
  problem.sources[1].j = 2;
  if (!step_variant_supports(GetParam(), StepFeature::phasors)) {
    EXPECT_THROW(variant().prepare(problem), ppkit::Error);
    GTEST_SKIP() << GetParam() << " refuses phasors at prepare time (several steps per pass, "
                 << "step_features.hpp); the refusal was checked";
  }
  const auto reference = reference_step(problem);
  const auto result = run_and_compare(problem, reference);
  EXPECT_LT(phasors_relative_error(result.phasors, reference.phasors), 2e-5);
}

// A periodic column thinner than two CPML layers across (2 x 3 cells, as in
// `ppkit fdtd halfspace`): the split variants' CPML-free interior box is empty
// along x and y, so the shell alone must update every node once.
TEST_P(PeriodicStepTest, ThinPeriodicColumnMatchesSerialReference) {
  std::mt19937 rng(ppkit::testing::test_seed());
  std::uniform_real_distribution<double> unit(-1, 1);
  FdtdStep::Problem problem;
  problem.grid = make_grid(2, 3, 30, 2e-3, 3e-3, 30e-3, 0.95);
  problem.periodic = {true, true, false};
  problem.cpml.thickness = 6;
  problem.steps = 25;
  problem.materials = {Material{}, Material{4.0, 1.0, 0.1, false}};
  problem.material_id.resize(std::size_t(problem.grid.nodes()));
  for (auto& id : problem.material_id) id = std::uint32_t(rng() % 2);
  for (int c = 0; c < 6; ++c) {
    problem.initial[c].resize(std::size_t(problem.grid.nodes()));
    for (auto& v : problem.initial[c]) v = float((c < 3 ? 1.0 : 1 / eta0) * unit(rng));
  }
  Probe probe;
  probe.component = Component::ex;
  probe.i = 1, probe.j = 1, probe.k = 3 + rng() % 24;
  problem.probes.push_back(probe);
  if (refuses_periodic(problem)) GTEST_SKIP() << GetParam() << refusal_checked;
  run_and_compare(problem, reference_step(problem));
}

PPKIT_INSTANTIATE_VARIANT_TESTS(PeriodicStepTest, FdtdStep);

TEST(FdtdPeriodic, PlaneWaveStaysUniformAcrossTheColumn) {
  // A current sheet of Ex at one z plane in a 4 x 3 periodic column: the
  // fields depend on z only, and the faces u = 0 and u = n hold equal values.
  FdtdStep::Problem p;
  p.grid = make_grid(4, 3, 40, 4e-3, 3e-3, 40e-3, 0.95);
  p.periodic = {true, true, false};
  p.cpml.thickness = 8;
  p.steps = 120;
  for (index_t i = 0; i < p.grid.nx; ++i)
    for (index_t j = 0; j < p.grid.ny; ++j) {
      PointSource s;
      s.component = Component::ex;
      s.i = i, s.j = j, s.k = 20;
      s.waveform = Waveform::gaussian;
      s.frequency = 1e10;
      s.amplitude = 1e-6;
      p.sources.push_back(s);
    }
  const auto r = reference_step(p);
  const YeeGrid& g = p.grid;
  double peak = 0, spread = 0;
  for (index_t k = 0; k <= g.nz; ++k) {
    const float ex0 = r.fields[0][std::size_t(g.index(0, 0, k))];
    const float hy0 = r.fields[4][std::size_t(g.index(0, 0, k))];
    for (index_t i = 0; i < g.nx; ++i)
      for (index_t j = 0; j <= g.ny; ++j) {
        const double dex = std::abs(r.fields[0][std::size_t(g.index(i, j, k))] - ex0);
        const double dhy = eta0 * std::abs(r.fields[4][std::size_t(g.index(i, j, k))] - hy0);
        spread = std::max(spread, std::max(dex, dhy));
      }
    peak = std::max(peak, double(std::abs(ex0)));
  }
  EXPECT_GT(peak, 0);
  EXPECT_LT(spread, 1e-5 * peak);
}

}  // namespace
