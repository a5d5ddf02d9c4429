// Case files and built-in cases: clear errors for the mistakes users make.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "harness/figure_check.hpp"
#include "harness/variant_test.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/memory_check.hpp"
#include "ppkit/core/image_output.hpp"
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

// Numbers that would be undefined behaviour to convert (found by the case
// fuzzer: a node index of 2e71) are errors naming the key, not conversions.
TEST(FdtdCaseFile, RejectsNumbersOutOfTheirTypesRange) {
  auto j = valid_case();
  j["sources"][0]["node"] = json::parse("[2e71, 8, 6]");
  EXPECT_NE(error_of(j).find("key 'node' in"), std::string::npos) << error_of(j);
  EXPECT_NE(error_of(j).find("out of range"), std::string::npos) << error_of(j);
  j = valid_case();
  j["probes"][0]["node"] = json::parse("[10.5, 8, 6]");
  EXPECT_NE(error_of(j).find("out of range"), std::string::npos) << error_of(j);
  j = valid_case();
  j["steps"] = json::parse("18446744073709551615");
  EXPECT_NE(error_of(j).find("key 'steps'"), std::string::npos) << error_of(j);
  // Each count fits int64, their node count does not (found by the case fuzzer).
  j = valid_case();
  j["grid"]["cells"] = json::parse("[40, 32, 2087777777777777774]");
  EXPECT_NE(error_of(j).find("more nodes than any machine holds"), std::string::npos)
      << error_of(j);
}

// The boxes are painted into a per-node array while the case is read: a grid
// whose array does not fit the host is refused first, saying what it needs.
TEST(FdtdCaseFile, RefusesBoxesOnAGridTheHostCannotHold) {
  const memory::HostMemoryLimit one_gib(1024.0 * 1024 * 1024);
  auto j = valid_case();
  j["grid"]["cells"] = json::parse("[1000, 1000, 1000]");  // 4 GB of material ids
  EXPECT_NE(error_of(j).find("the material ids of the 1003003001 nodes"), std::string::npos)
      << error_of(j);
  EXPECT_NE(error_of(j).find("needs at least 3.74 GiB on host"), std::string::npos) << error_of(j);
  j.erase("boxes");  // no per-node array: read without allocating
  EXPECT_EQ(error_of(j), "");
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

json sar_case() {
  json j = valid_case();
  j["steps"] = 200;  // the 30 GHz pulse is over after about 62 steps
  j["materials"][0]["density"] = 2500;
  j["sar"] = json::parse(R"({"frequency": 3e10, "box_min": [10, 2, 2], "box_max": [18, 12, 10],
                              "summary": "sar.csv"})");
  return j;
}

// problem_from_json, then case_sar_from_json: the first error, or "".
std::string sar_error_of(const json& j) {
  try {
    const auto p = problem_from_json(j, "case.json");
    (void)case_sar_from_json(j, p, "case.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(FdtdCaseFile, ReadsASarSection) {
  const json j = sar_case();
  const auto p = problem_from_json(j, "case.json");
  ASSERT_EQ(p.phasors.frequencies, std::vector<double>{3e10});
  EXPECT_EQ(p.phasors.box.lo, (std::array<index_t, 3>{10, 2, 2}));
  EXPECT_EQ(p.phasors.box.hi, (std::array<index_t, 3>{18, 12, 10}));
  const auto sar = case_sar_from_json(j, p, "case.json");
  ASSERT_TRUE(sar.has_value());
  EXPECT_EQ(sar->density, (std::vector<double>{0, 2500, 0}));  // vacuum, glass, metal
  EXPECT_EQ(sar->summary, "sar.csv");
  EXPECT_TRUE(sar->vtk.empty() && sar->png.empty());
  // Glass fills nodes [12, 16) x [2, 10) x [2, 8): cells [12, 15) x [2, 9)
  // x [2, 7) have glass on all eight corners, the box's cells 2..4 along x.
  const SarInput in = case_sar_input(p, *sar, nullptr);
  ASSERT_EQ(in.rho.size(), std::size_t(7 * 9 * 7));
  auto rho = [&](int x, int y, int z) { return in.rho[std::size_t((x * 9 + y) * 7 + z)]; };
  auto sigma = [&](int x, int y, int z) { return in.sigma[std::size_t((x * 9 + y) * 7 + z)]; };
  EXPECT_EQ(rho(2, 0, 0), 2500.0f);
  EXPECT_EQ(rho(4, 6, 4), 2500.0f);
  EXPECT_EQ(rho(5, 0, 0), 0.0f);  // corners on nodes 15 (glass) and 16 (vacuum)
  EXPECT_EQ(rho(4, 7, 0), 0.0f);
  EXPECT_EQ(rho(4, 6, 5), 0.0f);
  EXPECT_EQ(rho(1, 0, 0), 0.0f);
  EXPECT_EQ(sigma(5, 0, 0), 0.0f);
  EXPECT_FALSE(case_sar_from_json(valid_case(), p, "case.json").has_value());
}

// source_spectrum (summed over the pulse's steps only) against the running
// DFT over every step of the run, for each waveform, pulses cut at the start
// (negative delay) and at the end of the run, and frequencies off the peak.
TEST(FdtdCaseFile, SourceSpectrumIsTheRunningDftOverEveryStep) {
  auto p = problem_from_json(valid_case(), "case.json");
  const double dt = p.grid.dt, f = 3e10;
  for (Waveform w : {Waveform::gaussian, Waveform::ricker, Waveform::modulated_gaussian})
    for (double delay : {-2 / f, 0.0, 3 / f, 40 / f})
      for (std::int64_t steps : {std::int64_t(60), std::int64_t(400)})
        for (double at : {0.5 * f, f, 2.2 * f}) {
          p.sources[0].waveform = w;
          p.sources[0].delay = delay;
          p.steps = steps;
          std::complex<double> sum = 0;
          for (std::int64_t n = 0; n < steps; ++n) {
            const double t = (double(n) + 0.5) * dt;
            const double v = dt * waveform_value(w, f, t - delay);
            sum += v * std::exp(std::complex<double>(0, -2 * 3.14159265358979323846 * at * t));
          }
          const std::complex<double> windowed = source_spectrum(p, at);
          // |w| <= 1: every sum is at most dt steps.
          EXPECT_LE(std::abs(windowed - sum), 1e-12 * dt * double(steps))
              << to_string(w) << ", delay " << delay << ", " << steps << " steps, " << at << " Hz";
        }
}

TEST(FdtdCaseFile, RejectsSarSectionsThatCannotBeComputed) {
  auto expect = [](const json& j, const std::string& fragment) {
    const std::string error = sar_error_of(j);
    EXPECT_NE(error.find(fragment), std::string::npos)
        << "expected '" << fragment << "', got '" << error << "'";
  };
  EXPECT_EQ(sar_error_of(sar_case()), "");
  auto j = sar_case();
  j["sar"]["freq"] = 1e9;
  expect(j, "unknown key 'freq' in case.json sar");
  j = sar_case();
  j["sar"].erase("box_max");
  expect(j, "only one of box_min and box_max");
  j = sar_case();
  j["sar"]["box_max"] = json::array({11, 12, 10});
  expect(j, "hold no whole cell");
  j = sar_case();
  j["sar"]["box_max"] = json::array({30, 12, 10});
  expect(j, "case.json sar:");
  j = sar_case();
  j["materials"][0]["density"] = -1;
  expect(j, "a finite density >= 0");
  j = sar_case();
  j["materials"][1]["density"] = 1000;
  expect(j, "not PEC");
  j = sar_case();
  j["materials"][0].erase("density");
  expect(j, "holds tissue");
  j = sar_case();
  j["grid"]["size"] = json::array({0.02, 0.016, 0.024});
  expect(j, "cubic cells");
  j = sar_case();
  j["sources"][0]["type"] = "hard";
  expect(j, "is a hard source");
  j = sar_case();
  j["sources"].push_back(j["sources"][0]);
  j["sources"][1]["delay"] = 1e-11;
  expect(j, "sources[1] differs from sources[0]");
  j = sar_case();
  j["sources"].clear();
  expect(j, "needs a source");
  j = sar_case();
  j["sources"][0]["delay"] = 1.0;
  expect(j, "lies outside the 200 steps of the run");
  j = sar_case();
  j["sources"][0]["frequency"] = 1e3;
  j["steps"] = 20'000'000;
  expect(j, "pulse spans 20000000 steps");
  j = sar_case();
  j["plane_wave"] = json::parse(R"({"box_min": [6, 6, 6], "box_max": [14, 10, 7],
      "direction": "+z", "polarisation": [1, 0, 0], "frequency": 3e10})");
  expect(j, "a plane wave in case.json with a \"sar\" section");
  j = sar_case();
  j["steps"] = 20;  // the 30 GHz Ricker peaks at 47 ps, step 27
  expect(j, "ends before the sources' pulse is over");
  j = sar_case();
  j["sar"]["interval"] = 8;  // folds 1/(8 dt) - f = 42 GHz, inside the pulse's band
  expect(j, "interval 8 in case.json sar folds");
  j["sar"]["interval"] = 2;  // folds 258 GHz and more: nothing there
  EXPECT_EQ(sar_error_of(j), "");
  j = sar_case();
  j["sar"]["frequency"] = 5e12;
  expect(j, "above the Nyquist frequency");
  j = sar_case();
  j["sar"]["frequency"] = 2.5e11;  // far above the 30 GHz pulse's band
  expect(j, "carries almost nothing at the SAR frequency");
}

TEST(FdtdCases, ProbeCsvHasTimeAndOneColumnPerProbe) {
  auto p = make_cavity_problem({0.1, 0.08, 0.06}, {10, 8, 6}, 5);
  const auto r = reference_step(p);
  const auto csv = probes_csv(p, r);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "time,ex(7 2 4),ey(7 2 4),ez(7 2 4)");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 6);
}
}  // namespace

namespace {
json case_with_outputs() {
  auto j = valid_case();
  j["snapshots"] = json::parse(R"([{"component": "ez", "normal": "z", "index": 6, "every": 10,
                                    "vtk": "out/ez", "png": "out/ez", "range": [-1, 1]}])");
  j["plane_wave"] = json::parse(R"({"box_min": [6, 6, 6], "box_max": [14, 10, 7],
                                    "direction": "-x", "polarisation": [0, 1, 1],
                                    "frequency": 3e10, "amplitude": 2})");
  return j;
}
}  // namespace

TEST(FdtdCaseFile, ReadsSnapshotsAndPlaneWave) {
  const auto p = problem_from_json(case_with_outputs(), "case.json");
  ASSERT_EQ(p.snapshots.size(), 1u);
  EXPECT_EQ(p.snapshots[0].normal, 2);
  EXPECT_EQ(p.snapshots[0].every, 10);
  EXPECT_EQ(p.snapshots[0].png_range[1], 1.0);
  ASSERT_EQ(p.plane_waves.size(), 1u);
  EXPECT_EQ(p.plane_waves[0].axis, 0);
  EXPECT_EQ(p.plane_waves[0].direction, -1);
  EXPECT_EQ(p.plane_waves[0].box_max[1], 10);
}

TEST(FdtdCaseFile, RejectsBadSnapshotsAndPlaneWaves) {
  auto j = case_with_outputs();
  j["snapshots"][0]["index"] = 13;  // nz = 12
  EXPECT_NE(error_of(j).find("snapshot plane z = 13 is outside the grid (valid: z index 0..12)"),
            std::string::npos)
      << error_of(j);
  j = case_with_outputs();
  j["snapshots"][0]["normal"] = "w";
  EXPECT_NE(error_of(j).find("unknown axis 'w' (valid: x, y, z)"), std::string::npos)
      << error_of(j);
  j = case_with_outputs();
  j["snapshots"][0]["evry"] = 3;
  EXPECT_NE(error_of(j).find("unknown key 'evry'"), std::string::npos) << error_of(j);
  j = case_with_outputs();
  j["snapshots"][0].erase("vtk");
  j["snapshots"][0].erase("png");
  EXPECT_NE(error_of(j).find("writes nothing"), std::string::npos) << error_of(j);
  j = case_with_outputs();
  j["plane_wave"]["direction"] = "x";
  EXPECT_NE(error_of(j).find("+x, -x, +y, -y, +z, -z"), std::string::npos) << error_of(j);
  j = case_with_outputs();
  j["plane_wave"]["polarisation"] = json::array({1, 0, 0});  // along the -x propagation
  EXPECT_NE(error_of(j).find("component along the propagation axis x"), std::string::npos)
      << error_of(j);
  j = case_with_outputs();
  j["plane_wave"]["box_min"] = json::array({3, 6, 6});  // in the 4-cell CPML
  EXPECT_NE(error_of(j).find("lower face lies in the CPML"), std::string::npos) << error_of(j);
}

TEST(FdtdSnapshots, CommandLineSpecs) {
  const auto s = parse_snapshot_spec("hy:x:7:25:out/hy_x7");
  EXPECT_EQ(s.component, Component::hy);
  EXPECT_EQ(s.normal, 0);
  EXPECT_EQ(s.index, 7);
  EXPECT_EQ(s.every, 25);
  EXPECT_EQ(s.vtk, "out/hy_x7");
  EXPECT_EQ(s.png, "out/hy_x7");
  EXPECT_TRUE(parse_snapshot_spec("ez:z:1:1:a:png").vtk.empty());
  EXPECT_THROW(parse_snapshot_spec("ez:z:1:1"), Error);
  EXPECT_THROW(parse_snapshot_spec("ez:z:one:1:a"), Error);
  EXPECT_THROW(parse_snapshot_spec("ez:z:1:1:a:jpg"), Error);
}

TEST(FdtdSnapshots, WritesVtiPvdAndPngFrames) {
  FdtdStep::Problem p;
  p.grid = make_grid(6, 5, 4, 6e-3, 5e-3, 4e-3);
  PlaneSnapshot s;
  s.component = Component::hx, s.normal = 1, s.index = 2;
  const std::string stem = ::testing::TempDir() + "ppkit_fdtd_snap";
  s.vtk = s.png = stem;
  std::vector<SnapshotFrame> frames{{0, 4, std::vector<float>(7 * 5)},
                                    {0, 9, std::vector<float>(7 * 5)}};
  std::mt19937 rng(ppkit::testing::test_seed());
  std::uniform_real_distribution<float> field(-0.3f, 0.3f);
  for (auto& f : frames)
    for (auto& v : f.values) v = field(rng);
  frames[1].values[3] = -0.25f;
  frames[1].values[20] = 0.5f;  // the peak: the PNG range is +-0.5
  const auto files = write_snapshot_files(p.grid, {s}, frames);
  ASSERT_EQ(files.size(), 5u);  // 2 vti, 2 png, 1 pvd
  const auto back = image::read_vti(stem + "_000010.vti");
  EXPECT_EQ(back.grid.points, (std::array<std::int64_t, 3>{7, 1, 5}));
  // Hx sits at (i, j + 1/2, k + 1/2): the plane j = 2 is at y = 2.5 dy.
  EXPECT_NEAR(back.grid.origin[1], 2.5e-3, 1e-12);
  EXPECT_NEAR(back.grid.origin[2], 0.5e-3, 1e-12);
  EXPECT_EQ(back.arrays[0].values[3], -0.25f);

  // The PNG: a figure of the (x, z) plane, 7 x 5 nodes of 1 mm, floor(640 / 7)
  // = 91 pixels each, x fastest in the frame, z up.
  const auto d = ppkit::testing::decode_png(stem + "_000005.png");
  ASSERT_EQ(d.error, "");
  const auto plot = ppkit::testing::find_plot_frame(d);
  ASSERT_EQ(plot.width, 7 * 91);
  ASSERT_EQ(plot.height, 5 * 91);
  for (int ib = 0; ib < 5; ++ib)
    for (int ia = 0; ia < 7; ++ia)
      EXPECT_EQ(d.pixel(plot.left + ia * 91 + 45, plot.top + (4 - ib) * 91 + 45),
                image::colour(image::ColourMap::coolwarm,
                              (frames[0].values[std::size_t(ib * 7 + ia)] + 0.5) / 1.0))
          << ia << " " << ib;
  EXPECT_TRUE(ppkit::testing::contains_text(d, "x [mm]"));
  EXPECT_TRUE(ppkit::testing::contains_text(d, "z [mm]", true));
  EXPECT_TRUE(ppkit::testing::contains_text(d, "hx [A/m]", true));
  // H after step 5 is H^{4.5}: t = 4.5 dt.
  EXPECT_TRUE(ppkit::testing::contains_text(
      d, "hx on y = 2.5 mm (index 2), step 5, t = " + image::format_si(4.5 * p.grid.dt, "s")));
  // Physical coordinates of Hx's nodes: x = 0 .. 6 mm (the axis from -0.5 mm),
  // z = 0.5 .. 4.5 mm (the axis 0 .. 5 mm): "0" under x = 0, 46 pixels in;
  // "5" beside the top edge, "0" beside the bottom edge.
  const auto digit = [](const char* t) { return ppkit::testing::text_mask(t, false); };
  const int label_row = plot.top + plot.height + 1 + 5 + 4;
  EXPECT_TRUE(ppkit::testing::text_at(d, digit("0"), plot.left + 46 - 5, label_row));
  const int left_label = plot.left - 1 - 5 - 4 - image::text_width("5");
  EXPECT_TRUE(
      ppkit::testing::text_at(d, digit("5"), left_label, plot.top - image::text_height / 2));
  EXPECT_TRUE(ppkit::testing::text_at(d, digit("0"), left_label,
                                      plot.top + plot.height - 1 - image::text_height / 2));
  for (const auto& f : files) std::remove(f.c_str());
}

namespace {
using namespace ppkit;
using namespace ppkit::fdtd;

// step_bytes (compulsory) against a hand count: a 4^3-cell cube (125 nodes)
// with a 1-cell CPML, 2 steps. Per step: six fields read + written (12 x 4 B
// per node = 6,000 B) and each psi value read + written: 4 psi arrays per axis
// in 2 layers of a 5 x 5 node face, 3 axes: 600 values x 8 B = 4,800 B.
TEST(FdtdStepBytes, CompulsoryBytesAreAHandCount) {
  auto p = make_benchmark_problem(4, 1, 2);
  ASSERT_EQ(p.grid.nodes(), 125);
  ASSERT_LE(p.materials.size(), 1u);  // vacuum: no material id is read
  EXPECT_DOUBLE_EQ(step_bytes(p), 2 * (125 * 12 * 4 + 600 * 2 * 4));  // 21,600 B
  // Three materials: a 1-byte id per node, read once per step.
  while (p.materials.size() < 3) p.materials.push_back(Material{2.0, 1.0, 0.0, false});
  p.material_id.assign(std::size_t(p.grid.nodes()), 1u);
  EXPECT_DOUBLE_EQ(step_bytes(p), 2 * (125 * (12 * 4 + 1) + 600 * 2 * 4));  // 21,850 B
  // fp64: 8-byte fields and psi, the id unchanged.
  p.precision = Precision::fp64;
  EXPECT_DOUBLE_EQ(step_bytes(p), 2 * (125 * (12 * 8 + 1) + 600 * 2 * 8));
  // The two-sweep model counts more (72 B of fields, the id twice, restart, energy).
  EXPECT_GT(step_modelled_bytes(p), step_bytes(p));
}

}  // namespace
