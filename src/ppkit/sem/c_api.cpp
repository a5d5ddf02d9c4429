// The SEM C API (include/ppkit_sem.h).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "ppkit/core/error.hpp"
#include "ppkit/sem/axhelm.hpp"
#include "ppkit/sem/geometry.hpp"
#include "ppkit/sem/gll.hpp"
#include "ppkit_sem.h"

namespace ppkit::sem {
namespace {
// The message of the last failed ppkit_sem_* call on this thread
// (ppkit_sem_last_error; core's ppkit_last_error storage is private to core).

thread_local std::string sem_error;

template <class F>
int guarded(F&& f) {
  try {
    sem_error.clear();
    f();
    return 0;
  } catch (const std::exception& e) {
    sem_error = e.what();
  } catch (...) {
    sem_error = "unknown error";
  }
  return 1;
}

std::vector<double> coordinates_from_vertices(int order, long long elements,
                                              const double* vertices) {
  const GllRule gll = make_gll_rule(order);
  const int nq = gll.nq(), np = nq * nq * nq;
  const std::size_t stride = std::size_t(elements) * np;
  std::vector<double> coords(3 * stride);
  for (long long e = 0; e < elements; ++e)
    for (int k = 0; k < nq; ++k)
      for (int j = 0; j < nq; ++j)
        for (int i = 0; i < nq; ++i) {
          double x[3];
          trilinear_point(vertices + e * 24, gll.nodes[i], gll.nodes[j], gll.nodes[k], x);
          const std::size_t l = std::size_t(e) * np + i + nq * (j + nq * k);
          for (int d = 0; d < 3; ++d) coords[d * stride + l] = x[d];
        }
  return coords;
}

const Variant<SemAxhelm>& choose_variant(const char* requested) {
  const std::string name = requested ? requested : "auto";
  if (name == "auto" || name.find('/') != std::string::npos) return Registry<SemAxhelm>::find(name);
  const Variant<SemAxhelm>* best = nullptr;
  for (const auto& v : Registry<SemAxhelm>::all())
    if (v.strategy == name && v.availability().available &&
        (!best || v.preference > best->preference))
      best = &v;
  if (!best)
    throw Error("no available sem.axhelm variant has strategy '" + name + "'",
                "auto, stored, trilinear, trilinear-partial, trilinear-wmma or one of " +
                    Registry<SemAxhelm>::joined_names());
  return *best;
}

}  // namespace

}  // namespace ppkit::sem

extern "C" {

const char* ppkit_sem_last_error(void) { return ppkit::sem::sem_error.c_str(); }

int ppkit_sem_gll(int order, double* nodes, double* weights, double* derivative) {
  using namespace ppkit::sem;
  return guarded([&] {
    const GllRule rule = make_gll_rule(order);
    if (nodes) std::copy(rule.nodes.begin(), rule.nodes.end(), nodes);
    if (weights) std::copy(rule.weights.begin(), rule.weights.end(), weights);
    if (derivative) std::copy(rule.derivative.begin(), rule.derivative.end(), derivative);
  });
}

int ppkit_sem_trilinear_factors(int order, long long elements, const double* vertices,
                                double* factors) {
  using namespace ppkit::sem;
  return guarded([&] {
    ppkit::require(elements > 0, fmt::format("{} elements", elements), "E >= 1");
    ppkit::require(vertices && factors, "vertices and factors must not be NULL");
    const auto f = compute_geometric_factors(order, elements,
                                             coordinates_from_vertices(order, elements, vertices));
    std::copy(f.begin(), f.end(), factors);
  });
}

int ppkit_sem_axhelm(const ppkit_sem_axhelm_args* a) {
  using namespace ppkit::sem;
  return guarded([&] {
    ppkit::require(a != nullptr, "ppkit_sem_axhelm: args is NULL");
    require_valid_order(a->order);
    ppkit::require(a->elements > 0, fmt::format("{} elements", a->elements), "E >= 1");
    ppkit::require(a->ncol == 1 || a->ncol == 3, fmt::format("ncol = {}", a->ncol), "1 or 3");
    ppkit::require(a->x && a->y, "x and y must not be NULL");
    ppkit::require(a->vertices || a->factors, "give vertices, factors or both");
    AxhelmProblem p;
    p.order = a->order;
    p.elements = a->elements;
    p.ncol = a->ncol;
    p.equation = a->helmholtz ? Equation::helmholtz : Equation::poisson;
    p.lambda0 = a->helmholtz ? a->lambda0 : 1.0;
    p.lambda1 = a->helmholtz ? a->lambda1 : 0.0;
    const GllRule gll = make_gll_rule(a->order);
    p.nodes = gll.nodes;
    p.weights = gll.weights;
    p.derivative = gll.derivative;
    const std::size_t E = a->elements, np = p.np();
    if (a->vertices)
      p.vertices.assign(a->vertices, a->vertices + E * 24);
    else
      p.vertices.assign(E * 24, 0.0);
    p.trilinear.assign(E, a->vertices ? 1 : 0);
    if (a->trilinear) p.trilinear.assign(a->trilinear, a->trilinear + E);
    if (a->factors)
      p.factors.assign(a->factors, a->factors + E * factors_per_node * np);
    else
      p.factors = compute_geometric_factors(
          a->order, a->elements, coordinates_from_vertices(a->order, a->elements, a->vertices));
    p.x.assign(a->x, a->x + a->ncol * E * np);
    const auto& variant = choose_variant(a->variant);
    const auto avail = variant.availability();
    ppkit::require(avail.available, "variant " + variant.name + " cannot run: " + avail.reason);
    auto run = variant.prepare(p);
    run->run();
    const auto y = run->result();
    std::copy(y.begin(), y.end(), a->y);
  });
}

}  // extern "C"
