// `ppkit sem axhelm` and `ppkit sem nekbone`: one SEM case on every selected
// variant, verified and timed (Cao et al., arXiv 2504.07042; docs/sem.md).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "ppkit/command.hpp"
#include "ppkit/core/compare.hpp"
#include "ppkit/core/copy_probe.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/memory_check.hpp"
#include "ppkit/core/progress.hpp"
#include "ppkit/core/runtime.hpp"
#include "ppkit/sem/sem_cases.hpp"

namespace {
using namespace ppkit::sem;

struct SemArgs {
  int order = 7;
  std::string elements = "8,8,8";
  std::string deform = "trilinear";
  std::string equation = "poisson";
  int ncol = 1;
  double lambda0 = 1.0, lambda1 = 1.0;
  std::string variant = "all";
  int repeats = 10;
  unsigned seed = 1;
  int iterations = 1000;
  double tol = 1e-8;
  bool quiet = false, progress = false;
};

BoxMeshSpec mesh_spec(const SemArgs& a) {
  BoxMeshSpec spec;
  spec.order = a.order;
  int parsed[3] = {0, 0, 0};
  int count = 0;
  std::size_t start = 0;
  while (start <= a.elements.size() && count < 4) {
    const std::size_t end = std::min(a.elements.find(',', start), a.elements.size());
    const std::string item = a.elements.substr(start, end - start);
    char* rest = nullptr;
    const long v = std::strtol(item.c_str(), &rest, 10);
    if (item.empty() || *rest != '\0' || count == 3)
      throw ppkit::Error("--elements '" + a.elements + "' is not three integers",
                         "EX,EY,EZ, e.g. 16,16,16");
    parsed[count++] = int(v);
    start = end + 1;
  }
  if (count != 3)
    throw ppkit::Error("--elements '" + a.elements + "' is not three integers",
                       "EX,EY,EZ, e.g. 16,16,16");
  spec.ex = parsed[0];
  spec.ey = parsed[1];
  spec.ez = parsed[2];
  spec.deformation = parse_deformation(a.deform);
  spec.seed = a.seed;
  return spec;
}

// Host memory a case needs at least, checked before anything is allocated:
// E (N+1)^3 local nodes, each with the 7 geometric factors (G00..G22, w|J|)
// and `vectors` double fields (axhelm: input, output and reference per column;
// Nekbone: the PCG vectors x, b, r, z, p, w, the diagonal and the exact solution).
double require_host_memory(const BoxMeshSpec& spec, double vectors, const std::string& what) {
  ppkit::require(spec.order >= 1 && spec.order <= 15,
                 "--order " + std::to_string(spec.order) + " is out of range", "1..15");
  const double nq = double(spec.order) + 1;
  const double elements = double(spec.ex) * double(spec.ey) * double(spec.ez);
  const double bytes = elements * (nq * nq * nq * (7 + vectors) + 24) * sizeof(double);
  ppkit::memory::require_fits(
      fmt::format("{} on {}x{}x{} elements of order {} ({:.3g} nodes)", what, spec.ex, spec.ey,
                  spec.ez, spec.order, elements * nq * nq * nq),
      bytes, "host");
  return bytes;
}

// The compare context's glob: the names --variant selects (command.hpp).
template <class Op>
std::string variant_glob(const std::string& requested) {
  std::string glob;
  for (const auto* v : ppkit::cli::select_variants<Op>(requested))
    glob += (glob.empty() ? "" : ",") + v->name;
  return glob;
}

// The plan line: the case, its host bytes, the selected variants and repeats.
void print_plan(const BoxMeshSpec& spec, double bytes, const std::string& glob, int repeats,
                const std::string& what) {
  const double nq = double(spec.order) + 1;
  const double elements = double(spec.ex) * double(spec.ey) * double(spec.ez);
  const auto variants = std::count(glob.begin(), glob.end(), ',') + 1;
  fmt::print(
      "plan: {} on {} elements of order {} ({:.3g} nodes), about {} on the host; {} "
      "variant(s) x {} timed repeats\n",
      what, elements, spec.order, elements * nq * nq * nq, ppkit::memory::format_bytes(bytes),
      variants, repeats);
}

ppkit::CompareContext context_for(const SemArgs& a, const std::string& glob) {
  if (a.repeats < 1) throw ppkit::Error("--repeats must be at least 1", ">= 1");
  ppkit::CompareOptions o;
  o.repeats = a.repeats;
  o.variant_glob = glob;
  return ppkit::CompareContext(o);
}

std::string num(double v, const char* f = "{:.3g}") {
  return std::isfinite(v) ? fmt::format(fmt::runtime(f), v) : std::string("-");
}

int print_rows(const std::vector<ppkit::CompareRow>& rows, bool nekbone) {
  int failed = 0;
  const bool none_ran =
      std::all_of(rows.begin(), rows.end(), [](const auto& r) { return r.status == "SKIP"; });
  if (!rows.empty()) fmt::print("{} [{}]\n", rows.front().case_name, rows.front().size);
  if (nekbone)
    fmt::print("{:<28} {:>10} {:>6} {:>11} {:>11} {:>10} {:>10} {:>9} {:>8}  {}\n", "variant",
               "time ms", "iters", "residual", "max error", "ms/iter", "GDOF/s", "roofline",
               "speedup", "status");
  else
    fmt::print("{:<28} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9} {:>8}  {}\n", "variant", "time ms",
               "GFLOP/s", "GFLOP/s+g", "GDOF/s", "GB/s", "roofline", "speedup", "status");
  for (const auto& r : rows) {
    std::string status = r.status;
    if (r.status == "PASS" || r.status == "FAIL") status += fmt::format(" ({:.1e})", r.error);
    if (!r.message.empty()) status += ": " + r.message;
    if (r.status == "FAIL" || r.status == "ERROR") ++failed;
    const bool timed = r.status == "PASS" || r.status == "FAIL";
    const double ms = timed ? r.timing.median_s * 1e3 : std::nan("");
    auto extra = [&](const char* key) {
      return r.extra.contains(key) ? r.extra[key].get<double>() : std::nan("");
    };
    if (nekbone)
      fmt::print(
          "{:<28} {:>10} {:>6} {:>11} {:>11} {:>10} {:>10} {:>9} {:>8}  {}\n", r.variant, num(ms),
          r.extra.contains("iterations") ? std::to_string(r.extra["iterations"].get<int>()) : "-",
          num(extra("final_residual"), "{:.2e}"), num(extra("max_error"), "{:.2e}"),
          num(extra("ms_per_iteration")), num(timed ? r.throughput * 1e-9 : std::nan("")),
          num(r.roofline_fraction * 100, "{:.0f}%"), num(r.speedup, "{:.2f}x"), status);
    else
      fmt::print("{:<28} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9} {:>8}  {}\n", r.variant, num(ms),
                 num(extra("GFLOP/s_eff"), "{:.1f}"), num(extra("GFLOP/s_tot"), "{:.1f}"),
                 num(extra("GDOF/s")), num(extra("GB/s"), "{:.1f}"),
                 num(r.roofline_fraction * 100, "{:.0f}%"), num(r.speedup, "{:.2f}x"), status);
  }
  std::map<std::string, double> bandwidths;
  for (const auto& r : rows)
    if (std::isfinite(r.bandwidth_Bps)) bandwidths[r.backend] = r.bandwidth_Bps;
  for (const auto& [backend, bw] : bandwidths)
    fmt::print("copy bandwidth {:<16} {:.1f} GB/s (roofline basis)\n", backend, bw * 1e-9);
  if (none_ran)
    throw ppkit::cli::NothingRan(rows.empty() ? "no variant was selected"
                                              : "no selected variant can run here (every row "
                                                "skipped)");
  return failed;
}

void add_common(CLI::App* cmd, SemArgs& a, const std::string& operation) {
  cmd->add_option("--order", a.order, "Polynomial order N (1..15)")->capture_default_str();
  cmd->add_option("--elements", a.elements, "Elements per direction EX,EY,EZ")
      ->capture_default_str();
  cmd->add_option("--deform", a.deform,
                  "Mesh deformation: none (parallelepiped), trilinear, curved, mixed")
      ->capture_default_str();
  cmd->add_option("--equation", a.equation, "poisson or helmholtz")->capture_default_str();
  cmd->add_option("--lambda0", a.lambda0, "Helmholtz stiffness coefficient")->capture_default_str();
  cmd->add_option("--lambda1", a.lambda1, "Helmholtz mass coefficient")->capture_default_str();
  cmd->add_option("--variant", a.variant, ppkit::cli::variant_help(operation))
      ->capture_default_str();
  cmd->add_option("--repeats", a.repeats, "Timed repeats (median reported)")->capture_default_str();
  cmd->add_option("--seed", a.seed, "Seed of the random vertex perturbation")
      ->capture_default_str();
  cmd->add_flag("--quiet", a.quiet, "No progress line");
  cmd->add_flag("--progress", a.progress, "Progress line also when stderr is not a terminal");
}

// Physical inputs: finite Helmholtz coefficients (a NaN would give every row
// FAIL with error NaN after the whole run).
void check_coefficients(const SemArgs& a) {
  ppkit::require(std::isfinite(a.lambda0) && std::isfinite(a.lambda1),
                 fmt::format("--lambda0 {:g} / --lambda1 {:g} is not finite", a.lambda0, a.lambda1),
                 "finite coefficients");
}

// Runs the rows of one case with a progress line (rows done, ETA) and the
// copy-bandwidth probe sized to the case (copy_probe.hpp).
template <class RunCase>
std::vector<ppkit::CompareRow> run_rows(ppkit::CompareContext& ctx, const SemArgs& a,
                                        const std::string& glob, double bytes, RunCase run) {
  ppkit::size_copy_probe_to(bytes);
  const int rows = int(std::count(glob.begin(), glob.end(), ',') + 1);
  ppkit::Progress progress(rows, ppkit::progress_mode(a.quiet, a.progress));
  ctx.on_progress = [&](const std::string& label) { progress.start_item(label); };
  auto out = run(ctx);
  progress.finish();
  return out;
}

void add_sem_command(CLI::App& app) {
  auto* sem = app.add_subcommand(
      "sem", "Spectral elements: axhelm (stored vs recomputed geometry), Nekbone PCG");
  sem->require_subcommand(1);

  auto ax = std::make_shared<SemArgs>();
  auto* axhelm = sem->add_subcommand(
      "axhelm", "Time Y = A X on every variant, verified against the serial reference");
  add_common(axhelm, *ax, "sem.axhelm");
  axhelm->add_option("--ncol", ax->ncol, "Fields per application (1 or 3)")->capture_default_str();
  axhelm->callback([ax] {
    const BoxMeshSpec spec = mesh_spec(*ax);
    check_coefficients(*ax);
    const double bytes = require_host_memory(spec, 3.0 * std::max(1, ax->ncol), "sem axhelm");
    ppkit::Runtime runtime;
    AxhelmSettings s;
    s.equation = parse_equation(ax->equation);
    s.ncol = ax->ncol;
    s.lambda0 = ax->lambda0;
    s.lambda1 = ax->lambda1;
    const std::string glob = variant_glob<SemAxhelm>(ax->variant);
    print_plan(spec, bytes, glob, ax->repeats, "axhelm");
    auto ctx = context_for(*ax, glob);
    const auto rows = run_rows(ctx, *ax, glob, bytes, [&](ppkit::CompareContext& c) {
      return run_axhelm_case(c, spec, s);
    });
    if (print_rows(rows, false) != 0) std::exit(1);
  });

  auto nb = std::make_shared<SemArgs>();
  nb->repeats = 3;
  nb->equation = "helmholtz";
  auto* nekbone =
      sem->add_subcommand("nekbone", "Jacobi-PCG on a manufactured solution, on every variant");
  add_common(nekbone, *nb, "sem.nekbone");
  nekbone->add_option("--iterations", nb->iterations, "Maximum CG iterations")
      ->capture_default_str();
  nekbone->add_option("--tol", nb->tol, "Relative residual to stop at (0: run --iterations)")
      ->capture_default_str();
  nekbone->callback([nb] {
    const BoxMeshSpec spec = mesh_spec(*nb);
    check_coefficients(*nb);
    ppkit::require(nb->iterations >= 1,
                   "--iterations " + std::to_string(nb->iterations) + " is not positive", ">= 1");
    ppkit::require(std::isfinite(nb->tol) && nb->tol >= 0 && nb->tol < 1,
                   fmt::format("--tol {:g} is out of range", nb->tol),
                   "0 (run --iterations) or a relative residual 0 < tol < 1");
    const double bytes = require_host_memory(spec, 8, "sem nekbone");
    ppkit::Runtime runtime;
    NekboneSettings s;
    s.equation = parse_equation(nb->equation);
    s.lambda0 = nb->lambda0;
    s.lambda1 = nb->lambda1;
    s.max_iterations = nb->iterations;
    s.tolerance = nb->tol;
    const std::string glob = variant_glob<SemNekbone>(nb->variant);
    print_plan(spec, bytes, glob, nb->repeats,
               fmt::format("Jacobi-PCG, up to {} iterations,", nb->iterations));
    auto ctx = context_for(*nb, glob);
    const auto rows = run_rows(ctx, *nb, glob, bytes, [&](ppkit::CompareContext& c) {
      return run_nekbone_case(c, spec, s);
    });
    if (print_rows(rows, true) != 0) std::exit(1);
  });
}

ppkit::cli::CommandRegistrar registrar{"sem", add_sem_command};
}  // namespace
