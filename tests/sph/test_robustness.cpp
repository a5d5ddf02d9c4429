// Robustness: invalid parameters, escaped particles, blow-up messages,
// checkpoint/restart equality and corrupted checkpoints.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "harness/variant_test.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/sph/cases.hpp"
#include "ppkit/sph/checkpoint.hpp"
#include "ppkit/sph/simulation.hpp"

namespace {
using namespace ppkit::sph;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          (name + "_" + std::to_string(ppkit::testing::test_seed())))
      .string();
}

TEST(SphRobustness, InvalidParametersAreRejected) {
  const Domain d;
  EXPECT_THROW(make_parameters(-0.01, 1.5, 10, 0.5, d), ppkit::Error);
  EXPECT_THROW(make_parameters(0.01, 0.5, 10, 0.5, d), ppkit::Error);
  EXPECT_THROW(make_parameters(0.01, 1.5, 0.5, 0.5, d), ppkit::Error);
  CaseOptions o;
  o.boundary_layers = 2;
  EXPECT_THROW(make_spheric_dambreak(o), ppkit::Error);
  o = CaseOptions{};
  o.dp = 0.0;
  EXPECT_THROW(make_spheric_dambreak(o), ppkit::Error);
  o = CaseOptions{};
  o.dp = 0.05;
  o.cfl = 1.5;
  EXPECT_THROW(make_spheric_dambreak(o), ppkit::Error);
  o.cfl = 0.2;
  o.delta = -0.1;
  EXPECT_THROW(make_spheric_dambreak(o), ppkit::Error);
  RunOptions r;
  r.t_end = -1;
  EXPECT_THROW(validate(r), ppkit::Error);
  // A periodic box narrower than three kernel supports cannot use the 27-cell stencil.
  o = CaseOptions{};
  o.dp = 0.02;
  Case c = make_periodic_box(o, 6, 0.1, 1);
  EXPECT_THROW(make_cell_grid(c.params), ppkit::Error);
  EXPECT_THROW(make_solver("no-such/variant", make_periodic_box(o, 10, 0.1, 1), {1}), ppkit::Error);
}

// A fluid particle thrown out of the domain is excluded and counted; the run continues.
TEST(SphRobustness, EscapedParticlesAreCountedNotFatal) {
  CaseOptions o;
  o.dp = 0.02;
  Case c = make_hydrostatic_tank(o, 0.12, 0.12, 0.08);
  std::size_t top = 0;
  for (std::size_t i = 0; i < c.particles.size(); ++i)
    if (c.particles.kind[i] == kFluid && c.particles.z[i] > c.particles.z[top]) top = i;
  c.particles.vz[top] = 40;  // leaves through the open top within a few steps
  auto solver = make_solver("auto", c, {1});
  for (int s = 0; s < 30; ++s) solver->step();
  EXPECT_EQ(solver->escaped(), 1);
  Particles state = solver->state();
  state.sort_by_id();
  EXPECT_EQ(state.kind[top], kEscaped);
  EXPECT_EQ(state.count(kFluid), c.particles.count(kFluid) - 1);
}

// NaN in the state stops the run with a message naming the step and particle.
TEST(SphRobustness, BlowUpNamesStepAndParticle) {
  CaseOptions o;
  o.dp = 0.02;
  Case c = make_periodic_box(o, 10, 0.1, ppkit::testing::test_seed());
  const int bad = 417;
  c.particles.rho[bad] = 3 * 1000.0f;  // beyond the blow-up factor 2
  auto solver = make_solver("auto", c, {1});
  try {
    solver->step();
    FAIL() << "no error for a density of 3 rho0";
  } catch (const ppkit::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("step 1"), std::string::npos) << what;
    EXPECT_NE(what.find("particle"), std::string::npos) << what;
  }
  Case n = make_periodic_box(o, 10, 0.1, ppkit::testing::test_seed());
  n.particles.vx[bad] = std::nanf("");
  auto nan_solver = make_solver("auto", n, {0});
  try {
    nan_solver->step();
    FAIL() << "no error for a NaN velocity";
  } catch (const ppkit::Error& e) {
    EXPECT_NE(std::string(e.what()).find("step 1"), std::string::npos) << e.what();
  }
}

// A run checkpointed half way and restarted in a fresh solver ends in the
// same state as the uninterrupted run, bit for bit on one host thread (with
// several threads the order of the floating-point sums may differ).
TEST(SphRobustness, CheckpointRestartGivesTheSameState) {
  const std::string variant = "kokkos-serial/symplectic";
  CaseOptions o;
  o.dp = 0.08;
  o.tank_height = 0.7;
  const Case c = make_spheric_dambreak(o);
  for (ReorderPolicy policy : {ReorderPolicy{1}, ReorderPolicy{3}, ReorderPolicy{0}}) {
    auto straight = make_solver(variant, c, policy);
    for (int s = 0; s < 20; ++s) straight->step();
    auto first = make_solver(variant, c, policy);
    for (int s = 0; s < 10; ++s) first->step();
    const std::string path = temp_path("sph_checkpoint");
    write_checkpoint(path, Checkpoint{first->state(), first->time(), first->steps_done(),
                                      c.params.dp, c.params.h});
    const Checkpoint ck = read_checkpoint(path);
    std::remove(path.c_str());
    auto second = make_solver(variant, c, policy);
    second->restore(ck.particles, ck.time, ck.step);
    for (int s = 0; s < 10; ++s) second->step();
    EXPECT_EQ(second->time(), straight->time());
    EXPECT_EQ(second->steps_done(), 20);
    Particles a = straight->state(), b = second->state();
    a.sort_by_id();
    b.sort_by_id();
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a.x[i], b.x[i]) << "particle " << i << " policy " << policy.every;
      ASSERT_EQ(a.vz[i], b.vz[i]) << "particle " << i;
      ASSERT_EQ(a.rho[i], b.rho[i]) << "particle " << i;
    }
  }
}

TEST(SphRobustness, CorruptedCheckpointIsRejected) {
  CaseOptions o;
  o.dp = 0.02;
  const Case c = make_periodic_box(o, 6, 0.1, 3);
  const std::string path = temp_path("sph_corrupt");
  write_checkpoint(path, Checkpoint{c.particles, 0.5, 7, c.params.dp, c.params.h});
  const Checkpoint ok = read_checkpoint(path);
  EXPECT_EQ(ok.step, 7);
  EXPECT_EQ(ok.particles.x, c.particles.x);
  {
    // Flip one bit inside the stored particle data: find the bytes of a
    // particle's x coordinate in the file (the datasets are stored as is).
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    in.close();
    const Real x = c.particles.x[c.particles.x.size() / 2];
    const std::string pattern(reinterpret_cast<const char*>(&x), sizeof x);
    const auto at = bytes.find(pattern);
    ASSERT_NE(at, std::string::npos) << "particle x not found in the checkpoint file";
    bytes[at + sizeof x - 2] ^= 0x10;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  }
  EXPECT_THROW(read_checkpoint(path), ppkit::Error);
  std::filesystem::resize_file(path, 50);
  EXPECT_THROW(read_checkpoint(path), ppkit::Error);
  std::remove(path.c_str());
  EXPECT_THROW(read_checkpoint(path), ppkit::Error);
}
}  // namespace
