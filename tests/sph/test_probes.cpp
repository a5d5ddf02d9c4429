// Water-height probes (probes.hpp): the depth along the line counts a thin
// front from its first particle layer, a column at rest reads its depth, and
// arrival times are interpolated between samples.
#include <gtest/gtest.h>

#include <cmath>

#include "ppkit/sph/cases.hpp"
#include "ppkit/sph/probes.hpp"

namespace ppkit::sph {
namespace {

TEST(SphProbes, ColumnAtRestReadsItsDepthAndDryProbesZero) {
  CaseOptions o;
  o.dp = 0.05;  // 11 layers: the lattice column is exactly 0.55 m deep
  o.tank_height = 0.7;
  const Case c = make_spheric_dambreak(o);
  const auto s = measure_probes(spheric_test2_probes(c.params), c.params, c.particles, 0.0);
  // Hydrostatic compression makes the volume (and the depth) 0.5% smaller at most.
  EXPECT_NEAR(s.height[3], 0.55 * (1 - 0.0025), 0.004);
  for (int h = 0; h < 3; ++h) EXPECT_EQ(s.height[h], 0.0) << "H" << h + 1;
}

TEST(SphProbes, OneParticleLayerIsSeenWithItsThickness) {
  // A film one particle thick on the floor around H2 (x = 0.992, y = 0.5): the
  // depth is dp; a rule that needs the fluid fraction to reach 1/2 reads 0.
  const double dp = 0.02;
  Domain d;
  d.hi[0] = 3.22;
  d.hi[2] = 1.5;
  const Parameters p = make_parameters(dp, 1.5, 10, 0.55, d);
  Particles s;
  for (int i = 0; i < 30; ++i)
    for (int j = 0; j < 30; ++j) {
      s.push_back(0.992 + (i - 14.5) * dp, 0.5 + (j - 14.5) * dp, 0.5 * dp, p.rho0, kFluid);
      for (int k = 0; k < 3; ++k)  // floor
        s.push_back(0.992 + (i - 14.5) * dp, 0.5 + (j - 14.5) * dp, -(k + 0.5) * dp, p.rho0,
                    kBoundary);
    }
  const auto sample = measure_probes(spheric_test2_probes(p), p, s, 0.0);
  EXPECT_NEAR(sample.height[1], dp, 0.02 * dp);
  EXPECT_EQ(sample.height[0], 0.0);
}

TEST(SphProbes, ArrivalIsInterpolatedBetweenSamples) {
  const std::vector<double> t = {0.0, 0.1, 0.2, 0.3};
  const std::vector<double> h = {0.0, 0.01, 0.03, 0.05};
  EXPECT_NEAR(arrival_time(t, h, 0.02), 0.15, 1e-12);
  EXPECT_EQ(arrival_time(t, h, -1.0), 0.0);
  EXPECT_TRUE(std::isnan(arrival_time(t, h, 0.06)));
}

}  // namespace
}  // namespace ppkit::sph
