// The serial element reference: symmetry, the 6 rigid-body modes as its null
// space, positive semi-definiteness, body force = b * volume, constant strain.
#include <cmath>

#include "fem_test_problems.hpp"
#include "harness/variant_test.hpp"
#include "ppkit/fem/hex8_shape.hpp"

namespace {
using namespace ppkit::fem;

// Eigenvalues of a symmetric n x n matrix by cyclic Jacobi rotations.
std::vector<double> symmetric_eigenvalues(std::vector<double> A, int n) {
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) off += A[p * n + q] * A[p * n + q];
    if (off < 1e-30) break;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) {
        if (std::fabs(A[p * n + q]) < 1e-300) continue;
        const double theta = (A[q * n + q] - A[p * n + p]) / (2 * A[p * n + q]);
        const double t = (theta >= 0 ? 1 : -1) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < n; ++k) {  // columns p, q
          const double akp = A[k * n + p], akq = A[k * n + q];
          A[k * n + p] = c * akp - s * akq;
          A[k * n + q] = s * akp + c * akq;
        }
        for (int k = 0; k < n; ++k) {  // rows p, q
          const double apk = A[p * n + k], aqk = A[q * n + k];
          A[p * n + k] = c * apk - s * aqk;
          A[q * n + k] = s * apk + c * aqk;
        }
      }
  }
  std::vector<double> eig(n);
  for (int i = 0; i < n; ++i) eig[i] = A[i * n + i];
  std::sort(eig.begin(), eig.end());
  return eig;
}

double max_abs(const ElementMatrix& K) {
  double m = 0;
  for (double v : K) m = std::max(m, std::fabs(v));
  return m;
}

// The kernels' sign arithmetic against the tables built from kNodeSigns and
// the shape functions' definitions (hex8_shape.hpp).
TEST(FemElement, SignArithmeticMatchesTheShapeTables) {
  const auto dN_table = natural_derivative_table();
  const auto N_table = shape_value_table();
  for (int a = 0; a < 8; ++a)
    for (int m = 0; m < 3; ++m) EXPECT_EQ(hex8_sign(a, m), kNodeSigns[a][m]) << a << ", " << m;
  for (int q = 0; q < 8; ++q)
    for (int a = 0; a < 8; ++a) {
      double N, dN[3];
      hex8_gauss_shape(a, q, N, dN);
      EXPECT_NEAR(N, N_table[8 * q + a], 1e-15) << "q " << q << " a " << a;
      for (int k = 0; k < 3; ++k)
        EXPECT_NEAR(dN[k], dN_table[(8 * q + a) * 3 + k], 1e-15) << "q " << q << " a " << a;
    }
}

TEST(FemElement, GaussProductsMatchTheShapeTables) {
  const auto dN_table = natural_derivative_table();
  const auto N_table = shape_value_table();
  for (int q = 0; q < 8; ++q) {
    const Hex8GaussProducts shape(q);
    int visited = 0;
    hex8_for_each_node([&](auto node) {
      constexpr int b = decltype(node)::value;
      const double dN[3] = {shape.scaled_derivative<b, 0>(), shape.scaled_derivative<b, 1>(),
                            shape.scaled_derivative<b, 2>()};
      for (int k = 0; k < 3; ++k)
        EXPECT_NEAR(0.125 * dN[k], dN_table[(8 * q + b) * 3 + k], 1e-15) << "q " << q << " b " << b;
      EXPECT_NEAR(0.125 * shape.scaled_value(b), N_table[8 * q + b], 1e-15) << "q " << q;
      visited |= 1 << b;
    });
    EXPECT_EQ(visited, 255) << "every node once";
  }
}

TEST(FemElement, StiffnessIsSymmetric) {
  std::mt19937_64 rng(ppkit::testing::test_seed());
  const auto x = inputs::distorted_element(rng);
  const auto K = element_stiffness_reference(x, inputs::random_material(rng));
  const double scale = max_abs(K);
  for (int r = 0; r < 24; ++r)
    for (int c = 0; c < r; ++c)
      ASSERT_NEAR(K[24 * r + c], K[24 * c + r], 1e-13 * scale) << r << "," << c;
}

TEST(FemElement, RigidBodyModesAreInTheNullSpace) {
  std::mt19937_64 rng(ppkit::testing::test_seed());
  const auto x = inputs::distorted_element(rng);
  const auto K = element_stiffness_reference(x, inputs::random_material(rng));
  const double scale = max_abs(K);
  for (int mode = 0; mode < 6; ++mode) {
    ElementVector u{};
    for (int a = 0; a < 8; ++a) {
      const double* p = &x[3 * a];
      if (mode < 3) {
        u[3 * a + mode] = 1.0;  // translation
      } else {                  // rotation about axis mode-3: u = e x p
        const double w[3] = {double(mode == 3), double(mode == 4), double(mode == 5)};
        u[3 * a + 0] = w[1] * p[2] - w[2] * p[1];
        u[3 * a + 1] = w[2] * p[0] - w[0] * p[2];
        u[3 * a + 2] = w[0] * p[1] - w[1] * p[0];
      }
    }
    double unorm = 0;
    for (double v : u) unorm = std::max(unorm, std::fabs(v));
    for (int r = 0; r < 24; ++r) {
      double Ku = 0;
      for (int c = 0; c < 24; ++c) Ku += K[24 * r + c] * u[c];
      ASSERT_LE(std::fabs(Ku), 1e-12 * scale * unorm * 24) << "mode " << mode << " row " << r;
    }
  }
}

TEST(FemElement, PositiveSemiDefiniteWithExactlySixZeroEnergyModes) {
  std::mt19937_64 rng(ppkit::testing::test_seed());
  const auto x = inputs::distorted_element(rng);
  const auto K = element_stiffness_reference(x, inputs::random_material(rng));
  const auto eig = symmetric_eigenvalues(std::vector<double>(K.begin(), K.end()), 24);
  const double largest = eig.back();
  ASSERT_GT(largest, 0);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(eig[i], 0.0, 1e-10 * largest) << "eigenvalue " << i;
  // Full 2x2x2 integration: no spurious zero-energy (hourglass) modes.
  EXPECT_GT(eig[6], 1e-4 * largest);
}

TEST(FemElement, BodyForceSumsToForceTimesVolume) {
  std::mt19937_64 rng(ppkit::testing::test_seed());
  // An affine (parallelepiped) element has exact volume |det A| for edge matrix A.
  const double A[3][3] = {{1.2, 0.1, -0.2}, {0.05, 0.8, 0.1}, {0.3, -0.1, 1.5}};
  ElementCoordinates x;
  for (int a = 0; a < 8; ++a)
    for (int i = 0; i < 3; ++i) {
      x[3 * a + i] = 0.7;
      for (int k = 0; k < 3; ++k) x[3 * a + i] += A[i][k] * (kNodeSigns[a][k] > 0 ? 1.0 : 0.0);
    }
  const double volume = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
                        A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                        A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
  const Material m = inputs::random_material(rng);
  const auto f = element_body_force_reference(x, m);
  for (int i = 0; i < 3; ++i) {
    double sum = 0;
    for (int a = 0; a < 8; ++a) sum += f[3 * a + i];
    EXPECT_NEAR(sum, m.body_force[i] * volume, 1e-12 * std::fabs(m.body_force[i]) * volume + 1e-15);
  }
}

TEST(FemElement, LinearDisplacementGivesItsConstantStrainEverywhere) {
  std::mt19937_64 rng(ppkit::testing::test_seed());
  std::uniform_real_distribution<double> u(-1, 1);
  const auto x = inputs::distorted_element(rng);
  double G[3][3];  // du_i/dx_j
  for (auto& row : G)
    for (double& v : row) v = u(rng);
  ElementVector disp;
  for (int a = 0; a < 8; ++a)
    for (int i = 0; i < 3; ++i)
      disp[3 * a + i] =
          0.1 * i + G[i][0] * x[3 * a] + G[i][1] * x[3 * a + 1] + G[i][2] * x[3 * a + 2];
  const double expected[6] = {G[0][0],           G[1][1],           G[2][2],
                              G[1][2] + G[2][1], G[0][2] + G[2][0], G[0][1] + G[1][0]};
  for (int trial = 0; trial < 5; ++trial) {
    const auto strain = element_strain(x, disp, {u(rng), u(rng), u(rng)});
    for (int s = 0; s < 6; ++s)
      EXPECT_NEAR(strain[s], expected[s], 1e-12) << "strain component " << s;
  }
}

}  // namespace
