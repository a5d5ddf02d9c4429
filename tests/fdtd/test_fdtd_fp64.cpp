// fp64 fdtd.step (Problem::precision = fp64):
//  - every variant with an fp64 path against the fp64 serial reference on
//    random problems (CPML, random materials, sources, probes, energy; and a
//    periodic column with snapshots; initial fields partly in double),
//    fields and probes < 1e-12 relative;
//    the other variants refuse the problem at prepare time (checked);
//  - a single PEC cavity mode: its frequency, read from the probe series
//    through the leapfrog recurrence, against the discrete Yee dispersion
//    relation, in fp32 (< 1e-5) and fp64 (< 1e-8 and 100x below fp32);
//  - the case file's "precision" key and its error; fp64 refuses plane waves.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>

#include "fdtd_test_problem.hpp"
#include "harness/variant_test.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/fdtd/cases.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/step_features.hpp"

namespace {
using namespace ppkit;
using namespace ppkit::fdtd;
constexpr double pi = 3.14159265358979323846;

// Random fp64 problem: random materials (lossy, dense, magnetic, PEC) per
// node and random initial fields; periodic: a column periodic in x and y with
// the CPML on z only and a snapshot plane, else CPML on every face.
FdtdStep::Problem random_fp64_problem(unsigned seed, bool periodic) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(-1, 1);
  FdtdStep::Problem p;
  p.precision = Precision::fp64;
  const std::array<index_t, 3> cells =
      periodic ? std::array<index_t, 3>{6, 5, 16} : std::array<index_t, 3>{13, 11, 10};
  p.grid = make_grid(cells[0], cells[1], cells[2], double(cells[0]) * 1e-3,
                     double(cells[1]) * 1.1e-3, double(cells[2]) * 0.9e-3, 0.95);
  p.cpml.thickness = 3;
  p.cpml.kappa_max = 2;
  p.cpml.alpha_max = 0.05;
  p.periodic = {periodic, periodic, false};
  p.steps = 17;
  p.energy_interval = 4;
  p.materials = {Material{}, Material{4.0, 1.0, 0.02, false}, Material{2.5, 1.5, 0, false},
                 Material{1, 1, 0, true}};
  p.material_id.resize(std::size_t(p.grid.nodes()));
  for (auto& id : p.material_id) id = std::uint32_t(rng() % 4);
  // Ex and Hx in double (initial_fp64), the others in float (widened).
  for (int c = 0; c < 6; ++c) {
    const double scale = c < 3 ? 1.0 : 1.0 / eta0;
    if (c % 3 == 0) {
      p.initial_fp64[c].resize(std::size_t(p.grid.nodes()));
      for (auto& v : p.initial_fp64[c]) v = scale * unit(rng);
    } else {
      p.initial[c].resize(std::size_t(p.grid.nodes()));
      for (auto& v : p.initial[c]) v = float(scale * unit(rng));
    }
  }
  test_problem::add_soft_and_hard_sources(p, {4, 3, 5}, {2, 2, 7});
  test_problem::add_random_probes(p, rng, {4, 3, 8});
  if (periodic) {
    PlaneSnapshot s;
    s.component = Component::hx;
    s.normal = 1;
    s.index = 2;
    s.every = 5;
    p.snapshots.push_back(s);
  }
  return p;
}

FdtdStep::Result run_variant(const Variant<FdtdStep>& v, const FdtdStep::Problem& p) {
  auto run = v.prepare(p);
  run->run();
  run->run();  // runs restart from the initial state
  return run->result();
}

class FdtdFp64VariantTest : public ppkit::testing::VariantTest<FdtdStep> {
 protected:
  // True when the variant runs fp64; otherwise checks the refusal first.
  bool runs_fp64() {
    if (step_variant_supports(GetParam(), StepFeature::fp64)) return true;
    try {
      variant().prepare(random_fp64_problem(1, false));
      ADD_FAILURE() << GetParam() << " accepted an fp64 problem without an fp64 path";
    } catch (const Error& e) {
      for (const auto& v : Registry<FdtdStep>::all()) {
        if (!v.traits.fp64) continue;
        EXPECT_NE(std::string(e.what()).find(v.name), std::string::npos)
            << "the refusal should name the fp64 variants: " << e.what();
      }
    }
    return false;
  }
};

TEST_P(FdtdFp64VariantTest, MatchesFp64SerialReference) {
  if (!runs_fp64())
    GTEST_SKIP() << GetParam() << " has float kernels only and refuses fp64 at prepare time "
                 << "(step_features.hpp); the refusal was checked";
  for (bool periodic : {false, true}) {
    SCOPED_TRACE(periodic ? "periodic column with snapshots" : "CPML box");
    const auto problem = random_fp64_problem(ppkit::testing::test_seed(), periodic);
    const auto reference = reference_step(problem);
    const auto result = run_variant(variant(), problem);
    // fp64 over 17 steps: differently ordered sums differ by ~1e-15.
    ASSERT_FALSE(result.fields_fp64[0].empty());
    const double field_error = fields_relative_error(result.fields_fp64, reference.fields_fp64);
    const double probe_error =
        ppkit::testing::relative_l2_error(result.probe_values_fp64, reference.probe_values_fp64);
    std::cout << GetParam() << (periodic ? " periodic" : " cpml") << ": fields " << field_error
              << ", probes " << probe_error << " relative to the fp64 reference\n";
    EXPECT_LT(field_error, 1e-12);
    EXPECT_LT(probe_error, 1e-12);
    ASSERT_EQ(result.energy.size(), reference.energy.size());
    for (std::size_t n = 0; n < result.energy.size(); ++n)
      EXPECT_NEAR(result.energy[n], reference.energy[n], 1e-12 * reference.energy[n]);
    ASSERT_EQ(result.frames.size(), reference.frames.size());
    for (std::size_t f = 0; f < result.frames.size(); ++f)
      EXPECT_LT(
          ppkit::testing::relative_l2_error(result.frames[f].values, reference.frames[f].values),
          1e-7);  // frames are float in both precisions
    // The float copy is the fp64 result rounded, and the fp64 result really
    // carries more than float precision (the check can fail on a float path).
    FieldSet64 widened;
    for (int c = 0; c < 6; ++c) widened[c].assign(result.fields[c].begin(), result.fields[c].end());
    const double rounding = fields_relative_error(widened, result.fields_fp64);
    EXPECT_LT(rounding, 1e-7);
    EXPECT_GT(rounding, 1e-10);
  }
}

// The discrete frequency of one PEC cavity mode. A TM_mn0 mode (Ez =
// sin(m pi x / a) sin(n pi y / b), uniform in z) started from E alone stays
// in that mode, so every E sample obeys the leapfrog recurrence
// E^{s+1} + E^{s-1} = 2 cos(w dt) E^s (Taflove & Hagness sec. 4.6): the
// least-squares cos(w dt) over the series has no windowing bias and its error
// is the arithmetic's.
double mode_frequency(const Variant<FdtdStep>& v, Precision precision,
                      const std::array<int, 2>& mode, double& yee) {
  auto p = make_cavity_problem({1.0, 0.7, 0.45}, {20, 14, 9}, 6000);
  p.precision = precision;
  p.sources.clear();
  const YeeGrid& g = p.grid;
  // The mode in the run's precision (a mode rounded to float also excites
  // the others at ~1e-8, which would bound the fp64 figure).
  std::vector<double> ez0(std::size_t(g.nodes()), 0.0);
  for (index_t i = 1; i < g.nx; ++i)  // zero on the PEC faces
    for (index_t j = 1; j < g.ny; ++j)
      for (index_t k = 0; k < g.nz; ++k)
        ez0[std::size_t(g.index(i, j, k))] = std::sin(pi * mode[0] * double(i) / double(g.nx)) *
                                             std::sin(pi * mode[1] * double(j) / double(g.ny));
  if (precision == Precision::fp64)
    p.initial_fp64[2] = ez0;
  else
    p.initial[2].assign(ez0.begin(), ez0.end());
  yee = cavity_frequency_yee(g, {mode[0], mode[1], 0});
  auto run = v.prepare(p);
  run->run();
  const auto r = run->result();
  const std::size_t steps = std::size_t(p.steps);
  std::vector<double> ez(steps);
  for (std::size_t s = 0; s < steps; ++s)
    ez[s] = precision == Precision::fp64 ? r.probe_values_fp64[2 * steps + s]
                                         : double(r.probe_values[2 * steps + s]);
  double num = 0, den = 0;
  for (std::size_t s = 1; s + 1 < steps; ++s) {
    num += ez[s] * (ez[s + 1] + ez[s - 1]);
    den += 2 * ez[s] * ez[s];
  }
  return std::acos(num / den) / (2 * pi * g.dt);
}

TEST_P(FdtdFp64VariantTest, CavityModeFollowsYeeDispersionCloserInFp64) {
  const bool fp64 = runs_fp64();
  for (std::array<int, 2> mode : {std::array<int, 2>{1, 1}, {2, 1}}) {
    const std::string label = "mode " + std::to_string(mode[0]) + std::to_string(mode[1]) + "0";
    double yee = 0;
    const double err32 = std::abs(mode_frequency(variant(), Precision::fp32, mode, yee) / yee - 1);
    EXPECT_LT(err32, 1e-5) << label;
    std::cout << GetParam() << " " << label << ": fp32 |f / f_yee - 1| = " << err32;
    if (fp64) {
      const double err64 =
          std::abs(mode_frequency(variant(), Precision::fp64, mode, yee) / yee - 1);
      std::cout << ", fp64 " << err64;
      EXPECT_LT(err64, 1e-8) << label;
      EXPECT_LT(err64, 0.01 * err32) << label;
    }
    std::cout << "\n";
  }
}

PPKIT_INSTANTIATE_VARIANT_TESTS(FdtdFp64VariantTest, FdtdStep);

nlohmann::json small_case() {
  return nlohmann::json::parse(R"({"grid": {"cells": [8, 8, 8], "size": [0.08, 0.08, 0.08]},
                                   "steps": 5})");
}

TEST(FdtdFp64, CaseFileReadsPrecision) {
  EXPECT_EQ(problem_from_json(small_case(), "case.json").precision, Precision::fp32);
  auto j = small_case();
  j["precision"] = "fp64";
  EXPECT_EQ(problem_from_json(j, "case.json").precision, Precision::fp64);
  j["precision"] = "fp32";
  EXPECT_EQ(problem_from_json(j, "case.json").precision, Precision::fp32);
}

TEST(FdtdFp64, CaseFileRejectsUnknownPrecision) {
  for (const nlohmann::json& bad :
       {nlohmann::json("fp16"), nlohmann::json("double"), nlohmann::json(64)}) {
    auto j = small_case();
    j["precision"] = bad;
    try {
      problem_from_json(j, "case.json");
      ADD_FAILURE() << "precision " << bad.dump() << " was accepted";
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("precision"), std::string::npos) << m;
      if (bad.is_string()) {
        EXPECT_NE(m.find("fp32"), std::string::npos) << m;
        EXPECT_NE(m.find("fp64"), std::string::npos) << m;
      }
    }
  }
}

// validate() throws an Error that names fp64 (not some other mistake).
void expect_fp64_refusal(const FdtdStep::Problem& p, const char* what) {
  try {
    validate(p);
    ADD_FAILURE() << what << " was accepted in an fp64 problem";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fp64"), std::string::npos) << what << ": " << e.what();
  }
}

TEST(FdtdFp64, Fp64RefusesFp32OnlyFeatures) {
  auto p = random_fp64_problem(3, false);
  EXPECT_NO_THROW(validate(p));
  auto with_plane_wave = p;
  with_plane_wave.plane_waves.push_back(PlaneWaveSource{});
  expect_fp64_refusal(with_plane_wave, "a plane wave");
  auto with_phasors = p;
  with_phasors.phasors.frequencies = {1e9};
  expect_fp64_refusal(with_phasors, "phasors");
  auto with_far_field = p;
  NearToFarField n;
  n.box_min = {4, 4, 4};
  n.box_max = {8, 7, 6};
  n.frequencies = {1e10};
  n.directions = {{0.5, 0.0}};
  with_far_field.far_field.push_back(n);
  expect_fp64_refusal(with_far_field, "a near-to-far-field transform");
}

TEST(FdtdFp64, StepBytesDoubleTheFieldTraffic) {
  auto p = random_fp64_problem(4, false);
  const double b64 = step_bytes(p);
  p.precision = Precision::fp32;
  const double b32 = step_bytes(p);
  // Only the 1-byte material ids do not double.
  EXPECT_GT(b64, 1.9 * b32);
  EXPECT_LT(b64, 2.0 * b32);
}

}  // namespace
