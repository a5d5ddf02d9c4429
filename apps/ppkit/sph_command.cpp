// `ppkit sph dambreak`: the SPHERIC test 2 dam break (docs/sph.md) with probes,
// VTK output, checkpoints and restart, on any sph.step variant.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

#include "ppkit/command.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/runtime.hpp"
#include "ppkit/core/timing.hpp"
#include "ppkit/sph/cases.hpp"
#include "ppkit/sph/simulation.hpp"

namespace {
using namespace ppkit::sph;

struct DamBreakArgs {
  CaseOptions case_options;
  RunOptions run;
  std::string variant = "auto";
  std::string reorder = "1";
  bool quiet = false;
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

void run_dambreak(const DamBreakArgs& a) {
  const ReorderPolicy reorder = parse_reorder(a.reorder);
  validate(a.run);
  const Case c = make_spheric_dambreak(a.case_options);
  require_fluid(c, a.case_options.dp);
  ppkit::Runtime runtime;
  ppkit::cli::require_runnable<Step>(a.variant);  // availability needs Kokkos initialised
  auto solver = make_solver(a.variant, c, reorder);
  const auto& p = c.params;
  fmt::print(
      "{}: {} particles ({} fluid, {} boundary), h = {:.4g} m, c0 = {:.3g} m/s, "
      "reorder {}, variant {}\n",
      c.name, c.particles.size(), c.particles.count(kFluid), c.particles.count(kBoundary), p.h,
      p.c0, reorder.every ? "every " + std::to_string(reorder.every) + " steps" : "never",
      ppkit::Registry<Step>::find(a.variant).name);
  RunOptions run = a.run;
  run.progress = !a.quiet;
  const RunSummary s = run_simulation(*solver, c, spheric_test2_probes(p), run);
  const double particle_steps = std::max(1.0, s.steps * double(c.particles.size()));
  fmt::print(
      "reached t = {:.4f} s in {} steps, {:.1f} s wall ({:.2f} M particle-steps/s, "
      "{:.0f} ns/particle/step); {} fluid particles escaped the domain\n",
      s.time, s.steps, s.wall_seconds, particle_steps / s.wall_seconds * 1e-6,
      s.wall_seconds / particle_steps * 1e9, s.escaped);
  if (!run.probes_csv.empty()) fmt::print("probes written to {}\n", run.probes_csv);
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
  ppkit::Runtime runtime;
  ppkit::cli::require_runnable<Step>(a.variant);
  CaseOptions o = a.case_options;
  if (a.particles > 0) o.dp = dambreak_dp_for_particles(a.particles, o.tank_height);
  const Case c = make_spheric_dambreak(o);
  require_fluid(c, o.dp);
  auto solver = make_solver(a.variant, c, reorder);
  std::ofstream out(a.csv);
  ppkit::require(bool(out), "cannot write '" + a.csv + "'", "a writable --csv path");
  out << "step,time,step_seconds,reordered\n";
  const double n = double(c.particles.size());
  fmt::print("{}: {} particles, {} steps, reorder {}, variant {}\n", c.name, n, a.steps,
             reorder.every ? "every " + std::to_string(reorder.every) + " steps" : "never",
             ppkit::Registry<Step>::find(a.variant).name);
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
  d->add_option("--variant", a->variant, "sph.step variant (auto = preferred available)");
  d->add_option("--reorder-every", a->reorder,
                "Renumber particles by cell every K steps, or 'never'");
  d->add_option("--probes", a->run.probes_csv, "Probe CSV: time,H1..H4,P1..P8");
  d->add_option("--probe-interval", a->run.probe_interval, "Probe sampling interval [s]");
  d->add_option("--vtk", a->run.vtk_dir, "Directory for VTK particle snapshots");
  d->add_option("--vtk-every", a->run.vtk_every, "VTK snapshot interval [s]");
  d->add_option("--checkpoint", a->run.checkpoint_file, "Checkpoint file (rewritten atomically)");
  d->add_option("--checkpoint-every", a->run.checkpoint_every, "Checkpoint interval [s]");
  d->add_option("--restart", a->run.restart_file, "Continue from this checkpoint");
  d->add_option("--max-steps", a->run.max_steps, "Stop after this many steps");
  d->add_option("--h-over-dp", a->case_options.h_over_dp, "Smoothing length h / dp");
  d->add_option("--c0-coefficient", a->case_options.c0_coefficient, "c0 = coefficient sqrt(g H)");
  d->add_option("--alpha", a->case_options.alpha, "Artificial viscosity coefficient");
  d->add_option("--delta", a->case_options.delta, "delta-SPH coefficient (0 = off)");
  d->add_option("--cfl", a->case_options.cfl, "Courant number");
  d->add_option("--tank-height", a->case_options.tank_height,
                "Tank wall height [m] (1.0 in the experiment; lower is cheaper for short runs)");
  d->add_flag("--quiet", a->quiet, "No progress line");
  d->callback([a] { run_dambreak(*a); });

  auto h = std::make_shared<HistoryArgs>();
  auto* hist =
      sph->add_subcommand("step-history", "Wall time of every step of the dam break (CSV)");
  hist->add_option("--dp", h->case_options.dp, "Particle spacing [m]");
  hist->add_option("--particles", h->particles, "Choose dp for about this many particles");
  hist->add_option("--steps", h->steps, "Number of steps");
  hist->add_option("--variant", h->variant, "sph.step variant (auto = preferred available)");
  hist->add_option("--reorder-every", h->reorder, "Renumber every K steps, or 'never'");
  hist->add_option("--csv", h->csv, "Output CSV: step,time,step_seconds,reordered")->required();
  hist->callback([h] { run_history(*h); });
}

ppkit::cli::CommandRegistrar registrar{"sph", add_sph_command};
}  // namespace
