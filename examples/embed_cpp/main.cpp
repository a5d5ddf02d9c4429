// A host code that owns Kokkos, its mesh and its vectors, and solves a
// Helmholtz problem (lambda0 A + lambda1 M) u = b with its own conjugate
// gradient, calling ppkit's axhelm and gather-scatter on its Kokkos Views
// each iteration: no host transfer per iteration, the geometry uploaded once.
//
// The mesh is a box of EX x EY x EZ trilinear elements of order N with a
// random perturbation of the interior vertices; b is the operator applied to
// a known continuous field u*, so the solve must return u*.
#include <Kokkos_Core.hpp>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "ppkit/core/info.hpp"
#include "ppkit/core/kokkos_instances.hpp"
#include "ppkit/core/runtime.hpp"
#include "ppkit/sem/axhelm_operator.hpp"
#include "ppkit/sem/gll.hpp"

using Exec = Kokkos::DefaultExecutionSpace;
using Vector = Kokkos::View<double*, Exec::memory_space>;

namespace {

struct Box {  // the host code's own mesh
  int order, ex, ey, ez;
  std::vector<double> vertices;          // [E][8][3]
  std::vector<std::int64_t> global_ids;  // [E][Np]
  std::vector<double> coordinates;       // [E][Np][3], for the known field
  std::int64_t global_count;
};

Box make_box(int order, int ex, int ey, int ez, unsigned seed) {
  Box b{order, ex, ey, ez, {}, {}, {}, 0};
  const int nq = order + 1;
  const long nx = long(ex) * order + 1, ny = long(ey) * order + 1;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> shift(-0.15, 0.15);
  // Vertex grid, interior vertices moved by up to 15% of an element.
  auto vertex = [&](int i, int j, int k) -> std::array<double, 3> {
    return {double(i) / ex, double(j) / ey, double(k) / ez};
  };
  std::vector<std::array<double, 3>> grid;
  for (int k = 0; k <= ez; ++k)
    for (int j = 0; j <= ey; ++j)
      for (int i = 0; i <= ex; ++i) {
        auto v = vertex(i, j, k);
        const bool interior = i > 0 && i < ex && j > 0 && j < ey && k > 0 && k < ez;
        if (interior) v = {v[0] + shift(rng) / ex, v[1] + shift(rng) / ey, v[2] + shift(rng) / ez};
        grid.push_back(v);
      }
  const std::vector<double> gll = ppkit::sem::make_gll_rule(order).nodes;  // r, s, t of the nodes
  for (int ez_ = 0; ez_ < ez; ++ez_)
    for (int ey_ = 0; ey_ < ey; ++ey_)
      for (int ex_ = 0; ex_ < ex; ++ex_) {
        double corner[8][3];
        for (int c = 0; c < 8; ++c) {
          const auto& v = grid[(ex_ + (c & 1)) +
                               (ex + 1) * ((ey_ + ((c >> 1) & 1)) + (ey + 1) * (ez_ + (c >> 2)))];
          for (int d = 0; d < 3; ++d) {
            corner[c][d] = v[d];
            b.vertices.push_back(v[d]);
          }
        }
        for (int k = 0; k < nq; ++k)
          for (int j = 0; j < nq; ++j)
            for (int i = 0; i < nq; ++i) {
              const long gi = long(ex_) * order + i, gj = long(ey_) * order + j,
                         gk = long(ez_) * order + k;
              b.global_ids.push_back(gi + nx * (gj + ny * gk));
              const double r = gll[i], s = gll[j], t = gll[k];
              for (int d = 0; d < 3; ++d) {  // the trilinear map of the 8 corners
                double x = 0;
                for (int c = 0; c < 8; ++c)
                  x += corner[c][d] * (c & 1 ? 1 + r : 1 - r) * ((c >> 1) & 1 ? 1 + s : 1 - s) *
                       (c >> 2 ? 1 + t : 1 - t) / 8;
                b.coordinates.push_back(x);
              }
            }
      }
  b.global_count = nx * ny * (long(ez) * order + 1);
  return b;
}

double dot(const Vector& a, const Vector& b, const Vector& weight) {
  double sum = 0;
  Kokkos::parallel_reduce(
      "dot", a.extent(0), KOKKOS_LAMBDA(std::size_t i, double& s) { s += a(i) * b(i) * weight(i); },
      sum);
  return sum;
}

void axpy(double alpha, const Vector& x, const Vector& y) {  // y += alpha x
  Kokkos::parallel_for(
      "axpy", x.extent(0), KOKKOS_LAMBDA(std::size_t i) { y(i) += alpha * x(i); });
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);  // the host code's own Kokkos
  int status = 0;
  {
    ppkit::Runtime runtime;  // sees Kokkos initialised: neither re-initialises nor finalises it
    const Box box = make_box(5, 6, 5, 4, 2026);
    const std::int64_t E = std::int64_t(box.ex) * box.ey * box.ez;
    ppkit::sem::AxhelmOptions options;
    options.equation = ppkit::sem::Equation::helmholtz;
    options.memory = ppkit::kokkos_data_location<Exec>().kind;  // our Views' memory
    const ppkit::sem::Axhelm A({box.order, E, box.vertices.data()}, options);
    const ppkit::sem::GatherScatter Q(box.global_ids.data(), A.size(), box.global_count,
                                      A.memory());
    const double lambda0 = 1.0, lambda1 = 2.5;
    std::printf("ppkit %s: axhelm variant %s on %s, %lld local nodes\n", ppkit::version_string(),
                A.variant().c_str(), A.memory().describe().c_str(), (long long)A.size());

    // The assembled operator on continuous local vectors: w = Q Q^T A_L u.
    auto apply = [&](const Vector& u, const Vector& w) {
      A.apply(u, w, lambda0, lambda1);
      Q.dssum(w.data());
    };
    const std::size_t n = std::size_t(A.size());
    Vector exact("u*", n), b("b", n), u("u", n), r("r", n), p("p", n), w("w", n),
        weight("1/multiplicity", n);
    auto h_exact = Kokkos::create_mirror_view(exact);
    for (std::size_t l = 0; l < n; ++l) {
      const double* x = &box.coordinates[3 * l];
      h_exact(l) = std::sin(3 * x[0]) * std::cos(2 * x[1]) + x[2] * x[2];
    }
    Kokkos::deep_copy(exact, h_exact);
    Kokkos::deep_copy(weight, 1.0);
    Q.dssum(weight.data());  // multiplicity of each local node's global node
    Kokkos::parallel_for(
        "invert", n, KOKKOS_LAMBDA(std::size_t i) { weight(i) = 1.0 / weight(i); });
    apply(exact, b);

    // CG on the assembled system; dot products count each global node once.
    Kokkos::deep_copy(r, b);
    Kokkos::deep_copy(p, r);
    double rr = dot(r, r, weight);
    const double rr0 = rr;
    int iterations = 0;
    for (; iterations < 500 && rr > 1e-16 * rr0; ++iterations) {
      apply(p, w);
      const double alpha = rr / dot(p, w, weight);
      axpy(alpha, p, u);
      axpy(-alpha, w, r);
      const double rr_new = dot(r, r, weight);
      const double beta = rr_new / rr;
      rr = rr_new;
      Kokkos::parallel_for(
          "p", n, KOKKOS_LAMBDA(std::size_t i) { p(i) = r(i) + beta * p(i); });
    }
    axpy(-1.0, exact, u);
    const double error = std::sqrt(dot(u, u, weight) / dot(exact, exact, weight));
    std::printf("CG: %d iterations, relative residual %.2e, relative error %.2e\n", iterations,
                std::sqrt(rr / rr0), error);
    status = error < 1e-6 ? 0 : 1;
  }
  Kokkos::finalize();
  return status;
}
