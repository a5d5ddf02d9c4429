// Workload "sem" of `ppkit compare`: sem.axhelm at N = 3, 5, 7, 9 (Poisson, one
// field, trilinear mesh: the paper's Table 3 setting), a Helmholtz 3-field case
// on a mixed (trilinear + curved) mesh, and a Nekbone solve.
#include <algorithm>

#include "ppkit/sem/sem_cases.hpp"

namespace ppkit::sem {
namespace {

struct SizePlan {
  std::vector<int> orders;
  double axhelm_dofs;
  int nekbone_order;
  double nekbone_dofs;
  bool nekbench_axhelm = false;  // add nekBench's N = 7, 32^3 axhelm case
};

SizePlan plan_for(ProblemSize size) {
  switch (size) {
    case ProblemSize::quick:
      return {{3, 5, 7}, 2.0e4, 5, 1.0e4};
    case ProblemSize::standard:
      return {{3, 5, 7, 9}, 2.0e6, 7, 5.0e5};
    case ProblemSize::large:  // Nekbone: nekBench's 8000 elements of order 7 (20^3)
      return {{3, 5, 7, 9}, 1.6e7, 7, 2.744e6, true};
  }
  return {{3}, 1e4, 3, 1e4};
}

int count_variant_rows(const CompareContext& ctx, const std::vector<std::string>& names) {
  int n = 0;
  for (const auto& name : names) n += ctx.variant_selected(name) ? 1 : 0;
  return n;
}

std::vector<CompareRow> run_sem(CompareContext& ctx) {
  const SizePlan plan = plan_for(ctx.options().size);
  std::vector<CompareRow> rows;
  auto append = [&](std::vector<CompareRow> r) { rows.insert(rows.end(), r.begin(), r.end()); };
  for (int order : plan.orders) {
    AxhelmSettings s;
    auto case_rows =
        run_axhelm_case(ctx, box_for_dofs(order, plan.axhelm_dofs, Deformation::trilinear), s);
    for (auto& row : case_rows) {  // the report's "GFLOP/s against N" plot
      row.extra["plot"] = "sem_axhelm_gflops_vs_order";
      row.extra["plot_x"] = order;
      row.extra["plot_xlabel"] = "order N (trilinear Poisson axhelm)";
      row.extra["plot_y"] = "flops";
    }
    append(std::move(case_rows));
  }
  if (plan.nekbench_axhelm) {
    // nekBench's axhelm problem: 32768 trilinear elements of order 7 (Poisson, one field).
    BoxMeshSpec nekbench;
    nekbench.order = 7;
    nekbench.ex = nekbench.ey = nekbench.ez = 32;
    nekbench.deformation = Deformation::trilinear;
    append(run_axhelm_case(ctx, nekbench, AxhelmSettings{}));
  }
  AxhelmSettings helmholtz;
  helmholtz.equation = Equation::helmholtz;
  helmholtz.ncol = 3;
  append(
      run_axhelm_case(ctx, box_for_dofs(7, plan.axhelm_dofs / 3, Deformation::mixed), helmholtz));
  // Nekbone's own setting: Helmholtz (lambda1 = 1) to a relative residual of 1e-8.
  NekboneSettings nb;
  nb.equation = Equation::helmholtz;
  nb.tolerance = 1e-8;
  nb.max_iterations = 2000;
  // A whole solve is hundreds of operator applications: time 3 solves, not
  // the --repeats of the kernels.
  CompareOptions solve_options = ctx.options();
  solve_options.repeats = std::min(solve_options.repeats, 3);
  CompareContext solve_ctx(solve_options);
  solve_ctx.on_progress = ctx.on_progress;
  append(run_nekbone_case(
      solve_ctx, box_for_dofs(plan.nekbone_order, plan.nekbone_dofs, Deformation::trilinear), nb));
  return rows;
}

int count_sem(const CompareContext& ctx) {
  const SizePlan plan = plan_for(ctx.options().size);
  const int axhelm = count_variant_rows(ctx, Registry<SemAxhelm>::names());
  const int nekbone = count_variant_rows(ctx, Registry<SemNekbone>::names());
  return axhelm * int(plan.orders.size() + 1 + (plan.nekbench_axhelm ? 1 : 0)) + nekbone;
}

}  // namespace
}  // namespace ppkit::sem

namespace ppkit::registration {
void register_sem_workload() {
  register_workload({"sem",
                     "spectral elements: matrix-free axhelm with stored or recomputed trilinear "
                     "geometric factors, Nekbone PCG (Cao et al. 2025)",
                     ppkit::sem::count_sem, ppkit::sem::run_sem});
}
}  // namespace ppkit::registration
