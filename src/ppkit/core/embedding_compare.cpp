#include "ppkit/core/embedding_compare.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "ppkit/core/error.hpp"

namespace ppkit {
namespace {

std::vector<EmbeddingRows>& contributions() {
  static std::vector<EmbeddingRows> c;
  return c;
}

int count_all(const CompareContext& ctx) {
  int n = 0;
  for (const auto& c : contributions()) n += c.count(ctx);
  return n;
}

std::vector<CompareRow> run_all(CompareContext& ctx) {
  std::vector<CompareRow> rows;
  for (const auto& c : contributions()) {
    auto part = c.run(ctx);
    rows.insert(rows.end(), part.begin(), part.end());
  }
  return rows;
}

}  // namespace

void register_embedding_rows(EmbeddingRows rows) {
  auto& all = contributions();
  for (const auto& c : all)
    if (c.name == rows.name)
      throw Error("embedding rows of '" + rows.name + "' are registered twice");
  all.push_back(std::move(rows));
  if (all.size() == 1)
    register_workload({"embedding",
                       "each workload's operator (sem axhelm, fem assembly) through the registry, "
                       "the C++ operator, the C handle and the copying one-shot C call: the "
                       "overhead a host code pays (docs/embedding.md)",
                       count_all, run_all});
}

TimingSummary time_calls(const std::function<void()>& fn, int repeats) {
  fn();
  const auto start = std::chrono::steady_clock::now();
  fn();
  const double once = std::max(seconds_since(start), 1e-7);
  const int calls = int(std::clamp(2e-3 / once, 1.0, 10000.0));
  TimingSummary t = time_repeats(
      [&] {
        for (int i = 0; i < calls; ++i) fn();
      },
      repeats, 0);
  for (double* s : {&t.median_s, &t.min_s, &t.max_s}) *s /= calls;
  for (double& s : t.samples_s) s /= calls;
  return t;
}

double relative_error(const std::vector<double>& y, const std::vector<double>& ref) {
  if (y.size() != ref.size()) return std::nan("");
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    diff += (y[i] - ref[i]) * (y[i] - ref[i]);
    norm += ref[i] * ref[i];
  }
  return std::sqrt(diff / std::max(norm, 1e-300));
}

void finish_embedding_row(CompareRow& row, double work_units, double* registry_seconds) {
  row.status = row.error <= row.tolerance ? "PASS" : "FAIL";
  if (row.status != "PASS") {
    row.message = "error above tolerance";
    withhold_figures_unless_passed(row);
    return;
  }
  const double t = row.timing.median_s;
  row.throughput = work_units / t;
  if (row.extra.value("api", std::string()) == "registry") *registry_seconds = t;
  if (std::isfinite(*registry_seconds)) {
    row.speedup = *registry_seconds / t;
    row.extra["overhead"] = t / *registry_seconds - 1;
    row.extra["overhead_us"] = (t - *registry_seconds) * 1e6;
  }
}

}  // namespace ppkit
