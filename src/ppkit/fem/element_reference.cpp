#include "ppkit/fem/element_reference.hpp"

#include <string>

#include "ppkit/core/error.hpp"
#include "ppkit/fem/hex8_shape.hpp"

namespace ppkit::fem {
namespace {

struct GaussPointGeometry {
  double physical_derivative[8][3];  // dN_a / dx_i
  double det_j;
};

GaussPointGeometry geometry_at(const ElementCoordinates& x, const std::array<double, 3>& xi) {
  double dN[8][3];
  for (int a = 0; a < 8; ++a)
    for (int k = 0; k < 3; ++k) dN[a][k] = shape_natural_derivative(a, k, xi);
  double J[3][3] = {};  // J[k][i] = dx_i / dxi_k
  for (int a = 0; a < 8; ++a)
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < 3; ++i) J[k][i] += dN[a][k] * x[3 * a + i];
  GaussPointGeometry g{};
  g.det_j = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
            J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
            J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
  require(g.det_j > 0, "element with det J = " + std::to_string(g.det_j) + " <= 0", "det J > 0");
  // Inverse by cofactors: inv[i][k] with dN/dx_i = sum_k inv[i][k] dN/dxi_k.
  double inv[3][3];
  inv[0][0] = (J[1][1] * J[2][2] - J[1][2] * J[2][1]) / g.det_j;
  inv[0][1] = (J[0][2] * J[2][1] - J[0][1] * J[2][2]) / g.det_j;
  inv[0][2] = (J[0][1] * J[1][2] - J[0][2] * J[1][1]) / g.det_j;
  inv[1][0] = (J[1][2] * J[2][0] - J[1][0] * J[2][2]) / g.det_j;
  inv[1][1] = (J[0][0] * J[2][2] - J[0][2] * J[2][0]) / g.det_j;
  inv[1][2] = (J[0][2] * J[1][0] - J[0][0] * J[1][2]) / g.det_j;
  inv[2][0] = (J[1][0] * J[2][1] - J[1][1] * J[2][0]) / g.det_j;
  inv[2][1] = (J[0][1] * J[2][0] - J[0][0] * J[2][1]) / g.det_j;
  inv[2][2] = (J[0][0] * J[1][1] - J[0][1] * J[1][0]) / g.det_j;
  for (int a = 0; a < 8; ++a)
    for (int i = 0; i < 3; ++i) {
      g.physical_derivative[a][i] = 0;
      for (int k = 0; k < 3; ++k) g.physical_derivative[a][i] += inv[i][k] * dN[a][k];
    }
  return g;
}

// B (6 x 24): rows are strains xx, yy, zz, yz, xz, xy; columns DOF 3a + i.
std::array<std::array<double, 24>, 6> strain_displacement(const GaussPointGeometry& g) {
  std::array<std::array<double, 24>, 6> B{};
  for (int a = 0; a < 8; ++a) {
    const double dx = g.physical_derivative[a][0], dy = g.physical_derivative[a][1],
                 dz = g.physical_derivative[a][2];
    B[0][3 * a + 0] = dx;
    B[1][3 * a + 1] = dy;
    B[2][3 * a + 2] = dz;
    B[3][3 * a + 1] = dz;
    B[3][3 * a + 2] = dy;
    B[4][3 * a + 0] = dz;
    B[4][3 * a + 2] = dx;
    B[5][3 * a + 0] = dy;
    B[5][3 * a + 1] = dx;
  }
  return B;
}

}  // namespace

void validate_material(const Material& m) {
  // Messages are built only on failure (fem::Assembler checks every assembly).
  if (!(m.youngs_modulus > 0))
    throw Error("Young's modulus E = " + std::to_string(m.youngs_modulus) + " is not positive",
                "E > 0");
  if (!(m.poisson_ratio > -1 && m.poisson_ratio < 0.5))
    throw Error("Poisson ratio nu = " + std::to_string(m.poisson_ratio) + " is out of range",
                "-1 < nu < 0.5");
}

std::array<std::array<double, 6>, 6> constitutive_matrix(const Material& m) {
  const double lambda = m.lambda(), mu = m.mu();
  std::array<std::array<double, 6>, 6> D{};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) D[i][j] = lambda;
    D[i][i] = lambda + 2 * mu;
    D[3 + i][3 + i] = mu;
  }
  return D;
}

ElementMatrix element_stiffness_reference(const ElementCoordinates& x, const Material& m) {
  const auto D = constitutive_matrix(m);
  ElementMatrix K{};
  for (int q = 0; q < kGaussPoints; ++q) {
    const auto g = geometry_at(x, gauss_point(q));
    const auto B = strain_displacement(g);
    double DB[6][24] = {};
    for (int s = 0; s < 6; ++s)
      for (int t = 0; t < 6; ++t)
        for (int c = 0; c < 24; ++c) DB[s][c] += D[s][t] * B[t][c];
    const double scale = g.det_j * kGaussWeight;
    for (int r = 0; r < 24; ++r)
      for (int c = 0; c < 24; ++c) {
        double btdb = 0;
        for (int s = 0; s < 6; ++s) btdb += B[s][r] * DB[s][c];
        K[24 * r + c] += btdb * scale;
      }
  }
  return K;
}

ElementVector element_body_force_reference(const ElementCoordinates& x, const Material& m) {
  ElementVector f{};
  for (int q = 0; q < kGaussPoints; ++q) {
    const auto xi = gauss_point(q);
    const double scale = geometry_at(x, xi).det_j * kGaussWeight;
    for (int a = 0; a < 8; ++a)
      for (int i = 0; i < 3; ++i) f[3 * a + i] += shape_value(a, xi) * m.body_force[i] * scale;
  }
  return f;
}

std::array<double, 6> element_strain(const ElementCoordinates& x, const ElementVector& u,
                                     const std::array<double, 3>& xi) {
  const auto B = strain_displacement(geometry_at(x, xi));
  std::array<double, 6> strain{};
  for (int s = 0; s < 6; ++s)
    for (int c = 0; c < 24; ++c) strain[s] += B[s][c] * u[c];
  return strain;
}

}  // namespace ppkit::fem
