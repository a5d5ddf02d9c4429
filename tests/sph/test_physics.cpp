// Physics checks on the preferred sph.step variant: hydrostatic tank at rest,
// momentum conservation in a periodic box, renumbering leaves the physics
// unchanged, and the coarse dam-break front and water heights against the
// SPHERIC test 2 measurements (data/spheric_test2), a gate that fails when the
// front is 20% late.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "harness/variant_test.hpp"
#include "ppkit/core/data_location.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/registry.hpp"
#include "ppkit/sph/cases.hpp"
#include "ppkit/sph/probes.hpp"
#include "ppkit/sph/simulation.hpp"
#include "ppkit/sph/sph_pair.hpp"

namespace {
using namespace ppkit::sph;

std::unique_ptr<Solver> solver_for(const Case& c, ReorderPolicy reorder = {1}) {
  return make_solver("auto", c, reorder);
}

// Water 0.16 m deep at rest in a 0.2 x 0.2 m tank: after 0.3 s of settling
// (several acoustic periods) the pressure in the interior follows rho0 g d
// within 7% of rho0 g H layer by layer, and no particle escapes.
TEST(SphPhysics, HydrostaticTankSettles) {
  CaseOptions o;
  o.dp = 0.02;
  const double depth = 0.16;
  const Case c = make_hydrostatic_tank(o, 0.2, 0.2, depth);
  auto solver = solver_for(c);
  while (solver->time() < 0.3) solver->step();
  EXPECT_EQ(solver->escaped(), 0);
  const Particles s = solver->state();
  const KernelConstants k = make_kernel_constants(c.params);
  const double rho_g = c.params.rho0 * 9.81;
  // Interior particles (away from the side walls by 2 dp), grouped by initial layer.
  const int layers = static_cast<int>(std::round(depth / o.dp));
  std::vector<double> sum(layers, 0), count(layers, 0);
  double max_speed = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != kFluid) continue;
    max_speed = std::max(max_speed, double(std::hypot(s.vx[i], s.vy[i], s.vz[i])));
    if (s.x[i] < 2 * o.dp || s.x[i] > 0.2 - 2 * o.dp || s.y[i] < 2 * o.dp ||
        s.y[i] > 0.2 - 2 * o.dp)
      continue;
    const int layer = std::clamp(static_cast<int>(s.z[i] / o.dp), 0, layers - 1);
    sum[layer] += tait_pressure(k, s.rho[i]) - rho_g * (depth - s.z[i]);
    count[layer] += 1;
  }
  for (int l = 1; l < layers - 2; ++l) {
    ASSERT_GT(count[l], 0) << "layer " << l;
    EXPECT_LT(std::abs(sum[l] / count[l]), 0.07 * rho_g * depth)
        << "layer " << l << " mean pressure error " << sum[l] / count[l] << " Pa";
  }
  EXPECT_LT(max_speed, 0.05 * std::sqrt(9.81 * depth)) << "the tank is not at rest";
}

// Pairwise antisymmetric forces with equal masses: total momentum is
// conserved in a periodic box (fp32 rounding: 1e-4 of sum m |u|).
TEST(SphPhysics, PeriodicBoxConservesMomentum) {
  CaseOptions o;
  o.dp = 0.02;
  const Case c = make_periodic_box(o, 10, 0.5, ppkit::testing::test_seed());
  auto solver = solver_for(c);
  auto momentum = [&](const Particles& s, double out[4]) {
    out[0] = out[1] = out[2] = out[3] = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      out[0] += c.params.mass * s.vx[i];
      out[1] += c.params.mass * s.vy[i];
      out[2] += c.params.mass * s.vz[i];
      out[3] += c.params.mass * std::hypot(s.vx[i], s.vy[i], s.vz[i]);
    }
  };
  double before[4], after[4];
  momentum(c.particles, before);
  for (int step = 0; step < 40; ++step) solver->step();
  momentum(solver->state(), after);
  for (int a = 0; a < 3; ++a)
    EXPECT_NEAR(after[a], before[a], 1e-4 * before[3]) << "momentum component " << a;
  EXPECT_EQ(solver->escaped(), 0);
  EXPECT_GT(std::abs(after[3] - before[3]), 1e-6 * before[3]) << "the box did not evolve";
}

// Renumbering every step, every 4 steps or never gives the same probes and
// state to rounding after a short dam-break run (different summation order only).
TEST(SphPhysics, RenumberingLeavesPhysicsUnchanged) {
  CaseOptions o;
  o.dp = 0.06;
  const Case c = make_spheric_dambreak(o);
  const ProbeLayout layout = spheric_test2_probes(c.params);
  std::vector<Particles> finals;
  std::vector<ProbeSample> probes;
  for (int every : {1, 4, 0}) {
    auto solver = solver_for(c, ReorderPolicy{every});
    for (int step = 0; step < 40; ++step) solver->step();
    Particles s = solver->state();
    s.sort_by_id();
    probes.push_back(measure_probes(layout, c.params, s, solver->time()));
    finals.push_back(std::move(s));
  }
  for (std::size_t v = 1; v < finals.size(); ++v) {
    double max_dx = 0, max_drho = 0;
    for (std::size_t i = 0; i < finals[0].size(); ++i) {
      max_dx = std::max({max_dx, double(std::abs(finals[v].x[i] - finals[0].x[i])),
                         double(std::abs(finals[v].z[i] - finals[0].z[i]))});
      max_drho = std::max(max_drho, double(std::abs(finals[v].rho[i] - finals[0].rho[i])));
    }
    EXPECT_LT(max_dx, 1e-4 * o.dp) << "policy " << v;
    EXPECT_LT(max_drho, 1e-3 * c.params.rho0) << "policy " << v;
    EXPECT_NEAR(probes[v].time, probes[0].time, 1e-6);
    for (int h = 0; h < 4; ++h) EXPECT_NEAR(probes[v].height[h], probes[0].height[h], 1e-3);
    for (int p = 0; p < 8; ++p) EXPECT_NEAR(probes[v].pressure[p], probes[0].pressure[p], 20.0);
  }
}

// The SPHERIC test 2 measurements: $PPKIT_SPHERIC_TEST2_DATA, else the copy
// shipped in this source tree (data/spheric_test2), else where the library
// looks (data/spheric_test2 under the current directory: a test bundle run
// from a copy of the repository on another machine).
std::string measured_data_path() {
  const char* env = std::getenv("PPKIT_SPHERIC_TEST2_DATA");
  std::string path = env && *env ? env : PPKIT_SPHERIC_TEST2_DATA;
  if (std::filesystem::is_directory(path)) path += "/test_case_2_exp_data.dat";
  if (!(env && *env) && !std::filesystem::is_regular_file(path)) {
    const std::string found = find_spheric_test2_data();
    if (!found.empty()) path = found;
  }
  return path;
}

// The measured series is read with the height columns in probe order: the
// front wets H3 (x = 1.488 m) before H2 (0.992) before H1 (0.496), the order
// the flow from the dam at x = 1.992 m must follow, and H4 starts at the
// column depth 0.55 m.
TEST(SphData, MeasuredSeriesHasProbeOrder) {
  const std::string data = measured_data_path();
  ASSERT_TRUE(std::filesystem::is_regular_file(data)) << "measured data not found at " << data;
  const MeasuredSeries m = load_spheric_test2(data);
  std::vector<double> h[4];
  for (const auto& row : m.height)
    for (int k = 0; k < 4; ++k) h[k].push_back(row[k]);
  const double h1 = arrival_time(m.time, h[0], 0.01), h2 = arrival_time(m.time, h[1], 0.01),
               h3 = arrival_time(m.time, h[2], 0.01);
  EXPECT_LT(h3, h2);
  EXPECT_LT(h2, h1);
  EXPECT_NEAR(h2, 0.358, 0.01);
  EXPECT_NEAR(m.height.front()[3], 0.55, 0.01);
  EXPECT_EQ(m.time.size(), 7395u);
}

// ---- The dam-break front against the MARIN measurements (the gate) ----

// Water heights H1..H4 as time series.
struct HeightSeries {
  std::vector<double> time;
  std::array<std::vector<double>, 4> height;
};

HeightSeries series_of(const std::vector<ProbeSample>& probes) {
  HeightSeries s;
  for (const auto& p : probes) {
    s.time.push_back(p.time);
    for (int k = 0; k < 4; ++k) s.height[k].push_back(p.height[k]);
  }
  return s;
}

HeightSeries series_of(const MeasuredSeries& m) {
  HeightSeries s;
  s.time = m.time;
  for (const auto& row : m.height)
    for (int k = 0; k < 4; ++k) s.height[k].push_back(row[k]);
  return s;
}

// The same flow `factor` times slower: h'(t) = h(t / factor), so every front
// arrives `factor` times later.
HeightSeries slowed(HeightSeries s, double factor) {
  for (double& t : s.time) t *= factor;
  return s;
}

double value_at(const std::vector<double>& t, const std::vector<double>& v, double at) {
  const auto it = std::lower_bound(t.begin(), t.end(), at);
  if (it == t.begin()) return v.front();
  if (it == t.end()) return v.back();
  const std::size_t k = std::size_t(it - t.begin());
  return v[k - 1] + (at - t[k - 1]) / (t[k] - t[k - 1]) * (v[k] - v[k - 1]);
}

struct FrontGate {
  double threshold = 0;  // arrival: first time the depth exceeds this [m]
  double t_end = 0;      // heights compared over [0, t_end]
  // Per probe H1..H4; a negative tolerance leaves the probe unchecked.
  std::array<double, 4> arrival_tolerance{-1, -1, -1, -1};  // |t_sim - t_exp| / t_exp
  std::array<double, 4> rms_tolerance{-1, -1, -1, -1};      // m
};

// What the gate sees: per probe the relative arrival error and the RMS height
// error (simulated samples against the measured series interpolated to them),
// and the checks that failed.
struct GateResult {
  std::array<double, 4> arrival_error{}, rms{};
  std::vector<std::string> failures;
};

GateResult apply_gate(const HeightSeries& sim, const HeightSeries& exp, const FrontGate& g) {
  GateResult r;
  for (int k = 0; k < 4; ++k) {
    const std::string name = "H" + std::to_string(k + 1);
    const double t_sim = arrival_time(sim.time, sim.height[k], g.threshold);
    const double t_exp = arrival_time(exp.time, exp.height[k], g.threshold);
    r.arrival_error[k] = (t_sim - t_exp) / t_exp;
    if (g.arrival_tolerance[k] >= 0 &&
        !(std::abs(r.arrival_error[k]) <= g.arrival_tolerance[k]))  // NaN (never wet) fails
      r.failures.push_back(name + " arrival " + std::to_string(t_sim) + " s against " +
                           std::to_string(t_exp) + " s measured");
    double sum = 0;
    int n = 0;
    for (std::size_t i = 0; i < sim.time.size() && sim.time[i] <= g.t_end; ++i, ++n) {
      const double d = sim.height[k][i] - value_at(exp.time, exp.height[k], sim.time[i]);
      sum += d * d;
    }
    r.rms[k] = n ? std::sqrt(sum / n) : std::nan("");
    if (g.rms_tolerance[k] >= 0 && !(r.rms[k] <= g.rms_tolerance[k]))
      r.failures.push_back(name + " RMS " + std::to_string(r.rms[k]) + " m");
  }
  return r;
}

// The gate at dp 0.05 m (11 particles over the 0.55 m column), t = 0 - 0.5 s:
// the front reaches H3 (x = 1.488 m) and H2 (0.992 m); H1 (0.496 m, behind the
// obstacle) stays dry, H4 (2.638 m) follows the collapse of the column.
//
// Arrival: the first time the depth exceeds dp, one particle layer (the
// thinnest film the discretisation holds; the depth probe reads one layer as
// dp, test_probes.cpp). The experiment's front is a thin wedge (at H3 0.01 m at
// 0.194 s, 0.05 m at 0.250 s, 0.075 m at 0.307 s); the SPH front at this dp is
// blunt (0 to 0.06 m within 0.02 s), so a threshold below one layer measures a
// sub-particle film the model cannot represent: at dp/2 = 0.025 m the same run
// is +19.7% (H3) and +14.8% (H2) late, at dp +9.1% and +7.0% (docs/sph.md).
//
// Tolerances, from the errors of kokkos-serial/symplectic at this dp (the
// measured figure, then the tolerance):
//   arrival H3 +9.1% -> 14%, H2 +7.0% -> 12%: 5 points (0.01-0.02 s, 2-4 probe
//     samples) for the rounding differences between variants, and below the
//     20% lateness the gate must catch (SphDamBreakGate.RejectsFrontTwentyPercentLate);
//   RMS over 0 - 0.5 s: H1 0.000 m -> 0.005 m (dry; water there means a front far
//     too fast), H2 0.015 -> 0.022 m, H3 0.022 -> 0.030 m, H4 0.008 -> 0.012 m
//     (about 1.4x the measured figure).
FrontGate dambreak_gate(double dp) {
  FrontGate g;
  g.threshold = dp;
  g.t_end = 0.5;
  g.arrival_tolerance = {-1, 0.12, 0.14, -1};
  g.rms_tolerance = {0.005, 0.022, 0.030, 0.012};
  return g;
}

std::string describe(const GateResult& r, const FrontGate& g) {
  std::string out;
  for (int k = 0; k < 4; ++k) {
    out += "H" + std::to_string(k + 1) + ": ";
    if (g.arrival_tolerance[k] >= 0)
      out += "arrival " + std::to_string(100 * r.arrival_error[k]) + "%, ";
    out += "RMS " + std::to_string(r.rms[k]) + " m; ";
  }
  for (const auto& f : r.failures) out += "\n  FAILED " + f;
  return out;
}

// The gate itself: the measured series passes against itself, and the same
// flow made 20% slower (every front 20% late) fails on the arrivals.
TEST(SphDamBreakGate, RejectsFrontTwentyPercentLate) {
  const std::string data = measured_data_path();
  ASSERT_TRUE(std::filesystem::is_regular_file(data)) << "measured data not found at " << data;
  const HeightSeries measured = series_of(load_spheric_test2(data));
  const FrontGate gate = dambreak_gate(0.05);
  EXPECT_TRUE(apply_gate(measured, measured, gate).failures.empty());
  const GateResult late = apply_gate(slowed(measured, 1.2), measured, gate);
  EXPECT_NEAR(late.arrival_error[1], 0.2, 1e-3);
  EXPECT_NEAR(late.arrival_error[2], 0.2, 1e-3);
  int arrival_failures = 0;
  for (const auto& f : late.failures) arrival_failures += f.find("arrival") != std::string::npos;
  EXPECT_EQ(arrival_failures, 2) << describe(late, gate);
}

// Runs the dam break of `o` on the preferred step variant to gate.t_end and
// checks it against the MARIN measurements with `gate`; the simulated series
// made 20% slower must fail the same gate.
void expect_dam_break_passes(const CaseOptions& o, const FrontGate& gate) {
  const std::string data = measured_data_path();
  ASSERT_TRUE(std::filesystem::is_regular_file(data)) << "measured data not found at " << data;
  const HeightSeries measured = series_of(load_spheric_test2(data));
  const Case c = make_spheric_dambreak(o);
  auto solver = solver_for(c);
  RunOptions run;
  run.t_end = gate.t_end;
  run.probe_interval = 0.005;
  const RunSummary s = run_simulation(*solver, c, spheric_test2_probes(c.params), run);
  EXPECT_EQ(s.escaped, 0);
  const HeightSeries simulated = series_of(s.probes);
  const GateResult r = apply_gate(simulated, measured, gate);
  std::cout << "dam break dp " << o.dp << " m, 0 - " << gate.t_end << " s on "
            << ppkit::Registry<Step>::find("auto").name << " vs MARIN: " << describe(r, gate)
            << "\n";
  EXPECT_TRUE(r.failures.empty()) << describe(r, gate);
  const GateResult late = apply_gate(slowed(simulated, 1.2), measured, gate);
  EXPECT_FALSE(late.failures.empty()) << "a front 20% later passes: " << describe(late, gate);
}

// The dam break at dp 0.05 m to 0.5 s (tolerances at dambreak_gate).
TEST(SphDamBreakGate, FrontAndHeightsMatchExperiment) {
  CaseOptions o;
  o.dp = 0.05;
  o.tank_height = 0.7;  // walls above the splash of the first 0.5 s; fewer wall particles
  expect_dam_break_passes(o, dambreak_gate(o.dp));
}

// The gate on a GPU (the issue's: front at H2 within 10% and H2/H4 RMS within
// 0.04 m at dp 0.02 m) over the whole 1.5 s of SPHERIC test 2's first impact
// and run-up, on the preferred step variant, which must be a device one (dp
// 0.02 m is about 1e9 particle-steps: seconds on a GPU, hours on one CPU
// core). Arrival threshold dp, as at dp 0.05. scripts/sph_convergence.py
// tabulates these errors against dp from `ppkit sph dambreak --probes` runs.
TEST(SphDamBreakGate, FineResolutionOnGpu) {
  const auto& chosen = ppkit::Registry<Step>::find("auto");
  if (chosen.memory.value_or(ppkit::MemoryKind::host) == ppkit::MemoryKind::host)
    GTEST_SKIP() << "needs a GPU sph.step variant (auto is " << chosen.name
                 << "): dp 0.02 m to 1.5 s is about 1e9 particle-steps";
  CaseOptions o;
  o.dp = 0.02;
  FrontGate gate;
  gate.threshold = o.dp;
  gate.t_end = 1.5;
  gate.arrival_tolerance = {-1, 0.10, -1, -1};
  gate.rms_tolerance = {-1, 0.04, -1, 0.04};
  expect_dam_break_passes(o, gate);
}
}  // namespace
