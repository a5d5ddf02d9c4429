#pragma once
// Which fdtd.step variants run which Problem features, from the traits each
// declares where it registers (FdtdStep::Traits). Every variant runs the
// materials, PEC faces, CPML, point sources, probes, energy, phasors,
// snapshots and the near-to-far-field transform in fp32. The plane wave (TF/SF
// corrections after each half step) and periodic boundaries (H copy between
// the half steps) need a point between the H and the E update, which a fused
// H+E launch does not have; fp64 (Problem::precision) needs kernels templated
// over the real type. Phasors, snapshots and the near-to-far-field transform
// read the fields after every step, which a temporally blocked variant (several
// steps per pass, kokkos/blocked-k*) never holds for the whole grid at once.
// A variant refuses a feature its traits lack in prepare() with a
// ppkit::Error; the tests skip it for that feature with this reason and check
// the refusal.
#include <string>

#include "ppkit/core/error.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"

namespace ppkit::fdtd {

enum class StepFeature { plane_wave, periodic, fp64, phasors, snapshots, far_field };

inline const char* to_string(StepFeature f) {
  switch (f) {
    case StepFeature::plane_wave:
      return "plane wave (TF/SF)";
    case StepFeature::periodic:
      return "periodic boundaries";
    case StepFeature::phasors:
      return "phasors (running DFT)";
    case StepFeature::snapshots:
      return "plane snapshots";
    case StepFeature::far_field:
      return "near-to-far-field transform";
    default:
      return "fp64 precision";
  }
}

inline bool runs(const FdtdStep::Traits& traits, StepFeature feature) {
  switch (feature) {
    case StepFeature::plane_wave:
      return traits.plane_wave;
    case StepFeature::periodic:
      return traits.periodic;
    case StepFeature::phasors:
      return traits.phasors;
    case StepFeature::snapshots:
      return traits.snapshots;
    case StepFeature::far_field:
      return traits.far_field;
    default:
      return traits.fp64;
  }
}

// Whether the problem uses the feature.
inline bool uses(const FdtdStep::Problem& p, StepFeature feature) {
  switch (feature) {
    case StepFeature::plane_wave:
      return !p.plane_waves.empty();
    case StepFeature::periodic:
      return p.periodic[0] || p.periodic[1];
    case StepFeature::phasors:
      return p.phasors.enabled();
    case StepFeature::snapshots:
      return !p.snapshots.empty();
    case StepFeature::far_field:
      return !p.far_field.empty();
    default:
      return p.precision == Precision::fp64;
  }
}

constexpr StepFeature step_features[] = {StepFeature::plane_wave, StepFeature::periodic,
                                         StepFeature::fp64,       StepFeature::phasors,
                                         StepFeature::snapshots,  StepFeature::far_field};

// Whether a variant with these traits runs every feature the problem uses.
inline bool runs_problem(const FdtdStep::Traits& traits, const FdtdStep::Problem& p) {
  for (StepFeature f : step_features)
    if (uses(p, f) && !runs(traits, f)) return false;
  return true;
}

// True when the registered variant `name` (e.g. "kokkos-serial/plain") runs
// `feature`; throws ppkit::Error for a name that is not registered.
inline bool step_variant_supports(const std::string& name, StepFeature feature) {
  return runs(Registry<FdtdStep>::find(name).traits, feature);
}

// The registered variants that run `feature`, for error messages.
inline std::string variants_supporting(StepFeature feature) {
  std::string out;
  for (const auto& v : Registry<FdtdStep>::all())
    if (runs(v.traits, feature)) out += (out.empty() ? "" : ", ") + v.name;
  return out.empty() ? std::string("none in this build") : out;
}

// The registered variants that step slabs of MPI runs (Traits::slab), for
// error messages.
inline std::string slab_variant_names() {
  std::string out;
  for (const auto& v : Registry<FdtdStep>::all())
    if (v.traits.slab && v.availability().available) out += (out.empty() ? "" : ", ") + v.name;
  return out.empty() ? std::string("none in this build") : out;
}

// The rank-local variant of an MPI slab run: a variant name, or "auto" or a
// strategy ("split", "float4"): the preferred available variant among those
// whose traits say slab and that run the problem's features. Throws
// ppkit::Error for a variant that cannot step a slab, naming those that can.
inline const Variant<FdtdStep>& slab_variant(const std::string& name, const FdtdStep::Problem& p) {
  if (name.find('/') != std::string::npos) {
    require(Registry<FdtdStep>::find(name).traits.slab,
            "variant " + name + " cannot step a slab of an MPI run",
            "one whose traits say slab: " + slab_variant_names());
    return Registry<FdtdStep>::find_available(name);
  }
  const Variant<FdtdStep>* best = nullptr;
  for (const auto& v : Registry<FdtdStep>::all())
    if ((name == "auto" || v.strategy == name) && v.traits.slab && runs_problem(v.traits, p) &&
        v.availability().available && (!best || best->preference < v.preference))
      best = &v;
  require(best != nullptr, "no available fdtd.step variant '" + name + "' steps slabs",
          "auto, a strategy or a name of: " + slab_variant_names());
  return *best;
}

// For the prepare() of a variant: throws ppkit::Error naming the first
// feature the problem uses that `traits` lack, and the variants that run it.
inline void require_features(const FdtdStep::Problem& p, const FdtdStep::Traits& traits,
                             const std::string& variant, const std::string& why) {
  for (StepFeature f : step_features)
    require(!uses(p, f) || runs(traits, f),
            "variant " + variant + " cannot run this problem's " + to_string(f) + " (" + why + ")",
            "a problem without it, or one of the variants that run it: " + variants_supporting(f));
}

// For the prepare() of a variant without an fp64 path: throws ppkit::Error
// when the problem asks for fp64, naming the variants that run it.
inline void require_fp32(const FdtdStep::Problem& p, const std::string& variant) {
  require(p.precision != Precision::fp64,
          "variant " + variant + " has float kernels only and cannot run an fp64 problem",
          "precision fp32, or one of the fp64 variants: " + variants_supporting(StepFeature::fp64));
}

}  // namespace ppkit::fdtd
