#include "ppkit/core/compare_run.hpp"

#include <algorithm>

#include "ppkit/core/error.hpp"

namespace ppkit {

std::vector<CompareRow> run_compare(const CompareOptions& options) {
  const auto& all = workloads();
  std::string known;
  for (const auto& w : all) known += (known.empty() ? "" : ", ") + w.name;
  for (const auto& name : options.workloads)
    require(std::any_of(all.begin(), all.end(), [&](const auto& w) { return w.name == name; }),
            "unknown workload '" + name + "'", known.empty() ? "none built" : known);
  CompareContext ctx(options);
  std::vector<CompareRow> rows;
  for (const auto& w : all) {
    if (!options.workloads.empty() && std::find(options.workloads.begin(), options.workloads.end(),
                                                w.name) == options.workloads.end())
      continue;
    try {
      const auto r = w.run(ctx);
      rows.insert(rows.end(), r.begin(), r.end());
    } catch (const std::exception& e) {
      CompareRow row;
      row.workload = w.name;
      row.status = "ERROR";
      row.message = e.what();
      rows.push_back(row);
    }
  }
  return rows;
}

}  // namespace ppkit
