#pragma once
// The 8-node trilinear hexahedron ("hex8") in natural coordinates
// (xi, eta, zeta) in [-1, 1]^3, with Gmsh's node order (type 5): the bottom
// face (zeta = -1) counter-clockwise seen from +zeta, then the top face.
// 2x2x2 Gauss-Legendre quadrature, points +-1/sqrt(3), weights 1
// (Kiran et al. 2019, section 2: derivatives in natural coordinates are
// precomputed once for all Gauss points). Plain C++ (no Kokkos), so CUDA
// glue can copy the tables into constant memory.
#include <array>
#include <type_traits>
#include <utility>

#include "ppkit/fem/host_device.hpp"

namespace ppkit::fem {

constexpr int kNodesPerElement = 8;
constexpr int kDofsPerNode = 3;
constexpr int kDofsPerElement = 24;                        // 8 nodes x 3 components
constexpr int kEntriesPerElement = 576;                    // 24 x 24 element stiffness entries
constexpr int kBlocksPerElement = 64;                      // 8 x 8 node-pair 3x3 blocks
constexpr int kGaussPoints = 8;                            // 2 x 2 x 2
constexpr double kGaussWeight = 1.0;                       // every weight of the 2-point rule is 1
constexpr double kGaussAbscissa = 0.57735026918962576451;  // 1/sqrt(3): points at +-kGaussAbscissa

// Natural coordinates of the 8 nodes: kNodeSigns[a] = (xi_a, eta_a, zeta_a).
constexpr int kNodeSigns[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                  {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};

// kNodeSigns[a][m] as arithmetic, for device code (no table in memory): xi +
// for a in {1, 2, 5, 6}, eta + for {2, 3, 6, 7}, zeta + for a >= 4.
PPKIT_FEM_HD constexpr int hex8_sign(int a, int m) {
  return m == 0   ? ((a & 3) == 1 || (a & 3) == 2 ? 1 : -1)
         : m == 1 ? ((a & 3) >= 2 ? 1 : -1)
                  : (a >= 4 ? 1 : -1);
}

// N_a and dN_a/dxi_k at Gauss point q from the signs alone (kernels form them
// in registers instead of reading the tables below):
//   N_a = f_0 f_1 f_2 / 8,  dN_a/dxi_k = s_ak f_m f_n / 8 (m, n != k),
//   f_m = 1 + s_am s_qm / sqrt(3).
PPKIT_FEM_HD void hex8_gauss_shape(int a, int q, double& N, double (&dN)[3]) {
  double f[3];
  for (int m = 0; m < 3; ++m) f[m] = 1 + hex8_sign(a, m) * hex8_sign(q, m) * kGaussAbscissa;
  N = 0.125 * f[0] * f[1] * f[2];
  dN[0] = 0.125 * hex8_sign(a, 0) * f[1] * f[2];
  dN[1] = 0.125 * hex8_sign(a, 1) * f[0] * f[2];
  dN[2] = 0.125 * hex8_sign(a, 2) * f[0] * f[1];
}

// The same at one Gauss point q for all 8 nodes, as a kernel lane holding q
// forms them: the 6 factors f[m][s] = 1 + (2 s - 1) xi_m(q) and their 12
// products P[k][s1][s2] = f[m1][s1] f[m2][s2] ({m1 < m2} the coordinates other
// than k), so that 8 dN_b/dxi_k = s_bk P[k][(s_bm1 + 1)/2][(s_bm2 + 1)/2] and
// 8 N_a = f[0][.] f[1][.] f[2][.]. With b a compile-time constant
// (hex8_for_each_node), the derivative is a register and its sign folds into
// the caller's FMAs: no multiplication per node.
struct Hex8GaussProducts {
  double f[3][2];
  double P[3][2][2];

  // Written out (no loops): the arrays must stay in registers on a GPU.
  PPKIT_FEM_HD explicit Hex8GaussProducts(int q)
      : f{{1 - xi(q, 0), 1 + xi(q, 0)}, {1 - xi(q, 1), 1 + xi(q, 1)}, {1 - xi(q, 2), 1 + xi(q, 2)}},
        P{{{f[1][0] * f[2][0], f[1][0] * f[2][1]}, {f[1][1] * f[2][0], f[1][1] * f[2][1]}},
          {{f[0][0] * f[2][0], f[0][0] * f[2][1]}, {f[0][1] * f[2][0], f[0][1] * f[2][1]}},
          {{f[0][0] * f[1][0], f[0][0] * f[1][1]}, {f[0][1] * f[1][0], f[0][1] * f[1][1]}}} {}
  // xi_m(q) = +-1/sqrt(3)
  PPKIT_FEM_HD static double xi(int q, int m) { return hex8_sign(q, m) * kGaussAbscissa; }
  // 8 dN_b/dxi_k.
  template <int b, int k>
  PPKIT_FEM_HD double scaled_derivative() const {
    constexpr int s1 = (hex8_sign(b, k == 0 ? 1 : 0) + 1) / 2;
    constexpr int s2 = (hex8_sign(b, k == 2 ? 1 : 2) + 1) / 2;
    return hex8_sign(b, k) > 0 ? P[k][s1][s2] : -P[k][s1][s2];
  }
  // 8 N_a, for any a (three selects).
  PPKIT_FEM_HD double scaled_value(int a) const {
    return (hex8_sign(a, 0) > 0 ? f[0][1] : f[0][0]) * (hex8_sign(a, 1) > 0 ? f[1][1] : f[1][0]) *
           (hex8_sign(a, 2) > 0 ? f[2][1] : f[2][0]);
  }
};

// Calls body(std::integral_constant<int, b>{}) for the nodes b = 0, ..., 7, so
// that b is a compile-time constant in the body (a loop the compiler might
// not unroll would index Hex8GaussProducts::P at run time, in local memory).
// (nvcc: a host-only body, as in host code and tests, is fine; do not warn.)
#if defined(__CUDACC__) && !defined(__HIPCC__)
#pragma nv_exec_check_disable
#endif
template <class Body, int... b>
PPKIT_FEM_HD void hex8_for_each_node(Body&& body, std::integer_sequence<int, b...>) {
  (body(std::integral_constant<int, b>{}), ...);
}
#if defined(__CUDACC__) && !defined(__HIPCC__)
#pragma nv_exec_check_disable
#endif
template <class Body>
PPKIT_FEM_HD void hex8_for_each_node(Body&& body) {
  hex8_for_each_node(body, std::make_integer_sequence<int, kNodesPerElement>{});
}

// Natural coordinates of Gauss point q (same sign pattern as the nodes, scaled by 1/sqrt(3)).
inline std::array<double, 3> gauss_point(int q) {
  const double g = kGaussAbscissa;
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
