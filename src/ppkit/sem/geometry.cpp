#include "ppkit/sem/geometry.hpp"

#include <fmt/format.h>

#include "ppkit/core/error.hpp"

namespace ppkit::sem {

namespace {
void cross(const double a[3], const double b[3], double c[3]) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}
double dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
}  // namespace

double factors_from_jacobian(const double jr[3], const double js[3], const double jt[3],
                             double weight, double g[7]) {
  double ar[3], as[3], at[3];
  cross(js, jt, ar);
  cross(jt, jr, as);
  cross(jr, js, at);
  const double det = dot(jr, ar);
  const double scale = weight / det;
  g[G00] = scale * dot(ar, ar);
  g[G01] = scale * dot(ar, as);
  g[G02] = scale * dot(ar, at);
  g[G11] = scale * dot(as, as);
  g[G12] = scale * dot(as, at);
  g[G22] = scale * dot(at, at);
  g[GWJ] = weight * det;
  return det;
}

std::vector<double> compute_geometric_factors(int order, std::int64_t elements,
                                              const std::vector<double>& coordinates) {
  const GllRule gll = make_gll_rule(order);
  const int nq = gll.nq(), np = nq * nq * nq;
  const std::size_t stride = std::size_t(elements) * np;
  require(coordinates.size() == 3 * stride,
          fmt::format("coordinates hold {} values for {} elements of order {}", coordinates.size(),
                      elements, order),
          fmt::format("3 * E * (N+1)^3 = {}", 3 * stride));
  const auto& D = gll.derivative;
  std::vector<double> factors(std::size_t(elements) * factors_per_node * np);
  for (std::int64_t e = 0; e < elements; ++e) {
    const double* x[3] = {&coordinates[0 * stride + e * np], &coordinates[1 * stride + e * np],
                          &coordinates[2 * stride + e * np]};
    for (int k = 0; k < nq; ++k)
      for (int j = 0; j < nq; ++j)
        for (int i = 0; i < nq; ++i) {
          double jr[3] = {0, 0, 0}, js[3] = {0, 0, 0}, jt[3] = {0, 0, 0};
          for (int d = 0; d < 3; ++d)
            for (int m = 0; m < nq; ++m) {
              jr[d] += D[i * nq + m] * x[d][m + nq * (j + nq * k)];
              js[d] += D[j * nq + m] * x[d][i + nq * (m + nq * k)];
              jt[d] += D[k * nq + m] * x[d][i + nq * (j + nq * m)];
            }
          double g[7];
          const double w = gll.weights[i] * gll.weights[j] * gll.weights[k];
          const double det = factors_from_jacobian(jr, js, jt, w, g);
          if (!(det > 0))
            throw Error(fmt::format("element {} is inverted or degenerate: Jacobian determinant "
                                    "{:.3g} at node (i,j,k) = ({},{},{})",
                                    e, det, i, j, k),
                        "elements with a positive Jacobian determinant at every GLL node "
                        "(right-handed vertex order, smaller perturbation)");
          const int n = i + nq * (j + nq * k);
          for (int f = 0; f < factors_per_node; ++f)
            factors[(std::size_t(e) * factors_per_node + f) * np + n] = g[f];
        }
  }
  return factors;
}

void check_element_validity(const BoxMesh& mesh) { (void)compute_geometric_factors(mesh); }

}  // namespace ppkit::sem
