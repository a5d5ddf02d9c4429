#pragma once
// The temporally blocked fdtd.step (kokkos-<space>/blocked-k2, -k4; kernels in
// yee_kokkos_blocked_kernels.hpp; also cuda/ and opencl/blocked-k2, -k4, which
// share the traits below): several leapfrog steps per pass over the
// grid, tiles of the y-z plane marching along x with their window in team
// scratch. It runs materials, PEC, CPML, point sources, probes and energy in
// fp32 and refuses plane waves, periodic axes, phasors, snapshots, the
// near-to-far-field transform and fp64 (step_features.hpp).
#include <cstdint>

#include "ppkit/fdtd/fdtd_step.hpp"

namespace ppkit::fdtd {

// Tile shape of the blocked update; 0 picks the variant's default.
struct BlockedTiling {
  int steps_per_pass = 2;  // time steps per pass over the grid (>= 1)
  index_t tile_y = 0;      // core nodes per tile along y (default: host about 32, device 8)
  index_t tile_z = 0;      // along z (default: host the whole row, device 32)
  // Nodes each tile computes beyond its core on each side along y and z.
  // 0: steps_per_pass, the light cone of a pass, which makes every node
  // exact; a smaller halo gives wrong values next to the tile seams (the
  // tests show that they catch it).
  index_t halo = 0;
};

// What every temporally blocked variant runs (FdtdStep::Traits, declared at
// registration): no plane wave, periodic axis, fp64, phasors, snapshots or
// near-to-far-field transform; steps_per_pass steps per pass.
inline FdtdStep::Traits blocked_traits(int steps_per_pass) {
  FdtdStep::Traits t;
  t.plane_wave = t.periodic = t.fp64 = false;
  t.phasors = t.snapshots = t.far_field = false;
  t.steps_per_pass = steps_per_pass;
  return t;
}

// Why they refuse those features (the reason in require_features' error).
constexpr const char* blocked_refusal_reason =
    "it advances several steps per pass over the grid, so no whole-grid state exists between "
    "the H and E updates or after each step";

// Runs `problem` (restart, all its steps) through the blocked kernels on
// Kokkos' default host execution space with the given tiling and returns the
// result as a registered variant would. Throws ppkit::Error for a feature the
// blocked update does not run or a tiling that is not valid.
FdtdStep::Result run_blocked_on_host(const FdtdStep::Problem& problem, const BlockedTiling& tiling);

}  // namespace ppkit::fdtd
