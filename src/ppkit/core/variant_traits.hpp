#pragma once
// The typed traits a variant declares where it registers (docs/architecture.md,
// "Variant traits"). Tests, benchmarks, `ppkit compare` and the CLI read these;
// nothing derives a trait from a variant's name.
//
// Common to every operation (VariantInfo, filled by the factories
// kokkos_variant and backend_variant):
//  - the programming model: portable Kokkos, or one vendor API (CUDA, HIP, OpenCL);
//  - where the variant keeps its data (host, CUDA or HIP memory, or nowhere a
//    pointer can address: OpenCL buffers);
//  - its role: a baseline is the strategy a comparison measures speedups over;
//  - its preference for "auto": a tier, then a rank within the tier.
// Specific to one operation: Op::Traits, declared with the operation (e.g.
// the features an fdtd.step variant runs), stored in Variant<Op>::traits.
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "ppkit/core/data_location.hpp"

namespace ppkit {

enum class ProgrammingModel {
  kokkos,  // written once over Kokkos, registered for each enabled execution space
  vendor,  // one vendor's API: CUDA, HIP or OpenCL
};

enum class VariantRole {
  tuned,     // one strategy among others
  baseline,  // the strategy a comparison's speedups are over (fem thread-per-element)
};

// "auto" prefers a higher tier, then a higher rank within it. The tier says
// where and how a variant runs; the rank orders the strategies of one backend
// (measured on the GPU, docs/<workload>.md).
enum class AutoTier {
  host_serial,      // one host thread (kokkos-serial)
  host_parallel,    // host threads (kokkos-openmp, kokkos-threads)
  device_portable,  // code written once for any vendor's device (kokkos-cuda, kokkos-hip, opencl)
  device_native,    // one vendor's API, tuned for its devices (cuda, hip)
};

struct AutoPreference {
  AutoTier tier = AutoTier::host_serial;
  int rank = 0;  // 0 <= rank < auto_ranks_per_tier (Registry<Op>::add checks)
};
constexpr int auto_ranks_per_tier = 1000;
// The same order as one number, tier * auto_ranks_per_tier + rank, for
// listings (`ppkit list --json` "preference").
inline int auto_order(const AutoPreference& p) {
  return static_cast<int>(p.tier) * auto_ranks_per_tier + p.rank;
}
inline bool operator<(const AutoPreference& a, const AutoPreference& b) {
  return a.tier != b.tier ? a.tier < b.tier : a.rank < b.rank;
}
inline bool operator==(const AutoPreference& a, const AutoPreference& b) {
  return a.tier == b.tier && a.rank == b.rank;
}

const char* to_string(ProgrammingModel model);  // "kokkos", "vendor"
const char* to_string(VariantRole role);        // "tuned", "baseline"
const char* to_string(AutoTier tier);           // "host-serial", ..., "device-native"
// "host", "cuda", "hip", or "none" (buffers no pointer addresses: OpenCL)
std::string memory_name(const std::optional<MemoryKind>& memory);

// An operation-specific trait as listings show it (`ppkit list --json`,
// ppkit.variants() in Python): a name and a flag or a word.
using TraitValue = std::variant<bool, std::string>;
using TraitFields = std::vector<std::pair<std::string, TraitValue>>;

// The traits of an operation that declares none.
struct NoOperationTraits {
  TraitFields fields() const { return {}; }
};

namespace detail {
template <class Op, class = void>
struct OperationTraits {
  using type = NoOperationTraits;
};
template <class Op>
struct OperationTraits<Op, std::void_t<typename Op::Traits>> {
  using type = typename Op::Traits;
};
}  // namespace detail

// Op::Traits when the operation declares it, else NoOperationTraits. Each
// Traits struct has a fields() const member listing its values.
template <class Op>
using operation_traits_t = typename detail::OperationTraits<Op>::type;

}  // namespace ppkit
