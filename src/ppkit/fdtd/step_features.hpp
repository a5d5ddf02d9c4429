#pragma once
// Which fdtd.step variants run which Problem features. Every variant runs the
// materials, PEC faces, CPML, point sources, probes, energy, phasors,
// snapshots and the near-to-far-field transform in fp32. The plane wave (TF/SF
// corrections after each half step) and periodic boundaries (H copy between
// the half steps) need a point between the H and the E update, which the
// fused H+E launch of cuda/wavefront and cuda/wavefront-l1 does not have:
// those two refuse such problems in prepare() with a ppkit::Error. fp64
// (Problem::precision) runs through the Kokkos kernels templated over the real
// type; the CUDA and OpenCL variants have float kernels only and refuse it.
// The tests skip a variant for a feature with this reason and check the refusal.
#include <string>

#include "ppkit/core/error.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"

namespace ppkit::fdtd {

enum class StepFeature { plane_wave, periodic, fp64 };

inline const char* to_string(StepFeature f) {
  switch (f) {
    case StepFeature::plane_wave:
      return "plane wave (TF/SF)";
    case StepFeature::periodic:
      return "periodic boundaries";
    default:
      return "fp64 precision";
  }
}

// True when the variant `name` (e.g. "cuda/split-x2", "kokkos-serial/plain") runs `feature`.
inline bool step_variant_supports(const std::string& name, StepFeature feature) {
  if (feature == StepFeature::fp64) return name.rfind("kokkos-", 0) == 0;
  return name.rfind("cuda/wavefront", 0) != 0;
}

// The variants that run `feature`, for error messages.
inline const char* variants_supporting(StepFeature feature) {
  if (feature == StepFeature::fp64) return "kokkos-<space>/plain, kokkos-<space>/split";
  return "kokkos-<space>/plain, kokkos-<space>/split, opencl/plain, opencl/float4, "
         "cuda/register-x, cuda/split-x1, cuda/split-x2, cuda/split-x4";
}

// The fp32 features every variant but cuda/wavefront* runs (plane wave, periodic).
inline const char* variants_with_every_step_feature() {
  return variants_supporting(StepFeature::plane_wave);
}

// For the prepare() of a variant without an fp64 path: throws ppkit::Error
// when the problem asks for fp64, naming the variants that run it.
inline void require_fp32(const FdtdStep::Problem& p, const std::string& variant) {
  require(p.precision != Precision::fp64,
          "variant " + variant + " has float kernels only and cannot run an fp64 problem",
          std::string("precision fp32, or one of the fp64 variants: ") +
              variants_supporting(StepFeature::fp64));
}

}  // namespace ppkit::fdtd
