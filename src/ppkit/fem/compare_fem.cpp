// `ppkit compare --workloads fem`: every fem.assemble variant on distorted
// boxes and on a scrambled box (a general mesh: make_scrambled_box_mesh),
// elements/s, roofline fraction (assembly_cost's compulsory bytes; the paper
// layout's modelled traffic as extra "modelled_GB/s"), speedup over
// thread-per-element measured in the same run, and the set-up beside the
// assembly (CaseModel::report_prepare: prepare(), one assembly and ten of the
// same mesh).
//
// Verification (assembly_verification, shared with the benchmarks; relative
// error <= 1e-12, fp64):
//  - quick, default: the full serial reference (assemble_reference);
//  - large (128^3 elements, 6.44 M DOF; the serial reference is minutes of host
//    time there): the result of the most preferred available Kokkos variant on
//    the same device (KokkosBaseline), the exact serial load vector, serial
//    reference rows of 256 random nodes, and invariants every correct K has
//    (symmetry, rigid-body modes in its null space; assembly_checks.hpp), so
//    the baseline variant is checked independently too.
// The invariants are recorded in row.extra at every size.
#include <fmt/format.h>

#include <memory>

#include "ppkit/core/compare.hpp"
#include "ppkit/fem/assemble.hpp"
#include "ppkit/fem/assembly_checks.hpp"

namespace ppkit::fem {
namespace {

// Boxes, and scrambled boxes (make_scrambled_box_mesh: graded, twisted,
// nodes and elements renumbered at random, element node orders rotated), the
// general mesh on which no strategy can use the lattice's numbering or shape.
struct FemCase {
  bool scrambled;
  int edge;
};

std::vector<FemCase> fem_cases(ProblemSize size) {
  switch (size) {
    case ProblemSize::quick:
      return {{false, 8}, {false, 16}, {true, 12}};
    case ProblemSize::standard:
      return {{false, 32}, {false, 64}, {true, 32}};
    case ProblemSize::large:
      // 128^3: 6.44 M DOF, the paper's ~6.5 M; scrambled, 2.1 M elements.
      return {{false, 64}, {false, 128}, {true, 128}};
  }
  return {};
}

constexpr double kTolerance = 1e-12;
constexpr int kSampledNodes = 256;

}  // namespace

CaseVerification<FemAssemble> assembly_verification(const AssemblyProblem& problem,
                                                    bool full_reference, int sampled_nodes,
                                                    unsigned seed) {
  CaseVerification<FemAssemble> verification;
  verification.tolerance = kTolerance;
  if (full_reference) {
    auto reference = std::make_shared<const AssemblyResult>(assemble_reference(problem));
    verification.check = [&problem, reference](const Variant<FemAssemble>&, const AssemblyResult& r,
                                               CompareRow& row) {
      const auto inv = assembly_invariants(problem, r);
      row.extra["symmetry_error"] = inv.symmetry;
      row.extra["rigid_body_residual"] = inv.rigid_body;
      row.extra["verified_against"] = "serial reference (full)";
      return assembly_relative_error(r, *reference);
    };
    return verification;
  }
  struct Sampled {
    std::vector<double> load;
    SampledRows rows;
    KokkosBaseline<FemAssemble> baseline;
  };
  auto sampled = std::make_shared<Sampled>(
      Sampled{reference_load(problem), sample_reference_rows(problem, sampled_nodes, seed),
              KokkosBaseline<FemAssemble>(problem)});
  verification.check = [&problem, sampled](const Variant<FemAssemble>& v, const AssemblyResult& r,
                                           CompareRow& row) {
    const auto inv = assembly_invariants(problem, r);
    auto relative_l2 = [](const std::vector<double>& a, const std::vector<double>& b) {
      if (a.size() != b.size()) return double(INFINITY);
      double d = 0, norm = 0;
      for (std::size_t i = 0; i < a.size(); ++i) {
        d += (a[i] - b[i]) * (a[i] - b[i]);
        norm += b[i] * b[i];
      }
      return std::isnan(d) ? std::nan("") : std::sqrt(d / std::max(norm, 1e-300));
    };
    const double load = relative_l2(r.load, sampled->load);
    const double rows_error = sampled_rows_error(problem, sampled->rows, r);
    const auto* base = sampled->baseline.for_variant(v);
    const double vs_base = base ? assembly_relative_error(r, base->result) : 0.0;
    row.extra["symmetry_error"] = inv.symmetry;
    row.extra["rigid_body_residual"] = inv.rigid_body;
    row.extra["load_error_vs_reference"] = load;
    row.extra["sampled_rows_error_vs_reference"] = rows_error;
    if (base) row.extra["error_vs_baseline"] = vs_base;
    row.extra["verified_against"] = fmt::format(
        "{}serial reference load and {} sampled rows; symmetry, rigid-body modes",
        base ? (base->variant == v.name ? "itself (baseline); " : base->variant + "; ") : "",
        sampled->rows.rows.size());
    double worst = 0;  // the largest of the checks (NaN counts as infinite)
    for (double e : {inv.symmetry, inv.rigid_body, load, rows_error, vs_base})
      worst = std::isnan(e) ? double(INFINITY) : std::max(worst, e);
    return worst;
  };
  return verification;
}

std::vector<CompareRow> compare_assembly_case(CompareContext& ctx, const AssemblyProblem& problem,
                                              const std::string& case_name, bool full_reference,
                                              unsigned seed) {
  const auto cost = assembly_cost(problem);
  CaseModel model;
  model.workload = "fem";
  model.case_name = case_name;
  model.size = fmt::format("{} DOF", problem.mesh.num_dofs());
  model.work_units = double(problem.mesh.num_elements());
  model.throughput_unit = "elements/s";
  model.bytes = cost.bytes;
  model.modelled_bytes = cost.modelled_bytes;
  model.flops = cost.flops;
  model.tolerance = kTolerance;  // assembly_verification's
  model.report_prepare = true;   // layouts and cluster tables are built in prepare()

  const auto verification = assembly_verification(problem, full_reference, kSampledNodes, seed);
  auto rows = compare_variants_checked<FemAssemble>(ctx, model, problem, verification.check);
  for (auto& row : rows) {
    row.extra["colours"] = problem.coloured.num_colours();
    row.extra["nonzeros"] = problem.pattern.num_nonzeros();
    row.extra["elements"] = problem.mesh.num_elements();
  }
  return rows;
}

namespace {

std::vector<CompareRow> run_fem(CompareContext& ctx) {
  std::vector<CompareRow> rows;
  const bool large = ctx.options().size == ProblemSize::large;
  for (const auto [scrambled, n] : fem_cases(ctx.options().size)) {
    BoxMeshSpec spec;
    spec.elements = {n, n, n};
    spec.perturbation = 0.15;
    spec.seed = 2019;
    Material material{2.0e11, 0.3, {0.0, 0.0, -7850 * 9.81}};  // steel under gravity
    const auto problem = make_assembly_problem(
        scrambled ? make_scrambled_box_mesh(spec) : make_box_mesh(spec), material);
    const auto case_rows = compare_assembly_case(
        ctx, problem,
        fmt::format("assemble {} {}x{}x{}", scrambled ? "scrambled box" : "box", n, n, n), !large,
        2019u + unsigned(n));
    rows.insert(rows.end(), case_rows.begin(), case_rows.end());
  }
  return rows;
}

int count_fem(const CompareContext& ctx) {
  int selected = 0;
  for (const auto& v : Registry<FemAssemble>::all())
    if (ctx.variant_selected(v.name)) ++selected;
  return selected * int(fem_cases(ctx.options().size).size());
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
