#pragma once
// Writers for compare results: JSON (machine-readable, mergeable across
// machines), CSV (spreadsheets), Markdown (the human summary).
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ppkit/core/compare.hpp"

namespace ppkit {

nlohmann::json to_json(const CompareRow& row);
CompareRow row_from_json(const nlohmann::json& j);

// {"ppkit": info, "options": {...}, "rows": [...]}
nlohmann::json results_json(const std::vector<CompareRow>& rows, const CompareOptions& options,
                            const nlohmann::json& machine_info);
std::string results_csv(const std::vector<CompareRow>& rows);
std::string results_table(const std::vector<CompareRow>& rows, bool markdown);

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
