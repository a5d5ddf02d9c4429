#pragma once
// Geometric factors of the SEM Laplacian (Deville, Fischer & Mund 2002, eq. 4.4.7;
// Cao et al., arXiv 2504.07042, section 2): at every GLL node of every element
//   G = w_i w_j w_k |J| J^-1 J^-T   (6 distinct entries of a symmetric 3x3)
// and the diagonal mass w_i w_j w_k |J| of the Helmholtz term, with J = dx/dr.
//
// Layout (nekRS's ggeo): factors[(e * 7 + g) * Np + n], g = one of GeomFactor.
#include <cstdint>
#include <vector>

#include "ppkit/sem/box_mesh.hpp"
#include "ppkit/sem/gll.hpp"

namespace ppkit::sem {

enum GeomFactor : int { G00 = 0, G01 = 1, G02 = 2, G11 = 3, G12 = 4, G22 = 5, GWJ = 6 };
constexpr int factors_per_node = 7;

// Factors from the node coordinates ([3][E * Np], as BoxMesh::coordinates),
// differentiated with D (exact for every element of order N, curved or not).
// Throws ppkit::Error naming the element and node if |J| <= 0 anywhere (an
// inverted or degenerate element).
std::vector<double> compute_geometric_factors(int order, std::int64_t elements,
                                              const std::vector<double>& coordinates);
inline std::vector<double> compute_geometric_factors(const BoxMesh& mesh) {
  return compute_geometric_factors(mesh.order, mesh.elements(), mesh.coordinates);
}

// Throws like compute_geometric_factors if any element of the mesh is inverted.
void check_element_validity(const BoxMesh& mesh);

// G from the Jacobian columns (dx/dr, dx/ds, dx/dt) and the weight w_i w_j w_k:
// the rows of J^-1 are the cross products of J's columns over |J|, so
// G_ab = w (a_a . a_b) / |J| with a_r = J_s x J_t, a_s = J_t x J_r, a_t = J_r x J_s.
// Returns |J|; writes g[0..6] in GeomFactor order.
double factors_from_jacobian(const double jr[3], const double js[3], const double jt[3],
                             double weight, double g[7]);

}  // namespace ppkit::sem
