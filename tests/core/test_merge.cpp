// `ppkit compare --merge`: results of two platforms side by side and the
// performance-portability figure (Pennycook, Sewall & Lee 2016) against a hand
// computation. The first platform is a recorded host run (`ppkit compare
// --quick --workloads fem` on a 2-core host, data/host_fem_quick.json); the
// second is made here: a GPU on which some applications ran and others did not.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "ppkit/core/error.hpp"
#include "ppkit/core/results.hpp"

namespace {

nlohmann::json load(const std::string& name) {
  std::ifstream f(std::string(PPKIT_CORE_TEST_DATA) + "/" + name);
  EXPECT_TRUE(bool(f)) << name;
  return nlohmann::json::parse(f);
}

nlohmann::json gpu_row(const std::string& variant, const std::string& backend,
                       const std::string& case_name, double roofline, const char* status = "PASS") {
  return {{"workload", "fem"},
          {"case", case_name},
          {"size", ""},
          {"variant", variant},
          {"backend", backend},
          {"device", "Test GPU (made by hand)"},
          {"status", status},
          {"median_s", 1e-3},
          {"throughput", 1e8},
          {"throughput_unit", "elements/s"},
          {"roofline_fraction", roofline},
          // the variant's traits, as compare writes them (compare.hpp describe_variant)
          {"extra",
           {{"strategy", variant.substr(variant.find('/') + 1)},
            {"model", backend == "cuda" ? "vendor" : "kokkos"},
            {"memory", "cuda"}}}};
}

const ppkit::MergedResults::Portability* find(const ppkit::MergedResults& m,
                                              const std::string& app) {
  for (const auto& p : m.portability)
    if (p.workload == "fem" && p.application == app) return &p;
  return nullptr;
}

TEST(Merge, PerformancePortabilityIsTheHarmonicMeanOverPlatforms) {
  const auto host = load("host_fem_quick.json");
  // The host's efficiency of each Kokkos application: mean roofline fraction
  // over its passing fem rows (both box sizes), computed here from the file.
  std::map<std::string, std::pair<double, int>> host_sum;
  std::string host_device;
  for (const auto& r : host["rows"]) {
    if (r["status"] != "PASS" || !r["roofline_fraction"].is_number()) continue;
    const std::string v = r["variant"];
    ASSERT_EQ(v.rfind("kokkos-serial/", 0), 0u) << v;
    auto& s = host_sum["kokkos/" + v.substr(v.find('/') + 1)];
    s.first += r["roofline_fraction"].get<double>();
    ++s.second;
    host_device = r["device"];
  }
  ASSERT_GE(host_sum.size(), 2u);
  const double e_host_thread =
      host_sum["kokkos/thread-per-element"].first / host_sum["kokkos/thread-per-element"].second;
  const double e_host_team =
      host_sum["kokkos/team-4tpr"].first / host_sum["kokkos/team-4tpr"].second;

  nlohmann::json gpu = {{"rows", nlohmann::json::array()}};
  // thread-per-element: two cases on the GPU, efficiencies 0.1 and 0.3 (mean 0.2).
  gpu["rows"].push_back(gpu_row("kokkos-cuda/thread-per-element", "kokkos-cuda", "a", 0.1));
  gpu["rows"].push_back(gpu_row("kokkos-cuda/thread-per-element", "kokkos-cuda", "b", 0.3));
  // team-4tpr failed verification on the GPU: unsupported there, PP 0.
  gpu["rows"].push_back(gpu_row("kokkos-cuda/team-4tpr", "kokkos-cuda", "a", 0.5, "FAIL"));
  // A native CUDA application runs only on the GPU: PP 0 over both platforms.
  gpu["rows"].push_back(gpu_row("cuda/warp-4tpr", "cuda", "a", 0.6));

  const auto merged = ppkit::merge_results({{"host.json", host}, {"gpu.json", gpu}});
  ASSERT_EQ(merged.platforms.size(), 2u);
  EXPECT_EQ(merged.platforms[0], host_device);
  EXPECT_EQ(merged.platforms[1], "Test GPU (made by hand)");

  // Pennycook: PP = |H| / sum_i 1/e_i when supported on every platform of H.
  const auto* thread = find(merged, "kokkos/thread-per-element");
  ASSERT_NE(thread, nullptr);
  EXPECT_NEAR(thread->efficiency.at(host_device), e_host_thread, 1e-12);
  EXPECT_NEAR(thread->efficiency.at("Test GPU (made by hand)"), 0.2, 1e-12);
  EXPECT_NEAR(thread->pp, 2.0 / (1.0 / e_host_thread + 1.0 / 0.2), 1e-12);
  EXPECT_GT(thread->pp, 0.0);

  const auto* team = find(merged, "kokkos/team-4tpr");
  ASSERT_NE(team, nullptr);
  EXPECT_NEAR(team->efficiency.at(host_device), e_host_team, 1e-12);
  EXPECT_EQ(team->efficiency.count("Test GPU (made by hand)"), 0u);
  EXPECT_EQ(team->pp, 0.0);

  const auto* native = find(merged, "cuda/warp-4tpr");
  ASSERT_NE(native, nullptr);
  EXPECT_EQ(native->pp, 0.0);
  EXPECT_NEAR(native->efficiency.at("Test GPU (made by hand)"), 0.6, 1e-12);

  // The Markdown names both platforms and prints the figures.
  EXPECT_NE(merged.markdown.find("e(Test GPU (made by hand))"), std::string::npos);
  char pp_cell[32];
  std::snprintf(pp_cell, sizeof pp_cell, "| %.3f |", thread->pp);
  EXPECT_NE(merged.markdown.find(pp_cell), std::string::npos) << merged.markdown;
}

TEST(Merge, OnePlatformIsItsOwnEfficiencyAndBadFilesAreRejected) {
  nlohmann::json a = {{"rows", nlohmann::json::array()}};
  a["rows"].push_back(gpu_row("kokkos-cuda/thread-per-element", "kokkos-cuda", "a", 0.25));
  const auto merged = ppkit::merge_results({{"a.json", a}});
  ASSERT_EQ(merged.portability.size(), 1u);
  EXPECT_NEAR(merged.portability[0].pp, 0.25, 1e-12);
  EXPECT_THROW(ppkit::merge_results({{"x.json", nlohmann::json::object()}}), ppkit::Error);
}

}  // namespace
