#pragma once
// The SPH operations (docs/sph.md). Each is declared once here; Kokkos and
// CUDA variants register implementations in the variant registry.
#include <cstdint>
#include <vector>

#include "ppkit/core/data_location.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/registry.hpp"
#include "ppkit/sph/sph_types.hpp"

namespace ppkit::sph {

// sph.interaction: one evaluation of the WCSPH right-hand side (continuity with
// delta-SPH, momentum with Monaghan viscosity and gravity) for every particle,
// including the neighbour search (cell binning, and for the sorted variants the
// renumbering of particles by cell). Results are in the problem's particle order.
struct Interaction {
  static constexpr const char* name = "sph.interaction";
  struct Problem {
    Parameters params;
    Particles particles;
  };
  struct Result {
    std::vector<Real> drho;        // d rho / dt [kg/m^3/s]
    std::vector<Real> ax, ay, az;  // du/dt including gravity (0 for boundary particles)
  };
};

// When particles are renumbered by cell (Guan et al.): every k steps, or never
// (then neighbours are found through a linked list over the unsorted particles).
struct ReorderPolicy {
  int every = 1;  // 0: never
  bool reorder_at(std::int64_t step) const { return every > 0 && step % every == 0; }
};

// sph.step: `steps` symplectic time steps with variable dt from the problem's
// state. Each run() starts again from the problem's initial state, so repeated
// runs time the same work and give the same result.
struct Step {
  static constexpr const char* name = "sph.step";
  struct Problem {
    Parameters params;
    Particles particles;
    int steps = 10;
    ReorderPolicy reorder;
  };
  using Result = Particles;  // final state in id order
};

// A solver's current particle arrays where its variant keeps them (no copy),
// in its internal order (slot i holds the case's particle id[i]; solvers
// renumber particles by cell, so the order and the addresses may change with
// every step). Values of particle i at x[i * stride], ..., rho[i * stride]:
// stride 1 for structure-of-arrays variants (Kokkos), 4 for the float4
// records of the CUDA and HIP variants (x y z rho, vx vy vz kind) and of
// the OpenCL variant (x y z kind, vx vy vz rho; mapped into host memory).
struct DeviceParticles {
  std::int64_t count = 0;
  std::int64_t stride = 1;
  float *x = nullptr, *y = nullptr, *z = nullptr;
  float *vx = nullptr, *vy = nullptr, *vz = nullptr;
  float* rho = nullptr;
  // The kind (ParticleKind) as one byte per particle (stride 1), or as a
  // float every `stride` values (float4 variants); the other is nullptr.
  const std::uint8_t* kind = nullptr;
  const float* kind_as_float = nullptr;
  const std::int32_t* id = nullptr;  // stride 1
  DataLocation memory;
};

// What a time-stepping variant offers beyond PreparedRun (the CLI and tests
// drive it step by step): its run() performs Problem::steps steps from the
// initial state; step() continues from the current state.
class Solver : public PreparedRun<Particles> {
 public:
  struct StepInfo {
    double dt = 0;
    bool reordered = false;
  };
  // Advances one step; throws ppkit::Error naming the step and particle on
  // NaN or density blow-up.
  virtual StepInfo step() = 0;
  virtual double time() const = 0;
  virtual std::int64_t steps_done() const = 0;
  virtual std::int64_t escaped() const = 0;  // fluid particles that left the domain
  // Current state in the solver's internal order (ids included).
  virtual Particles state() = 0;
  // Replaces the state (any order; ids must be a permutation of 0..n-1).
  virtual void restore(const Particles& state, double time, std::int64_t steps) = 0;
  virtual void set_reorder(ReorderPolicy policy) = 0;
  // The current arrays in place (sph::Simulation, simulation_operator.hpp).
  virtual DeviceParticles device_particles() {
    throw Error("this sph.step variant does not expose its particle arrays");
  }
};

}  // namespace ppkit::sph
