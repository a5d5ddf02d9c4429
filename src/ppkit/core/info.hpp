#pragma once
// What this build and this machine offer: `ppkit info`, ppkit_info_json().
// Backends that were configured add a describer (devices, platforms);
// Kokkos is always described.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ppkit {

// Called at registration time by a backend (backends/<name>/core).
void register_backend_info(const std::string& backend, std::function<nlohmann::json()> describe);

// Names of the backends compiled into this build ("kokkos", "cuda", "opencl").
std::vector<std::string> compiled_backends();

// {"version", "backends_compiled", "kokkos": {...}, "<backend>": {...}}.
nlohmann::json build_info();

const char* version_string();

}  // namespace ppkit
