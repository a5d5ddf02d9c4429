#pragma once
// Runs of the SEM operations shared by `ppkit compare` (workload "sem"), the
// `ppkit sem` commands and the C API: build a case, run every selected
// variant through compare_variants, and fill each row with the figures of
// the nekRS convention (docs/sem.md):
//   throughput  DOF/s (E N^3 ncol per application; per CG iteration for nekbone)
//   flops       F_ax (the same for every variant, so GFLOP/s is P_eff)
//   bytes       what this variant must move (stored factors or 8 vertices)
//   extra       P_eff and P_tot = (F_ax + F_geo) / T in GFLOP/s, GB/s, iterations
#include <cstdint>
#include <string>
#include <vector>

#include "ppkit/core/compare.hpp"
#include "ppkit/sem/axhelm.hpp"
#include "ppkit/sem/box_mesh.hpp"
#include "ppkit/sem/nekbone.hpp"

namespace ppkit::sem {

// A near-cubic EX x EY x EZ box with about target_dofs = E N^3 (at least 1 element).
BoxMeshSpec box_for_dofs(int order, double target_dofs, Deformation deformation);
std::string box_label(const BoxMeshSpec& spec);  // "N=7 16x16x16"

// How `ppkit compare` and the benchmarks verify a result (the checks keep a
// reference to the problem, which must outlive them):
//  - axhelm: relative L2 error against the serial reference (axhelm_reference)
//    over every node and field, <= 1e-12;
//  - nekbone: max |u - u_exact| / max |u_exact| against the manufactured
//    solution, <= 1e-3 for N >= 5 (3e-2 below), meaningful for a converged
//    solve (the benchmark's fixed-iteration runs verify a converged solve of
//    the same problem first, perf/sem/bench_sem.cpp).
CaseVerification<SemAxhelm> axhelm_verification(const AxhelmProblem& problem);
CaseVerification<SemNekbone> nekbone_verification(const NekboneProblem& problem);

std::vector<CompareRow> run_axhelm_case(CompareContext& ctx, const BoxMeshSpec& mesh,
                                        const AxhelmSettings& settings);
std::vector<CompareRow> run_nekbone_case(CompareContext& ctx, const BoxMeshSpec& mesh,
                                         const NekboneSettings& settings);

}  // namespace ppkit::sem
