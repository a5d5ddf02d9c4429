#pragma once
// Workload "embedding" of `ppkit compare`: what a host code pays for calling a
// workload's operator through each embedding API (docs/embedding.md), against
// the registry's run() of the same variant. Each workload that has an
// embeddable operator contributes its own rows (sem: axhelm, fem: assembly)
// through register_embedding_rows(); the "embedding" workload, registered with
// the first contribution, runs them all in registration order, so core knows
// no workload and no workload includes another.
//
// Row semantics shared by every contribution: extra.api names the API
// ("registry", "cpp-operator", "c-handle", "c-oneshot"), each row's result is
// verified against the workload's serial reference, "speedup" is the registry
// row's time over this row's (1 = no overhead), extra.overhead the relative
// extra time (this / registry - 1) and extra.overhead_us the absolute extra
// time per call in microseconds.
#include <functional>
#include <string>
#include <vector>

#include "ppkit/core/compare.hpp"

namespace ppkit {

struct EmbeddingRows {
  std::string name;  // the contributing workload, "sem"
  // The number of rows run() produces (for the progress display).
  std::function<int(const CompareContext&)> count;
  std::function<std::vector<CompareRow>(CompareContext&)> run;
};
// Adds a workload's rows to the "embedding" workload (registered with the
// first contribution). Throws ppkit::Error on a name contributed twice.
void register_embedding_rows(EmbeddingRows rows);

// The APIs every contribution measures, in row order (the registry first: the
// other rows' overhead is over it).
inline constexpr const char* kEmbeddingApis[] = {"registry", "cpp-operator", "c-handle",
                                                 "c-oneshot"};

// Times fn as a batch of calls per sample (a sample lasts about 2 ms at
// least, so sub-microsecond calls are resolved), the median of `repeats`
// samples, per call; two calls before (a warm-up, and one that sizes the batch).
TimingSummary time_calls(const std::function<void()>& fn, int repeats);

// ||y - ref||_2 / ||ref||_2; NaN when the sizes differ or y holds a NaN.
double relative_error(const std::vector<double>& y, const std::vector<double>& ref);

// Completes a measured row (row.error, row.tolerance, row.timing and
// row.extra["api"] set): PASS when error <= tolerance, else FAIL with no
// figure. A PASS row gets throughput = work_units / median; the registry row
// records its time in *registry_seconds; every PASS row after it gets
// speedup, extra.overhead and extra.overhead_us over that time.
void finish_embedding_row(CompareRow& row, double work_units, double* registry_seconds);

}  // namespace ppkit
