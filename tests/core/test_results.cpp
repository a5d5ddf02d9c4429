#include <gtest/gtest.h>

#include "ppkit/core/results.hpp"

namespace {
ppkit::CompareRow sample_row() {
  ppkit::CompareRow r;
  r.workload = "fem";
  r.case_name = "box, \"distorted\"";
  r.variant = "cuda/warp-4tpr";
  r.backend = "cuda";
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
  base.timing.median_s = 1.0;
  auto fast = sample_row();
  fast.extra["strategy"] = "warp";
  fast.timing.median_s = 0.25;
  std::vector<ppkit::CompareRow> rows{base, fast};
  ppkit::compute_speedups(rows, "thread");
  EXPECT_DOUBLE_EQ(rows[1].speedup, 4.0);
  EXPECT_DOUBLE_EQ(rows[0].speedup, 1.0);
}

TEST(Results, SpeedupNeverCrossesDevices) {
  auto cpu_base = sample_row();
  cpu_base.backend = "kokkos-openmp";
  cpu_base.extra["strategy"] = "thread";
  cpu_base.timing.median_s = 1.0;
  auto gpu_base = cpu_base;
  gpu_base.backend = "kokkos-cuda";
  gpu_base.timing.median_s = 0.5;
  auto native = sample_row();  // backend "cuda", no baseline of its own
  native.extra["strategy"] = "warp";
  native.timing.median_s = 0.25;
  auto other = native;
  other.backend = "opencl";
  std::vector<ppkit::CompareRow> rows{cpu_base, gpu_base, native, other};
  ppkit::compute_speedups(rows, "thread");
  EXPECT_DOUBLE_EQ(rows[2].speedup, 2.0);  // over kokkos-cuda, not kokkos-openmp
  EXPECT_TRUE(std::isnan(rows[3].speedup));
}
}  // namespace
