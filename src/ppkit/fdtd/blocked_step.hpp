#pragma once
// The temporally blocked fdtd.step (kokkos-<space>/blocked-k2, -k4; kernels in
// yee_kokkos_blocked_kernels.hpp; also cuda/ and opencl/blocked-k2, -k4, which
// share the traits below): several leapfrog steps per pass over the
// grid, tiles of the y-z plane marching along x with their window in team
// scratch. It runs materials, PEC, CPML, point sources, probes and energy in
// fp32 and refuses plane waves, periodic axes, phasors, snapshots, the
// near-to-far-field transform and fp64 (step_features.hpp).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ppkit/core/error.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/step_features.hpp"
#include "ppkit/fdtd/yee_blocked.hpp"

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

// The checks every blocked form makes before it allocates: the problem's
// features against blocked_traits, and a tiling with 1..64 steps per pass and
// sizes >= 0.
inline void require_blocked_run(const FdtdStep::Problem& p, const std::string& variant,
                                const BlockedTiling& tiling) {
  require_features(p, blocked_traits(tiling.steps_per_pass), variant, blocked_refusal_reason);
  require(tiling.steps_per_pass >= 1 && tiling.steps_per_pass <= 64,
          "steps per pass " + std::to_string(tiling.steps_per_pass), "1 to 64 steps per pass");
  require(tiling.tile_y >= 0 && tiling.tile_z >= 0 && tiling.halo >= 0,
          "tile " + std::to_string(tiling.tile_y) + " x " + std::to_string(tiling.tile_z) +
              " with halo " + std::to_string(tiling.halo),
          "tile sizes and halo >= 0 (0: the default)");
}

// Appends the energies taken after steps first_step .. first_step + steps - 1
// of one pass: each the tiles' shares of that step (partial[tile * ring + l],
// fetched by `download` only when some step of the pass takes energy) summed in
// tile order, so every form and run gives the same sum, times the cell volume.
template <class Download>
void append_pass_energies(const std::vector<std::int64_t>& energy_steps, std::int64_t first_step,
                          std::int64_t steps, const blocked::Tiling& t, double cell_volume,
                          Download&& download, std::vector<double>& energy) {
  std::vector<double> partial;
  for (std::int64_t l = 0; l < steps; ++l) {
    if (std::find(energy_steps.begin(), energy_steps.end(), first_step + l) == energy_steps.end())
      continue;
    if (partial.empty()) partial = download();
    double sum = 0;
    for (std::int64_t tile = 0; tile < t.tiles(); ++tile)
      sum += partial[std::size_t(tile * t.ring + l)];
    energy.push_back(sum * cell_volume);
  }
}

// Runs `problem` (restart, all its steps) through the blocked kernels on
// Kokkos' default host execution space with the given tiling and returns the
// result as a registered variant would. Throws ppkit::Error for a feature the
// blocked update does not run or a tiling that is not valid.
FdtdStep::Result run_blocked_on_host(const FdtdStep::Problem& problem, const BlockedTiling& tiling);

}  // namespace ppkit::fdtd
