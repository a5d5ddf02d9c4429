#pragma once
// Writers for compare results: JSON (machine-readable, mergeable across
// machines), CSV (spreadsheets), Markdown (the human summary).
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ppkit/core/compare.hpp"

namespace ppkit {

nlohmann::json to_json(const CompareRow& row);
CompareRow row_from_json(const nlohmann::json& j);

// {"ppkit": info, "provenance": {...}, "options": {...}, "rows": [...]}; the
// provenance is run_provenance(machine_info) (provenance.hpp) when none is given.
nlohmann::json results_json(const std::vector<CompareRow>& rows, const CompareOptions& options,
                            const nlohmann::json& machine_info,
                            const nlohmann::json& provenance = nlohmann::json());
std::string results_csv(const std::vector<CompareRow>& rows);
// Every row, one line each (Markdown or aligned text).
std::string results_table(const std::vector<CompareRow>& rows, bool markdown);

// "fem assemble box 8x8x8 [2187 DOF]": the workload, case and size of a row.
std::string case_label(const CompareRow& row);

// The headline of a report: per case, the passing variant of highest
// throughput, its roofline fraction, and the best Kokkos variant's throughput
// over the best native (CUDA, HIP, OpenCL) variant's on that variant's device
// (NaN where the device lacks either kind).
struct HeadlineRow {
  std::string case_label, variant, device, throughput_unit;
  double throughput = std::nan("");
  double roofline_fraction = std::nan("");
  double kokkos_over_native = std::nan("");
  std::string kokkos_variant, native_variant;  // the two rows of the ratio
};
std::vector<HeadlineRow> headline(const std::vector<CompareRow>& rows);
// The headline as a table; the text form fits `width` columns (the case is
// shortened with "..." where it would not).
std::string headline_table(const std::vector<CompareRow>& rows, bool markdown,
                           std::size_t width = 160);

// The console form of a report, at most `width` columns: each case on a line
// of its own, then its variants that ran (SKIP rows left out; long messages
// wrapped), then skipped_summary().
std::string console_table(const std::vector<CompareRow>& rows, std::size_t width = 160);
// SKIP rows collapsed to one line per backend and reason: "cuda: 45 variants
// skipped (90 rows): no CUDA device". Empty when nothing was skipped.
std::string skipped_summary(const std::vector<CompareRow>& rows, bool markdown,
                            std::size_t width = 160);
// summary.md: size and repeats, provenance, headline, the rows that ran and
// the skipped ones collapsed (every row stays in results.json).
// `in_progress` non-empty marks a report written while the run goes on.
std::string summary_markdown(const std::vector<CompareRow>& rows, const CompareOptions& options,
                             const nlohmann::json& provenance, const std::string& in_progress = "");

// Human form of a throughput value: "1.23 G elements/s".
std::string format_rate(double value, const std::string& unit);

// `ppkit compare --merge`: results of several runs side by side and each
// workload's performance portability (Pennycook, Sewall & Lee 2016):
//   PP(a, H) = |H| / sum_{i in H} 1 / e_i(a)  if application a passed on every
//   platform i of H, else 0,
// with H the platforms present in the merged files. A platform is a device
// (the rows' "device"; the file's label when a row names none), so a CPU and a
// GPU of one machine are two platforms and one device in two files is one.
// An application is a variant with the Kokkos backend folded
// ("kokkos-cuda/x" and "kokkos-openmp/x" are both "kokkos/x": one source).
// e_i(a) is the architectural efficiency: the mean roofline fraction of a's
// passing rows of the workload on platform i (rows without one do not count).
struct MergedResults {
  struct Portability {
    std::string workload, application;
    double pp = 0;
    std::map<std::string, double> efficiency;  // platform -> e_i (absent: not supported)
  };
  std::vector<std::string> platforms;  // in order of first appearance
  std::vector<Portability> portability;
  std::string markdown;  // throughput per platform and the PP table
};
// `files`: (label, results JSON) pairs; throws ppkit::Error for a JSON without "rows".
MergedResults merge_results(const std::vector<std::pair<std::string, nlohmann::json>>& files);

void write_text_file(const std::string& path, const std::string& text);

}  // namespace ppkit
