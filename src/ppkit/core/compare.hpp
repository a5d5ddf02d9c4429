#pragma once
// `ppkit compare`: every workload registers a driver that runs each of its
// operations' variants on the same problems, verifies each result against the
// workload's reference and reports one CompareRow per (case, variant).
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ppkit/core/registry.hpp"
#include "ppkit/core/timing.hpp"

namespace ppkit {

enum class ProblemSize { quick, standard, large };  // --quick, --default, --large
ProblemSize parse_problem_size(const std::string& s);
const char* to_string(ProblemSize s);

struct CompareRow {
  std::string workload;   // "fem"
  std::string case_name;  // "assemble box 32x32x32"
  std::string size;       // "98304 DOF"
  std::string variant, backend, device;
  std::string status = "PASS";  // PASS, FAIL (verification), SKIP (unavailable), ERROR (threw)
  std::string message;          // skip reason, error text, or verification detail
  TimingSummary timing;
  double throughput = std::nan("");         // in throughput_unit per second
  std::string throughput_unit;              // "elements/s", "GDOF/s", "cells/s"
  double bytes = std::nan("");              // compulsory DRAM bytes per run (roofline model)
  double flops = std::nan("");              // flops per run
  double bandwidth_Bps = std::nan("");      // copy bandwidth measured for this backend
  double roofline_fraction = std::nan("");  // (bytes / time) / bandwidth
  double speedup = std::nan("");            // over the workload's baseline variant
  double error = std::nan("");              // verification error (relative)
  double tolerance = std::nan("");
  nlohmann::json extra = nlohmann::json::object();
};

struct CompareOptions {
  ProblemSize size = ProblemSize::quick;
  int repeats = 5;
  std::vector<std::string> workloads;  // empty: all
  std::string variant_glob = "*";
  std::string out_dir;
  // false: no copy-bandwidth probe (512 MiB per buffer; tests), so rows get
  // no bandwidth and no roofline.
  bool measure_bandwidth = true;
};

// What a run shares across workloads: options, bandwidth per backend, progress.
class CompareContext {
 public:
  explicit CompareContext(CompareOptions options) : options_(std::move(options)) {}
  const CompareOptions& options() const { return options_; }
  // Copy bandwidth (bytes/s) of the backend's device, measured once per run
  // with the backend's StreamCopy variant; NaN when the backend has none.
  double bandwidth(const std::string& backend);
  std::function<void(const std::string&)> on_progress = [](const std::string&) {};
  // Called with every row as soon as it is measured (before the case's
  // speedups are known), so a report can grow while a long run goes on.
  std::function<void(const CompareRow&)> on_row = [](const CompareRow&) {};
  bool variant_selected(const std::string& name) const;

 private:
  CompareOptions options_;
  std::map<std::string, double> bandwidth_;
};

struct Workload {
  std::string name;         // "fem"
  std::string description;  // one line
  // Counts the rows the driver will produce, for the progress display.
  std::function<int(const CompareContext&)> count_cases;
  std::function<std::vector<CompareRow>(CompareContext&)> run;
};
void register_workload(Workload w);
const std::vector<Workload>& workloads();

// Shell-style glob with * and ?.
bool glob_match(const std::string& pattern, const std::string& text);

// Runs every selected variant of Op on `problem`:
//  - unavailable -> SKIP with the variant's reason;
//  - model.skip_reason(name) not empty (a variant without a path for this
//    case, e.g. fdtd.step fp64) -> SKIP with that reason;
//  - prepare/run throwing -> ERROR with the message;
//  - otherwise times run() (median of options.repeats after a warm-up),
//    verifies result() with `verify` (returns relative error), PASS when
//    error <= tolerance, and fills throughput and roofline from the model for
//    PASS rows only: a FAIL or ERROR row carries no throughput, roofline or
//    speedup (its result is wrong, so its speed is no figure of the variant).
struct CaseModel {
  std::string workload, case_name, size;
  double work_units = 0;  // e.g. elements per run; throughput = work_units / time
  std::string throughput_unit;
  // Compulsory DRAM traffic per run: each input array read once, each output
  // written once (the workload's docs say what that is), so a roofline
  // fraction above 1 is a measurement error, not a fast variant.
  double bytes = std::nan("");
  // Optional: the compulsory traffic of one variant when it differs from
  // `bytes` (fdtd.step variants that advance several steps per pass over
  // the grid); used for that variant's GB/s and roofline.
  std::function<double(const std::string& variant)> variant_bytes = nullptr;
  // Optional: the traffic of the workload's kernel model (what a variant of
  // the usual design moves, e.g. every update a read-modify-write); reported
  // as extra "modelled_bytes" and "modelled_GB/s" on PASS rows.
  double modelled_bytes = std::nan("");
  double flops = std::nan("");
  double tolerance = 0;
  // Set-up cost beside the timed run (a workload whose variants do costly
  // work in prepare(): layouts, renumberings, uploads): PASS rows get
  // extra "prepare_s" (wall time of prepare(), measured once, after the
  // backend's device is started), "first_run_s" (the untimed warm-up run,
  // timed alone), "total_1_s" (prepare + first run: one assembly of a new
  // problem) and "total_10_s" (prepare + first run + 9 x median run: 10 runs
  // on one prepared problem).
  bool report_prepare = false;
  // Optional: a non-empty reason skips the variant of that name for this case.
  std::function<std::string(const std::string& variant)> skip_reason;
};

template <class Op>
std::vector<CompareRow> compare_variants(
    CompareContext& ctx, const CaseModel& model, const typename Op::Problem& problem,
    const std::function<double(const typename Op::Result&)>& relative_error);

// The same with a check that also sees the variant and may record what the
// row was verified against (row.extra["verified_against"]) and the figures of
// each check (row.extra): returns the relative error compared with the tolerance.
template <class Op>
using VariantCheck =
    std::function<double(const Variant<Op>&, const typename Op::Result&, CompareRow&)>;
template <class Op>
std::vector<CompareRow> compare_variants_checked(CompareContext& ctx, const CaseModel& model,
                                                 const typename Op::Problem& problem,
                                                 const VariantCheck<Op>& check);

// How one case of a workload is verified: the check `ppkit compare` applies
// and its tolerance. Workloads build one per problem (it owns the reference
// it compares with), so `ppkit compare` and the benchmarks (perf/harness)
// verify a variant by the same path.
template <class Op>
struct CaseVerification {
  double tolerance = 0;
  VariantCheck<Op> check;  // relative error; NaN counts as failed
  // PASS when the error is within the tolerance (false for NaN).
  bool passes(double error) const { return error <= tolerance; }
};

// A FAIL, ERROR or SKIP row publishes no figure: throughput, roofline,
// speedup, the modelled-traffic and the set-up figures are cleared (set to
// NaN / removed).
void withhold_figures_unless_passed(CompareRow& row);

// Whether Kokkos variant k runs on the same device as variant v: v's own
// backend when v is a Kokkos variant, else the Kokkos space whose data lives
// in v's device memory (kokkos-cuda for cuda, kokkos-hip for hip); none for
// OpenCL, which may run on any device.
bool kokkos_on_same_device(const VariantInfo& k, const VariantInfo& v);

// Where the serial host reference is too slow (--large), every variant of a
// case is checked against the result of the most preferred available Kokkos
// variant on the same device (else the most preferred available Kokkos
// variant anywhere), run once per case on first use, untimed. Workloads add
// independent invariants, so the baseline itself is verified too.
template <class Op>
class KokkosBaseline {
 public:
  struct Entry {
    std::string variant;  // name of the baseline variant
    typename Op::Result result;
  };
  explicit KokkosBaseline(const typename Op::Problem& problem) : problem_(problem) {}
  // nullptr when no Kokkos variant of Op is available.
  const Entry* for_variant(const Variant<Op>& v);

 private:
  const typename Op::Problem& problem_;
  std::map<std::string, Entry> by_name_;
};

// Fills CompareRow::speedup of PASS rows: over a PASS row of a baseline
// variant (VariantRole::baseline, extra "role") of the same case on the same
// backend, else over one of the other programming model whose data lives in
// the same device memory (cuda <-> kokkos-cuda; extra "model" and "memory"),
// else left NaN. Rows that did not pass get no speedup, and a baseline that
// did not pass is no baseline.
void compute_speedups(std::vector<CompareRow>& rows);

// Sets the row's variant, backend and, in extra, the variant's strategy and
// common traits ("strategy", "model", "memory", "role"), which
// compute_speedups and the reports read.
void describe_variant(CompareRow& row, const VariantInfo& v);

// ---- implementation ---------------------------------------------------------

template <class Op>
std::vector<CompareRow> compare_variants(
    CompareContext& ctx, const CaseModel& model, const typename Op::Problem& problem,
    const std::function<double(const typename Op::Result&)>& relative_error) {
  return compare_variants_checked<Op>(
      ctx, model, problem, [&](const Variant<Op>&, const typename Op::Result& r, CompareRow&) {
        return relative_error(r);
      });
}

template <class Op>
const typename KokkosBaseline<Op>::Entry* KokkosBaseline<Op>::for_variant(const Variant<Op>& v) {
  const Variant<Op>* best = nullptr;
  // "auto"'s order (variant_traits.hpp): the accelerator's tier first, then
  // host threads (faster than Serial at --large), then the rank.
  for (int pass = 0; pass < 2 && !best; ++pass)
    for (const auto& k : Registry<Op>::all()) {
      if (k.model != ProgrammingModel::kokkos || (pass == 0 && !kokkos_on_same_device(k, v)))
        continue;
      if (k.availability().available && (!best || best->preference < k.preference)) best = &k;
    }
  if (!best) return nullptr;
  auto it = by_name_.find(best->name);
  if (it == by_name_.end()) {
    auto run = best->prepare(problem_);
    run->run();
    it = by_name_.emplace(best->name, Entry{best->name, run->result()}).first;
  }
  return &it->second;
}

template <class Op>
std::vector<CompareRow> compare_variants_checked(CompareContext& ctx, const CaseModel& model,
                                                 const typename Op::Problem& problem,
                                                 const VariantCheck<Op>& check) {
  std::vector<CompareRow> rows;
  for (const auto& v : Registry<Op>::all()) {
    if (!ctx.variant_selected(v.name)) continue;
    CompareRow row;
    row.workload = model.workload;
    row.case_name = model.case_name;
    row.size = model.size;
    describe_variant(row, v);
    row.throughput_unit = model.throughput_unit;
    row.bytes = model.variant_bytes ? model.variant_bytes(v.name) : model.bytes;
    row.flops = model.flops;
    row.tolerance = model.tolerance;
    ctx.on_progress(model.workload + " " + model.case_name + " " + v.name);
    const Availability a = v.availability();
    const std::string skipped = model.skip_reason ? model.skip_reason(v.name) : std::string();
    if (!a.available || !skipped.empty()) {
      row.status = "SKIP";
      row.message = a.available ? skipped : a.reason;
      ctx.on_row(row);
      rows.push_back(row);
      continue;
    }
    try {
      row.device = v.device();
      // The copy-bandwidth probe (once per backend) starts the device first,
      // so prepare_s holds no device start-up.
      row.bandwidth_Bps = ctx.bandwidth(v.backend);
      const auto prepare_start = std::chrono::steady_clock::now();
      auto prepared = v.prepare(problem);
      const double prepare_s = seconds_since(prepare_start);
      // The first run is the warm-up: timed alone (what a first assembly costs).
      const auto first_start = std::chrono::steady_clock::now();
      prepared->run();
      const double first_run_s = seconds_since(first_start);
      row.timing = time_repeats([&] { prepared->run(); }, ctx.options().repeats, 0);
      row.error = check(v, prepared->result(), row);
      row.status = row.error <= model.tolerance ? "PASS" : "FAIL";
      if (row.status == "FAIL") row.message = "error above tolerance";
      if (row.status == "PASS") {
        const double t = row.timing.median_s;
        if (model.report_prepare) {
          row.extra["prepare_s"] = prepare_s;
          row.extra["first_run_s"] = first_run_s;
          row.extra["total_1_s"] = prepare_s + first_run_s;
          row.extra["total_10_s"] = prepare_s + first_run_s + 9 * t;
        }
        row.throughput = model.work_units / t;
        if (!std::isnan(row.bytes) && !std::isnan(row.bandwidth_Bps))
          row.roofline_fraction = row.bytes / t / row.bandwidth_Bps;
        if (!std::isnan(model.modelled_bytes)) {
          row.extra["modelled_bytes"] = model.modelled_bytes;
          row.extra["modelled_GB/s"] = model.modelled_bytes / t * 1e-9;
        }
      }
    } catch (const std::exception& e) {
      row.status = "ERROR";
      row.message = e.what();
    }
    withhold_figures_unless_passed(row);
    ctx.on_row(row);
    rows.push_back(row);
  }
  compute_speedups(rows);
  return rows;
}

}  // namespace ppkit
