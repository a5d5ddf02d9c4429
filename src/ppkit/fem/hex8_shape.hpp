#pragma once
// The 8-node trilinear hexahedron ("hex8") in natural coordinates
// (xi, eta, zeta) in [-1, 1]^3, with Gmsh's node order (type 5): the bottom
// face (zeta = -1) counter-clockwise seen from +zeta, then the top face.
// 2x2x2 Gauss-Legendre quadrature, points +-1/sqrt(3), weights 1
// (Kiran et al. 2019, section 2: derivatives in natural coordinates are
// precomputed once for all Gauss points). Plain C++ (no Kokkos), so CUDA
// glue can copy the tables into constant memory.
#include <array>
#include <cmath>

namespace ppkit::fem {

constexpr int kNodesPerElement = 8;
constexpr int kDofsPerNode = 3;
constexpr int kDofsPerElement = 24;      // 8 nodes x 3 components
constexpr int kEntriesPerElement = 576;  // 24 x 24 element stiffness entries
constexpr int kBlocksPerElement = 64;    // 8 x 8 node-pair 3x3 blocks
constexpr int kGaussPoints = 8;          // 2 x 2 x 2
constexpr double kGaussWeight = 1.0;     // every weight of the 2-point rule is 1

// Natural coordinates of the 8 nodes: kNodeSigns[a] = (xi_a, eta_a, zeta_a).
constexpr int kNodeSigns[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                  {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};

// Natural coordinates of Gauss point q (same sign pattern as the nodes, scaled by 1/sqrt(3)).
inline std::array<double, 3> gauss_point(int q) {
  const double g = 1.0 / std::sqrt(3.0);
  return {g * kNodeSigns[q][0], g * kNodeSigns[q][1], g * kNodeSigns[q][2]};
}

// N_a(xi) = (1 + xi xi_a)(1 + eta eta_a)(1 + zeta zeta_a) / 8
inline double shape_value(int a, const std::array<double, 3>& xi) {
  return 0.125 * (1 + xi[0] * kNodeSigns[a][0]) * (1 + xi[1] * kNodeSigns[a][1]) *
         (1 + xi[2] * kNodeSigns[a][2]);
}

// dN_a / dxi_k at natural point xi.
inline double shape_natural_derivative(int a, int k, const std::array<double, 3>& xi) {
  double d = 0.125 * kNodeSigns[a][k];
  for (int m = 0; m < 3; ++m)
    if (m != k) d *= 1 + xi[m] * kNodeSigns[a][m];
  return d;
}

// Tables for the kernels: dN[(q*8 + a)*3 + k] = dN_a/dxi_k at Gauss point q,
// N[q*8 + a] = N_a at Gauss point q.
inline std::array<double, 192> natural_derivative_table() {
  std::array<double, 192> t{};
  for (int q = 0; q < 8; ++q)
    for (int a = 0; a < 8; ++a)
      for (int k = 0; k < 3; ++k)
        t[(q * 8 + a) * 3 + k] = shape_natural_derivative(a, k, gauss_point(q));
  return t;
}
inline std::array<double, 64> shape_value_table() {
  std::array<double, 64> t{};
  for (int q = 0; q < 8; ++q)
    for (int a = 0; a < 8; ++a) t[q * 8 + a] = shape_value(a, gauss_point(q));
  return t;
}

}  // namespace ppkit::fem
