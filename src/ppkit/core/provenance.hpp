#pragma once
// Where a `ppkit compare` report came from: when and where it ran, which build
// (version, git commit, compiler), which Kokkos and devices, and the exact
// command line, so a figure can be traced and reproduced (DESIGN.md, Results).
#include <nlohmann/json.hpp>
#include <string>

namespace ppkit {

// {"date_utc", "host", "ppkit": {"version", "git_commit", "git_dirty",
//  "build_type", "target"}, "compiler": {"cxx", "cuda"}, "kokkos": {"version",
//  "execution_spaces": [...]}, "cpu": {"model", "logical_cores"},
//  "cuda": {"runtime", "driver", "gpus": [...]} (CUDA builds), "hip": {...},
//  "opencl": [{"platform", "version", "devices": [...]}], "command": "..."}.
// `build_info` is ppkit::build_info() (what `ppkit info` shows): the device
// parts are taken from it, as the backends report them.
nlohmann::json run_provenance(const nlohmann::json& build_info);

// The provenance as Markdown lines ("- date (UTC): ...").
std::string provenance_markdown(const nlohmann::json& provenance);

// One line for the console: "ppkit 0.1.0 (a1b2c3d4e5f6, dirty), GNU 12.2.0, Kokkos 3.4.1 [Serial],
// ...".
std::string provenance_line(const nlohmann::json& provenance);

}  // namespace ppkit
