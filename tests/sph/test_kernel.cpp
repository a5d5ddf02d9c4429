// Wendland C2 kernel: normalisation and gradient consistency.
#include <gtest/gtest.h>

#include <cmath>

#include "ppkit/sph/reference.hpp"

namespace {
using ppkit::sph::reference::wendland;
using ppkit::sph::reference::wendland_derivative;

// The integral of W over its support is 1: 4 pi int_0^2h W r^2 dr (Simpson, 2000 intervals).
TEST(SphKernel, IntegratesToOne) {
  for (double h : {0.01, 0.03, 1.0}) {
    const int n = 2000;
    const double b = 2 * h, dr = b / n;
    double sum = 0;
    for (int i = 0; i <= n; ++i) {
      const double r = i * dr;
      const double w = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
      sum += w * wendland(r, h) * r * r;
    }
    const double integral = 4 * M_PI * sum * dr / 3;
    EXPECT_NEAR(integral, 1.0, 1e-9) << "h = " << h;
  }
}

// dW/dr matches a central difference of W; W vanishes with its derivative at 2h.
TEST(SphKernel, DerivativeMatchesFiniteDifference) {
  const double h = 0.05;
  for (double q = 0.05; q < 2.0; q += 0.05) {
    const double r = q * h, e = 1e-6 * h;
    const double fd = (wendland(r + e, h) - wendland(r - e, h)) / (2 * e);
    EXPECT_NEAR(wendland_derivative(r, h), fd, 1e-6 * std::abs(wendland_derivative(h, h)))
        << "q = " << q;
  }
  EXPECT_EQ(wendland(2 * h, h), 0.0);
  EXPECT_EQ(wendland_derivative(2 * h, h), 0.0);
}

// On a cubic lattice with h = 1.5 dp: sum_j V_j W_ij ~ 1 and the gradient
// consistency sum_j V_j (x_j - x_i) dW/dx_i ~ 1 (within 1%), off-diagonal ~ 0.
TEST(SphKernel, LatticeSumsAreConsistent) {
  const double dp = 0.02, h = 1.5 * dp, volume = dp * dp * dp;
  double sum_w = 0, gxx = 0, gxy = 0;
  const int reach = 4;
  for (int i = -reach; i <= reach; ++i)
    for (int j = -reach; j <= reach; ++j)
      for (int k = -reach; k <= reach; ++k) {
        const double x = i * dp, y = j * dp, z = k * dp;  // x_j - x_i
        const double r = std::sqrt(x * x + y * y + z * z);
        sum_w += volume * wendland(r, h);
        if (r == 0) continue;
        const double dwdr = wendland_derivative(r, h);
        // grad_i W_ij = dW/dr (x_i - x_j)/r
        gxx += volume * x * dwdr * (-x / r);
        gxy += volume * x * dwdr * (-y / r);
      }
  EXPECT_NEAR(sum_w, 1.0, 0.01);
  EXPECT_NEAR(gxx, 1.0, 0.01);
  EXPECT_NEAR(gxy, 0.0, 1e-12);
}
}  // namespace
