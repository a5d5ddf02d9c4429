#pragma once
// Which fdtd.step variants run which Problem features. Every variant runs the
// materials, PEC faces, CPML, point sources, probes, energy, phasors,
// snapshots and the near-to-far-field transform. The plane wave (TF/SF
// corrections after each half step) and periodic boundaries (H copy between
// the half steps) need a point between the H and the E update, which the
// fused H+E launch of cuda/wavefront and cuda/wavefront-l1 does not have:
// those two refuse such problems in prepare() with a ppkit::Error. The tests
// skip them for these features with this reason and check the refusal.
#include <string>

namespace ppkit::fdtd {

enum class StepFeature { plane_wave, periodic };

inline const char* to_string(StepFeature f) {
  return f == StepFeature::plane_wave ? "plane wave (TF/SF)" : "periodic boundaries";
}

// True when the variant `name` (e.g. "cuda/split-x2") runs `feature`.
inline bool step_variant_supports(const std::string& name, StepFeature) {
  return name.rfind("cuda/wavefront", 0) != 0;
}

// The variants that run every feature, for error messages.
inline const char* variants_with_every_step_feature() {
  return "kokkos-<space>/plain, kokkos-<space>/split, opencl/plain, opencl/float4, "
         "cuda/register-x, cuda/split-x1, cuda/split-x2, cuda/split-x4";
}

}  // namespace ppkit::fdtd
