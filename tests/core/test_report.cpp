// The compare report's human parts: the headline (best verified variant per
// case, Kokkos over native on one device), the console table (skipped rows
// collapsed, at most 160 columns) and the provenance of a run.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "ppkit/core/info.hpp"
#include "ppkit/core/provenance.hpp"
#include "ppkit/core/results.hpp"

namespace {
ppkit::CompareRow make_row(const std::string& case_name, const std::string& variant,
                           const std::string& device, double throughput) {
  ppkit::CompareRow r;
  r.workload = "sem";
  r.case_name = case_name;
  r.size = "16.00 M DOF";
  r.variant = variant;
  r.backend = variant.substr(0, variant.find('/'));
  // The variant's traits, as compare writes them (compare.hpp describe_variant).
  const std::map<std::string, std::pair<const char*, const char*>> traits = {
      {"kokkos-serial", {"kokkos", "host"}},
      {"kokkos-cuda", {"kokkos", "cuda"}},
      {"cuda", {"vendor", "cuda"}},
      {"hip", {"vendor", "hip"}},
      {"opencl", {"vendor", "none"}}};
  r.extra["strategy"] = variant.substr(variant.find('/') + 1);
  r.extra["model"] = traits.at(r.backend).first;
  r.extra["memory"] = traits.at(r.backend).second;
  r.device = device;
  r.throughput = throughput;
  r.throughput_unit = "DOF/s";
  r.timing.median_s = r.timing.min_s = r.timing.max_s = 1e6 / throughput;
  r.roofline_fraction = throughput * 1e-11;
  r.error = 1e-15;
  return r;
}

// Seeded random throughputs on a GPU (CUDA, Kokkos-CUDA and OpenCL on it) and a
// CPU (Kokkos Serial, OpenCL on PoCL), with a failing row faster than every
// other: the headline's best row and ratio against the ones found here by a
// plain search over the rows.
TEST(Report, HeadlineIsTheBestPassingRowAndKokkosOverNativeOnItsDevice) {
  std::mt19937 rng(2024);
  std::uniform_real_distribution<double> rate(1e9, 5e10);
  const char* gpu[][2] = {{"cuda/stored", "NVIDIA H200 (132 SMs, sm_90)"},
                          {"cuda/trilinear", "NVIDIA H200 (132 SMs, sm_90)"},
                          {"kokkos-cuda/stored", "NVIDIA H200 (132 SMs)"},
                          {"kokkos-cuda/trilinear", "NVIDIA H200 (132 SMs)"},
                          {"opencl/float4", "NVIDIA H200 (NVIDIA CUDA, 132 CUs)"},
                          {"kokkos-serial/stored", "CPU, 1 thread"}};
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<ppkit::CompareRow> rows;
    for (const std::string c : {"axhelm N=3", "axhelm N=7"})
      for (const auto& v : gpu) rows.push_back(make_row(c, v[0], v[1], rate(rng)));
    auto failed = make_row("axhelm N=3", "cuda/trilinear-wmma", gpu[0][1], 1e12);
    failed.status = "FAIL";
    rows.push_back(failed);
    auto skipped = make_row("axhelm N=7", "hip/stored", "", 2e12);
    skipped.status = "SKIP";
    rows.push_back(skipped);
    const auto h = ppkit::headline(rows);
    ASSERT_EQ(h.size(), 2u);
    for (const auto& line : h) {
      double best = 0, best_kokkos = 0, best_native = 0;
      std::string best_variant;
      for (const auto& r : rows) {
        if (r.status != "PASS" || ppkit::case_label(r) != line.case_label) continue;
        if (r.throughput > best) best = r.throughput, best_variant = r.variant;
      }
      // Every row of the best one's device (the H200 here: the CPU row is never
      // fastest at these rates unless drawn so; then the CPU has no native row).
      const bool best_on_cpu = best_variant == "kokkos-serial/stored";
      for (const auto& r : rows) {
        if (r.status != "PASS" || ppkit::case_label(r) != line.case_label) continue;
        if ((r.variant == "kokkos-serial/stored") != best_on_cpu) continue;
        double& slot = r.variant.rfind("kokkos-", 0) == 0 ? best_kokkos : best_native;
        slot = std::max(slot, r.throughput);
      }
      EXPECT_EQ(line.variant, best_variant);
      EXPECT_DOUBLE_EQ(line.throughput, best);
      EXPECT_DOUBLE_EQ(line.roofline_fraction, best * 1e-11);
      if (best_on_cpu)
        EXPECT_TRUE(std::isnan(line.kokkos_over_native));
      else
        EXPECT_DOUBLE_EQ(line.kokkos_over_native, best_kokkos / best_native);
    }
  }
}

// 40 CUDA rows that cannot run collapse into one line naming the backend, the
// count and the reason; no skipped variant appears on a line of its own; a
// case and an error message longer than the width are wrapped, and no line is
// wider than 160 columns.
TEST(Report, ConsoleTableCollapsesSkippedRowsAndFits160Columns) {
  std::vector<ppkit::CompareRow> rows;
  const std::string long_case(230, 'c');
  for (int i = 0; i < 4; ++i) {
    const std::string c = i == 0 ? long_case : "case " + std::to_string(i);
    rows.push_back(make_row(c, "kokkos-serial/stored", "CPU, 1 thread", 2e9 + i));
    for (int v = 0; v < 10; ++v) {
      auto skip = make_row(c, "cuda/variant-" + std::to_string(v), "", 1);
      skip.status = "SKIP";
      skip.message = "no CUDA device";
      rows.push_back(skip);
    }
  }
  auto error = make_row("case 1", "opencl/float4", "PoCL", 1);
  error.status = "ERROR";
  error.message = std::string(200, 'e') + " and a reason in words after it";
  rows.push_back(error);
  const std::string table = ppkit::console_table(rows, 160);
  std::istringstream lines(table);
  std::string line;
  int collapsed = 0, longest = 0;
  while (std::getline(lines, line)) {
    longest = std::max(longest, int(line.size()));
    EXPECT_EQ(line.find("cuda/variant-"), std::string::npos) << line;
    if (line.find("cuda: 10 variants skipped (40 rows): no CUDA device") != std::string::npos)
      ++collapsed;
  }
  EXPECT_EQ(collapsed, 1) << table;
  EXPECT_LE(longest, 160) << table;
  EXPECT_NE(table.find("a reason in words after it"), std::string::npos) << table;
  // The Markdown summary collapses them too; results.json keeps every row.
  ppkit::CompareOptions o;
  const auto md = ppkit::summary_markdown(rows, o, nlohmann::json::object());
  EXPECT_EQ(md.find("cuda/variant-"), std::string::npos);
  EXPECT_NE(md.find("- cuda: 10 variants skipped (40 rows): no CUDA device"), std::string::npos);
  EXPECT_EQ(ppkit::results_json(rows, o, nlohmann::json::object(), nlohmann::json::object())["rows"]
                .size(),
            rows.size());
}

// The provenance of a run: an ISO 8601 UTC date near now, the configured git
// commit (40 hex digits, or "unknown" outside a git checkout), the compiler,
// the CPU's core count and this process's own command line.
TEST(Report, ProvenanceRecordsDateCommitCompilerCpuAndCommand) {
  const auto p = ppkit::run_provenance(ppkit::build_info());
  EXPECT_TRUE(std::regex_match(p["date_utc"].get<std::string>(),
                               std::regex(R"(20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << p.dump();
  const auto commit = p["ppkit"]["git_commit"].get<std::string>();
  EXPECT_TRUE(commit == "unknown" || std::regex_match(commit, std::regex("[0-9a-f]{40}")))
      << commit;
  EXPECT_FALSE(p["compiler"]["cxx"].get<std::string>().empty());
  EXPECT_EQ(p["cpu"]["logical_cores"].get<int>(), int(std::thread::hardware_concurrency()));
  EXPECT_NE(p["command"].get<std::string>().find("ppkit_core_tests"), std::string::npos)
      << p["command"];
  EXPECT_EQ(p["kokkos"]["version"], ppkit::build_info()["kokkos"]["version"]);
  const std::string md = ppkit::provenance_markdown(p);
  EXPECT_NE(md.find("- command: `"), std::string::npos) << md;
}
}  // namespace
