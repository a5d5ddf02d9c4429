#pragma once
// ppkit::sph::Simulation: the C++ twin of the SPH C handle (ppkit_sph.h), a
// weakly compressible SPH case (docs/sph.md) a host code creates once and
// advances in time, with the particles where the sph.step variant keeps them:
//
//   ppkit::Runtime runtime;                                   // or the host code's Kokkos
//   auto sim = ppkit::sph::Simulation::dambreak({0.03});     // SPHERIC test 2
//   sim.advance(0.5);                                         // to t = 0.5 s
//   ppkit::sph::DeviceParticles p = sim.particles();         // in sim.memory(), no copy
//
// particles() gives the current arrays in place (device memory for GPU
// variants, host memory for CPU ones) in the solver's internal order: slot i
// holds the case's particle id[i], and both the order and the addresses may
// change with every step (particles are renumbered by cell), so ask again
// after each advance(). Values written there between advances are what the
// next step starts from. state() is a host copy in the case's order;
// probes() measures the SPHERIC test 2 gauges on it (as ppkit_sph_probes).
// Every registered sph.step variant serves, with the results of the
// registry's runs (its prepared run is the simulation's state). One
// Simulation may be used by one thread at a time.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "ppkit/core/data_location.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/sph/cases.hpp"
#include "ppkit/sph/operations.hpp"
#include "ppkit/sph/probes.hpp"

namespace ppkit::sph {

struct SimulationOptions {
  // "auto" (the preferred available sph.step variant) or a variant name
  // ("kokkos-serial/symplectic", "cuda/symplectic-float4"; `ppkit list`).
  std::string variant = "auto";
  // Renumber particles by cell every this many steps; 0: never.
  int reorder_every = 1;
};

class Simulation {
 public:
  // Uploads the case with the chosen variant. Throws ppkit::Error for bad
  // parameters, an unknown or unavailable variant, or before Kokkos is
  // initialised.
  explicit Simulation(const Case& c, const SimulationOptions& options = {});
  // The SPHERIC test 2 dam break of `ppkit sph dambreak` (cases.hpp).
  static Simulation dambreak(const CaseOptions& options, const SimulationOptions& sim = {});
  ~Simulation();
  Simulation(Simulation&&) noexcept;
  Simulation& operator=(Simulation&&) noexcept;
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Steps until time() reaches t_end or max_steps steps were taken in this
  // call (max_steps < 0: no limit); returns the steps taken. Throws
  // ppkit::Error naming the step and particle on a blow-up.
  std::int64_t advance(double t_end, std::int64_t max_steps = -1);
  double time() const;
  std::int64_t steps() const;    // since the start
  std::int64_t escaped() const;  // fluid particles that left the domain

  // The current particle arrays in memory(), in place (operations.hpp).
  DeviceParticles particles() const;
  // One of them as an unmanaged Kokkos View in memory space Mem (which must
  // be where memory() says): x, y, z, vx, vy, vz or rho, strided by
  // particles().stride.
  template <class Mem = Kokkos::DefaultExecutionSpace::memory_space>
  Kokkos::View<float*, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> view(
      float* DeviceParticles::*field) const {
    const DeviceParticles p = particles();
    check_view_space(Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible);
    return Kokkos::View<float*, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
        p.*field, Kokkos::LayoutStride(std::size_t(p.count), std::size_t(p.stride)));
  }

  // A host copy of the state in the case's order (particle k = the k-th
  // particle the case generated).
  Particles state() const;
  // The SPHERIC test 2 water heights and pressures of the current state.
  ProbeSample probes() const;

  std::int64_t particle_count() const;
  std::int64_t fluid_count() const;
  const Case& simulation_case() const;
  DataLocation memory() const;
  const std::string& variant() const;

 private:
  struct State;
  const State& state_ref() const;
  void check_view_space(bool view_on_host) const;
  std::unique_ptr<State> state_;
};

}  // namespace ppkit::sph
