#include "ppkit/core/results.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <set>

#include "ppkit/core/error.hpp"
#include "ppkit/core/provenance.hpp"

namespace ppkit {
namespace {
nlohmann::json number_or_null(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
}
double number_or_nan(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : std::nan("");
}
std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}
std::string fixed_or_dash(double x, const char* format) {
  return std::isfinite(x) ? fmt::format(fmt::runtime(format), x) : std::string("-");
}
// A number of row.extra (e.g. the set-up figures of CaseModel::report_prepare),
// NaN where absent.
double extra_number(const CompareRow& r, const char* key) {
  const auto it = r.extra.find(key);
  return it != r.extra.end() && it->is_number() ? it->get<double>() : std::nan("");
}
std::string seconds_or_dash(double s) {
  if (!std::isfinite(s)) return "-";
  return s < 1 ? fmt::format("{:.3g} ms", s * 1e3) : fmt::format("{:.3g} s", s);
}
}  // namespace

nlohmann::json to_json(const CompareRow& row) {
  // A row that did not pass publishes no throughput, roofline or speedup,
  // whoever filled them (compare.hpp).
  CompareRow r = row;
  withhold_figures_unless_passed(r);
  return {{"workload", r.workload},
          {"case", r.case_name},
          {"size", r.size},
          {"variant", r.variant},
          {"backend", r.backend},
          {"device", r.device},
          {"status", r.status},
          {"message", r.message},
          {"median_s", number_or_null(r.timing.median_s)},
          {"min_s", number_or_null(r.timing.min_s)},
          {"max_s", number_or_null(r.timing.max_s)},
          {"samples_s", r.timing.samples_s},
          {"throughput", number_or_null(r.throughput)},
          {"throughput_unit", r.throughput_unit},
          {"bytes", number_or_null(r.bytes)},
          {"flops", number_or_null(r.flops)},
          {"bandwidth_Bps", number_or_null(r.bandwidth_Bps)},
          {"roofline_fraction", number_or_null(r.roofline_fraction)},
          {"speedup", number_or_null(r.speedup)},
          {"error", number_or_null(r.error)},
          {"tolerance", number_or_null(r.tolerance)},
          {"extra", r.extra}};
}

CompareRow row_from_json(const nlohmann::json& j) {
  CompareRow r;
  r.workload = j.value("workload", "");
  r.case_name = j.value("case", "");
  r.size = j.value("size", "");
  r.variant = j.value("variant", "");
  r.backend = j.value("backend", "");
  r.device = j.value("device", "");
  r.status = j.value("status", "");
  r.message = j.value("message", "");
  r.timing.median_s = number_or_nan(j, "median_s");
  r.timing.min_s = number_or_nan(j, "min_s");
  r.timing.max_s = number_or_nan(j, "max_s");
  r.throughput = number_or_nan(j, "throughput");
  r.throughput_unit = j.value("throughput_unit", "");
  r.bytes = number_or_nan(j, "bytes");
  r.flops = number_or_nan(j, "flops");
  r.bandwidth_Bps = number_or_nan(j, "bandwidth_Bps");
  r.roofline_fraction = number_or_nan(j, "roofline_fraction");
  r.speedup = number_or_nan(j, "speedup");
  r.error = number_or_nan(j, "error");
  r.tolerance = number_or_nan(j, "tolerance");
  if (j.contains("extra")) r.extra = j["extra"];
  return r;
}

nlohmann::json results_json(const std::vector<CompareRow>& rows, const CompareOptions& options,
                            const nlohmann::json& machine_info, const nlohmann::json& provenance) {
  nlohmann::json out;
  out["ppkit"] = machine_info;
  out["provenance"] = provenance.is_null() ? run_provenance(machine_info) : provenance;
  out["options"] = {{"size", to_string(options.size)},
                    {"repeats", options.repeats},
                    {"workloads", options.workloads},
                    {"variants", options.variant_glob}};
  out["rows"] = nlohmann::json::array();
  for (const auto& r : rows) out["rows"].push_back(to_json(r));
  return out;
}

std::string results_csv(const std::vector<CompareRow>& rows) {
  std::string out =
      "workload,case,size,variant,backend,device,status,median_s,min_s,max_s,throughput,"
      "throughput_unit,bytes,flops,bandwidth_Bps,roofline_fraction,speedup,error,tolerance,"
      "message,prepare_s,total_1_s,total_10_s\n";
  auto num = [](double x) { return std::isfinite(x) ? fmt::format("{:.6g}", x) : std::string(); };
  for (CompareRow r : rows) {
    withhold_figures_unless_passed(r);
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                       csv_escape(r.workload), csv_escape(r.case_name), csv_escape(r.size),
                       csv_escape(r.variant), csv_escape(r.backend), csv_escape(r.device), r.status,
                       num(r.timing.median_s), num(r.timing.min_s), num(r.timing.max_s),
                       num(r.throughput), csv_escape(r.throughput_unit), num(r.bytes), num(r.flops),
                       num(r.bandwidth_Bps), num(r.roofline_fraction), num(r.speedup), num(r.error),
                       num(r.tolerance), csv_escape(r.message), num(extra_number(r, "prepare_s")),
                       num(extra_number(r, "total_1_s")), num(extra_number(r, "total_10_s")));
  }
  return out;
}

std::string format_rate(double value, const std::string& unit) {
  if (!std::isfinite(value)) return "-";
  const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
  int i = 0;
  while (std::abs(value) >= 1000 && i < 5) {
    value /= 1000;
    ++i;
  }
  return fmt::format("{:.3g} {}{}", value, prefixes[i], unit);
}

std::string results_table(const std::vector<CompareRow>& rows, bool markdown) {
  std::vector<std::string> header = {"workload", "case",       "variant",  "device",  "median",
                                     "spread",   "throughput", "roofline", "speedup", "verified"};
  // The Markdown report also says what each row was checked against, where a
  // workload recorded it (e.g. a Kokkos baseline and invariants at --large).
  auto against = [](const CompareRow& r) {
    const auto it = r.extra.find("verified_against");
    return it != r.extra.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const bool with_against =
      markdown && std::any_of(rows.begin(), rows.end(),
                              [&](const CompareRow& r) { return !against(r).empty(); });
  // Where a workload reports its set-up (CaseModel::report_prepare): prepare()
  // and the totals of 1 and of 10 runs on one prepared problem.
  const bool with_set_up = std::any_of(rows.begin(), rows.end(), [](const CompareRow& r) {
    return r.status == "PASS" && std::isfinite(extra_number(r, "total_10_s"));
  });
  if (with_set_up) header.push_back("prepare / total 1x / 10x");
  if (with_against) header.push_back("checked against");
  std::vector<std::vector<std::string>> cells;
  for (CompareRow r : rows) {
    withhold_figures_unless_passed(r);
    std::string verified = r.status;
    if ((r.status == "PASS" || r.status == "FAIL") && std::isfinite(r.error))
      verified += fmt::format(" ({:.1e})", r.error);
    if (r.status == "SKIP" || r.status == "ERROR") verified += ": " + r.message;
    const bool timed = r.status == "PASS" || r.status == "FAIL";
    cells.push_back({r.workload, r.case_name + (r.size.empty() ? "" : " [" + r.size + "]"),
                     r.variant, r.device,
                     timed ? fmt::format("{:.3g} ms", r.timing.median_s * 1e3) : "-",
                     timed ? fmt::format("{:.0f}%", r.timing.spread() * 100) : "-",
                     timed ? format_rate(r.throughput, r.throughput_unit) : "-",
                     fixed_or_dash(r.roofline_fraction * 100, "{:.0f}%"),
                     fixed_or_dash(r.speedup, "{:.2f}x"), verified});
    if (with_set_up)
      cells.back().push_back(std::isfinite(extra_number(r, "prepare_s"))
                                 ? seconds_or_dash(extra_number(r, "prepare_s")) + " / " +
                                       seconds_or_dash(extra_number(r, "total_1_s")) + " / " +
                                       seconds_or_dash(extra_number(r, "total_10_s"))
                                 : "-");
    if (with_against) cells.back().push_back(against(r).empty() ? "-" : against(r));
  }
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& row : cells)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  auto line = [&](const std::vector<std::string>& row) {
    std::string s = markdown ? "|" : "";
    for (std::size_t c = 0; c < row.size(); ++c) {
      s += markdown ? " " + row[c] + " |" : fmt::format("{:<{}}  ", row[c], width[c]);
    }
    while (!markdown && !s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  std::string out = line(header);
  if (markdown) {
    out += "|";
    for (std::size_t c = 0; c < header.size(); ++c) out += " --- |";
    out += "\n";
  }
  for (const auto& row : cells) out += line(row);
  return out;
}

std::string case_label(const CompareRow& r) {
  std::string label = r.workload;
  if (!r.case_name.empty()) label += " " + r.case_name;
  if (!r.size.empty()) label += " [" + r.size + "]";
  return label;
}

namespace {
// The row's variant traits (compare.hpp describe_variant).
std::string row_trait(const CompareRow& r, const char* key) {
  return r.extra.value(key, std::string());
}
bool is_kokkos(const CompareRow& r) {
  return row_trait(r, "model") == to_string(ProgrammingModel::kokkos);
}

// Which device a row ran on, for setting Kokkos beside native variants: host
// Kokkos spaces and OpenCL CPU platforms (PoCL) are "CPU"; otherwise the
// device's name before its details ("NVIDIA H200 (132 SMs, sm_90)" and
// "NVIDIA H200 (NVIDIA CUDA, 132 CUs)" are both "NVIDIA H200").
std::string device_key(const CompareRow& r) {
  if (row_trait(r, "memory") == to_string(MemoryKind::host)) return "CPU";
  if (r.device.find("Portable Computing Language") != std::string::npos ||
      r.device.rfind("CPU", 0) == 0)
    return "CPU";
  return r.device.substr(0, r.device.find(" ("));
}

// Case labels in order of first appearance.
std::vector<std::string> case_order(const std::vector<CompareRow>& rows) {
  std::vector<std::string> order;
  std::set<std::string> seen;
  for (const auto& r : rows)
    if (seen.insert(case_label(r)).second) order.push_back(case_label(r));
  return order;
}

// `text` broken at spaces into lines of at most `width` columns: the first
// line continues a line already `first_used` columns long, the others start
// after `indent` spaces (a word longer than a line is cut).
std::string wrap(std::string text, std::size_t width, std::size_t indent,
                 std::size_t first_used = 0) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  indent = std::min(indent, width / 2);
  const std::string new_line = "\n" + std::string(indent, ' ');
  std::string out;
  std::size_t col = first_used;
  bool line_empty = true;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;
    while (indent + word.size() > width) {
      if (!line_empty || col > indent) out += new_line;
      out += word.substr(0, width - indent) + new_line;
      word = word.substr(width - indent);
      col = indent;
      line_empty = true;
    }
    if (word.empty()) continue;
    const std::size_t need = (line_empty ? 0 : 1) + word.size();
    if (col + need > width && (!line_empty || col > indent)) {
      out += new_line;
      col = indent;
      line_empty = true;
    }
    if (!line_empty) {
      out += ' ';
      ++col;
    }
    out += word;
    col += word.size();
    line_empty = false;
  }
  return out;
}

std::string shorten(const std::string& s, std::size_t width) {
  if (s.size() <= width || width < 4) return s;
  return s.substr(0, width - 3) + "...";
}

std::string ratio_or_dash(double x) { return std::isfinite(x) ? fmt::format("{:.2f}x", x) : "-"; }
}  // namespace

std::vector<HeadlineRow> headline(const std::vector<CompareRow>& rows) {
  std::vector<HeadlineRow> out;
  for (const auto& label : case_order(rows)) {
    const CompareRow* best = nullptr;
    for (const auto& r : rows)
      if (case_label(r) == label && r.status == "PASS" && std::isfinite(r.throughput) &&
          (!best || r.throughput > best->throughput))
        best = &r;
    if (!best) continue;
    HeadlineRow h;
    h.case_label = label;
    h.variant = best->variant;
    h.device = best->device;
    h.throughput_unit = best->throughput_unit;
    h.throughput = best->throughput;
    h.roofline_fraction = best->roofline_fraction;
    const CompareRow *kokkos = nullptr, *native = nullptr;
    for (const auto& r : rows) {
      if (case_label(r) != label || r.status != "PASS" || !std::isfinite(r.throughput) ||
          device_key(r) != device_key(*best))
        continue;
      const CompareRow*& slot = is_kokkos(r) ? kokkos : native;
      if (!slot || r.throughput > slot->throughput) slot = &r;
    }
    if (kokkos && native) {
      h.kokkos_over_native = kokkos->throughput / native->throughput;
      h.kokkos_variant = kokkos->variant;
      h.native_variant = native->variant;
    }
    out.push_back(h);
  }
  return out;
}

std::string headline_table(const std::vector<CompareRow>& rows, bool markdown, std::size_t width) {
  const auto lines = headline(rows);
  if (lines.empty()) return markdown ? "No case has a verified row.\n" : "";
  std::vector<std::vector<std::string>> cells;
  for (const auto& h : lines) {
    std::string ratio = ratio_or_dash(h.kokkos_over_native);
    if (markdown && std::isfinite(h.kokkos_over_native))
      ratio += " (" + h.kokkos_variant + " / " + h.native_variant + ")";
    cells.push_back({h.case_label, h.variant, format_rate(h.throughput, h.throughput_unit),
                     fixed_or_dash(h.roofline_fraction * 100, "{:.0f}%"), ratio});
  }
  const std::vector<std::string> header = {"case", "best verified variant", "throughput",
                                           "roofline", "Kokkos / native"};
  if (markdown) {
    std::string out = "| " + header[0];
    for (std::size_t c = 1; c < header.size(); ++c) out += " | " + header[c];
    out += " |\n|";
    for (std::size_t c = 0; c < header.size(); ++c) out += " --- |";
    out += "\n";
    for (const auto& row : cells) {
      out += "|";
      for (const auto& cell : row) out += " " + cell + " |";
      out += "\n";
    }
    return out;
  }
  std::vector<std::size_t> w(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    w[c] = header[c].size();
    for (const auto& row : cells) w[c] = std::max(w[c], row[c].size());
  }
  // The case column takes what the others leave of `width` (2 spaces of indent,
  // 2 between columns).
  std::size_t others = 2;
  for (std::size_t c = 1; c < w.size(); ++c) others += w[c] + 2;
  w[0] = std::min(w[0], width > others + 20 ? width - others : std::size_t(20));
  std::string out;
  auto line = [&](const std::vector<std::string>& row) {
    std::string s = "  ";
    for (std::size_t c = 0; c < row.size(); ++c)
      s += fmt::format("{:<{}}  ", c == 0 ? shorten(row[c], w[0]) : row[c], w[c]);
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out += s + "\n";
  };
  line(header);
  for (const auto& row : cells) line(row);
  return out;
}

std::string skipped_summary(const std::vector<CompareRow>& rows, bool markdown, std::size_t width) {
  struct Group {
    std::string backend, reason;
    std::vector<std::string> variants;
    int rows = 0;
  };
  std::vector<Group> groups;
  for (const auto& r : rows) {
    if (r.status != "SKIP") continue;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.backend == r.backend && g.reason == r.message;
    });
    if (it == groups.end()) it = groups.insert(groups.end(), Group{r.backend, r.message, {}, 0});
    ++it->rows;
    if (std::find(it->variants.begin(), it->variants.end(), r.variant) == it->variants.end())
      it->variants.push_back(r.variant);
  }
  std::string out;
  for (const auto& g : groups) {
    std::string who;
    if (g.variants.size() <= 3) {
      for (const auto& v : g.variants) who += (who.empty() ? "" : ", ") + v;
    } else {
      who = fmt::format("{} variants", g.variants.size());
    }
    const std::string text =
        fmt::format("{}: {} skipped ({} row{}): {}", g.backend.empty() ? "?" : g.backend, who,
                    g.rows, g.rows == 1 ? "" : "s", g.reason);
    out += markdown ? "- " + text + "\n" : "  " + wrap(text, width, 4, 2) + "\n";
  }
  return out;
}

std::string console_table(const std::vector<CompareRow>& rows, std::size_t width) {
  const bool with_set_up = std::any_of(rows.begin(), rows.end(), [](const CompareRow& r) {
    return r.status == "PASS" && std::isfinite(extra_number(r, "total_10_s"));
  });
  std::vector<std::string> header = {"variant",    "median",   "spread",
                                     "throughput", "roofline", "speedup"};
  if (with_set_up) header.push_back("prepare / total 1x / 10x");
  header.push_back("verified");
  // Cells of every row that ran, grouped by case in order of appearance.
  std::map<std::string, std::vector<std::vector<std::string>>> by_case;
  std::vector<std::size_t> w(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) w[c] = header[c].size();
  for (CompareRow r : rows) {
    if (r.status == "SKIP") continue;
    withhold_figures_unless_passed(r);
    const bool timed = r.status == "PASS" || r.status == "FAIL";
    std::vector<std::string> cells = {r.variant.empty() ? "-" : r.variant,
                                      timed ? seconds_or_dash(r.timing.median_s) : "-",
                                      timed ? fmt::format("{:.0f}%", r.timing.spread() * 100) : "-",
                                      timed ? format_rate(r.throughput, r.throughput_unit) : "-",
                                      fixed_or_dash(r.roofline_fraction * 100, "{:.0f}%"),
                                      fixed_or_dash(r.speedup, "{:.2f}x")};
    if (with_set_up)
      cells.push_back(std::isfinite(extra_number(r, "prepare_s"))
                          ? seconds_or_dash(extra_number(r, "prepare_s")) + " / " +
                                seconds_or_dash(extra_number(r, "total_1_s")) + " / " +
                                seconds_or_dash(extra_number(r, "total_10_s"))
                          : "-");
    std::string verified = r.status;
    if (timed && std::isfinite(r.error)) verified += fmt::format(" ({:.1e})", r.error);
    if (r.status != "PASS" && !r.message.empty()) verified += ": " + r.message;
    cells.push_back(verified);
    for (std::size_t c = 0; c + 1 < cells.size(); ++c) w[c] = std::max(w[c], cells[c].size());
    by_case[case_label(r)].push_back(cells);
  }
  auto columns = [&](const std::vector<std::string>& row) {
    std::string s = "  ";
    for (std::size_t c = 0; c + 1 < row.size(); ++c) s += fmt::format("{:<{}}  ", row[c], w[c]);
    const std::size_t used = s.size();
    s += wrap(row.back(), width, used, used);
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  std::string out = columns(header);
  for (const auto& label : case_order(rows)) {
    out += wrap(label, width, 2) + "\n";
    const auto it = by_case.find(label);
    if (it == by_case.end()) {
      out += "  (no variant could run here: see the skipped ones below)\n";
      continue;
    }
    for (const auto& cells : it->second) out += columns(cells);
  }
  const std::string skipped = skipped_summary(rows, false, width);
  if (!skipped.empty()) out += "not run here (every row is in results.json):\n" + skipped;
  return out;
}

std::string summary_markdown(const std::vector<CompareRow>& rows, const CompareOptions& o,
                             const nlohmann::json& provenance, const std::string& in_progress) {
  std::string md = "# ppkit compare\n\n";
  if (!in_progress.empty()) md += "**In progress**: " + in_progress + "\n\n";
  const std::string version = provenance.contains("ppkit")
                                  ? provenance["ppkit"].value("version", std::string("?"))
                                  : std::string("?");
  md += fmt::format(
      "ppkit {}, problem size `{}`, {} repeats (median shown, spread = (max-min)/median).\n\n",
      version, to_string(o.size), o.repeats);
  md += "## Provenance\n\n" + provenance_markdown(provenance) + "\n";
  md +=
      "## Headline\n\nPer case, the verified (PASS) variant of highest throughput and its "
      "roofline fraction; Kokkos / native = the best Kokkos variant's throughput over the best "
      "native (CUDA, HIP, OpenCL) variant's on the same device (below 1: Kokkos is slower).\n\n";
  md += headline_table(rows, true) + "\n";
  md +=
      "## Every row that ran\n\nRoofline = compulsory bytes per run (each input read once, each "
      "output written once; the workload's docs say what that is) / median time / copy "
      "bandwidth of the same backend measured in this run. Rows that failed verification carry "
      "no throughput, roofline or speedup.\n\n";
  // The compulsory bytes are a lower bound on the traffic of every variant, so a
  // fraction above 100% is not a fast variant but a timing or model error.
  const bool above_model = std::any_of(rows.begin(), rows.end(), [](const auto& r) {
    return r.roofline_fraction > 1.0;  // false for NaN
  });
  if (above_model)
    md +=
        "**A roofline above 100%** means a row moved fewer bytes than the compulsory traffic "
        "at more than the measured copy bandwidth: a timing error (or a cache holding the whole "
        "problem), to be investigated before the figure is used.\n\n";
  std::vector<CompareRow> ran;
  std::copy_if(rows.begin(), rows.end(), std::back_inserter(ran),
               [](const CompareRow& r) { return r.status != "SKIP"; });
  md += ran.empty() ? std::string("No row ran.\n") : results_table(ran, true);
  const std::string skipped = skipped_summary(rows, true);
  if (!skipped.empty())
    md +=
        "\n## Not run here\n\nOne line per backend and reason; every row is in "
        "`results.json`.\n\n" +
        skipped;
  return md;
}

MergedResults merge_results(const std::vector<std::pair<std::string, nlohmann::json>>& files) {
  struct Entry {
    double sum = 0;
    int n = 0;
    double throughput = std::nan("");
    std::string unit;
  };
  MergedResults out;
  std::map<std::string, std::set<std::string>> files_of;  // platform -> file labels
  std::map<std::string, std::map<std::string, std::map<std::string, Entry>>>
      efficiency;  // workload -> application -> platform
  std::map<std::string, std::map<std::string, std::map<std::string, Entry>>>
      by_case;  // "workload | case [size]" -> application -> platform
  for (const auto& [label, j] : files) {
    if (!j.is_object() || !j.contains("rows") || !j["rows"].is_array())
      throw Error("'" + label + "' has no \"rows\"", "a results.json written by ppkit compare");
    for (const auto& jr : j["rows"]) {
      const auto r = row_from_json(jr);
      if (r.status != "PASS") continue;  // failed or skipped: not supported there
      const std::string platform = r.device.empty() ? label : r.device;
      if (std::find(out.platforms.begin(), out.platforms.end(), platform) == out.platforms.end())
        out.platforms.push_back(platform);
      files_of[platform].insert(label);
      // One application per Kokkos strategy, whatever the space.
      const std::string app = is_kokkos(r) ? "kokkos/" + row_trait(r, "strategy") : r.variant;
      auto& e = efficiency[r.workload][app][platform];
      if (std::isfinite(r.roofline_fraction) && r.roofline_fraction > 0) {
        e.sum += r.roofline_fraction;
        ++e.n;
      }
      auto& c = by_case[r.workload + " | " + r.case_name +
                        (r.size.empty() ? std::string() : " [" + r.size + "]")][app][platform];
      c.throughput = r.throughput;
      c.unit = r.throughput_unit;
    }
  }
  const auto& platforms = out.platforms;
  std::string md =
      "# ppkit compare --merge\n\n## Platforms\n\n| platform | from |\n| --- | --- |\n";
  for (const auto& p : platforms) {
    std::string from;
    for (const auto& f : files_of[p]) from += (from.empty() ? "" : ", ") + f;
    md += "| " + p + " | " + from + " |\n";
  }
  md += "\n## Throughput per platform\n\n| workload / case | application |";
  for (const auto& p : platforms) md += " " + p + " |";
  md += "\n| --- | --- |";
  for (std::size_t i = 0; i < platforms.size(); ++i) md += " --- |";
  md += "\n";
  for (const auto& [wc, apps] : by_case)
    for (const auto& [app, per] : apps) {
      md += "| " + wc + " | " + app + " |";
      for (const auto& p : platforms) {
        auto it = per.find(p);
        md += " " +
              (it == per.end() ? std::string("-")
                               : format_rate(it->second.throughput, it->second.unit)) +
              " |";
      }
      md += "\n";
    }
  md +=
      "\n## Performance portability\n\nPP = harmonic mean over all platforms of the "
      "architectural efficiency e (mean roofline fraction); 0 where an application did not pass "
      "on every platform (Pennycook, Sewall & Lee 2016).\n\n| workload | application | PP |";
  for (const auto& p : platforms) md += " e(" + p + ") |";
  md += "\n| --- | --- | --- |";
  for (std::size_t i = 0; i < platforms.size(); ++i) md += " --- |";
  md += "\n";
  for (const auto& [workload, apps] : efficiency)
    for (const auto& [app, per] : apps) {
      MergedResults::Portability pp;
      pp.workload = workload;
      pp.application = app;
      double inverse_sum = 0;
      bool everywhere = !platforms.empty();
      std::string cells;
      for (const auto& p : platforms) {
        auto it = per.find(p);
        if (it == per.end() || it->second.n == 0) {
          everywhere = false;
          cells += " - |";
          continue;
        }
        const double e = it->second.sum / it->second.n;
        pp.efficiency[p] = e;
        inverse_sum += 1.0 / e;
        cells += fmt::format(" {:.3f} |", e);
      }
      pp.pp = everywhere ? double(platforms.size()) / inverse_sum : 0.0;
      md += fmt::format("| {} | {} | {:.3f} |{}\n", workload, app, pp.pp, cells);
      out.portability.push_back(pp);
    }
  out.markdown = md;
  return out;
}

void write_text_file(const std::string& path, const std::string& text) {
  // Written beside the target and renamed over it, so a reader (or a run
  // killed while writing) sees the old or the new file, never half of one.
  const std::string temporary = path + ".part";
  {
    std::ofstream f(temporary, std::ios::binary);
    if (!f) throw Error("cannot open '" + temporary + "' for writing", "a writable path");
    f << text;
    f.close();
    if (!f) throw Error("writing '" + temporary + "' failed (disk full?)");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0)
    throw Error("cannot rename '" + temporary + "' to '" + path + "'",
                "a writable directory without a directory of that name");
}

}  // namespace ppkit
