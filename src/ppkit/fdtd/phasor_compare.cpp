// `ppkit compare --workloads fdtd-phasors`: fdtd.phasor_update on cubes,
// cells/s = box nodes x samples per second and the roofline fraction from
// phasor_sample_bytes() (pure streaming: 24 B of fields + 96 B of running
// sums per node, sample and frequency). quick: 48^3, default: 256^3, large:
// 256^3 and 512^3. Every variant is checked against the serial reference's
// sums (verification.hpp), on every node at quick, else on the sample boxes
// of verification_boxes() (a phasor depends only on its own node); the error
// is the largest deviation relative to the RMS of the reference sums.
#include <fmt/format.h>

#include "ppkit/core/compare.hpp"
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

// The nodes checked: every node at quick, else the sample boxes.
std::vector<SampleBox> phasor_boxes(const FdtdPhasorUpdate::Problem& p, ProblemSize size) {
  if (size != ProblemSize::quick) return verification_boxes(p.grid, 0, {});
  SampleBox whole;
  whole.hi = {p.grid.nx + 1, p.grid.ny + 1, p.grid.nz + 1};
  whole.where = "whole grid";
  return {whole};
}

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
    // The same fp32 multiply-adds in the same order per sum; FMA contraction
    // on a device changes the last bits of each.
    model.tolerance = 1e-5;
    model.baseline_strategy = "plain";
    const auto boxes = phasor_boxes(problem, ctx.options().size);
    const SampledPhasors reference = sampled_phasor_reference(problem, boxes);
    const std::string against = ctx.options().size == ProblemSize::quick
                                    ? std::string("serial reference, every node")
                                    : fmt::format("serial reference on {} nodes in {} boxes",
                                                  reference.nodes(), reference.boxes.size());
    auto case_rows = compare_variants_checked<FdtdPhasorUpdate>(
        ctx, model, problem,
        [&reference](const Variant<FdtdPhasorUpdate>&, const FdtdPhasorUpdate::Result& r,
                     CompareRow& row) {
          const SampledError check = sampled_phasor_error(r, reference);
          if (!check.worst.empty()) row.extra["worst_node"] = check.worst;
          return check.error;
        });
    for (auto& row : case_rows) {
      row.extra["verified_against"] = against;
      row.extra["verified_nodes"] = reference.nodes();
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
