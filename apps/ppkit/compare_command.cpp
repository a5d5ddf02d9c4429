// `ppkit compare`: every configured and available variant of every workload on
// the same problems, verified, timed, with throughput, roofline fraction and
// speedup; a report (JSON, CSV, Markdown, PNG plots) in --out; --merge puts
// reports from several machines side by side with each workload's
// performance-portability figure (Pennycook, Sewall & Lee, 2016).
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include "ppkit/command.hpp"
#include "ppkit/core/compare.hpp"
#include "ppkit/core/info.hpp"
#include "ppkit/core/output_path.hpp"
#include "ppkit/core/progress.hpp"
#include "ppkit/core/provenance.hpp"
#include "ppkit/core/results.hpp"
#include "ppkit/core/runtime.hpp"

namespace {
namespace fs = std::filesystem;

struct CompareArgs {
  bool quick = false, standard = false, large = false;
  std::string workloads, variants = "*", out_dir, json_file;
  int repeats = 0;
  std::vector<std::string> merge;
  bool no_plots = false;
  bool quiet = false, progress = false;  // the progress line: off / also when not a terminal
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < s.size()) {
    std::size_t end = std::min(s.find(',', start), s.size());
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// Runs the plotting script on a report directory when python3 + matplotlib are there.
void make_plots(const std::string& out_dir) {
  std::cout.flush();  // the table before the script's own lines
  const std::vector<std::string> candidates = {PPKIT_PLOT_SCRIPT_BUILD, PPKIT_PLOT_SCRIPT_INSTALL};
  for (const auto& script : candidates) {
    if (!fs::exists(script)) continue;
    // Debian's interpreter first: python3-matplotlib is installed for it.
    const std::string python = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
    const std::string cmd = python + " '" + script + "' '" + out_dir + "'";
    if (std::system(cmd.c_str()) != 0)
      std::cerr << "ppkit: warning: plotting failed (is python3-matplotlib installed?); "
                   "the JSON, CSV and Markdown report are complete\n";
    return;
  }
  std::cerr << "ppkit: warning: plot script not found; no PNG plots written\n";
}

// Whether the globs select any registered variant of any operation.
bool any_variant_selected(const ppkit::CompareContext& ctx) {
  for (const auto& name : ppkit::cli::registered_variant_names())
    if (ctx.variant_selected(name)) return true;
  return false;
}

int run_compare(const CompareArgs& a) {
  ppkit::CompareOptions o;
  const int sizes = int(a.quick) + int(a.standard) + int(a.large);
  if (sizes > 1) throw ppkit::Error("choose one of --quick, --default, --large");
  o.size = a.large      ? ppkit::ProblemSize::large
           : a.standard ? ppkit::ProblemSize::standard
                        : ppkit::ProblemSize::quick;
  ppkit::require(a.repeats >= 0, "--repeats " + std::to_string(a.repeats) + " is negative",
                 ">= 1, or 0 for the size's default");
  o.repeats = a.repeats > 0 ? a.repeats : (o.size == ppkit::ProblemSize::quick ? 3 : 10);
  o.workloads = split_list(a.workloads);
  o.variant_glob = a.variants;
  o.out_dir = a.out_dir;
  // The report's places, before anything runs (output_path.hpp).
  if (!o.out_dir.empty()) ppkit::require_writable_directory(o.out_dir, "--out");
  if (!a.json_file.empty()) ppkit::require_writable_file(a.json_file, "--json");

  ppkit::Runtime runtime;
  const auto& all = ppkit::workloads();
  std::string known;
  for (const auto& w : all) known += (known.empty() ? "" : ",") + w.name;
  for (const auto& name : o.workloads) {
    const bool found =
        std::any_of(all.begin(), all.end(), [&](const auto& w) { return w.name == name; });
    if (!found)
      throw ppkit::Error("unknown workload '" + name + "' in --workloads",
                         known.empty() ? "none built" : known);
  }
  auto selected = [&](const ppkit::Workload& w) {
    return o.workloads.empty() ||
           std::find(o.workloads.begin(), o.workloads.end(), w.name) != o.workloads.end();
  };

  ppkit::CompareContext ctx(o);
  if (!any_variant_selected(ctx))
    throw ppkit::cli::NothingRan("no registered variant matches --variants '" + a.variants +
                                 "' (`ppkit list` shows their names)");
  int total = 0;
  for (const auto& w : all)
    if (selected(w)) total += w.count_cases(ctx);
  ppkit::Progress progress(total, ppkit::progress_mode(a.quiet, a.progress));
  ctx.on_progress = [&](const std::string& label) { progress.start_item(label); };

  // The report grows while the run goes on, so a run stopped part way (a time
  // limit, a crash in a later workload) keeps what it measured: the report
  // files are rewritten after every row (the running workload's rows without
  // their speedups yet) and after every workload, marked "in progress" until
  // the end.
  const auto info = ppkit::build_info();
  const auto provenance = ppkit::run_provenance(info);
  std::vector<ppkit::CompareRow> rows, running;  // finished workloads, the running one
  int selected_count = 0, done = 0;
  for (const auto& w : all) selected_count += selected(w) ? 1 : 0;
  auto write_report = [&](const std::vector<ppkit::CompareRow>& report_rows,
                          const std::string& in_progress) {
    if (o.out_dir.empty()) return;
    const auto json = ppkit::results_json(report_rows, o, info, provenance);
    ppkit::write_text_file(o.out_dir + "/results.json", json.dump(2) + "\n");
    ppkit::write_text_file(o.out_dir + "/results.csv", ppkit::results_csv(report_rows));
    ppkit::write_text_file(o.out_dir + "/summary.md",
                           ppkit::summary_markdown(report_rows, o, provenance, in_progress));
  };
  std::string running_name;
  ctx.on_row = [&](const ppkit::CompareRow& row) {
    if (o.out_dir.empty()) return;
    running.push_back(row);
    auto so_far = rows;
    so_far.insert(so_far.end(), running.begin(), running.end());
    write_report(so_far, fmt::format("{} of {} workloads done, {} running", done, selected_count,
                                     running_name));
  };
  for (const auto& w : all) {
    if (!selected(w)) continue;
    running_name = w.name;
    running.clear();
    try {
      auto r = w.run(ctx);
      rows.insert(rows.end(), r.begin(), r.end());
    } catch (const std::exception& e) {
      rows.insert(rows.end(), running.begin(), running.end());  // what it measured before
      ppkit::CompareRow row;
      row.workload = w.name;
      row.status = "ERROR";
      row.message = e.what();
      rows.push_back(row);
    }
    if (++done < selected_count)
      write_report(rows, fmt::format("{} of {} workloads done", done, selected_count));
  }
  progress.finish();

  if (rows.empty()) std::cout << "no workloads are built into this ppkit (" << known << ")\n";
  std::cout << ppkit::provenance_line(provenance) << "\n";
  std::cout << ppkit::console_table(rows);
  // Each backend's device and the copy bandwidth measured on it (the roofline basis).
  std::map<std::string, std::pair<std::string, double>> devices;
  for (const auto& r : rows)
    if (!r.device.empty() && r.status != "SKIP") {
      auto& d = devices[r.backend];
      d.first = r.device;
      if (std::isfinite(r.bandwidth_Bps)) d.second = r.bandwidth_Bps;
    }
  for (const auto& [backend, d] : devices)
    std::cout << fmt::format("{:<16} {}{}\n", backend, d.first,
                             d.second > 0
                                 ? fmt::format(", copy bandwidth {:.1f} GB/s", d.second * 1e-9)
                                 : std::string());
  const std::string headline = ppkit::headline_table(rows, false);
  if (!headline.empty()) std::cout << "headline (best verified variant per case):\n" << headline;

  const auto json = ppkit::results_json(rows, o, info, provenance);
  if (!a.json_file.empty()) ppkit::write_text_file(a.json_file, json.dump(2) + "\n");
  if (!o.out_dir.empty()) {
    write_report(rows, "");
    if (!a.no_plots) make_plots(o.out_dir);
    std::cout << "report written to " << o.out_dir << "\n";
  }
  const auto failed = std::count_if(rows.begin(), rows.end(), [](const auto& r) {
    return r.status == "FAIL" || r.status == "ERROR";
  });
  const auto skipped =
      std::count_if(rows.begin(), rows.end(), [](const auto& r) { return r.status == "SKIP"; });
  std::cout << fmt::format("{} passed, {} failed, {} skipped\n", rows.size() - failed - skipped,
                           failed, skipped);
  return failed ? 1 : 0;
}

// Results of several machines side by side with each workload's
// performance-portability figure (merge_results in results.hpp says how).
int run_merge(const CompareArgs& a) {
  if (!a.out_dir.empty()) ppkit::require_writable_directory(a.out_dir, "--out");
  std::vector<std::pair<std::string, nlohmann::json>> files;
  for (const auto& file : a.merge) {
    std::ifstream f(file);
    if (!f)
      throw ppkit::Error("cannot read '" + file + "'", "a results.json written by ppkit compare");
    nlohmann::json j;
    try {
      f >> j;
    } catch (const std::exception& e) {
      throw ppkit::Error("'" + file + "' is not valid JSON: " + e.what());
    }
    files.emplace_back(file, std::move(j));
  }
  const auto merged = ppkit::merge_results(files);
  std::cout << merged.markdown;
  if (!a.out_dir.empty()) {
    ppkit::write_text_file(a.out_dir + "/merged.md", merged.markdown);
  }
  return 0;
}

void add_compare_command(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  auto* cmd = app.add_subcommand("compare", "Run, verify and time every variant of every workload");
  cmd->add_flag("--quick", args->quick,
                "Small problems (about a minute on 2 CPU cores; the default)");
  cmd->add_flag("--default", args->standard, "Medium problems (GPU-sized but quick)");
  cmd->add_flag("--large", args->large, "The papers' problem sizes (for a GPU)");
  cmd->add_option("--workloads", args->workloads, "Comma-separated workloads (empty: all)")
      ->capture_default_str();
  cmd->add_option("--variants", args->variants,
                  "Comma-separated globs of variant names, e.g. 'cuda/*,*serial*'")
      ->capture_default_str();
  cmd->add_option("--repeats", args->repeats,
                  "Timed repeats per variant, median reported (0: 3 with --quick, else 10)")
      ->capture_default_str();
  cmd->add_option("--out", args->out_dir,
                  "Directory for the report (results.json, results.csv, summary.md, PNG plots; "
                  "created)");
  cmd->add_option("--json", args->json_file, "Also write the results JSON to this file");
  cmd->add_option("--merge", args->merge,
                  "Merge results.json files from several machines instead of running")
      ->expected(1, -1);
  cmd->add_flag("--no-plots", args->no_plots, "Do not run the plotting script");
  cmd->add_flag("--quiet", args->quiet, "No progress line");
  cmd->add_flag("--progress", args->progress, "Progress line also when stderr is not a terminal");
  cmd->callback([args] {
    const int status = args->merge.empty() ? run_compare(*args) : run_merge(*args);
    if (status != 0) std::exit(status);
  });
}

ppkit::cli::CommandRegistrar registrar{"compare", add_compare_command};
}  // namespace
