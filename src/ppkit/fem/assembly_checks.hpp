#pragma once
// Checks of an assembled stiffness matrix and load vector that do not need the
// full serial reference (`ppkit compare --large`, where assembling 6.5 M DOF on
// one host is minutes): properties every correct assembly has, the exact load
// vector (cheap: no element matrices), and serial reference rows of a sample.
#include <cstdint>
#include <string>
#include <vector>

#include "ppkit/core/compare.hpp"
#include "ppkit/fem/assemble.hpp"

namespace ppkit::fem {

struct AssemblyInvariants {
  // max |K_ij - K_ji| / max |K_ij| (K = B^T D B is symmetric).
  double symmetry = 0;
  // Rigid-body modes r (3 translations, 3 rotations about the mesh centre) lie
  // in the null space of the unconstrained K, element by element (isoparametric
  // hex8 reproduce linear fields, so B r = 0 at every Gauss point):
  // max_k max_i |(K r_k)_i| / max_i sum_j |K_ij r_k,j|.
  double rigid_body = 0;
};
// Runs on host threads over row ranges; NaN if the result holds a NaN.
AssemblyInvariants assembly_invariants(const AssemblyProblem& problem,
                                       const AssemblyResult& result);

// The serial reference load vector alone (element_body_force_reference per
// element: no stiffness matrices, seconds at 6.5 M DOF).
std::vector<double> reference_load(const AssemblyProblem& problem);

// Serial reference rows (stiffness and load) of `nodes` seeded random nodes:
// every element of a sampled node computed with element_stiffness_reference.
struct SampledRows {
  std::vector<std::int64_t> rows;           // DOF rows, 3 per sampled node
  std::vector<std::vector<double>> values;  // per row, in the CSR row's column order
  std::vector<double> load;                 // per row
};
SampledRows sample_reference_rows(const AssemblyProblem& problem, int nodes, unsigned seed);
// max(||K_rows - K_ref_rows|| / ||K_ref_rows||, ||f_rows - f_ref_rows|| / ||f_ref_rows||).
double sampled_rows_error(const AssemblyProblem& problem, const SampledRows& reference,
                          const AssemblyResult& result);

// How `ppkit compare` and the benchmarks verify an assembly of `problem`
// (relative error <= 1e-12, fp64), the invariants recorded in the row at
// every size:
//  - full_reference: against the full serial reference (assemble_reference);
//  - otherwise (where the serial reference is minutes of host time): the exact
//    serial load vector, serial reference rows of `sampled_nodes` random nodes
//    (seeded by `seed`), symmetry and rigid-body modes, and the result of the
//    most preferred available Kokkos variant on the same device
//    (KokkosBaseline), so that baseline is checked independently too.
// The check keeps a reference to `problem`, which must outlive it.
CaseVerification<FemAssemble> assembly_verification(const AssemblyProblem& problem,
                                                    bool full_reference, int sampled_nodes = 256,
                                                    unsigned seed = 2019u);

// One case of `ppkit compare --workloads fem`: every selected fem.assemble
// variant on `problem`, verified by assembly_verification(problem,
// full_reference, 256, seed), with throughput, roofline, speedup over
// thread-per-element and the set-up (CaseModel::report_prepare: prepare_s,
// first_run_s, total_1_s, total_10_s).
std::vector<CompareRow> compare_assembly_case(CompareContext& ctx, const AssemblyProblem& problem,
                                              const std::string& case_name, bool full_reference,
                                              unsigned seed);

}  // namespace ppkit::fem
