#include "ppkit/sem/gll.hpp"

#include <cmath>
#include <string>

#include "ppkit/core/error.hpp"

namespace ppkit::sem {

void require_valid_order(int order) {
  require(order >= min_order && order <= max_order,
          "polynomial order N = " + std::to_string(order) + " is out of range",
          std::to_string(min_order) + ".." + std::to_string(max_order));
}

void legendre(int n, double x, double& p, double& dp) {
  // (k+1) P_{k+1} = (2k+1) x P_k - k P_{k-1};  P_k' = P_{k-2}' + (2k-1) P_{k-1}.
  double p_prev = 1.0, p_cur = x, dp_prev = 0.0, dp_cur = 1.0;
  if (n == 0) {
    p = 1.0;
    dp = 0.0;
    return;
  }
  for (int k = 1; k < n; ++k) {
    const double p_next = ((2 * k + 1) * x * p_cur - k * p_prev) / (k + 1);
    const double dp_next = dp_prev + (2 * k + 1) * p_cur;
    p_prev = p_cur;
    p_cur = p_next;
    dp_prev = dp_cur;
    dp_cur = dp_next;
  }
  p = p_cur;
  dp = dp_cur;
}

GllRule make_gll_rule(int order) {
  require_valid_order(order);
  const int n = order, nq = order + 1;
  GllRule rule;
  rule.order = n;
  rule.nodes.assign(nq, 0.0);
  rule.weights.assign(nq, 0.0);
  rule.derivative.assign(std::size_t(nq) * nq, 0.0);
  const double pi = std::acos(-1.0);

  // Interior nodes: the roots of P_N'. Newton's method on q = P_N' with
  // q' = P_N'' from Legendre's equation (1 - x^2) P'' = 2 x P' - N(N+1) P,
  // started from the Chebyshev-Gauss-Lobatto points (which interlace the roots).
  rule.nodes[0] = -1.0;
  rule.nodes[n] = 1.0;
  for (int i = 1; i < n; ++i) {
    double x = -std::cos(pi * i / n);
    for (int it = 0; it < 100; ++it) {
      double p, dp;
      legendre(n, x, p, dp);
      const double ddp = (2.0 * x * dp - n * (n + 1.0) * p) / (1.0 - x * x);
      const double step = dp / ddp;
      x -= step;
      if (std::fabs(step) < 1e-16) break;
    }
    rule.nodes[i] = x;
  }
  // Exact symmetry x_i = -x_{N-i} (the roots come in pairs, and 0 for even N).
  for (int i = 0; i < nq / 2; ++i) {
    const double a = 0.5 * (rule.nodes[n - i] - rule.nodes[i]);
    rule.nodes[i] = -a;
    rule.nodes[n - i] = a;
  }
  if (n % 2 == 0) rule.nodes[n / 2] = 0.0;

  // w_i = 2 / (N (N+1) P_N(x_i)^2).
  std::vector<double> pn(nq);
  for (int i = 0; i < nq; ++i) {
    double dp;
    legendre(n, rule.nodes[i], pn[i], dp);
    rule.weights[i] = 2.0 / (n * (n + 1.0) * pn[i] * pn[i]);
  }
  // D_ij = P_N(x_i) / (P_N(x_j) (x_i - x_j)) for i != j; the diagonal makes each
  // row sum to zero (D applied to a constant is exactly zero), which equals
  // -N(N+1)/4, 0, ..., 0, N(N+1)/4 and is more accurate in floating point.
  for (int i = 0; i < nq; ++i) {
    double row_sum = 0.0;
    for (int j = 0; j < nq; ++j) {
      if (i == j) continue;
      const double d = pn[i] / (pn[j] * (rule.nodes[i] - rule.nodes[j]));
      rule.derivative[std::size_t(i) * nq + j] = d;
      row_sum += d;
    }
    rule.derivative[std::size_t(i) * nq + i] = -row_sum;
  }
  return rule;
}

}  // namespace ppkit::sem
