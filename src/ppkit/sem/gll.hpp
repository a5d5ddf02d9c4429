#pragma once
// Gauss-Lobatto-Legendre (GLL) quadrature and the 1D spectral derivative
// matrix on [-1, 1] (Deville, Fischer & Mund, "High-Order Methods for
// Incompressible Fluid Flow", 2002, sections 2.4 and 2.4.2).
#include <vector>

namespace ppkit::sem {

// Polynomial orders the SEM workload accepts (nodes are accurate to 1e-14).
constexpr int min_order = 1;
constexpr int max_order = 15;

struct GllRule {
  int order = 0;                // N: polynomial degree
  std::vector<double> nodes;    // N+1 points, ascending, nodes[0] = -1, nodes[N] = 1
  std::vector<double> weights;  // N+1 quadrature weights (exact for degree 2N-1)
  // derivative[i * (N+1) + j] = l_j'(x_i): row i differentiates the nodal
  // interpolant at node i (D in the paper, Dr = D applied along r).
  std::vector<double> derivative;
  int nq() const { return order + 1; }
};

// GLL rule of order N (1..15); throws ppkit::Error for other N.
GllRule make_gll_rule(int order);

// Legendre polynomial P_n(x) and its derivative P_n'(x) by the three-term recurrence.
void legendre(int n, double x, double& p, double& dp);

// Throws ppkit::Error unless min_order <= order <= max_order.
void require_valid_order(int order);

}  // namespace ppkit::sem
