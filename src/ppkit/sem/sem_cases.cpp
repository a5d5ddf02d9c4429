#include "ppkit/sem/sem_cases.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "ppkit/sem/geometry.hpp"

namespace ppkit::sem {

BoxMeshSpec box_for_dofs(int order, double target_dofs, Deformation deformation) {
  BoxMeshSpec spec;
  spec.order = order;
  spec.deformation = deformation;
  const double elements = std::max(1.0, target_dofs / (double(order) * order * order));
  const int side = std::max(1, int(std::floor(std::cbrt(elements) + 1e-6)));
  spec.ex = side;
  spec.ey = side;
  spec.ez = std::max(1, int(std::lround(elements / (double(side) * side))));
  return spec;
}

std::string box_label(const BoxMeshSpec& s) {
  return fmt::format("N={} {}x{}x{} {}", s.order, s.ex, s.ey, s.ez, to_string(s.deformation));
}

namespace {
std::string dof_label(double dofs) {
  return dofs >= 1e6 ? fmt::format("{:.2f} M DOF", dofs * 1e-6) : fmt::format("{:.0f} DOF", dofs);
}
}  // namespace

CaseVerification<SemAxhelm> axhelm_verification(const AxhelmProblem& problem) {
  auto reference = std::make_shared<const std::vector<double>>(axhelm_reference(problem));
  CaseVerification<SemAxhelm> v;
  v.tolerance = 1e-12;
  v.check = [reference](const Variant<SemAxhelm>&, const SemAxhelm::Result& y, CompareRow& row) {
    row.extra["verified_against"] = "serial reference (full)";
    const auto& want = *reference;
    double diff = 0, norm = 0;
    if (y.size() != want.size()) return std::nan("");
    for (std::size_t i = 0; i < y.size(); ++i) {
      diff += (y[i] - want[i]) * (y[i] - want[i]);
      norm += want[i] * want[i];
    }
    return std::isnan(diff) ? std::nan("") : std::sqrt(diff / norm);
  };
  return v;
}

CaseVerification<SemNekbone> nekbone_verification(const NekboneProblem& problem) {
  double exact_max = 0;
  for (double u : problem.exact) exact_max = std::max(exact_max, std::fabs(u));
  CaseVerification<SemNekbone> v;
  // The discretisation error of these meshes is far below 1e-3 of max|u| for
  // N >= 5 (3e-2 for N < 5) once converged.
  v.tolerance = problem.op.order >= 5 ? 1e-3 : 3e-2;
  v.check = [&problem, exact_max](const Variant<SemNekbone>&, const NekboneResult& r,
                                  CompareRow& row) {
    row.extra["verified_against"] = "manufactured solution";
    if (r.solution.size() != problem.exact.size()) return std::nan("");
    return max_error(problem, r.solution) / exact_max;
  };
  return v;
}

std::vector<CompareRow> run_axhelm_case(CompareContext& ctx, const BoxMeshSpec& spec,
                                        const AxhelmSettings& settings) {
  const BoxMesh mesh = make_box_mesh(spec);
  const AxhelmProblem problem = make_axhelm_problem(mesh, settings, 20250407u);
  const auto verification = axhelm_verification(problem);
  const AxhelmCost stored = axhelm_cost_stored(problem);

  CaseModel model;
  model.workload = "sem";
  model.case_name = fmt::format("axhelm {} {} ncol={}", box_label(spec),
                                to_string(settings.equation), settings.ncol);
  model.size = dof_label(stored.dofs);
  model.work_units = stored.dofs;
  model.throughput_unit = "DOF/s";
  model.bytes = stored.bytes;
  model.flops = stored.flops_ax;
  model.tolerance = verification.tolerance;
  auto rows = compare_variants_checked<SemAxhelm>(ctx, model, problem, verification.check);
  for (auto& r : rows) {
    if (r.status == "ERROR" && r.message.rfind(unsupported_problem_prefix, 0) == 0) {
      r.status = "SKIP";
      r.message = r.message.substr(std::string(unsupported_problem_prefix).size());
    }
    const AxhelmCost cost =
        axhelm_cost_for(problem, Registry<SemAxhelm>::find(r.variant).traits.geometry);
    r.bytes = cost.bytes;
    r.extra["trilinear_elements"] = problem.trilinear_elements();
    r.extra["elements"] = problem.elements;
    r.extra["flops_geo"] = cost.flops_geo;
    if (r.status != "PASS") continue;  // a wrong result publishes no figure
    const double t = r.timing.median_s;
    r.roofline_fraction =
        std::isfinite(r.bandwidth_Bps) ? cost.bytes / t / r.bandwidth_Bps : std::nan("");
    r.extra["GFLOP/s_eff"] = cost.flops_ax / t * 1e-9;
    r.extra["GFLOP/s_tot"] = (cost.flops_ax + cost.flops_geo) / t * 1e-9;
    r.extra["GB/s"] = cost.bytes / t * 1e-9;
    r.extra["GDOF/s"] = cost.dofs / t * 1e-9;
  }
  return rows;
}

std::vector<CompareRow> run_nekbone_case(CompareContext& ctx, const BoxMeshSpec& spec,
                                         const NekboneSettings& settings) {
  const BoxMesh mesh = make_box_mesh(spec);
  const NekboneProblem problem = make_nekbone_problem(mesh, settings);
  double exact_max = 0;
  for (double u : problem.exact) exact_max = std::max(exact_max, std::fabs(u));
  const double dofs = double(mesh.elements()) * spec.order * spec.order * spec.order;

  CaseModel model;
  model.workload = "sem";
  model.case_name = fmt::format("nekbone {} {}", box_label(spec), to_string(settings.equation));
  model.size = dof_label(dofs);
  model.work_units = dofs;  // replaced below by DOF x iterations
  model.throughput_unit = "DOF/s";
  const auto verification = nekbone_verification(problem);
  model.tolerance = verification.tolerance;
  std::vector<NekboneResult> results;  // in the order verify is called (PASS/FAIL rows)
  auto rows = compare_variants_checked<SemNekbone>(
      ctx, model, problem,
      [&](const Variant<SemNekbone>& v, const NekboneResult& r, CompareRow& row) {
        results.push_back(r);
        return verification.check(v, r, row);
      });
  std::size_t next = 0;
  for (auto& r : rows) {
    if (r.status != "PASS" && r.status != "FAIL") continue;
    if (next >= results.size()) break;
    const NekboneResult& result = results[next++];
    r.extra["iterations"] = result.iterations;
    r.extra["final_residual"] = result.final_residual;
    r.extra["initial_residual"] = result.initial_residual;
    r.extra["max_error"] = r.error * exact_max;
    if (r.status != "PASS") continue;  // a wrong result publishes no figure
    const auto& traits = Registry<SemNekbone>::find(r.variant).traits;
    const NekboneCost cost = nekbone_cost(problem, traits.geometry, traits.layout);
    const double t = r.timing.median_s, it = std::max(1, result.iterations);
    r.extra["ms_per_iteration"] = t / it * 1e3;
    r.throughput = dofs * it / t;  // DOF x iterations / s, as nekBench's GDOF/s/iter
    r.bytes = cost.bytes_per_iteration * it;
    r.flops = cost.flops_per_iteration * it;
    r.extra["modelled_bytes"] = cost.modelled_bytes_per_iteration * it;
    r.extra["modelled_GB/s"] = cost.modelled_bytes_per_iteration * it / t * 1e-9;
    r.roofline_fraction =
        std::isfinite(r.bandwidth_Bps) ? r.bytes / t / r.bandwidth_Bps : std::nan("");
  }
  compute_speedups(rows);
  return rows;
}

}  // namespace ppkit::sem
