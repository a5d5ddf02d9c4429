// Case files and built-in cases: clear errors for the mistakes users make.
#include <gtest/gtest.h>

#include "ppkit/core/error.hpp"
#include "ppkit/fdtd/cases.hpp"

namespace {
using namespace ppkit;
using namespace ppkit::fdtd;
using nlohmann::json;

json valid_case() {
  return json::parse(R"({
    "grid": {"cells": [20, 16, 12], "size": [0.02, 0.016, 0.012], "courant": 0.9},
    "steps": 30,
    "energy_interval": 10,
    "materials": [{"name": "glass", "eps_r": 4.0}, {"name": "metal", "pec": true}],
    "boxes": [{"material": "glass", "min": [12, 2, 2], "max": [16, 10, 8]}],
    "cpml": {"thickness": 4, "order": 3},
    "sources": [{"component": "ez", "node": [8, 8, 6], "waveform": "ricker", "frequency": 3e10}],
    "probes": [{"component": "ez", "node": [10, 8, 6]}, {"component": "hy", "position": [0.011, 0.008, 0.006], "name": "hy_probe"}]
  })");
}

std::string error_of(const json& j) {
  try {
    problem_from_json(j, "case.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(FdtdCaseFile, ReadsAValidCase) {
  const auto p = problem_from_json(valid_case(), "case.json");
  EXPECT_EQ(p.grid.nx, 20);
  EXPECT_NEAR(p.grid.courant_number(), 0.9, 1e-12);
  EXPECT_EQ(p.materials.size(), 3u);
  EXPECT_EQ(p.material_id[std::size_t(p.grid.index(13, 3, 3))], 1u);
  EXPECT_EQ(p.material_id[std::size_t(p.grid.index(3, 3, 3))], 0u);
  EXPECT_EQ(p.probes[1].i, 11);
  EXPECT_EQ(p.cpml.thickness, 4);
}

TEST(FdtdCaseFile, RejectsUnknownKeys) {
  auto j = valid_case();
  j["grid"]["cellz"] = 3;
  EXPECT_NE(error_of(j).find("unknown key 'cellz'"), std::string::npos) << error_of(j);
  j = valid_case();
  j["sources"][0]["freq"] = 1e9;
  EXPECT_NE(error_of(j).find("unknown key 'freq' in case.json sources[0]"), std::string::npos)
      << error_of(j);
}

TEST(FdtdCaseFile, RejectsProbesOutsideTheGrid) {
  auto j = valid_case();
  j["probes"][0]["node"] = json::array({25, 8, 6});
  EXPECT_NE(error_of(j).find("is outside the grid"), std::string::npos) << error_of(j);
}

TEST(FdtdCaseFile, RejectsCourantAboveTheLimit) {
  auto j = valid_case();
  j["grid"]["courant"] = 1.2;
  EXPECT_NE(error_of(j).find("above the 3D stability limit"), std::string::npos) << error_of(j);
  j = valid_case();
  j["grid"].erase("courant");
  j["grid"]["dt"] = 1e-11;
  EXPECT_NE(error_of(j).find("above the 3D stability limit"), std::string::npos) << error_of(j);
}

TEST(FdtdCaseFile, RejectsOtherMistakes) {
  auto j = valid_case();
  j["boxes"][0]["material"] = "gold";
  EXPECT_NE(error_of(j).find("unknown material 'gold'"), std::string::npos);
  j = valid_case();
  j["sources"][0]["waveform"] = "square";
  EXPECT_NE(error_of(j).find("unknown waveform 'square'"), std::string::npos);
  j = valid_case();
  j["cpml"]["thickness"] = 7;
  EXPECT_NE(error_of(j).find("leaves no interior"), std::string::npos);
  j = valid_case();
  j["sources"][0]["node"] = json::array({0, 8, 6});
  EXPECT_NE(error_of(j).find("PEC boundary"), std::string::npos);
  j = valid_case();
  j.erase("steps");
  EXPECT_NE(error_of(j).find("missing key 'steps'"), std::string::npos);
}

TEST(FdtdCases, ProbeCsvHasTimeAndOneColumnPerProbe) {
  auto p = make_cavity_problem({0.1, 0.08, 0.06}, {10, 8, 6}, 5);
  const auto r = reference_step(p);
  const auto csv = probes_csv(p, r);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "time,ex(7 2 4),ey(7 2 4),ez(7 2 4)");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 6);
}
}  // namespace
