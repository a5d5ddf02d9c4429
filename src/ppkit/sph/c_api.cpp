// C API of the sph workload (include/ppkit_sph.h): handles over
// ppkit::sph::Simulation (simulation_operator.hpp).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "ppkit/core/c_api_support.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/sph/cases.hpp"
#include "ppkit/sph/probes.hpp"
#include "ppkit/sph/simulation_operator.hpp"
#include "ppkit.h"
#include "ppkit_sph.h"

namespace {
// The object behind a ppkit_sph_simulation* handle (a number in the handle
// table, c_api_support.hpp, never an address of this struct).
struct SphSimulation final : ppkit::c_api::HandleObject {
  explicit SphSimulation(ppkit::sph::Simulation s) : sim(std::move(s)) {}
  ppkit::sph::Simulation sim;
};

SphSimulation& simulation_of(const ppkit_sph_simulation* s) {
  return ppkit::c_api::lookup<SphSimulation>(const_cast<void*>(static_cast<const void*>(s)),
                                             "simulation", "ppkit_sph_dambreak");
}
}  // namespace

using ppkit::c_api::guarded;

extern "C" {

int ppkit_sph_dambreak_defaults(ppkit_sph_dambreak_options* options) {
  return guarded(
      "ppkit_sph_dambreak_defaults",
      [&] {
        ppkit::require(options != nullptr, "options is NULL",
                       "a ppkit_sph_dambreak_options to fill");
        const ppkit::sph::CaseOptions d;
        options->dp = d.dp;
        options->tank_height = d.tank_height;
        options->h_over_dp = d.h_over_dp;
        options->c0_coefficient = d.c0_coefficient;
        options->alpha = d.alpha;
        options->delta = d.delta;
        options->cfl = d.cfl;
        options->reorder_every = 1;
        options->variant = nullptr;
      },
      false);
}

int ppkit_sph_dambreak_create(const ppkit_sph_dambreak_options* options,
                              ppkit_sph_simulation** simulation) {
  return guarded("ppkit_sph_dambreak_create", [&] {
    ppkit::require(options != nullptr && simulation != nullptr, "options or simulation is NULL",
                   "options filled by ppkit_sph_dambreak_defaults and a place for the result");
    *simulation = nullptr;
    ppkit::require(options->reorder_every >= 0,
                   "reorder_every " + std::to_string(options->reorder_every),
                   ">= 0 (0: never renumber)");
    ppkit::sph::CaseOptions o;
    o.dp = options->dp;
    o.tank_height = options->tank_height;
    o.h_over_dp = options->h_over_dp;
    o.c0_coefficient = options->c0_coefficient;
    o.alpha = options->alpha;
    o.delta = options->delta;
    o.cfl = options->cfl;
    ppkit::sph::SimulationOptions so;
    so.variant = options->variant ? options->variant : "auto";
    so.reorder_every = options->reorder_every;
    auto s = std::make_unique<SphSimulation>(ppkit::sph::Simulation::dambreak(o, so));
    *simulation = static_cast<ppkit_sph_simulation*>(ppkit::c_api::add_handle(std::move(s)));
  });
}

void ppkit_sph_destroy(ppkit_sph_simulation* simulation) {
  (void)guarded(
      "ppkit_sph_destroy",
      [&] { ppkit::c_api::remove_handle(simulation, "simulation", "ppkit_sph_dambreak"); }, false);
}

int ppkit_sph_particle_count(const ppkit_sph_simulation* simulation, int64_t* total,
                             int64_t* fluid) {
  return guarded("ppkit_sph_particle_count", [&] {
    const auto& sim = simulation_of(simulation).sim;
    if (total) *total = int64_t(sim.particle_count());
    if (fluid) *fluid = int64_t(sim.fluid_count());
  });
}

int ppkit_sph_advance(ppkit_sph_simulation* simulation, double t_end, int64_t max_steps,
                      int64_t* steps_done) {
  int64_t done = 0;
  const int status = guarded("ppkit_sph_advance", [&] {
    auto& sim = simulation_of(simulation).sim;
    ppkit::require(std::isfinite(t_end), "t_end is not finite", "an end time in seconds");
    const int64_t before = sim.steps();
    try {
      sim.advance(t_end, max_steps);
    } catch (...) {
      done = sim.steps() - before;  // the steps before a blow-up count
      throw;
    }
    done = sim.steps() - before;
  });
  if (steps_done) *steps_done = done;
  return status;
}

int ppkit_sph_status(const ppkit_sph_simulation* simulation, double* time, int64_t* steps,
                     int64_t* escaped) {
  return guarded("ppkit_sph_status", [&] {
    const auto& sim = simulation_of(simulation).sim;
    if (time) *time = sim.time();
    if (steps) *steps = sim.steps();
    if (escaped) *escaped = sim.escaped();
  });
}

int ppkit_sph_probes(ppkit_sph_simulation* simulation, double heights[4], double pressures[8]) {
  return guarded("ppkit_sph_probes", [&] {
    const auto sample = simulation_of(simulation).sim.probes();
    if (heights) std::copy(sample.height.begin(), sample.height.end(), heights);
    if (pressures) std::copy(sample.pressure.begin(), sample.pressure.end(), pressures);
  });
}

int ppkit_sph_state(ppkit_sph_simulation* simulation, float* x, float* y, float* z, float* vx,
                    float* vy, float* vz, float* density, uint8_t* kind) {
  return guarded("ppkit_sph_state", [&] {
    const ppkit::sph::Particles s = simulation_of(simulation).sim.state();
    auto put = [](const std::vector<float>& from, float* to) {
      if (to) std::copy(from.begin(), from.end(), to);
    };
    put(s.x, x);
    put(s.y, y);
    put(s.z, z);
    put(s.vx, vx);
    put(s.vy, vy);
    put(s.vz, vz);
    put(s.rho, density);
    if (kind) std::copy(s.kind.begin(), s.kind.end(), kind);
  });
}

const char* ppkit_sph_last_error(void) { return ppkit_last_error(); }

}  // extern "C"
