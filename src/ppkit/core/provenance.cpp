#include "ppkit/core/provenance.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <thread>

#include "ppkit_provenance.hpp"

namespace ppkit {
namespace {

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

// The CPU model as the kernel reports it ("model name" in /proc/cpuinfo on
// x86, "Model"/"CPU part" elsewhere); "unknown" where there is no such file.
std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    if (key == "model name" || key == "Model" || key == "cpu model") {
      std::string value = line.substr(colon + 1);
      const auto start = value.find_first_not_of(' ');
      return start == std::string::npos ? std::string("unknown") : value.substr(start);
    }
  }
  return "unknown";
}

// The process's own argument vector (Linux /proc/self/cmdline: arguments
// separated by NUL), quoted where an argument holds a space or a shell
// character, so the line can be pasted back into a shell.
std::string command_line() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::string out, arg;
  auto flush = [&] {
    const bool plain =
        !arg.empty() && arg.find_first_of(" \t'\"*?$&;|<>()[]{}\\`!") == std::string::npos;
    std::string quoted = plain ? arg : "'";
    if (!plain) {
      for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      quoted += "'";
    }
    out += (out.empty() ? "" : " ") + quoted;
    arg.clear();
  };
  for (char c : all) {
    if (c == '\0')
      flush();
    else
      arg += c;
  }
  if (!arg.empty()) flush();
  return out;
}

}  // namespace

nlohmann::json run_provenance(const nlohmann::json& info) {
  nlohmann::json p;
  p["date_utc"] = utc_now();
  p["host"] = host_name();
  p["ppkit"] = {{"version", info.value("version", "")},
                {"git_commit", PPKIT_GIT_COMMIT},
                {"git_dirty", PPKIT_GIT_DIRTY < 0 ? nlohmann::json(nullptr)
                                                  : nlohmann::json(PPKIT_GIT_DIRTY == 1)},
                {"build_type", PPKIT_BUILD_TYPE},
                {"target", PPKIT_TARGET_NAME},
                {"backends_compiled", info.value("backends_compiled", nlohmann::json::array())}};
  p["compiler"] = {{"cxx", PPKIT_CXX_COMPILER}};
  if (std::string(PPKIT_CUDA_COMPILER).size()) p["compiler"]["cuda"] = PPKIT_CUDA_COMPILER;
  if (info.contains("kokkos")) {
    const auto& k = info["kokkos"];
    nlohmann::json spaces = nlohmann::json::array();
    for (const auto& s : k.value("execution_spaces", nlohmann::json::array()))
      spaces.push_back({{"name", s.value("name", "")},
                        {"backend", s.value("backend", "")},
                        {"concurrency", s.value("concurrency", 0)},
                        {"device", s.value("device", "")}});
    p["kokkos"] = {{"version", k.value("version", "")}, {"execution_spaces", spaces}};
  }
  p["cpu"] = {{"model", cpu_model()},
              {"logical_cores", static_cast<int>(std::thread::hardware_concurrency())}};
  for (const char* gpu_backend : {"cuda", "hip"}) {
    if (!info.contains(gpu_backend)) continue;
    const auto& c = info[gpu_backend];
    nlohmann::json g = {{"runtime", c.value("runtime_version", "")},
                        {"driver", c.value("driver_version", "")}};
    nlohmann::json gpus = nlohmann::json::array();
    for (const auto& d : c.value("devices", nlohmann::json::array())) gpus.push_back(d);
    g["gpus"] = gpus;
    if (c.contains("status")) g["status"] = c["status"];
    p[gpu_backend] = g;
  }
  if (info.contains("opencl")) {
    nlohmann::json platforms = nlohmann::json::array();
    for (const auto& pl : info["opencl"].value("platforms", nlohmann::json::array())) {
      nlohmann::json devices = nlohmann::json::array();
      for (const auto& d : pl.value("devices", nlohmann::json::array()))
        devices.push_back(d.value("type", "") + " " + d.value("name", ""));
      platforms.push_back({{"platform", pl.value("platform", "")},
                           {"version", pl.value("version", "")},
                           {"devices", devices}});
    }
    p["opencl"] = {{"platforms", platforms}, {"selected", info["opencl"].value("selected", "")}};
  }
  p["command"] = command_line();
  return p;
}

namespace {
std::string text(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}
std::string commit_text(const nlohmann::json& p) {
  if (!p.contains("ppkit")) return "unknown";
  const auto& b = p["ppkit"];
  std::string commit = text(b, "git_commit");
  if (commit.size() > 12) commit = commit.substr(0, 12);
  if (b.contains("git_dirty") && b["git_dirty"].is_boolean())
    commit += b["git_dirty"].get<bool>() ? " dirty" : "";
  return commit.empty() ? "unknown" : commit;
}
std::string kokkos_text(const nlohmann::json& p) {
  if (!p.contains("kokkos")) return "";
  std::string spaces;
  for (const auto& s : p["kokkos"].value("execution_spaces", nlohmann::json::array()))
    spaces +=
        (spaces.empty() ? "" : ", ") + text(s, "name") + fmt::format(" ({})", text(s, "device"));
  return text(p["kokkos"], "version") + ", execution spaces: " + spaces;
}
std::string gpu_text(const nlohmann::json& g) {
  std::string gpus;
  for (const auto& d : g.value("gpus", nlohmann::json::array()))
    gpus += (gpus.empty() ? "" : ", ") + d.value("name", std::string("?"));
  return fmt::format(
      "runtime {}, driver {}; {}", text(g, "runtime"), text(g, "driver"),
      gpus.empty() ? text(g, "status").empty() ? "no device" : text(g, "status") : gpus);
}
}  // namespace

std::string provenance_markdown(const nlohmann::json& p) {
  std::string md;
  auto item = [&](const std::string& key, const std::string& value) {
    if (!value.empty()) md += "- " + key + ": " + value + "\n";
  };
  item("date (UTC)", text(p, "date_utc"));
  item("host", text(p, "host"));
  if (p.contains("ppkit"))
    item("ppkit", text(p["ppkit"], "version") + ", commit " + commit_text(p) +
                      " (at configure time; \"dirty\": tracked files differed from it), " +
                      text(p["ppkit"], "build_type") + " build, target " +
                      text(p["ppkit"], "target"));
  if (p.contains("compiler"))
    item("compiler", text(p["compiler"], "cxx") + (p["compiler"].contains("cuda")
                                                       ? "; CUDA " + text(p["compiler"], "cuda")
                                                       : std::string()));
  item("Kokkos", kokkos_text(p));
  if (p.contains("cpu"))
    item("CPU", fmt::format("{}, {} logical cores", text(p["cpu"], "model"),
                            p["cpu"].value("logical_cores", 0)));
  if (p.contains("cuda")) item("CUDA", gpu_text(p["cuda"]));
  if (p.contains("hip")) item("HIP", gpu_text(p["hip"]));
  if (p.contains("opencl")) {
    std::string platforms;
    for (const auto& pl : p["opencl"].value("platforms", nlohmann::json::array())) {
      std::string devices;
      for (const auto& d : pl.value("devices", nlohmann::json::array()))
        devices += (devices.empty() ? "" : ", ") + d.get<std::string>();
      platforms += (platforms.empty() ? "" : "; ") + text(pl, "platform") + " (" +
                   text(pl, "version") + "): " + devices;
    }
    item("OpenCL", (platforms.empty() ? std::string("no platform") : platforms) +
                       (text(p["opencl"], "selected").empty()
                            ? std::string()
                            : "; selected " + text(p["opencl"], "selected")));
  }
  if (!text(p, "command").empty()) md += "- command: `" + text(p, "command") + "`\n";
  return md;
}

std::string provenance_line(const nlohmann::json& p) {
  std::string line = "ppkit " + (p.contains("ppkit") ? text(p["ppkit"], "version") : "?") + " (" +
                     commit_text(p) + ")";
  if (p.contains("compiler")) line += ", " + text(p["compiler"], "cxx");
  if (p.contains("kokkos")) {
    std::string spaces;
    for (const auto& s : p["kokkos"].value("execution_spaces", nlohmann::json::array()))
      spaces += (spaces.empty() ? "" : ",") + text(s, "name");
    line += ", Kokkos " + text(p["kokkos"], "version") + " [" + spaces + "]";
  }
  if (p.contains("cuda")) {
    std::string gpus;
    for (const auto& d : p["cuda"].value("gpus", nlohmann::json::array()))
      gpus += (gpus.empty() ? "" : ",") + d.value("name", std::string("?"));
    if (!gpus.empty()) line += ", CUDA " + text(p["cuda"], "runtime") + " on " + gpus;
  }
  line += ", " + text(p, "host") + ", " + text(p, "date_utc");
  return line;
}

}  // namespace ppkit
