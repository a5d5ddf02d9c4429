// `ppkit sph dambreak`: the SPHERIC test 2 dam break (docs/sph.md) with probes,
// VTK output, checkpoints and restart, on any sph.step variant.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

#include "ppkit/command.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/memory_check.hpp"
#include "ppkit/core/output_path.hpp"
#include "ppkit/core/runtime.hpp"
#include "ppkit/core/timing.hpp"
#include "ppkit/sph/cases.hpp"
#include "ppkit/sph/simulation.hpp"
#include "ppkit/sph/sph_verification.hpp"
#include "ppkit/time_estimate.hpp"

namespace {
using namespace ppkit::sph;

struct DamBreakArgs {
  CaseOptions case_options;
  RunOptions run;
  std::string variant = "auto";
  std::string reorder = "1";
  bool quiet = false, progress = false;
};

ReorderPolicy parse_reorder(const std::string& text) {
  if (text == "never") return ReorderPolicy{0};
  try {
    std::size_t used = 0;
    const int k = std::stoi(text, &used);
    if (used == text.size() && k >= 1) return ReorderPolicy{k};
  } catch (const std::exception&) {
  }
  throw ppkit::Error("--reorder-every '" + text + "'", "a positive number of steps or 'never'");
}

// A spacing too coarse for the water column gives no fluid particle: the run
// would step an empty tank forever (t never advances), so it is refused.
void require_fluid(const Case& c, double dp) {
  ppkit::require(c.particles.count(kFluid) > 0,
                 fmt::format("--dp {:g} leaves no fluid particle in the water column (0 fluid, "
                             "{} boundary particles)",
                             dp, c.particles.count(kBoundary)),
                 "a spacing well below the column's size, 0.02-0.04 m on a CPU");
}

// The outputs a dam break writes, checked before the case is built.
void check_outputs(const RunOptions& run) {
  if (!run.probes_csv.empty()) ppkit::require_writable_file(run.probes_csv, "--probes");
  if (!run.vtk_dir.empty()) ppkit::require_writable_directory(run.vtk_dir, "--vtk");
  if (!run.checkpoint_file.empty())
    ppkit::require_writable_file(run.checkpoint_file, "--checkpoint");
  if (!run.restart_file.empty())
    ppkit::require(std::ifstream(run.restart_file).good(),
                   "--restart '" + run.restart_file + "' cannot be read: " + std::strerror(errno),
                   "a checkpoint written by --checkpoint");
}

// The plan line: particles, a lower bound of the steps (the acoustic limit of
// the time step, dt <= CFL h / c0, Monaghan 1994) and the device bytes.
double min_steps(const Case& c, double t_span) {
  const auto& p = c.params;
  return std::ceil(t_span / (p.cfl * p.h / p.c0));
}

void print_plan(const Case& c, double t_span, std::size_t variants) {
  const auto& p = c.params;
  const double dt_max = p.cfl * p.h / p.c0;
  const Step::Problem problem{p, c.particles, 0, ReorderPolicy{}};
  const auto& model = ppkit::memory::bytes_model<Step>();
  fmt::print(
      "plan: {} particles, at least {:.0f} steps (dt <= CFL h / c0 = {:.3g} s) over {:g} s{}{}\n",
      c.particles.size(), min_steps(c, t_span), dt_max, t_span,
      model ? ", about " + ppkit::memory::format_bytes(model(problem)) : std::string(),
      variants > 1 ? fmt::format(", on each of {} variants", variants) : std::string());
}

// Physical and numerical inputs must be finite (an infinite c0 gives dt = 0:
// a run that never advances).
void require_finite_inputs(const CaseOptions& o, const RunOptions& r) {
  for (const auto& [value, option] : {std::pair{o.dp, "--dp"},
                                      {o.h_over_dp, "--h-over-dp"},
                                      {o.c0_coefficient, "--c0-coefficient"},
                                      {o.alpha, "--alpha"},
                                      {o.delta, "--delta"},
                                      {o.cfl, "--cfl"},
                                      {o.tank_height, "--tank-height"},
                                      {r.t_end, "--t-end"},
                                      {r.probe_interval, "--probe-interval"},
                                      {r.vtk_every, "--vtk-every"},
                                      {r.checkpoint_every, "--checkpoint-every"}})
    ppkit::require(std::isfinite(value), fmt::format("{} {:g} is not finite", option, value),
                   "a finite number");
}

int run_dambreak(const DamBreakArgs& a) {
  require_finite_inputs(a.case_options, a.run);
  const ReorderPolicy reorder = parse_reorder(a.reorder);
  validate(a.run);
  check_outputs(a.run);
  const Case c = make_spheric_dambreak(a.case_options);
  require_fluid(c, a.case_options.dp);
  ppkit::Runtime runtime;
  // Availability needs Kokkos initialised.
  const auto chosen = ppkit::cli::select_variants<Step>(a.variant);
  const auto& p = c.params;
  fmt::print(
      "{}: {} particles ({} fluid, {} boundary), h = {:.4g} m, c0 = {:.3g} m/s, "
      "reorder {}\n",
      c.name, c.particles.size(), c.particles.count(kFluid), c.particles.count(kBoundary), p.h,
      p.c0, reorder.every ? "every " + std::to_string(reorder.every) + " steps" : "never");
  print_plan(c, a.run.t_end, chosen.size());
  int failed = 0, ran = 0;
  for (const auto* v : chosen) {
    const auto availability = v->availability();
    if (!availability.available) {
      fmt::print("variant {}: {}\n", v->name, ppkit::cli::status_text("SKIP", availability.reason));
      continue;
    }
    // With several variants the first that runs writes the outputs.
    RunOptions run = a.run;
    if (ran > 0) run.probes_csv = run.vtk_dir = run.checkpoint_file = run.restart_file = "";
    run.progress = ppkit::progress_mode(a.quiet, a.progress);
    fmt::print("variant {} on {}\n", v->name, v->device());
    // Lower bound: at least the acoustic-limit steps, each evaluating the
    // right-hand side twice (step_kokkos.cpp), each pass at least its
    // compulsory traffic (interaction_bytes).
    ppkit::cli::print_time_estimate(
        2 * min_steps(c, a.run.t_end) * ppkit::sph::interaction_bytes({c.params, c.particles}),
        v->backend);
    try {
      auto solver = make_solver(v->name, c, reorder);
      const RunSummary s = run_simulation(*solver, c, spheric_test2_probes(p), run);
      ++ran;
      const double particle_steps = std::max(1.0, s.steps * double(c.particles.size()));
      fmt::print(
          "reached t = {:.4f} s in {} steps, {:.1f} s wall ({:.2f} M particle-steps/s, "
          "{:.0f} ns/particle/step); {} fluid particles escaped the domain\n",
          s.time, s.steps, s.wall_seconds, particle_steps / s.wall_seconds * 1e-6,
          s.wall_seconds / particle_steps * 1e9, s.escaped);
      if (!run.probes_csv.empty()) fmt::print("probes written to {}\n", run.probes_csv);
      // The solver stops with an error on a blown-up density (rho_blowup_factor).
      fmt::print("variant {}: PASS (ran to the end, no blow-up)\n", v->name);
    } catch (const ppkit::Error& e) {
      if (chosen.size() == 1) throw;  // one variant: its refusal is the command's
      ++ran;
      ++failed;
      fmt::print("variant {}: {}\n", v->name, ppkit::cli::status_text("ERROR", e.what()));
    }
  }
  return failed ? ppkit::cli::kVerificationFailed : ppkit::cli::kOk;
}

struct HistoryArgs {
  CaseOptions case_options;
  double particles = 0;
  long long steps = 1000;
  std::string variant = "auto";
  std::string reorder = "1";
  std::string csv;
};

// Wall time of every step of the dam break (Guan et al.'s figure of step time
// against step number, with and without renumbering).
void run_history(const HistoryArgs& a) {
  const ReorderPolicy reorder = parse_reorder(a.reorder);
  ppkit::require(a.steps >= 1, "--steps " + std::to_string(a.steps), ">= 1");
  ppkit::require(!a.csv.empty(), "--csv is missing", "a file for step,time,step_seconds");
  ppkit::require_writable_file(a.csv, "--csv");
  ppkit::Runtime runtime;
  const auto chosen = ppkit::cli::select_variants<Step>(a.variant);
  ppkit::require(chosen.size() == 1,
                 "--variant '" + a.variant + "' selects " + std::to_string(chosen.size()) +
                     " variants; step-history times one",
                 "auto or one variant name");
  ppkit::cli::require_runnable<Step>(chosen[0]->name);
  CaseOptions o = a.case_options;
  if (a.particles > 0) o.dp = dambreak_dp_for_particles(a.particles, o.tank_height);
  const Case c = make_spheric_dambreak(o);
  require_fluid(c, o.dp);
  auto solver = make_solver(chosen[0]->name, c, reorder);
  std::ofstream out(a.csv);
  ppkit::require(bool(out), "cannot write '" + a.csv + "': " + std::strerror(errno),
                 "a writable --csv path");
  out << "step,time,step_seconds,reordered\n";
  const double n = double(c.particles.size());
  fmt::print("{}: {} particles, {} steps, reorder {}, variant {}\n", c.name, n, a.steps,
             reorder.every ? "every " + std::to_string(reorder.every) + " steps" : "never",
             chosen[0]->name);
  std::vector<double> seconds;
  for (long long s = 0; s < a.steps; ++s) {
    const auto start = std::chrono::steady_clock::now();
    const auto info = solver->step();
    const double dt = ppkit::seconds_since(start);
    seconds.push_back(dt);
    out << solver->steps_done() << ',' << solver->time() << ',' << dt << ',' << int(info.reordered)
        << '\n';
  }
  const std::size_t tenth = std::max<std::size_t>(1, seconds.size() / 10);
  auto mean = [&](std::size_t from) {
    double sum = 0;
    for (std::size_t k = from; k < from + tenth; ++k) sum += seconds[k];
    return sum / tenth;
  };
  const double first = mean(std::min<std::size_t>(1, seconds.size() - tenth)),
               last = mean(seconds.size() - tenth);
  fmt::print(
      "mean step time: first tenth {:.3f} ms ({:.2f} ns/particle/step), last tenth {:.3f} "
      "ms ({:.2f} ns/particle/step), change {:+.1f}%; t = {:.4f} s; {} escaped\n",
      first * 1e3, first / n * 1e9, last * 1e3, last / n * 1e9, (last / first - 1) * 100,
      solver->time(), solver->escaped());
}

void add_sph_command(CLI::App& app) {
  auto* sph = app.add_subcommand("sph", "Weakly compressible SPH (SPHERIC test 2 dam break)");
  sph->require_subcommand(1);
  auto a = std::make_shared<DamBreakArgs>();
  auto* d = sph->add_subcommand("dambreak", "3D dam break with obstacle (Kleefsman et al. 2005)");
  d->add_option("--dp", a->case_options.dp, "Particle spacing [m] (0.02-0.04 on a CPU)")
      ->required();
  d->add_option("--t-end", a->run.t_end, "Simulated end time [s]")->required();
  d->add_option("--variant", a->variant, ppkit::cli::variant_help("sph.step"))
      ->capture_default_str();
  d->add_option("--reorder-every", a->reorder,
                "Renumber particles by cell every K steps, or 'never'")
      ->capture_default_str();
  d->add_option("--probes", a->run.probes_csv, "Probe CSV: time,H1..H4,P1..P8");
  d->add_option("--probe-interval", a->run.probe_interval, "Probe sampling interval [s]")
      ->capture_default_str();
  d->add_option("--vtk", a->run.vtk_dir, "Directory for VTK particle snapshots (created)");
  d->add_option("--vtk-every", a->run.vtk_every, "VTK snapshot interval [s]")
      ->capture_default_str();
  d->add_option("--checkpoint", a->run.checkpoint_file, "Checkpoint file (rewritten atomically)");
  d->add_option("--checkpoint-every", a->run.checkpoint_every, "Checkpoint interval [s]")
      ->capture_default_str();
  d->add_option("--restart", a->run.restart_file,
                "Continue from this checkpoint (a later --t-end extends the run)");
  d->add_option("--max-steps", a->run.max_steps, "Stop after this many steps (-1: no limit)")
      ->capture_default_str();
  d->add_option("--h-over-dp", a->case_options.h_over_dp, "Smoothing length h / dp")
      ->capture_default_str();
  d->add_option("--c0-coefficient", a->case_options.c0_coefficient, "c0 = coefficient sqrt(g H)")
      ->capture_default_str();
  d->add_option("--alpha", a->case_options.alpha, "Artificial viscosity coefficient")
      ->capture_default_str();
  d->add_option("--delta", a->case_options.delta, "delta-SPH coefficient (0 = off)")
      ->capture_default_str();
  d->add_option("--cfl", a->case_options.cfl, "Courant number")->capture_default_str();
  d->add_option("--tank-height", a->case_options.tank_height,
                "Tank wall height [m] (1.0 in the experiment; lower is cheaper for short runs)")
      ->capture_default_str();
  d->add_flag("--quiet", a->quiet, "No progress line and no measured estimate");
  d->add_flag("--progress", a->progress,
              "Progress line also when stderr is not a terminal (a line every 10 s)");
  d->callback([a] {
    if (const int status = run_dambreak(*a)) std::exit(status);
  });

  auto h = std::make_shared<HistoryArgs>();
  auto* hist =
      sph->add_subcommand("step-history", "Wall time of every step of the dam break (CSV)");
  hist->add_option("--dp", h->case_options.dp, "Particle spacing [m]")->capture_default_str();
  hist->add_option("--particles", h->particles,
                   "Choose dp for about this many particles (0: use --dp)")
      ->capture_default_str();
  hist->add_option("--steps", h->steps, "Number of steps")->capture_default_str();
  hist->add_option("--variant", h->variant, ppkit::cli::variant_help("sph.step") + "; one variant")
      ->capture_default_str();
  hist->add_option("--reorder-every", h->reorder, "Renumber every K steps, or 'never'")
      ->capture_default_str();
  hist->add_option("--csv", h->csv, "Output CSV: step,time,step_seconds,reordered")->required();
  hist->callback([h] { run_history(*h); });
}

ppkit::cli::CommandRegistrar registrar{"sph", add_sph_command};
}  // namespace
