// GLL nodes, weights and D for N = 1..15 against closed forms and exactness.
#include <gtest/gtest.h>

#include <cmath>

#include "ppkit/core/error.hpp"
#include "ppkit/sem/gll.hpp"

using ppkit::sem::make_gll_rule;

namespace {
constexpr double tol = 1e-14;

TEST(SemGll, KnownRules) {
  const auto r2 = make_gll_rule(2);
  EXPECT_NEAR(r2.nodes[1], 0.0, tol);
  EXPECT_NEAR(r2.weights[0], 1.0 / 3, tol);
  EXPECT_NEAR(r2.weights[1], 4.0 / 3, tol);
  const auto r3 = make_gll_rule(3);
  EXPECT_NEAR(r3.nodes[2], std::sqrt(0.2), tol);
  EXPECT_NEAR(r3.weights[1], 5.0 / 6, tol);
  const auto r4 = make_gll_rule(4);
  EXPECT_NEAR(r4.nodes[3], std::sqrt(3.0 / 7), tol);
  EXPECT_NEAR(r4.weights[0], 0.1, tol);
  EXPECT_NEAR(r4.weights[1], 49.0 / 90, tol);
  EXPECT_NEAR(r4.weights[2], 32.0 / 45, tol);
  // D of N = 1 is [[-1/2, 1/2], [-1/2, 1/2]].
  const auto r1 = make_gll_rule(1);
  EXPECT_NEAR(r1.derivative[0], -0.5, tol);
  EXPECT_NEAR(r1.derivative[3], 0.5, tol);
}

TEST(SemGll, NodesAreRootsOfLegendreDerivative) {
  for (int n = 1; n <= ppkit::sem::max_order; ++n) {
    const auto rule = make_gll_rule(n);
    ASSERT_EQ(int(rule.nodes.size()), n + 1);
    EXPECT_EQ(rule.nodes.front(), -1.0);
    EXPECT_EQ(rule.nodes.back(), 1.0);
    for (int i = 1; i < n; ++i) {
      double p, dp;
      ppkit::sem::legendre(n, rule.nodes[i], p, dp);
      EXPECT_NEAR(dp, 0.0, tol * n * n) << "N=" << n << " node " << i;
      EXPECT_LT(rule.nodes[i - 1], rule.nodes[i]);
      EXPECT_NEAR(rule.nodes[i], -rule.nodes[n - i], tol);
    }
  }
}

TEST(SemGll, QuadratureIsExactToDegree2NMinus1) {
  for (int n = 1; n <= ppkit::sem::max_order; ++n) {
    const auto rule = make_gll_rule(n);
    for (int p = 0; p <= 2 * n - 1; ++p) {
      double sum = 0;
      for (int i = 0; i <= n; ++i) sum += rule.weights[i] * std::pow(rule.nodes[i], p);
      const double exact = p % 2 ? 0.0 : 2.0 / (p + 1);
      EXPECT_NEAR(sum, exact, tol) << "N=" << n << " degree " << p;
    }
  }
}

TEST(SemGll, DerivativeIsExactForDegreeN) {
  for (int n = 1; n <= ppkit::sem::max_order; ++n) {
    const auto rule = make_gll_rule(n);
    const int nq = n + 1;
    for (int p = 0; p <= n; ++p)
      for (int i = 0; i < nq; ++i) {
        double d = 0;
        for (int j = 0; j < nq; ++j) d += rule.derivative[i * nq + j] * std::pow(rule.nodes[j], p);
        const double exact = p == 0 ? 0.0 : p * std::pow(rule.nodes[i], p - 1);
        // D's entries grow like N^2, so its rounding does too.
        EXPECT_NEAR(d, exact, tol * nq * nq) << "N=" << n << " degree " << p << " row " << i;
      }
    EXPECT_NEAR(rule.derivative[0], -n * (n + 1) / 4.0, 1e-12 * n * n);
  }
}

TEST(SemGll, OrderOutOfRangeIsRejected) {
  EXPECT_THROW(make_gll_rule(0), ppkit::Error);
  EXPECT_THROW(make_gll_rule(16), ppkit::Error);
  try {
    make_gll_rule(16);
  } catch (const ppkit::Error& e) {
    EXPECT_NE(std::string(e.what()).find("1..15"), std::string::npos) << e.what();
  }
}
}  // namespace
