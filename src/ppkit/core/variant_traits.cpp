#include "ppkit/core/variant_traits.hpp"

namespace ppkit {

const char* to_string(ProgrammingModel model) {
  return model == ProgrammingModel::kokkos ? "kokkos" : "vendor";
}

const char* to_string(VariantRole role) {
  return role == VariantRole::baseline ? "baseline" : "tuned";
}

const char* to_string(AutoTier tier) {
  switch (tier) {
    case AutoTier::host_serial:
      return "host-serial";
    case AutoTier::host_parallel:
      return "host-parallel";
    case AutoTier::device_portable:
      return "device-portable";
    case AutoTier::device_native:
      return "device-native";
  }
  return "?";
}

std::string memory_name(const std::optional<MemoryKind>& memory) {
  return memory ? to_string(*memory) : "none";
}

}  // namespace ppkit
