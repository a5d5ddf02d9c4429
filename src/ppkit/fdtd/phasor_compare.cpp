// `ppkit compare --workloads fdtd-phasors`: fdtd.phasor_update on cubes,
// cells/s = box nodes x samples per second and the roofline fraction from
// phasor_sample_bytes() (pure streaming: 24 B of fields + 96 B of running
// sums per node, sample and frequency). quick: 48^3 verified against the
// serial reference; default: 256^3; large: 256^3 and 512^3, verified against
// the kokkos/plain variant of the most preferred available Kokkos space.
#include <fmt/format.h>

#include <memory>

#include "ppkit/core/compare.hpp"
#include "ppkit/fdtd/fdtd_verification.hpp"
#include "ppkit/fdtd/phasors.hpp"

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

std::pair<FdtdPhasorUpdate::Result, std::string> phasor_baseline(const FdtdPhasorUpdate::Problem& p,
                                                                 ProblemSize size) {
  if (size == ProblemSize::quick) return {reference_phasor_update(p), "serial reference"};
  const Variant<FdtdPhasorUpdate>* best = nullptr;
  for (const auto& v : Registry<FdtdPhasorUpdate>::all())
    if (v.strategy == "plain" && v.backend.rfind("kokkos-", 0) == 0 && v.availability().available &&
        (!best || v.preference > best->preference))
      best = &v;
  if (!best) return {reference_phasor_update(p), "serial reference"};
  auto run = best->prepare(p);
  run->run();
  return {run->result(), best->name};
}

}  // namespace

CaseVerification<FdtdPhasorUpdate> phasor_verification(const FdtdPhasorUpdate::Problem& problem,
                                                       ProblemSize size) {
  auto [expected, against] = phasor_baseline(problem, size);
  auto reference = std::make_shared<const FdtdPhasorUpdate::Result>(std::move(expected));
  CaseVerification<FdtdPhasorUpdate> v;
  v.tolerance = 1e-5;  // same fp32 multiply-adds in the same order per sum
  v.check = [reference, against = against](const Variant<FdtdPhasorUpdate>&,
                                           const FdtdPhasorUpdate::Result& r, CompareRow& row) {
    row.extra["verified_against"] = against;
    return phasors_relative_error(r.phasors, reference->phasors);
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
    model.baseline_strategy = "plain";
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
