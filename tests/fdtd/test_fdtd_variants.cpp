// Every fdtd.step variant against the serial reference on a random problem:
// random initial fields, random materials (lossy, dense, PEC) per node, CPML on
// all faces, a soft and a hard source, probes on E and H, energy every 4 steps.
#include <gtest/gtest.h>

#include <array>
#include <random>

#include "fdtd_test_problem.hpp"
#include "harness/variant_test.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"

namespace {
using namespace ppkit;
using namespace ppkit::fdtd;

// cells: the grid; materials: 4 (1-byte ids) or more (300: 2-byte ids in the
// variants that narrow them).
FdtdStep::Problem random_problem(unsigned seed, std::array<index_t, 3> cells = {15, 12, 11},
                                 std::uint32_t materials = 4) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(-1, 1);
  FdtdStep::Problem p;
  p.grid = make_grid(cells[0], cells[1], cells[2], double(cells[0]) * 1e-3,
                     double(cells[1]) * 13e-3 / 12, double(cells[2]) * 10e-3 / 11, 0.95);
  p.cpml.thickness = 3;
  p.cpml.kappa_max = 2;
  p.cpml.alpha_max = 0.05;
  p.steps = 21;
  p.energy_interval = 4;
  p.materials = {Material{}, Material{4.0, 1.0, 0.02, false}, Material{2.5, 1.5, 0, false},
                 Material{1, 1, 0, true}};
  for (std::uint32_t m = 4; m < materials; ++m)
    p.materials.push_back(
        Material{1.0 + 0.5 * (m % 5), 1.0 + 0.25 * (m % 3), 0.01 * (m % 4), m % 50 == 0});
  p.material_id.resize(std::size_t(p.grid.nodes()));
  for (auto& id : p.material_id) id = std::uint32_t(rng() % materials);
  for (int c = 0; c < 6; ++c) {
    p.initial[c].resize(std::size_t(p.grid.nodes()));
    const double scale = c < 3 ? 1.0 : 1.0 / eta0;
    for (auto& v : p.initial[c]) v = float(scale * unit(rng));
  }
  test_problem::add_soft_and_hard_sources(p, {7, 5, 4}, {9, 6, 6});
  test_problem::add_random_probes(p, rng, {13, 10, 9});
  return p;
}

class FdtdVariantTest : public ppkit::testing::VariantTest<FdtdStep> {};

TEST_P(FdtdVariantTest, MatchesSerialReference) {
  const auto problem = random_problem(ppkit::testing::test_seed());
  const auto reference = reference_step(problem);
  auto run = variant().prepare(problem);
  run->run();
  run->run();  // runs restart from the initial state
  const auto result = run->result();
  // fp32 over 21 steps: rounding of differently ordered sums stays ~1e-6.
  EXPECT_LT(fields_relative_error(result.fields, reference.fields), 2e-5);
  ASSERT_EQ(result.probe_values.size(), reference.probe_values.size());
  EXPECT_LT(ppkit::testing::relative_l2_error(result.probe_values, reference.probe_values), 2e-5);
  ASSERT_EQ(result.energy_steps, reference.energy_steps);
  ASSERT_EQ(result.energy.size(), reference.energy.size());
  for (std::size_t n = 0; n < result.energy.size(); ++n)
    EXPECT_NEAR(result.energy[n], reference.energy[n], 1e-4 * reference.energy[n])
        << "record " << n;
}

// A grid spanning several GPU tiles along y and z (rows of 46 nodes, pitched
// to 64 in the CUDA variants; 71 rows), with 300 materials (2-byte ids).
TEST_P(FdtdVariantTest, WideIdsAndSeveralTilesMatchSerialReference) {
  const auto problem = random_problem(ppkit::testing::test_seed() + 1, {20, 70, 45}, 300);
  const auto reference = reference_step(problem);
  auto run = variant().prepare(problem);
  run->run();
  const auto result = run->result();
  EXPECT_LT(fields_relative_error(result.fields, reference.fields), 2e-5);
  EXPECT_LT(ppkit::testing::relative_l2_error(result.probe_values, reference.probe_values), 2e-5);
  ASSERT_EQ(result.energy.size(), reference.energy.size());
  for (std::size_t n = 0; n < result.energy.size(); ++n)
    EXPECT_NEAR(result.energy[n], reference.energy[n], 1e-4 * reference.energy[n])
        << "record " << n;
}

PPKIT_INSTANTIATE_VARIANT_TESTS(FdtdVariantTest, FdtdStep);

TEST(FdtdReference, CpmlAbsorbsOnlyInsideTheLayers) {
  auto p = random_problem(1);
  const auto profiles = make_cpml_profiles(p.grid, p.cpml);
  for (int axis = 0; axis < 3; ++axis) {
    const auto& a = profiles.axis[axis];
    for (std::size_t u = 0; u < a.e_b.size(); ++u) {
      if (a.e_slot[u] < 0) {
        EXPECT_EQ(a.e_b[u], 1.0f);
        EXPECT_EQ(a.e_c_d[u], 0.0f);
      } else {
        EXPECT_LT(a.e_b[u], 1.0f);
      }
    }
  }
}
}  // namespace
