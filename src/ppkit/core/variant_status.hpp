#pragma once
// A registered variant and whether it can run here, as the embedding APIs
// list them (ppkit.variants() in Python). Each workload returns its list from
// a function of libppkit: code built with hidden visibility (Python
// extensions) has its own copy of Registry<Op>'s header statics and would
// see an empty registry.
#include <optional>
#include <string>

#include "ppkit/core/variant_traits.hpp"

namespace ppkit {

struct VariantStatus {
  std::string name, backend, strategy;
  bool available = false;
  std::string reason;  // why not, when it cannot run here
  // Its traits (variant_traits.hpp): the common ones, then the operation's.
  ProgrammingModel model = ProgrammingModel::kokkos;
  std::optional<MemoryKind> memory;
  VariantRole role = VariantRole::tuned;
  AutoPreference preference;
  TraitFields traits;
};

}  // namespace ppkit
