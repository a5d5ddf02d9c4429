#pragma once
// sem.nekbone: Nekbone-style Jacobi-preconditioned conjugate gradients for
//   -lambda0 Laplace(u) + lambda1 u = f  in the (deformed) box,  u = u_exact on its boundary,
// with the manufactured solution
//   u_exact = sin(k1 x + 0.2) sin(k2 y + 0.4) sin(k3 z + 0.1),  -Laplace(u) = (k1^2+k2^2+k3^2) u.
// The boundary values are lifted (u = u_D + u_0, A u_0 = M f - A u_D, u_0 = 0 on
// the boundary) and everything lives in local (element) form as in Nekbone:
// A = mask . QQ^T . axhelm, inner products weighted by 1/multiplicity.
// Variants differ only in the axhelm they call (stored or recomputed factors),
// so they must take the same iterations.
#include <cstdint>
#include <string>
#include <vector>

#include "ppkit/sem/axhelm.hpp"
#include "ppkit/sem/box_mesh.hpp"

namespace ppkit::sem {

struct NekboneProblem {
  AxhelmProblem op;  // the operator (ncol = 1; op.x is unused)
  std::vector<std::int64_t> global_ids;
  std::int64_t global_count = 0;
  std::vector<std::uint8_t> boundary;  // [E * Np]
  std::vector<double> rhs;             // [E * Np] w|J| f at every local node (unassembled)
  std::vector<double> dirichlet;       // [E * Np] u_exact on boundary nodes, 0 elsewhere
  std::vector<double> exact;           // [E * Np] u_exact at every local node
  std::vector<double> diagonal;        // [E * Np] local diagonal of axhelm (unassembled)
  int max_iterations = 1000;
  double tolerance = 1e-10;  // stop when |r| <= tolerance |r0|; 0: run max_iterations
};

struct NekboneResult {
  std::vector<double> solution;  // [E * Np] local form, boundary values included
  int iterations = 0;
  double initial_residual = 0;
  double final_residual = 0;
};

// Where the CG keeps its vectors: per local node as Nekbone does (every copy
// of a shared node, inner products weighted by 1 / multiplicity), or per
// global node (the "-assembled" strategies, nekbone_kokkos.cpp).
enum class NekboneLayout { local, assembled };
const char* to_string(NekboneLayout layout);  // "local", "assembled"

struct SemNekbone {
  static constexpr const char* name = "sem.nekbone";
  using Problem = NekboneProblem;
  using Result = NekboneResult;
  // Declared where each variant registers; together they set its cost model
  // (nekbone_cost).
  struct Traits {
    GeometryCost geometry = GeometryCost::stored;  // of its axhelm
    NekboneLayout layout = NekboneLayout::local;
    TraitFields fields() const {
      return {{"geometry", std::string(to_string(geometry))},
              {"layout", std::string(to_string(layout))}};
    }
  };
};

struct NekboneSettings {
  Equation equation = Equation::poisson;
  double lambda0 = 1.0, lambda1 = 1.0;
  int max_iterations = 1000;
  double tolerance = 1e-10;
};

NekboneProblem make_nekbone_problem(const BoxMesh& mesh, const NekboneSettings& settings);

// Local diagonal of one element's axhelm (for the Jacobi preconditioner).
std::vector<double> axhelm_local_diagonal(const AxhelmProblem& p);

// max |u - u_exact| over the local nodes.
double max_error(const NekboneProblem& p, const std::vector<double>& solution);

// Per CG iteration (docs/sem.md, "Byte models"): one axhelm + gather-scatter +
// 3 reductions + 3 vector updates + Jacobi.
//  bytes_per_iteration: compulsory DRAM traffic, each input read once and each
//    output written once per iteration: the operator's geometry (axhelm_cost_for
//    without its X and Y), the gather-scatter map (a 4-byte index per local
//    node), and per CG vector value (local nodes, or global nodes for the
//    assembled layout) x, r, p read and written, M^-1 read and the 1-byte
//    boundary mask read (57 B). The operator's output w = A p and the vectors
//    of the reductions are intermediate and not counted: a lower bound.
//  modelled_bytes_per_iteration: the traffic of the Kokkos and CUDA loops as
//    written (32-bit gather-scatter indices, a 1-byte interior flag per
//    global node, every kernel reading and writing its vectors).
struct NekboneCost {
  double flops_per_iteration = 0;
  double bytes_per_iteration = 0;
  double modelled_bytes_per_iteration = 0;
};
NekboneCost nekbone_cost(const NekboneProblem& p, GeometryCost geometry,
                         NekboneLayout layout = NekboneLayout::local);

}  // namespace ppkit::sem
