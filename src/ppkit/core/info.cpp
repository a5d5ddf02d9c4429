#include "ppkit/core/info.hpp"

#include <Kokkos_Core.hpp>
#include <map>

#include "ppkit/core/kokkos_spaces.hpp"
#include "ppkit/core/registry.hpp"
#include "ppkit_version.hpp"

namespace ppkit {
namespace {
std::map<std::string, std::function<nlohmann::json()>>& describers() {
  static std::map<std::string, std::function<nlohmann::json()>> d;
  return d;
}

nlohmann::json kokkos_info() {
  nlohmann::json k;
  k["version"] = std::to_string(KOKKOS_VERSION / 10000) + "." +
                 std::to_string(KOKKOS_VERSION / 100 % 100) + "." +
                 std::to_string(KOKKOS_VERSION % 100);
  k["initialized"] = Kokkos::is_initialized();
  nlohmann::json spaces = nlohmann::json::array();
  for_each_kokkos_space([&](auto space) {
    using Exec = typename decltype(space)::execution_space;
    nlohmann::json s;
    s["backend"] = space.backend;
    s["name"] = Exec::name();
    if (Kokkos::is_initialized()) {
      s["concurrency"] = Exec().concurrency();
      s["device"] = kokkos_space_device<Exec>();
    }
    spaces.push_back(s);
  });
  k["execution_spaces"] = spaces;
  k["default_execution_space"] = Kokkos::DefaultExecutionSpace::name();
  return k;
}
}  // namespace

void register_backend_info(const std::string& backend, std::function<nlohmann::json()> describe) {
  describers()[backend] = std::move(describe);
}

std::vector<std::string> compiled_backends() {
  register_all_variants();
  std::vector<std::string> names{"kokkos"};
  for (const auto& [name, fn] : describers()) names.push_back(name);
  return names;
}

nlohmann::json build_info() {
  register_all_variants();
  nlohmann::json info;
  info["version"] = version_string();
  info["backends_compiled"] = compiled_backends();
  info["kokkos"] = kokkos_info();
  for (const auto& [name, describe] : describers()) {
    try {
      info[name] = describe();
    } catch (const std::exception& e) {
      info[name] = {{"error", e.what()}};
    }
  }
  return info;
}

const char* version_string() { return PPKIT_VERSION_STRING; }

}  // namespace ppkit
