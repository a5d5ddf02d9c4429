// `ppkit compare --workloads fdtd-phasors`: fdtd.phasor_update on cubes,
// cells/s = box nodes x samples per second and the roofline fraction from
// phasor_sample_bytes() (pure streaming: 24 B of fields + 96 B of running
// sums per node, sample and frequency). quick: 48^3, default: 256^3, large:
// 256^3 and 512^3. Every variant is checked against the serial reference's
// sums (verification.hpp) by phasor_verification() (fdtd_verification.hpp,
// which the benchmarks apply before timing), on every node at quick, else on the sample boxes
// of verification_boxes() (a phasor depends only on its own node); the error
// is the largest deviation relative to the RMS of the reference sums.
#include <fmt/format.h>

#include <memory>

#include "ppkit/core/compare.hpp"
#include "ppkit/fdtd/fdtd_verification.hpp"
#include "ppkit/fdtd/phasors.hpp"
#include "ppkit/fdtd/verification.hpp"

namespace ppkit::fdtd {
namespace {

std::vector<index_t> phasor_sizes(ProblemSize s) {
  switch (s) {
    case ProblemSize::quick:
      return {48};
    case ProblemSize::standard:
      return {256};
    case ProblemSize::large:
      return {256, 512};
  }
  return {};
}

constexpr int compare_frequencies = 1;
constexpr std::int64_t compare_samples = 10;

}  // namespace

CaseVerification<FdtdPhasorUpdate> phasor_verification(const FdtdPhasorUpdate::Problem& problem,
                                                       ProblemSize size) {
  // The nodes checked: every node at quick, else the sample boxes (a phasor
  // depends only on its own node, so no light-cone window is needed).
  const std::vector<SampleBox> boxes = size == ProblemSize::quick
                                           ? std::vector<SampleBox>{whole_grid_box(problem.grid)}
                                           : verification_boxes(problem.grid, 0, {});
  auto reference = std::make_shared<const SampledPhasors>(sampled_phasor_reference(problem, boxes));
  const std::string against = size == ProblemSize::quick
                                  ? std::string("serial reference, every node")
                                  : fmt::format("serial reference on {} nodes in {} boxes",
                                                reference->nodes(), reference->boxes.size());
  CaseVerification<FdtdPhasorUpdate> v;
  // The same fp32 multiply-adds in the same order per sum; FMA contraction
  // on a device changes the last bits of each.
  v.tolerance = 1e-5;
  v.check = [reference, against](const Variant<FdtdPhasorUpdate>&,
                                 const FdtdPhasorUpdate::Result& r, CompareRow& row) {
    row.extra["verified_against"] = against;
    row.extra["verified_nodes"] = reference->nodes();
    const SampledError check = sampled_phasor_error(r, *reference);
    if (!check.worst.empty()) row.extra["worst_node"] = check.worst;
    return check.error;
  };
  return v;
}

namespace {

std::vector<CompareRow> run_phasors(CompareContext& ctx) {
  std::vector<CompareRow> rows;
  for (index_t n : phasor_sizes(ctx.options().size)) {
    const auto problem = make_phasor_benchmark_problem(n, compare_frequencies, compare_samples);
    CaseModel model;
    model.workload = "fdtd-phasors";
    model.case_name = fmt::format("phasor update {}^3 nodes {} freq", n + 1, compare_frequencies);
    model.size = fmt::format("{} nodes x {} samples", problem.grid.nodes(), compare_samples);
    model.work_units = double(problem.grid.nodes()) * double(compare_samples);
    model.throughput_unit = "cells/s";
    model.bytes = phasor_sample_bytes(problem);
    model.flops = phasor_sample_flops(problem);
    const auto verification = phasor_verification(problem, ctx.options().size);
    model.tolerance = verification.tolerance;
    auto case_rows =
        compare_variants_checked<FdtdPhasorUpdate>(ctx, model, problem, verification.check);
    for (auto& row : case_rows) {
      row.extra["samples"] = compare_samples;
      row.extra["bytes_per_cell_sample"] = model.bytes / model.work_units;
    }
    rows.insert(rows.end(), case_rows.begin(), case_rows.end());
  }
  return rows;
}

}  // namespace
}  // namespace ppkit::fdtd

namespace ppkit::registration {
void register_fdtd_phasor_compare() {
  register_workload({"fdtd-phasors",
                     "FDTD running DFT phasor update (cells/s, pure streaming; float4 showcase)",
                     [](const CompareContext& ctx) {
                       int selected = 0;
                       for (const auto& v : Registry<FdtdPhasorUpdate>::all())
                         selected += ctx.variant_selected(v.name);
                       return selected * int(fdtd::phasor_sizes(ctx.options().size).size());
                     },
                     fdtd::run_phasors});
}
}  // namespace ppkit::registration
