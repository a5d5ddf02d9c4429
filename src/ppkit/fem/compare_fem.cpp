// `ppkit compare --workloads fem`: every fem.assemble variant on distorted
// boxes, verified against the serial reference (relative error <= 1e-12),
// elements/s, roofline fraction (assembly_cost) and speedup over
// thread-per-element measured in the same run.
#include <fmt/format.h>

#include "ppkit/core/compare.hpp"
#include "ppkit/fem/assemble.hpp"

namespace ppkit::fem {
namespace {

std::vector<int> box_edges(ProblemSize size) {
  switch (size) {
    case ProblemSize::quick:
      return {8, 16};
    case ProblemSize::standard:
      return {32, 64};
    case ProblemSize::large:
      return {64, 128};  // 128^3: 6.44 M DOF, the paper's ~6.5 M
  }
  return {};
}

std::vector<CompareRow> run_fem(CompareContext& ctx) {
  std::vector<CompareRow> rows;
  for (int n : box_edges(ctx.options().size)) {
    BoxMeshSpec spec;
    spec.elements = {n, n, n};
    spec.perturbation = 0.15;
    spec.seed = 2019;
    Material material{2.0e11, 0.3, {0.0, 0.0, -7850 * 9.81}};  // steel under gravity
    const auto problem = make_assembly_problem(make_box_mesh(spec), material);
    const auto reference = assemble_reference(problem);
    const auto cost = assembly_cost(problem);
    CaseModel model;
    model.workload = "fem";
    model.case_name = fmt::format("assemble box {}x{}x{}", n, n, n);
    model.size = fmt::format("{} DOF", problem.mesh.num_dofs());
    model.work_units = double(problem.mesh.num_elements());
    model.throughput_unit = "elements/s";
    model.bytes = cost.bytes;
    model.flops = cost.flops;
    model.tolerance = 1e-12;
    model.baseline_strategy = "thread-per-element";
    auto case_rows = compare_variants<FemAssemble>(
        ctx, model, problem,
        [&](const AssemblyResult& r) { return assembly_relative_error(r, reference); });
    for (auto& row : case_rows) {
      row.extra["colours"] = problem.coloured.num_colours();
      row.extra["nonzeros"] = problem.pattern.num_nonzeros();
      row.extra["elements"] = problem.mesh.num_elements();
    }
    rows.insert(rows.end(), case_rows.begin(), case_rows.end());
  }
  return rows;
}

int count_fem(const CompareContext& ctx) {
  int selected = 0;
  for (const auto& v : Registry<FemAssemble>::all())
    if (ctx.variant_selected(v.name)) ++selected;
  return selected * int(box_edges(ctx.options().size).size());
}

}  // namespace
}  // namespace ppkit::fem

namespace ppkit::registration {
void register_fem_workload() {
  register_workload(
      {"fem", "hex8 elasticity element matrices + CSR assembly with colouring (Kiran et al. 2019)",
       ppkit::fem::count_fem, ppkit::fem::run_fem});
}
}  // namespace ppkit::registration
