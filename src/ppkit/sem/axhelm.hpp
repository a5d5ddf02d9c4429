#pragma once
// sem.axhelm: the matrix-free local Helmholtz operator of nekRS/Nekbone
// (Cao et al., arXiv 2504.07042, section 2, eq. 2-4), applied element by
// element to ncol fields:
//   Y_e = lambda0 (Dr^T, Ds^T, Dt^T) G_e (Dr, Ds, Dt)^T X_e + lambda1 (w |J|)_e X_e
// Poisson is lambda0 = 1, lambda1 = 0 (no mass term). Variants:
//   stored     G loaded from memory (6 per node, +w|J| for Helmholtz): the nekRS baseline
//   trilinear  G recomputed from the 8 vertices of trilinear elements (paper section 3),
//              loaded for the others (mixed meshes)
#include <cstdint>
#include <string>
#include <vector>

#include "ppkit/core/data_location.hpp"
#include "ppkit/core/registry.hpp"
#include "ppkit/sem/box_mesh.hpp"

namespace ppkit::sem {

enum class Equation { poisson, helmholtz };
Equation parse_equation(const std::string& s);  // "poisson", "helmholtz"
const char* to_string(Equation e);

struct AxhelmProblem {
  int order = 0;              // N; Nq = N+1 points per direction
  std::int64_t elements = 0;  // E
  int ncol = 1;               // fields (1 or 3), field c at offset c * E * Np
  Equation equation = Equation::poisson;
  double lambda0 = 1.0;                 // stiffness coefficient (Helmholtz)
  double lambda1 = 0.0;                 // mass coefficient (Helmholtz)
  std::vector<double> nodes;            // [Nq] GLL nodes
  std::vector<double> weights;          // [Nq] GLL weights
  std::vector<double> derivative;       // [Nq * Nq] D, row-major
  std::vector<double> vertices;         // [E][8][3] (BoxMesh layout)
  std::vector<std::uint8_t> trilinear;  // [E] 1: geometry is exactly trilinear
  std::vector<double> factors;          // [E][7][Np] (geometry.hpp layout)
  std::vector<double> x;                // [ncol][E * Np]

  int nq() const { return order + 1; }
  int np() const { return nq() * nq() * nq(); }
  std::int64_t local_count() const { return elements * np(); }
  bool helmholtz() const { return equation == Equation::helmholtz; }
  std::int64_t trilinear_elements() const;
};

// How a variant obtains the geometric factors G of trilinear elements, which
// sets its cost model (axhelm_cost_for): loaded from memory, recomputed from
// the 8 vertices (paper section 3), or partially recomputed (section 3.3).
enum class GeometryCost { stored, recompute, partial };
const char* to_string(GeometryCost g);  // "stored", "recompute", "partial"

struct SemAxhelm {
  static constexpr const char* name = "sem.axhelm";
  using Problem = AxhelmProblem;
  using Result = std::vector<double>;  // Y: [ncol][E * Np]
  // Declared where each variant registers.
  struct Traits {
    GeometryCost geometry = GeometryCost::stored;
    TraitFields fields() const { return {{"geometry", std::string(to_string(geometry))}}; }
  };
};

// The operator side of every sem.axhelm variant (sem::Axhelm, the C handles,
// axhelm_operator.hpp): each variant's prepared run implements it. Prepared
// on a problem whose x is empty, a run uploads only the geometry and is an
// operator on the caller's arrays; its run() and result() then refuse.
class AxhelmApplier {
 public:
  virtual ~AxhelmApplier() = default;
  // Queues y = lambda0 A x + lambda1 M x (Poisson: y = A x; lambdas are used
  // by Helmholtz problems only) on arrays of ncol * E * Np values in
  // memory(). stream: the native stream to queue on (cudaStream_t,
  // hipStream_t; nullptr: the default stream), nullptr on the host.
  virtual void apply(const double* x, double* y, double lambda0, double lambda1, void* stream) = 0;
  // Waits for the work queued on stream.
  virtual void wait(void* stream) = 0;
  // Where x and y must live.
  virtual DataLocation memory() const = 0;
};

// The message run() gives on a run prepared as an operator.
constexpr const char* operator_only_run =
    "this sem.axhelm run was prepared as an operator (no x): call apply()";

struct AxhelmSettings {
  Equation equation = Equation::poisson;
  int ncol = 1;
  double lambda0 = 1.0;
  double lambda1 = 1.0;  // used by Helmholtz only
};

// Checks ncol and lambdas (ppkit::Error) and fills the problem from the mesh
// with X drawn from the seed (uniform in [-1, 1], never all zero).
AxhelmProblem make_axhelm_problem(const BoxMesh& mesh, const AxhelmSettings& settings,
                                  unsigned seed);
// Throws ppkit::Error if the problem's arrays do not match its sizes.
void validate_axhelm_problem(const AxhelmProblem& p);

// The serial host reference, written for clarity: gradient, G, transposed
// gradient, element by element, from the stored factors.
std::vector<double> axhelm_reference(const AxhelmProblem& p);

// A variant that cannot run a particular problem (cuda/trilinear-wmma with
// Nq != 8) throws ppkit::Error from prepare() with this prefix; the SEM
// drivers report such rows as skipped with the message as the reason.
constexpr const char* unsupported_problem_prefix = "unsupported problem: ";

// ---- cost model (docs/sem.md) -------------------------------------------------
// nekRS/nekBench convention, per element and field: 12 Nq^4 + 15 Nq^3 flops
// (Poisson), + 5 Nq^3 for Helmholtz (lambda0 scaling and mass term); bytes:
// X read and Y written per field, 6 factors per node (+ w|J| for Helmholtz).
struct AxhelmCost {
  double flops_ax = 0;   // F_ax: the operator itself (same for every variant)
  double flops_geo = 0;  // F_geo: geometric factors recomputed in the kernel
  double bytes = 0;      // bytes the variant must move at least
  double dofs = 0;       // E * N^3 * ncol (nekRS's GDOF convention)
};
AxhelmCost axhelm_cost_stored(const AxhelmProblem& p);
AxhelmCost axhelm_cost_trilinear(const AxhelmProblem& p);
// Partial recompute (paper section 3.3): trilinear elements load lambda0 w/|J|
// per node (computed at set-up) and recompute the cofactors only.
AxhelmCost axhelm_cost_partial(const AxhelmProblem& p);

AxhelmCost axhelm_cost_for(const AxhelmProblem& p, GeometryCost kind);

}  // namespace ppkit::sem
