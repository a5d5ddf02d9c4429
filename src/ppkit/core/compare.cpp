#include "ppkit/core/compare.hpp"

#include <map>
#include <utility>

#include "ppkit/core/copy_probe.hpp"
#include "ppkit/core/stream_copy.hpp"

namespace ppkit {

ProblemSize parse_problem_size(const std::string& s) {
  if (s == "quick") return ProblemSize::quick;
  if (s == "default" || s == "standard") return ProblemSize::standard;
  if (s == "large") return ProblemSize::large;
  throw Error("unknown problem size '" + s + "'", "quick, default, large");
}

const char* to_string(ProblemSize s) {
  switch (s) {
    case ProblemSize::quick:
      return "quick";
    case ProblemSize::standard:
      return "default";
    case ProblemSize::large:
      return "large";
  }
  return "?";
}

bool glob_match(const std::string& pattern, const std::string& text) {
  // Iterative matcher with backtracking on the last '*'.
  std::size_t p = 0, t = 0, star = std::string::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool CompareContext::variant_selected(const std::string& name) const {
  // A comma-separated list of globs; a variant is selected if any matches.
  std::size_t start = 0;
  const std::string& g = options_.variant_glob;
  while (start <= g.size()) {
    const std::size_t end = std::min(g.find(',', start), g.size());
    if (glob_match(g.substr(start, end - start), name)) return true;
    start = end + 1;
  }
  return false;
}

double CompareContext::bandwidth(const std::string& backend) {
  auto it = bandwidth_.find(backend);
  if (it != bandwidth_.end()) return it->second;
  // Measured once per process for a backend and probe size (copy_probe.hpp).
  const double bw = options_.measure_bandwidth
                        ? backend_copy_bandwidth(backend, copy_probe_doubles())
                        : std::nan("");
  bandwidth_[backend] = bw;
  return bw;
}

namespace {
std::vector<Workload>& workload_storage() {
  static std::vector<Workload> w;
  return w;
}
}  // namespace

void register_workload(Workload w) {
  for (const auto& existing : workload_storage())
    if (existing.name == w.name) throw Error("workload '" + w.name + "' is registered twice");
  workload_storage().push_back(std::move(w));
}

const std::vector<Workload>& workloads() {
  register_all_variants();
  return workload_storage();
}

bool kokkos_on_same_device(const VariantInfo& k, const VariantInfo& v) {
  if (k.model != ProgrammingModel::kokkos) return false;
  if (v.model == ProgrammingModel::kokkos) return k.backend == v.backend;
  return v.memory && *v.memory != MemoryKind::host && k.memory == v.memory;
}

void withhold_figures_unless_passed(CompareRow& row) {
  if (row.status == "PASS") return;
  row.throughput = std::nan("");
  row.roofline_fraction = std::nan("");
  row.speedup = std::nan("");
  for (const char* key :
       {"modelled_bytes", "modelled_GB/s", "prepare_s", "first_run_s", "total_1_s", "total_10_s"})
    row.extra.erase(key);
}

void describe_variant(CompareRow& row, const VariantInfo& v) {
  row.variant = v.name;
  row.backend = v.backend;
  row.extra["strategy"] = v.strategy;
  row.extra["model"] = to_string(v.model);
  row.extra["memory"] = memory_name(v.memory);
  row.extra["role"] = to_string(v.role);
}

void compute_speedups(std::vector<CompareRow>& rows) {
  auto trait = [](const CompareRow& r, const char* key) {
    return r.extra.value(key, std::string());
  };
  // kokkos-cuda and cuda keep their data in the same device's memory: a
  // native variant without a baseline of its own is compared with the Kokkos
  // baseline there (and the other way round), never with a baseline on
  // another device. Host memory holds only Kokkos variants; OpenCL buffers
  // ("none") belong to no such pair.
  auto same_device = [&](const CompareRow& a, const CompareRow& b) {
    if (a.backend == b.backend) return true;
    const std::string memory = trait(a, "memory");
    return memory != "none" && memory != "host" && memory == trait(b, "memory") &&
           trait(a, "model") != trait(b, "model");
  };
  for (auto& row : rows) {
    if (row.status != "PASS") {
      row.speedup = std::nan("");
      continue;
    }
    const CompareRow* base = nullptr;
    for (const auto& b : rows)
      if (b.status == "PASS" && b.case_name == row.case_name &&
          trait(b, "role") == to_string(VariantRole::baseline) && b.timing.median_s > 0 &&
          same_device(b, row) && (!base || b.backend == row.backend))
        base = &b;
    if (base) row.speedup = base->timing.median_s / row.timing.median_s;
  }
}

}  // namespace ppkit
