#pragma once
// The temporally blocked fdtd.step (kokkos-<space>/blocked-k2, -k4; kernels in
// yee_kokkos_blocked_kernels.hpp): several leapfrog steps per pass over the
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

// Runs `problem` (restart, all its steps) through the blocked kernels on
// Kokkos' default host execution space with the given tiling and returns the
// result as a registered variant would. Throws ppkit::Error for a feature the
// blocked update does not run or a tiling that is not valid.
FdtdStep::Result run_blocked_on_host(const FdtdStep::Problem& problem, const BlockedTiling& tiling);

}  // namespace ppkit::fdtd
