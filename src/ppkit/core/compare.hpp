#pragma once
// `ppkit compare`: every workload registers a driver that runs each of its
// operations' variants on the same problems, verifies each result against the
// workload's reference and reports one CompareRow per (case, variant).
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
  double bytes = std::nan("");              // bytes moved per run (roofline model)
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
//  - prepare/run throwing -> ERROR with the message;
//  - otherwise times run() (median of options.repeats after a warm-up),
//    verifies result() with `verify` (returns relative error), PASS when
//    error <= tolerance, and fills throughput and roofline from the model.
struct CaseModel {
  std::string workload, case_name, size;
  double work_units = 0;  // e.g. elements per run; throughput = work_units / time
  std::string throughput_unit;
  double bytes = std::nan("");
  double flops = std::nan("");
  double tolerance = 0;
  std::string baseline_strategy;  // speedups are over this strategy
};

template <class Op>
std::vector<CompareRow> compare_variants(
    CompareContext& ctx, const CaseModel& model, const typename Op::Problem& problem,
    const std::function<double(const typename Op::Result&)>& relative_error);

// Fills CompareRow::speedup: over the baseline strategy on the same backend,
// else on the same device family (cuda <-> kokkos-cuda), else left NaN.
void compute_speedups(std::vector<CompareRow>& rows, const std::string& baseline_strategy);

// ---- implementation ---------------------------------------------------------

template <class Op>
std::vector<CompareRow> compare_variants(
    CompareContext& ctx, const CaseModel& model, const typename Op::Problem& problem,
    const std::function<double(const typename Op::Result&)>& relative_error) {
  std::vector<CompareRow> rows;
  for (const auto& v : Registry<Op>::all()) {
    if (!ctx.variant_selected(v.name)) continue;
    CompareRow row;
    row.workload = model.workload;
    row.case_name = model.case_name;
    row.size = model.size;
    row.variant = v.name;
    row.backend = v.backend;
    row.throughput_unit = model.throughput_unit;
    row.bytes = model.bytes;
    row.flops = model.flops;
    row.tolerance = model.tolerance;
    row.extra["strategy"] = v.strategy;
    ctx.on_progress(model.workload + " " + model.case_name + " " + v.name);
    const Availability a = v.availability();
    if (!a.available) {
      row.status = "SKIP";
      row.message = a.reason;
      rows.push_back(row);
      continue;
    }
    try {
      row.device = v.device();
      auto prepared = v.prepare(problem);
      row.timing = time_repeats([&] { prepared->run(); }, ctx.options().repeats, 1);
      row.error = relative_error(prepared->result());
      row.status = row.error <= model.tolerance ? "PASS" : "FAIL";
      if (row.status == "FAIL") row.message = "error above tolerance";
      row.throughput = model.work_units / row.timing.median_s;
      row.bandwidth_Bps = ctx.bandwidth(v.backend);
      if (!std::isnan(model.bytes) && !std::isnan(row.bandwidth_Bps))
        row.roofline_fraction = model.bytes / row.timing.median_s / row.bandwidth_Bps;
    } catch (const std::exception& e) {
      row.status = "ERROR";
      row.message = e.what();
    }
    rows.push_back(row);
  }
  compute_speedups(rows, model.baseline_strategy);
  return rows;
}

}  // namespace ppkit
