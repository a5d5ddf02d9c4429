// SAR: averaging cubes of a uniform field, cell-centre interpolation, and the
// plane-wave half-space against the analytic transmission and attenuation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "harness/figure_check.hpp"
#include "harness/variant_test.hpp"
#include "ppkit/fdtd/halfspace.hpp"
#include "ppkit/fdtd/sar.hpp"

namespace {
using namespace ppkit;
using namespace ppkit::fdtd;

TEST(FdtdSar, AveragingCubeOfUniformSarReturnsThatValue) {
  std::mt19937 rng(ppkit::testing::test_seed());
  std::uniform_real_distribution<double> unit(0.5, 1.5);
  const std::array<index_t, 3> n{21, 19, 23};
  const double value = 1.7 * unit(rng), h = 2e-3;
  const std::size_t count = std::size_t(n[0] * n[1] * n[2]);
  std::vector<float> sar(count, float(value)), rho(count);
  for (auto& r : rho) r = float(1000 * unit(rng));  // the mass varies, the SAR does not
  for (double mass : {1e-3, 1e-2}) {
    const auto averaged = averaged_sar(sar, rho, n, h, mass, {false, false, false});
    int valid = 0;
    for (float v : averaged)
      if (v == v) {
        ++valid;
        EXPECT_NEAR(v, value, 1e-5 * value);
      }
    EXPECT_GT(valid, 0) << mass << " kg";
  }
  // Periodic axes wrap: every cell of a thin periodic column has a valid cube.
  const std::array<index_t, 3> column{2, 2, 40};
  std::vector<float> sar_col(160, float(value)), rho_col(160, 1000.0f);
  const auto wrapped = averaged_sar(sar_col, rho_col, column, h, 1e-3, {true, true, false});
  EXPECT_NEAR(wrapped[std::size_t(20)], value, 1e-5 * value);
}

TEST(FdtdSar, CubesWithTooMuchBackgroundAreInvalid) {
  // A tissue slab of 3 cells in a box of air: a 1 g cube (10 mm at 1 mm cells)
  // would hold far more than 10 % air, so no cube is valid.
  const std::array<index_t, 3> n{20, 20, 20};
  std::vector<float> sar(8000, 1.0f), rho(8000, 0.0f);
  for (index_t i = 0; i < 20; ++i)
    for (index_t j = 0; j < 20; ++j)
      for (index_t k = 9; k < 12; ++k) rho[std::size_t((i * 20 + j) * 20 + k)] = 1000;
  const auto averaged = averaged_sar(sar, rho, n, 1e-3, 1e-3, {false, false, false});
  for (float v : averaged) EXPECT_TRUE(std::isnan(v));
}

TEST(FdtdSar, PointSarUsesCellCentreField) {
  // Uniform Ex phasor P on every node: |E| = scale |P| at every cell centre.
  YeeGrid g = make_grid(3, 3, 3, 3e-3, 3e-3, 3e-3);
  PhasorConfig c;
  c.frequencies = {1e9};
  PhasorSet p = make_phasor_set(c, g);
  for (index_t b = 0; b < p.box_nodes(); ++b) {
    p.re[std::size_t(b)] = 3;  // component 0 (Ex), frequency 0
    p.im[std::size_t(b)] = 4;
  }
  SarInput in;
  in.phasors = &p;
  in.amplitude_scale = 2;
  in.dx = in.dy = in.dz = 1e-3;
  in.sigma.assign(27, 0.5f);
  in.rho.assign(27, 1000.0f);
  const SarMaps maps = compute_sar(in);
  for (float e : maps.e_peak) EXPECT_NEAR(e, 10.0, 1e-5);
  for (float s : maps.point_sar) EXPECT_NEAR(s, 0.5 * 100 / 2000.0, 1e-7);
  EXPECT_NEAR(maps.whole_body_sar, 0.025, 1e-7);
}

TEST(FdtdSar, PngFigureShowsTheMiddleSliceInWattsPerKilogram) {
  // Uniform Ex, random conductivity: a point SAR that varies cell by cell.
  YeeGrid g = make_grid(3, 4, 3, 3e-3, 4e-3, 3e-3);
  PhasorConfig c;
  c.frequencies = {9e8};
  PhasorSet p = make_phasor_set(c, g);
  for (index_t b = 0; b < p.box_nodes(); ++b) p.re[std::size_t(b)] = 1, p.im[std::size_t(b)] = 0;
  SarInput in;
  in.phasors = &p;
  in.dx = in.dy = in.dz = 1e-3;
  std::mt19937 rng(ppkit::testing::test_seed());
  std::uniform_real_distribution<float> sigma(0.1f, 2.0f);
  in.sigma.resize(36);
  for (auto& v : in.sigma) v = sigma(rng);
  in.rho.assign(36, 1000.0f);
  const SarMaps maps = compute_sar(in);
  ASSERT_EQ(maps.cells, (std::array<index_t, 3>{3, 4, 3}));
  const std::string path = ::testing::TempDir() + "ppkit_sar_slice.png";
  write_sar_png(path, maps);
  const auto d = ppkit::testing::decode_png(path);
  ASSERT_EQ(d.error, "");
  // 3 x 3 cells of 1 mm: floor(640 / 3) = 213 pixels each.
  const auto plot = ppkit::testing::find_plot_frame(d);
  EXPECT_EQ(plot.width, 3 * 213);
  EXPECT_EQ(plot.height, 3 * 213);
  double peak = 0;  // over the slice j = 4 / 2 = 2
  for (index_t i = 0; i < 3; ++i)
    for (index_t k = 0; k < 3; ++k)
      peak = std::max(peak, double(maps.point_sar[std::size_t(maps.cell(i, 2, k))]));
  for (index_t i = 0; i < 3; ++i)
    for (index_t k = 0; k < 3; ++k) {
      const double v = maps.point_sar[std::size_t(maps.cell(i, 2, k))];
      EXPECT_EQ(d.pixel(plot.left + int(i) * 213 + 106, plot.top + int(2 - k) * 213 + 106),
                image::colour(image::ColourMap::viridis, v / peak))
          << i << " " << k;
    }
  EXPECT_TRUE(ppkit::testing::contains_text(d, "SAR [W/kg]", true));
  EXPECT_TRUE(ppkit::testing::contains_text(d, "x [mm]"));
  EXPECT_TRUE(ppkit::testing::contains_text(d, "z [mm]", true));
  EXPECT_TRUE(
      ppkit::testing::contains_text(d, "point SAR on the x-z slice y = 2.5 mm, f = 900 MHz"));
  std::remove(path.c_str());
}

TEST(FdtdSar, HalfspaceMatchesFresnelTransmissionAndAttenuation) {
  // Muscle-like tissue at 900 MHz, 20 cells per wavelength in the medium.
  HalfspaceSpec spec;
  spec.eps_r = 55;
  spec.sigma = 0.95;
  spec.rho = 1050;
  spec.frequency = 900e6;
  spec.cells_per_wavelength = 20;
  const HalfspaceModel model = make_halfspace(spec);
  const auto medium = reference_step(model.medium);
  const auto incident = reference_step(model.incident);
  const HalfspaceSar sar = halfspace_sar(model, medium, incident);
  ASSERT_FALSE(sar.depth.empty());
  // Within one penetration depth (SAR falls by e^-2) the error stays < 3 %;
  // within two, < 6 %. It grows with depth because the discrete Yee
  // attenuation constant exceeds the exact one by ~ Re/Im of (k dz)^2 / 24
  // (about 1.2 % at 20 cells per wavelength), see docs/fdtd.md.
  const double skin = 1 / lossy_alpha(spec);
  double worst = 0, worst_one = 0;
  int compared = 0;
  for (std::size_t q = 0; q < sar.depth.size(); ++q) {
    if (sar.depth[q] > 2 * skin) break;
    const double exact = halfspace_sar_analytic(spec, sar.depth[q]);
    const double error = std::abs(sar.sar[q] - exact) / exact;
    worst = std::max(worst, error);
    if (sar.depth[q] <= skin) worst_one = std::max(worst_one, error);
    ++compared;
  }
  EXPECT_GT(compared, 20);
  EXPECT_LT(worst_one, 0.03) << "worst relative SAR error within one penetration depth";
  EXPECT_LT(worst, 0.06) << "worst relative SAR error within two penetration depths";
  std::cout << "half-space SAR: worst relative error " << worst_one << " within one and " << worst
            << " within two penetration depths (" << compared << " cells); surface SAR "
            << sar.sar[0] << " W/kg (analytic " << halfspace_sar_analytic(spec, sar.depth[0])
            << ")\n";
}

}  // namespace
