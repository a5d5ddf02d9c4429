// `ppkit info [--json]`: version, backends compiled, Kokkos spaces, devices.
#include <fmt/format.h>

#include <iostream>

#include "ppkit/command.hpp"
#include "ppkit/core/info.hpp"
#include "ppkit/core/runtime.hpp"

namespace {

void print_human(const nlohmann::json& info) {
  fmt::print("ppkit {}\n", info["version"].get<std::string>());
  std::string backends;
  for (const auto& b : info["backends_compiled"])
    backends += (backends.empty() ? "" : ", ") + b.get<std::string>();
  fmt::print("backends compiled: {}\n", backends);
  const auto& k = info["kokkos"];
  fmt::print("Kokkos {} (default execution space: {})\n", k["version"].get<std::string>(),
             k["default_execution_space"].get<std::string>());
  for (const auto& s : k["execution_spaces"])
    fmt::print("  {:<16} {:<8} concurrency {:>6}  {}\n", s["backend"].get<std::string>(),
               s["name"].get<std::string>(), s.value("concurrency", 0), s.value("device", ""));
  if (info.contains("opencl")) {
    fmt::print("OpenCL platforms:\n");
    for (const auto& p : info["opencl"]["platforms"]) {
      fmt::print("  {} ({})\n", p["platform"].get<std::string>(), p["version"].get<std::string>());
      for (const auto& d : p["devices"])
        fmt::print("    {} {}: {} compute units, {:.1f} GiB{}\n", d["type"].get<std::string>(),
                   d["name"].get<std::string>(), d["compute_units"].get<int>(),
                   d["global_memory_bytes"].get<double>() / (1 << 30),
                   d["double_precision"].get<bool>() ? ", fp64" : "");
    }
    if (info["opencl"]["platforms"].empty()) fmt::print("  none\n");
  }
  if (info.contains("cuda")) {
    const auto& c = info["cuda"];
    fmt::print("CUDA runtime {}, driver {}\n", c["runtime_version"].get<std::string>(),
               c["driver_version"].get<std::string>());
    for (const auto& d : c["devices"])
      fmt::print("  [{}] {}: compute capability {}, {} SMs, {:.1f} GiB, L2 {} MiB\n",
                 d["index"].get<int>(), d["name"].get<std::string>(),
                 d["compute_capability"].get<std::string>(), d["multiprocessors"].get<int>(),
                 d["memory_bytes"].get<double>() / (1 << 30), d["l2_bytes"].get<int>() >> 20);
    if (c.contains("status")) fmt::print("  {}\n", c["status"].get<std::string>());
  }
  if (info.contains("hip")) {
    const auto& h = info["hip"];
    fmt::print("HIP runtime {}, driver {}\n", h.value("runtime_version", "?"),
               h.value("driver_version", "?"));
    for (const auto& d : h.value("devices", nlohmann::json::array()))
      fmt::print("  [{}] {}: {}, {} CUs, wavefront {}, {:.1f} GiB\n", d.value("index", 0),
                 d.value("name", "?"), d.value("architecture", "?"), d.value("compute_units", 0),
                 d.value("wavefront_size", 0), d.value("memory_bytes", 0.0) / (1 << 30));
    if (h.contains("status")) fmt::print("  {}\n", h["status"].get<std::string>());
  }
}

void add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Show the build's backends, Kokkos spaces and devices");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print JSON instead of text");
  cmd->callback([json] {
    ppkit::Runtime runtime;
    const auto info = ppkit::build_info();
    if (*json)
      std::cout << info.dump(2) << "\n";
    else
      print_human(info);
  });
}

ppkit::cli::CommandRegistrar registrar{"info", add_info_command};
}  // namespace
