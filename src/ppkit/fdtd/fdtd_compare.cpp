// `ppkit compare --workloads fdtd`: fdtd.step on CPML-bounded cubes, cells/s
// for full E+H steps and the fraction of the roofline from step_bytes() (the
// compulsory traffic; step_modelled_bytes() as extra "modelled_GB/s").
// The problem is make_verification_problem(): random E and H on every node,
// four materials drawn per node (1-byte ids), a 10-cell CPML and two sources;
// quick: 48^3, default: 256^3, large: 256^3, 512^3, 768^3, and one fp64 case
// (48^3 quick, 256^3 default, 512^3 large) for the variants with an fp64
// path (step_features.hpp; the others are SKIP rows).
// Every variant at every size is checked against the serial reference
// (verification.hpp), never against another variant, by step_verification()
// (fdtd_verification.hpp, which the benchmarks apply before timing): on every
// node at quick (and wherever that is cheaper), else on the sample boxes
// stepped in their light-cone windows (CPML of every face at every depth, edges, corners,
// pencils through the whole grid along each axis, whole x-planes including
// the last ones, linear-index thresholds, the sources). The error is the
// largest deviation over the checked nodes relative to the RMS of its field
// group (E or H).
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "ppkit/core/compare.hpp"
#include "ppkit/fdtd/cases.hpp"
#include "ppkit/fdtd/fdtd_verification.hpp"
#include "ppkit/fdtd/step_features.hpp"
#include "ppkit/fdtd/verification.hpp"

namespace ppkit::fdtd {
namespace {

std::vector<index_t> sizes_for(ProblemSize s) {
  switch (s) {
    case ProblemSize::quick:
      return {48};
    case ProblemSize::standard:
      return {256};
    case ProblemSize::large:
      return {256, 512, 768};
  }
  return {};
}

// The cube of the fp64 case: the largest compare size up to 512.
index_t fp64_size(ProblemSize s) {
  index_t n = 0;
  for (index_t m : sizes_for(s))
    if (m <= 512) n = std::max(n, m);
  return n;
}

constexpr int cpml_thickness = 10;
constexpr std::int64_t compare_steps = 20;

}  // namespace

CaseVerification<FdtdStep> step_verification(const FdtdStep::Problem& problem, ProblemSize size) {
  // quick: every node; larger sizes: the sample boxes, or every node where
  // stepping their light-cone windows would cost more.
  const std::vector<SampleBox> boxes = size == ProblemSize::quick
                                           ? std::vector<SampleBox>{whole_grid_box(problem.grid)}
                                           : verification_boxes(problem);
  auto reference = std::make_shared<const SampledFields>(sampled_reference(problem, boxes));
  const std::string against =
      boxes.size() == 1 ? std::string("serial reference, every node")
                        : fmt::format("serial reference on {} nodes in {} light-cone boxes",
                                      reference->nodes(), boxes.size());
  CaseVerification<FdtdStep> v;
  v.tolerance = sampled_tolerance(problem.precision);
  v.check = [reference, against](const Variant<FdtdStep>&, const FdtdStep::Result& r,
                                 CompareRow& row) {
    row.extra["verified_against"] = against;
    row.extra["verified_nodes"] = reference->nodes();
    const SampledError check = sampled_error(r, *reference);
    if (!check.worst.empty()) row.extra["worst_node"] = check.worst;
    return check.error;
  };
  return v;
}

namespace {

std::vector<CompareRow> run_fdtd(CompareContext& ctx) {
  std::vector<CompareRow> rows;
  std::vector<std::pair<index_t, Precision>> cases;
  for (index_t n : sizes_for(ctx.options().size)) cases.push_back({n, Precision::fp32});
  cases.push_back({fp64_size(ctx.options().size), Precision::fp64});
  for (const auto& [n, precision] : cases) {
    auto problem = make_verification_problem(n, cpml_thickness, compare_steps);
    problem.precision = precision;
    const bool fp64 = precision == Precision::fp64;
    CaseModel model;
    model.workload = "fdtd";
    model.case_name =
        fmt::format("step cube {}^3 cpml {}{}", n, cpml_thickness, fp64 ? " fp64" : "");
    model.size = fmt::format("{} cells x {} steps", problem.grid.cells(), compare_steps);
    model.work_units = double(problem.grid.cells()) * double(compare_steps);
    model.throughput_unit = "cells/s";
    model.bytes = step_bytes(problem);
    // Variants with several steps per pass (blocked-k*): one pass's traffic per k steps.
    model.variant_bytes = [&problem](const std::string& v) {
      return step_bytes_of_variant(problem, v);
    };
    model.modelled_bytes = step_modelled_bytes(problem);
    model.flops = step_flops(problem);
    const auto verification = step_verification(problem, ctx.options().size);
    model.tolerance = verification.tolerance;
    if (fp64)
      model.skip_reason = [](const std::string& variant) {
        return step_variant_supports(variant, StepFeature::fp64)
                   ? std::string()
                   : std::string("float kernels only; fp64 runs on ") +
                         variants_supporting(StepFeature::fp64);
      };
    auto case_rows = compare_variants_checked<FdtdStep>(ctx, model, problem, verification.check);
    for (auto& row : case_rows) {
      row.extra["steps"] = compare_steps;
      row.extra["bytes_per_cell_step"] = row.bytes / model.work_units;
      row.extra["precision"] = to_string(precision);
      if (!fp64) {  // the report's size plot is the fp32 series
        row.extra["plot"] = "fdtd_cells_per_s_vs_grid";
        row.extra["plot_x"] = n;
        row.extra["plot_xlabel"] = "cells per side (cube, CPML 10)";
      }
    }
    rows.insert(rows.end(), case_rows.begin(), case_rows.end());
  }
  return rows;
}

}  // namespace

// Here rather than in step_setup.cpp, which the case fuzzer compiles without
// the registry.
double step_bytes_of_variant(const FdtdStep::Problem& p, const std::string& variant) {
  return step_bytes(p, Registry<FdtdStep>::find(variant).traits.steps_per_pass);
}

}  // namespace ppkit::fdtd

namespace ppkit::registration {
void register_fdtd_compare() {
  register_workload({"fdtd", "3D Yee FDTD step with CPML (cells/s for a full E+H step)",
                     [](const CompareContext& ctx) {
                       int selected = 0;
                       for (const auto& v : Registry<FdtdStep>::all())
                         selected += ctx.variant_selected(v.name);
                       // fp32 sizes + the fp64 case
                       return selected * int(fdtd::sizes_for(ctx.options().size).size() + 1);
                     },
                     fdtd::run_fdtd});
}
}  // namespace ppkit::registration
