// ppkit::sph::Simulation (simulation_operator.hpp): an sph.step variant's
// prepared run (a time-stepping Solver) owned and stepped on its device.
#include "ppkit/sph/simulation_operator.hpp"

#include <fmt/format.h>

#include <cmath>

#include "ppkit/sph/simulation.hpp"

namespace ppkit::sph {

struct Simulation::State {
  Case c;
  std::string variant;
  std::unique_ptr<Solver> solver;
  DataLocation memory;
};

Simulation::Simulation(const Case& c, const SimulationOptions& options)
    : state_(std::make_unique<State>()) {
  require(Kokkos::is_initialized(), "Kokkos is not initialised",
          "create a ppkit::Runtime (or initialise Kokkos) before creating a Simulation");
  require(options.reorder_every >= 0, fmt::format("reorder_every = {}", options.reorder_every),
          ">= 0 (0: never renumber)");
  State& s = *state_;
  s.c = c;
  s.variant = Registry<Step>::find_available(options.variant).name;
  s.solver = make_solver(s.variant, s.c, ReorderPolicy{options.reorder_every});
  s.memory = s.solver->device_particles().memory;
}

Simulation Simulation::dambreak(const CaseOptions& options, const SimulationOptions& sim) {
  return Simulation(make_spheric_dambreak(options), sim);
}

Simulation::~Simulation() = default;
Simulation::Simulation(Simulation&&) noexcept = default;
Simulation& Simulation::operator=(Simulation&&) noexcept = default;

const Simulation::State& Simulation::state_ref() const {
  require(state_ != nullptr, "this sph::Simulation was moved from",
          "a Simulation that holds a case");
  return *state_;
}

std::int64_t Simulation::advance(double t_end, std::int64_t max_steps) {
  const State& s = state_ref();
  require(std::isfinite(t_end), fmt::format("t_end = {}", t_end), "an end time in seconds");
  std::int64_t done = 0;
  while (s.solver->time() < t_end - 1e-12 && (max_steps < 0 || done < max_steps)) {
    s.solver->step();
    ++done;
  }
  return done;
}

double Simulation::time() const { return state_ref().solver->time(); }
std::int64_t Simulation::steps() const { return state_ref().solver->steps_done(); }
std::int64_t Simulation::escaped() const { return state_ref().solver->escaped(); }
DeviceParticles Simulation::particles() const { return state_ref().solver->device_particles(); }

Particles Simulation::state() const {
  Particles p = state_ref().solver->state();
  p.sort_by_id();
  return p;
}

ProbeSample Simulation::probes() const {
  const State& s = state_ref();
  const Parameters& p = s.c.params;
  return measure_probes(spheric_test2_probes(p), p, s.solver->state(), s.solver->time());
}

void Simulation::check_view_space(bool view_on_host) const {
  const DataLocation& where = state_ref().memory;
  const bool on_host = where.kind == MemoryKind::host;
  require(where.kind == MemoryKind::managed || view_on_host == on_host,
          std::string("a View in ") + (view_on_host ? "a host" : "a device") +
              " memory space of particles in " + where.describe(),
          "the memory space of the simulation's variant");
}

std::int64_t Simulation::particle_count() const {
  return std::int64_t(state_ref().c.particles.size());
}
std::int64_t Simulation::fluid_count() const {
  return std::int64_t(state_ref().c.particles.count(kFluid));
}
const Case& Simulation::simulation_case() const { return state_ref().c; }
DataLocation Simulation::memory() const { return state_ref().memory; }
const std::string& Simulation::variant() const { return state_ref().variant; }

}  // namespace ppkit::sph
