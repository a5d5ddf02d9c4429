#pragma once
// Writers for compare results: JSON (machine-readable, mergeable across
// machines), CSV (spreadsheets), Markdown (the human summary).
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

void write_text_file(const std::string& path, const std::string& text);

}  // namespace ppkit
