#include <gtest/gtest.h>

#include "ppkit/core/results.hpp"

namespace {
ppkit::CompareRow sample_row() {
  ppkit::CompareRow r;
  r.workload = "fem";
  r.case_name = "box, \"distorted\"";
  r.variant = "cuda/warp-4tpr";
  r.backend = "cuda";
  r.extra["model"] = "vendor";  // the variant's traits (compare.hpp describe_variant)
  r.extra["memory"] = "cuda";
  r.extra["role"] = "tuned";
  r.timing.median_s = 0.25;
  r.timing.min_s = 0.2;
  r.timing.max_s = 0.3;
  r.throughput = 4e9;
  r.throughput_unit = "elements/s";
  r.error = 1e-14;
  return r;
}

TEST(Results, JsonRoundTripKeepsEveryFigure) {
  const auto r = sample_row();
  const auto back = ppkit::row_from_json(ppkit::to_json(r));
  EXPECT_EQ(back.case_name, r.case_name);
  EXPECT_DOUBLE_EQ(back.timing.median_s, 0.25);
  EXPECT_DOUBLE_EQ(back.throughput, 4e9);
  EXPECT_TRUE(std::isnan(back.roofline_fraction));  // unknown stays unknown
}

TEST(Results, CsvQuotesFieldsWithCommasAndQuotes) {
  const std::string csv = ppkit::results_csv({sample_row()});
  EXPECT_NE(csv.find("\"box, \"\"distorted\"\"\""), std::string::npos) << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 2);
}

TEST(Results, RatesUseSiPrefixes) {
  EXPECT_EQ(ppkit::format_rate(4.2e9, "elements/s"), "4.2 Gelements/s");
  EXPECT_EQ(ppkit::format_rate(std::nan(""), "x"), "-");
}

TEST(Results, SpeedupIsOverTheBaselineOfTheSameBackend) {
  auto base = sample_row();
  base.extra["strategy"] = "thread";
  base.extra["role"] = "baseline";
  base.timing.median_s = 1.0;
  auto fast = sample_row();
  fast.extra["strategy"] = "warp";
  fast.timing.median_s = 0.25;
  std::vector<ppkit::CompareRow> rows{base, fast};
  ppkit::compute_speedups(rows);
  EXPECT_DOUBLE_EQ(rows[1].speedup, 4.0);
  EXPECT_DOUBLE_EQ(rows[0].speedup, 1.0);
}

TEST(Results, SpeedupNeverCrossesDevices) {
  auto cpu_base = sample_row();
  cpu_base.backend = "kokkos-openmp";
  cpu_base.extra["model"] = "kokkos";
  cpu_base.extra["memory"] = "host";
  cpu_base.extra["strategy"] = "thread";
  cpu_base.extra["role"] = "baseline";
  cpu_base.timing.median_s = 1.0;
  auto gpu_base = cpu_base;
  gpu_base.backend = "kokkos-cuda";
  gpu_base.extra["memory"] = "cuda";
  gpu_base.timing.median_s = 0.5;
  auto native = sample_row();  // backend "cuda", no baseline of its own
  native.extra["strategy"] = "warp";
  native.timing.median_s = 0.25;
  auto other = native;
  other.backend = "opencl";
  other.extra["memory"] = "none";
  std::vector<ppkit::CompareRow> rows{cpu_base, gpu_base, native, other};
  ppkit::compute_speedups(rows);
  EXPECT_DOUBLE_EQ(rows[2].speedup, 2.0);  // over kokkos-cuda, not kokkos-openmp
  EXPECT_TRUE(std::isnan(rows[3].speedup));
}

// A failed or errored row has a median time but publishes no throughput,
// roofline or speedup in any output (JSON, CSV, table).
TEST(Results, FailedRowsPublishNoFigures) {
  for (const char* status : {"FAIL", "ERROR"}) {
    auto r = sample_row();
    r.status = status;
    r.roofline_fraction = 0.8;
    r.speedup = 3.0;
    r.extra["modelled_bytes"] = 1e9;
    r.extra["prepare_s"] = 1.25;
    r.extra["first_run_s"] = 0.5;
    r.extra["total_1_s"] = 1.75;
    r.extra["total_10_s"] = 4.0;
    const auto j = ppkit::to_json(r);
    EXPECT_TRUE(j["throughput"].is_null()) << status;
    EXPECT_TRUE(j["roofline_fraction"].is_null()) << status;
    EXPECT_TRUE(j["speedup"].is_null()) << status;
    EXPECT_FALSE(j["extra"].contains("modelled_bytes")) << status;
    for (const char* key : {"prepare_s", "first_run_s", "total_1_s", "total_10_s"})
      EXPECT_FALSE(j["extra"].contains(key)) << status << " " << key;
    EXPECT_DOUBLE_EQ(j["median_s"].get<double>(), 0.25);  // the timing stays
    const std::string csv = ppkit::results_csv({r});
    const std::string line = csv.substr(csv.find('\n') + 1);
    EXPECT_EQ(line.find("4e+09"), std::string::npos) << line;
    EXPECT_EQ(line.find(",0.8,"), std::string::npos) << line;
    EXPECT_EQ(line.find("1.25"), std::string::npos) << line;
    const std::string table = ppkit::results_table({r}, false);
    EXPECT_EQ(table.find("elements/s"), std::string::npos) << table;
    EXPECT_EQ(table.find("80%"), std::string::npos) << table;
    EXPECT_EQ(table.find("3.00x"), std::string::npos) << table;
    EXPECT_EQ(table.find("1.25 s"), std::string::npos) << table;
  }
  auto pass = sample_row();
  pass.roofline_fraction = 0.8;
  const auto j = ppkit::to_json(pass);
  EXPECT_DOUBLE_EQ(j["throughput"].get<double>(), 4e9);
  EXPECT_DOUBLE_EQ(j["roofline_fraction"].get<double>(), 0.8);
  EXPECT_NE(ppkit::results_table({pass}, false).find("80%"), std::string::npos);
  // A passing row's set-up: in the JSON, the CSV's last three columns and the table.
  pass.extra["prepare_s"] = 1.25;
  pass.extra["total_1_s"] = 1.75;
  pass.extra["total_10_s"] = 4.0;
  EXPECT_DOUBLE_EQ(ppkit::to_json(pass)["extra"]["total_10_s"].get<double>(), 4.0);
  const std::string csv = ppkit::results_csv({pass});
  EXPECT_NE(csv.find(",message,prepare_s,total_1_s,total_10_s\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",1.25,1.75,4\n"), std::string::npos) << csv;
  EXPECT_NE(ppkit::results_table({pass}, false).find("1.25 s / 1.75 s / 4 s"), std::string::npos);
}

// Speedups need a passing baseline and are given to passing rows only.
TEST(Results, SpeedupNeedsAPassingBaselineAndAPassingRow) {
  auto base = sample_row();
  base.extra["strategy"] = "thread";
  base.extra["role"] = "baseline";
  base.timing.median_s = 1.0;
  auto fast = sample_row();
  fast.extra["strategy"] = "warp";
  fast.timing.median_s = 0.25;
  auto wrong = fast;
  wrong.status = "FAIL";
  wrong.timing.median_s = 0.1;
  std::vector<ppkit::CompareRow> rows{base, fast, wrong};
  ppkit::compute_speedups(rows);
  EXPECT_DOUBLE_EQ(rows[1].speedup, 4.0);
  EXPECT_TRUE(std::isnan(rows[2].speedup));  // FAIL: no speedup
  rows[0].status = "FAIL";                   // the baseline itself is wrong
  for (auto& r : rows) r.speedup = std::nan("");
  ppkit::compute_speedups(rows);
  for (const auto& r : rows) EXPECT_TRUE(std::isnan(r.speedup)) << r.variant << " " << r.status;
  // A passing baseline on the same device family still serves.
  auto other_base = base;
  other_base.backend = "kokkos-cuda";
  other_base.extra["model"] = "kokkos";
  other_base.timing.median_s = 0.5;
  rows.push_back(other_base);
  ppkit::compute_speedups(rows);
  EXPECT_DOUBLE_EQ(rows[1].speedup, 2.0);
  EXPECT_TRUE(std::isnan(rows[0].speedup));
}
}  // namespace
