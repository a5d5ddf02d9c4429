// Device bytes of SPH problems for the memory check before allocation
// (ppkit/core/memory_check.hpp): a lower bound, the particle state (x, y, z,
// vx, vy, vz, rho as float, kind as uint8, id as int32: 33 bytes) held twice
// (the state and the symplectic predictor or the sorted copy), plus the four
// float right-hand sides of sph.interaction.
#include "ppkit/core/memory_check.hpp"
#include "ppkit/sph/operations.hpp"

namespace ppkit::registration {
void register_sph_memory_model() {
  constexpr double state_bytes = 7 * sizeof(sph::Real) + 1 + 4;
  memory::set_bytes_model<sph::Step>(
      [](const sph::Step::Problem& p) { return 2 * state_bytes * double(p.particles.size()); });
  memory::set_bytes_model<sph::Interaction>([](const sph::Interaction::Problem& p) {
    return (state_bytes + 4 * sizeof(sph::Real)) * double(p.particles.size());
  });
}
}  // namespace ppkit::registration
