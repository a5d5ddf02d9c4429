// ppkit::sph::Simulation (simulation_operator.hpp) on every sph.step variant:
// advanced in chunks, the state equals the registry's run of the same
// variant and steps bit for bit, the particle arrays in place hold that
// state, writes into them are seen; the C handle (ppkit_sph.h), built on it,
// gives the same state; the errors a host code meets.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "harness/variant_test.hpp"
#include "ppkit.h"
#include "ppkit/core/device_memory.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/sph/simulation_operator.hpp"
#include "ppkit_sph.h"

namespace {
using namespace ppkit;
using namespace ppkit::sph;

// A coarse dam break (dp 0.1 m, 0.7 m walls): a few hundred particles,
// perturbed so that every particle moves from the first step.
Case coarse_case() {
  CaseOptions o;
  o.dp = 0.1;
  o.tank_height = 0.7;
  Case c = make_spheric_dambreak(o);
  perturb(c, 0.05, ppkit::testing::test_seed());
  return c;
}

// The values of one array of DeviceParticles (every stride-th float from p),
// copied to the host.
std::vector<float> host_copy(const DeviceParticles& d, const float* p) {
  std::vector<float> span(std::size_t((d.count - 1) * d.stride + 1));
  copy_from(d.memory, span.data(), p, span.size() * sizeof(float));
  std::vector<float> out(std::size_t(d.count));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = span[i * std::size_t(d.stride)];
  return out;
}

class SphSimulationTest : public ppkit::testing::VariantTest<Step> {};

TEST_P(SphSimulationTest, ChunksGiveTheRegistryRunAndTheArraysInPlaceHoldIt) {
  const Case c = coarse_case();
  Simulation sim(c, SimulationOptions{GetParam(), 2});
  EXPECT_EQ(sim.variant(), GetParam());
  EXPECT_EQ(sim.advance(10.0, 3), 3);
  EXPECT_EQ(sim.advance(10.0, 2), 2);
  EXPECT_EQ(sim.advance(10.0, 1), 1);
  EXPECT_EQ(sim.steps(), 6);
  EXPECT_GT(sim.time(), 0.0);

  auto run = variant().prepare(Step::Problem{c.params, c.particles, 6, ReorderPolicy{2}});
  run->run();
  const Particles registry = run->result();
  const Particles state = sim.state();
  EXPECT_EQ(state.x, registry.x);
  EXPECT_EQ(state.z, registry.z);
  EXPECT_EQ(state.vx, registry.vx);
  EXPECT_EQ(state.vz, registry.vz);
  EXPECT_EQ(state.rho, registry.rho);
  EXPECT_EQ(state.kind, registry.kind);
  EXPECT_NE(state.x, c.particles.x);  // the particles moved

  // The arrays in place, slot i holding particle id[i].
  const DeviceParticles d = sim.particles();
  ASSERT_EQ(d.count, sim.particle_count());
  EXPECT_EQ(d.memory, sim.memory());
  std::vector<std::int32_t> id(std::size_t(d.count));
  copy_from(d.memory, id.data(), d.id, id.size() * sizeof(std::int32_t));
  const std::vector<float> x = host_copy(d, d.x), vz = host_copy(d, d.vz),
                           rho = host_copy(d, d.rho);
  for (std::size_t i = 0; i < id.size(); ++i) {
    const std::size_t k = std::size_t(id[i]);
    ASSERT_LT(k, state.x.size());
    ASSERT_EQ(x[i], state.x[k]) << "slot " << i;
    ASSERT_EQ(vz[i], state.vz[k]) << "slot " << i;
    ASSERT_EQ(rho[i], state.rho[k]) << "slot " << i;
  }

  // A write into the arrays in place is the state the next step starts from.
  std::vector<float> span(std::size_t((d.count - 1) * d.stride + 1));
  copy_from(d.memory, span.data(), d.vx, span.size() * sizeof(float));
  for (std::size_t i = 0; i < std::size_t(d.count); ++i) span[i * std::size_t(d.stride)] = 0.0f;
  copy_to(d.memory, d.vx, span.data(), span.size() * sizeof(float));
  for (float v : sim.state().vx) ASSERT_EQ(v, 0.0f);
}

PPKIT_INSTANTIATE_VARIANT_TESTS(SphSimulationTest, Step);

// The C handle is the Simulation: the same steps give the same state and probes.
TEST(SphSimulation, TheCHandleGivesTheSameState) {
  ASSERT_EQ(ppkit_init(), 0) << ppkit_last_error();
  ppkit_sph_dambreak_options o;
  ASSERT_EQ(ppkit_sph_dambreak_defaults(&o), 0);
  o.dp = 0.1;
  o.tank_height = 0.7;
  o.reorder_every = 3;
  ppkit_sph_simulation* handle = nullptr;
  ASSERT_EQ(ppkit_sph_dambreak_create(&o, &handle), 0) << ppkit_last_error();
  int64_t done = 0;
  ASSERT_EQ(ppkit_sph_advance(handle, 10.0, 7, &done), 0) << ppkit_last_error();
  EXPECT_EQ(done, 7);

  CaseOptions co;
  co.dp = 0.1;
  co.tank_height = 0.7;
  Simulation sim = Simulation::dambreak(co, SimulationOptions{"auto", 3});
  EXPECT_EQ(sim.advance(10.0, 4) + sim.advance(10.0, 3), 7);
  const Particles s = sim.state();
  const std::size_t n = s.size();
  std::vector<float> x(n), z(n), vx(n), rho(n);
  std::vector<uint8_t> kind(n);
  ASSERT_EQ(ppkit_sph_state(handle, x.data(), nullptr, z.data(), vx.data(), nullptr, nullptr,
                            rho.data(), kind.data()),
            0)
      << ppkit_last_error();
  EXPECT_EQ(x, s.x);
  EXPECT_EQ(z, s.z);
  EXPECT_EQ(vx, s.vx);
  EXPECT_EQ(rho, s.rho);
  EXPECT_EQ(kind, s.kind);
  double heights[4], pressures[8];
  ASSERT_EQ(ppkit_sph_probes(handle, heights, pressures), 0) << ppkit_last_error();
  const ProbeSample p = sim.probes();
  for (int g = 0; g < 4; ++g) EXPECT_EQ(heights[g], p.height[std::size_t(g)]) << "H" << g + 1;
  for (int g = 0; g < 8; ++g) EXPECT_EQ(pressures[g], p.pressure[std::size_t(g)]) << "P" << g + 1;
  double time = 0;
  ASSERT_EQ(ppkit_sph_status(handle, &time, nullptr, nullptr), 0);
  EXPECT_EQ(time, sim.time());
  ppkit_sph_destroy(handle);
}

TEST(SphSimulation, RefusesBadArguments) {
  const Case c = coarse_case();
  auto message_of = [](const std::function<void()>& f) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_NE(message_of([&] {
              (void)Simulation(c, SimulationOptions{"no-such/variant", 1});
            }).find("no-such/variant"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              (void)Simulation(c, SimulationOptions{"auto", -1});
            }).find("reorder_every = -1"),
            std::string::npos);
  Simulation sim(c);
  EXPECT_NE(message_of([&] { sim.advance(std::nan("")); }).find("t_end"), std::string::npos);
  const bool on_host = sim.memory().kind == MemoryKind::host;
  if (on_host) {
    const auto x = sim.view<Kokkos::HostSpace>(&DeviceParticles::x);
    EXPECT_EQ(x(0), host_copy(sim.particles(), sim.particles().x)[0]);
  } else {
    EXPECT_NE(message_of([&] {
                (void)sim.view<Kokkos::HostSpace>(&DeviceParticles::x);
              }).find("host memory space"),
              std::string::npos);
  }
  Simulation moved = std::move(sim);
  EXPECT_NE(message_of([&] { sim.advance(1.0, 1); }).find("moved from"), std::string::npos);
  EXPECT_EQ(moved.advance(1.0, 1), 1);
}

}  // namespace
