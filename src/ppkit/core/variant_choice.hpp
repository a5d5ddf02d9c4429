#pragma once
// How an embedding operator (sem::Axhelm, fem::Assembler, ...) picks its
// variant from what a host code asked for, and how it lists them. Include
// only from libppkit's own sources (variant_status.hpp says why).
#include <optional>
#include <string>
#include <vector>

#include "ppkit/core/data_location.hpp"
#include "ppkit/core/registry.hpp"
#include "ppkit/core/variant_status.hpp"

namespace ppkit {

// name: "auto" (the preferred variant that can run here), a strategy (its
// preferred available variant) or a variant name (which must be able to run
// here). memory: "auto" and strategies only among variants whose data lives
// there. Throws ppkit::Error listing what would be valid.
template <class Op>
const Variant<Op>& choose_variant(const std::string& name,
                                  const std::optional<MemoryKind>& memory = std::nullopt) {
  if (name.find('/') != std::string::npos) return Registry<Op>::find_available(name);
  const Variant<Op>* best = nullptr;
  for (const auto& v : Registry<Op>::all())
    if ((name == "auto" || v.strategy == name) && (!memory || v.memory == memory) &&
        v.availability().available && (!best || best->preference < v.preference))
      best = &v;
  if (!best) {
    const std::string on = memory ? std::string(" on ") + to_string(*memory) + " memory" : "";
    const std::string what =
        name == "auto" ? std::string("no ") + Op::name + " variant can run here" + on
                       : "unknown variant '" + name + "' of " + Op::name +
                             ": no variant that can run here" + on + " has that name or strategy";
    throw Error(what, "auto, a strategy of " + Registry<Op>::joined_names(true) +
                          ", or one of those names");
  }
  return *best;
}

template <class Op>
VariantStatus variant_status(const Variant<Op>& v) {
  const Availability a = v.availability();
  VariantStatus s;
  s.name = v.name;
  s.backend = v.backend;
  s.strategy = v.strategy;
  s.available = a.available;
  s.reason = a.reason;
  s.model = v.model;
  s.memory = v.memory;
  s.role = v.role;
  s.preference = v.preference;
  s.traits = v.traits.fields();
  return s;
}

template <class Op>
std::vector<VariantStatus> variant_statuses() {
  std::vector<VariantStatus> out;
  for (const auto& v : Registry<Op>::all()) out.push_back(variant_status(v));
  return out;
}

}  // namespace ppkit
