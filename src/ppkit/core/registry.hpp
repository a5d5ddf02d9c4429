#pragma once
// The variant registry (docs/architecture.md): every implementation of an
// operation registers under a name "<backend>/<strategy>". Tests, benchmarks
// and `ppkit compare` all iterate Registry<Op>::all().
//
// An operation Op is a tag struct declared once in src/ppkit/<algo>/:
//   struct Op {
//     static constexpr const char* name = "fem.assemble";
//     using Problem = ...;          // host-side inputs
//     using Result = ...;           // host-side outputs
//     using Instance = PreparedRun<Problem, Result>;
//     struct Traits { ... };        // optional: what its variants differ in
//   };
// A variant's prepare() uploads a Problem to its device (timed as transfer)
// and returns an Instance whose run() executes the kernels and waits for them.
#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ppkit/core/error.hpp"
#include "ppkit/core/memory_check.hpp"
#include "ppkit/core/variant_traits.hpp"

namespace ppkit {

// Whether a variant can run here and now, and if not, why ("no CUDA device").
struct Availability {
  bool available = true;
  std::string reason;
  static Availability yes() { return {true, ""}; }
  static Availability no(std::string why) { return {false, std::move(why)}; }
};

// A prepared run of one variant on one problem. run() must not return before
// the device work is complete, so host timers around it are valid.
template <class Result>
class PreparedRun {
 public:
  virtual ~PreparedRun() = default;
  virtual void run() = 0;
  virtual Result result() = 0;  // copies the outputs back to the host
};

// What every variant declares, whatever its operation (variant_traits.hpp).
// The factories (kokkos_variant, backend_variant) fill all but the role and
// the rank, which the registration gives.
struct VariantInfo {
  std::string name;      // "kokkos-serial/team-4tpr", "cuda/warp-4tpr"
  std::string backend;   // "kokkos-serial", "cuda", "opencl", "hip"
  std::string strategy;  // "team-4tpr"
  ProgrammingModel model = ProgrammingModel::kokkos;
  // Where prepare() puts the data: host, CUDA or HIP memory; none for buffers
  // that no pointer addresses (OpenCL).
  std::optional<MemoryKind> memory = MemoryKind::host;
  VariantRole role = VariantRole::tuned;
  // "auto" picks the greatest among available variants.
  AutoPreference preference;
  std::function<Availability()> availability = [] { return Availability::yes(); };
  std::function<std::string()> device = [] { return std::string("host"); };
};

template <class Op>
struct Variant : VariantInfo {
  operation_traits_t<Op> traits;  // Op::Traits, set where the variant registers
  using Prepare =
      std::function<std::unique_ptr<PreparedRun<typename Op::Result>>(const typename Op::Problem&)>;
  Prepare prepare;
};

// Populates every registry from the CMake-generated list (idempotent).
void register_all_variants();

template <class Op>
class Registry {
 public:
  static void add(Variant<Op> variant) {
    if (variant.preference.rank < 0 || variant.preference.rank >= auto_ranks_per_tier)
      throw Error("variant '" + variant.name + "' of " + Op::name + " has auto rank " +
                      std::to_string(variant.preference.rank),
                  "a rank from 0 to " + std::to_string(auto_ranks_per_tier - 1));
    for (const auto& v : storage())
      if (v.name == variant.name)
        throw Error(std::string("variant '") + variant.name + "' of " + Op::name +
                    " is registered twice");
    // Memory check before allocation (memory_check.hpp), in one place for every variant.
    if (variant.prepare)
      variant.prepare = [prepare = std::move(variant.prepare), name = variant.name,
                         backend = variant.backend,
                         memory = variant.memory](const typename Op::Problem& problem) {
        memory::check_fits<Op>(name, backend, memory, problem);
        return prepare(problem);
      };
    storage().push_back(std::move(variant));
  }

  static const std::vector<Variant<Op>>& all() {
    register_all_variants();
    return storage();
  }

  static std::vector<std::string> names() {
    std::vector<std::string> out;
    for (const auto& v : all()) out.push_back(v.name);
    return out;
  }

  // "auto" picks the most preferred available variant; anything else must be a
  // registered name.
  static const Variant<Op>& find(const std::string& name) {
    const auto& variants = all();
    if (name == "auto") {
      const Variant<Op>* best = nullptr;
      for (const auto& v : variants)
        if (v.availability().available && (!best || best->preference < v.preference)) best = &v;
      if (!best)
        throw Error(std::string("no variant of ") + Op::name + " can run here", joined_names());
      return *best;
    }
    for (const auto& v : variants)
      if (v.name == name) return v;
    throw Error(std::string("unknown variant '") + name + "' of " + Op::name,
                "auto, " + joined_names());
  }

  // As find(), and the variant must be able to run here: otherwise the error
  // gives its reason and lists the variants that can.
  static const Variant<Op>& find_available(const std::string& name) {
    const Variant<Op>& v = find(name);
    const Availability a = v.availability();
    if (!a.available)
      throw Error("variant '" + v.name + "' cannot run here: " + a.reason,
                  "auto, " + joined_names(true));
    return v;
  }

  // The registered names, or only those of variants available here.
  static std::string joined_names(bool available_only = false) {
    std::string out;
    for (const auto& v : all())
      if (!available_only || v.availability().available) out += (out.empty() ? "" : ", ") + v.name;
    return out;
  }

 private:
  static std::vector<Variant<Op>>& storage() {
    static std::vector<Variant<Op>> variants;
    return variants;
  }
};

}  // namespace ppkit
