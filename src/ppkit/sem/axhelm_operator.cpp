// ppkit::sem::Axhelm (axhelm_operator.hpp): a sem.axhelm variant prepared on
// a problem with no x (AxhelmApplier), applied to the caller's arrays.
#include "ppkit/sem/axhelm_operator.hpp"

#include <fmt/format.h>

#include <cmath>

#include "ppkit/core/variant_choice.hpp"
#include "ppkit/sem/geometry.hpp"
#include "ppkit/sem/gll.hpp"

namespace ppkit::sem {

std::vector<double> trilinear_geometric_factors(int order, std::int64_t elements,
                                                const double* vertices) {
  require(vertices != nullptr, "vertices is NULL", "an array of E * 8 * 3 coordinates");
  const GllRule gll = make_gll_rule(order);
  const int nq = gll.nq(), np = nq * nq * nq;
  const std::size_t stride = std::size_t(elements) * np;
  std::vector<double> coords(3 * stride);
  for (std::int64_t e = 0; e < elements; ++e)
    for (int k = 0; k < nq; ++k)
      for (int j = 0; j < nq; ++j)
        for (int i = 0; i < nq; ++i) {
          double x[3];
          trilinear_point(vertices + e * 24, gll.nodes[i], gll.nodes[j], gll.nodes[k], x);
          const std::size_t l = std::size_t(e) * np + i + nq * (j + nq * k);
          for (int d = 0; d < 3; ++d) coords[d * stride + l] = x[d];
        }
  return compute_geometric_factors(order, elements, coords);
}

std::vector<VariantStatus> axhelm_variants() { return variant_statuses<SemAxhelm>(); }

namespace {

AxhelmProblem problem_of(const AxhelmMesh& mesh, const AxhelmOptions& options) {
  require_valid_order(mesh.order);
  require(mesh.elements > 0, fmt::format("the mesh has {} elements", mesh.elements), "E >= 1");
  require(options.ncol == 1 || options.ncol == 3, fmt::format("ncol = {}", options.ncol), "1 or 3");
  require(mesh.vertices || mesh.factors, "the mesh has neither vertices nor factors",
          "vertices [E][8][3] (trilinear elements), factors [E][7][Np], or both");
  AxhelmProblem p;
  p.order = mesh.order;
  p.elements = mesh.elements;
  p.ncol = options.ncol;
  p.equation = options.equation;
  p.lambda0 = 1.0;
  p.lambda1 = p.helmholtz() ? 1.0 : 0.0;
  const GllRule gll = make_gll_rule(mesh.order);
  p.nodes = gll.nodes;
  p.weights = gll.weights;
  p.derivative = gll.derivative;
  const std::size_t E = std::size_t(mesh.elements), np = std::size_t(p.np());
  if (mesh.vertices)
    p.vertices.assign(mesh.vertices, mesh.vertices + E * 24);
  else
    p.vertices.assign(E * 24, 0.0);
  if (mesh.trilinear) {
    require(mesh.vertices != nullptr, "trilinear flags were given without vertices",
            "vertices for the elements flagged trilinear");
    p.trilinear.assign(mesh.trilinear, mesh.trilinear + E);
  } else {
    p.trilinear.assign(E, mesh.vertices ? 1 : 0);
  }
  if (mesh.factors)
    p.factors.assign(mesh.factors, mesh.factors + E * factors_per_node * np);
  else
    p.factors = trilinear_geometric_factors(mesh.order, mesh.elements, mesh.vertices);
  return p;  // x stays empty: the variant prepares an operator only
}

}  // namespace

struct Axhelm::State {
  std::string variant;
  int order = 0;
  std::int64_t elements = 0;
  int ncol = 1;
  Equation equation = Equation::poisson;
  std::int64_t size = 0;
  DataLocation memory;
  std::unique_ptr<PreparedRun<SemAxhelm::Result>> run;  // owns the operator
  AxhelmApplier* applier = nullptr;                     // the run, as an operator
};

Axhelm::Axhelm(const AxhelmMesh& mesh, const AxhelmOptions& options)
    : state_(std::make_unique<State>()) {
  require(Kokkos::is_initialized(), "Kokkos is not initialised",
          "create a ppkit::Runtime (or initialise Kokkos) before creating an operator");
  const AxhelmProblem p = problem_of(mesh, options);
  const auto& variant = choose_variant<SemAxhelm>(options.variant, options.memory);
  State& s = *state_;
  s.variant = variant.name;
  s.order = p.order;
  s.elements = p.elements;
  s.ncol = p.ncol;
  s.equation = p.equation;
  s.size = std::int64_t(p.ncol) * p.local_count();
  s.run = variant.prepare(p);
  s.applier = dynamic_cast<AxhelmApplier*>(s.run.get());
  require(s.applier != nullptr,
          "variant " + variant.name + " of sem.axhelm cannot be used as an operator",
          "a variant whose prepared run implements AxhelmApplier");
  s.memory = s.applier->memory();
}

Axhelm::~Axhelm() = default;
Axhelm::Axhelm(Axhelm&&) noexcept = default;
Axhelm& Axhelm::operator=(Axhelm&&) noexcept = default;

void Axhelm::apply(const double* x, double* y, void* stream) const {
  apply(x, y, 1.0, 1.0, stream);
}

void Axhelm::apply(const double* x, double* y, double lambda0, double lambda1, void* stream) const {
  require(state_ != nullptr, "this sem::Axhelm was moved from", "an operator that holds a mesh");
  const State& s = *state_;
  const std::size_t n = std::size_t(s.size);
  check_pointer(x, n, s.memory, "x");
  check_pointer(y, n, s.memory, "y");
  require(x != y, "x and y are the same array", "distinct arrays for x and y (y = A x)");
  if (s.equation == Equation::helmholtz)
    require(std::isfinite(lambda0) && std::isfinite(lambda1),
            fmt::format("lambda0 = {}, lambda1 = {}", lambda0, lambda1), "finite coefficients");
  s.applier->apply(x, y, lambda0, lambda1, stream);
}

void Axhelm::wait(void* stream) const {
  require(state_ != nullptr, "this sem::Axhelm was moved from", "an operator that holds a mesh");
  state_->applier->wait(stream);
}

void Axhelm::check_view(bool contiguous, std::int64_t extent, const char* name) const {
  require(contiguous, fmt::format("{} is a non-contiguous View", name),
          "a contiguous rank-1 View (LayoutLeft or LayoutRight, no stride)");
  require(extent == size(), fmt::format("{} has {} values", name, extent),
          fmt::format("ncol * E * (N+1)^3 = {}", size()));
}

DataLocation Axhelm::memory() const { return state_->memory; }
const std::string& Axhelm::variant() const { return state_->variant; }
int Axhelm::order() const { return state_->order; }
std::int64_t Axhelm::elements() const { return state_->elements; }
int Axhelm::ncol() const { return state_->ncol; }
Equation Axhelm::equation() const { return state_->equation; }
std::int64_t Axhelm::size() const { return state_->size; }

}  // namespace ppkit::sem
