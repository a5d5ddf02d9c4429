// `ppkit fdtd`: the PEC cavity, the CPML-bounded Hertzian dipole and JSON case
// files, run through any variant of fdtd.step; probes as CSV.
#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "ppkit/command.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/memory_check.hpp"
#include "ppkit/core/output_path.hpp"
#include "ppkit/core/progress.hpp"
#include "ppkit/core/results.hpp"
#include "ppkit/core/runtime.hpp"
#include "ppkit/core/timing.hpp"
#include "ppkit/fdtd/cases.hpp"
#include "ppkit/fdtd/fdtd_run.hpp"
#include "ppkit/fdtd/halfspace.hpp"
#include "ppkit/fdtd/step_applier.hpp"
#include "ppkit/fdtd/step_features.hpp"
#include "ppkit/time_estimate.hpp"

namespace {
using namespace ppkit;
using namespace ppkit::fdtd;

// Runs planned beyond this many steps are refused unless --max-steps is raised:
// a typo in a conductivity or a resolution otherwise plans millions of steps
// that run for hours (the time step follows the smallest cell, Courant limit).
constexpr std::int64_t kDefaultMaxSteps = 1000000;

struct RunOptions {
  std::string variant = "auto";
  std::string probes_csv_path;
  CheckpointOptions checkpoints;            // a file or a restart: the checkpointed Kokkos run
  std::vector<std::string> snapshot_specs;  // COMPONENT:NORMAL:INDEX:EVERY:STEM[:vtk|png]
  std::string precision;                    // empty: the problem's (fp32 unless a case says)
  std::int64_t max_steps = kDefaultMaxSteps;
  bool quiet = false, force_progress = false;  // --quiet, --progress
};

// What run_and_report gives back: the first variant's result (its outputs are
// the ones written) and whether any selected variant failed.
struct RunReport {
  FdtdStep::Result result;
  bool failed = false;
};

void add_max_steps_option(CLI::App* cmd, std::int64_t& max_steps) {
  cmd->add_option("--max-steps", max_steps,
                  "Refuse a run planned with more time steps than this (raise it for long runs)")
      ->capture_default_str();
}

// The plan of one run, checked before anything is allocated or stepped: the
// number of steps against --max-steps and the arrays every variant holds
// (device_bytes: fields, CPML, per-step sources and probes) against the host's
// free memory (the CPU backends hold them there, and results come back there).
void check_plan(const FdtdStep::Problem& p, std::int64_t max_steps, const std::string& what,
                bool print = true) {
  require(max_steps >= 1, "--max-steps " + std::to_string(max_steps), ">= 1");
  const double bytes = device_bytes(p);
  const auto& g = p.grid;
  if (print)
    std::cout << fmt::format("plan: {}{} steps on {}x{}x{} cells, about {}\n", what, p.steps, g.nx,
                             g.ny, g.nz, memory::format_bytes(bytes));
  if (p.steps > max_steps)
    throw Error(
        fmt::format("{}plans {} time steps (dt {:.3g} s on {}x{}x{} cells), more than "
                    "--max-steps {}",
                    what, p.steps, g.dt, g.nx, g.ny, g.nz, max_steps),
        fmt::format("--max-steps {} or more to run it anyway, or a coarser problem", p.steps));
  memory::require_fits(what + "fields, CPML and per-step series", bytes, "host");
}

void add_run_options(CLI::App* cmd, RunOptions& o) {
  cmd->add_option("--variant", o.variant, ppkit::cli::variant_help("fdtd.step"))
      ->capture_default_str();
  cmd->add_option("--probes", o.probes_csv_path, "Write the probe series to this CSV file");
  cmd->add_option("--precision", o.precision,
                  "fp32 (default) or fp64; fp64 runs on the kokkos-* variants (overrides the "
                  "case file's \"precision\")");
  cmd->add_option("--snapshots", o.snapshot_specs,
                  "Plane snapshots COMPONENT:NORMAL:INDEX:EVERY:STEM[:vtk|png] "
                  "(e.g. ez:z:12:50:out/ez_z12 writes out/ez_z12_000050.vti/.png and "
                  "out/ez_z12.pvd); repeatable");
  cmd->add_option(
      "--checkpoint", o.checkpoints.checkpoint_file,
      "Write an HDF5 checkpoint to this file (atomically) every N steps and at the end");
  cmd->add_option("--checkpoint-every", o.checkpoints.checkpoint_every,
                  "Steps between checkpoints (N)");
  cmd->add_option("--restart", o.checkpoints.restart_file,
                  "Continue from this checkpoint of the same problem (more --steps extend it)");
  add_max_steps_option(cmd, o.max_steps);
  cmd->add_flag("--quiet", o.quiet, "No progress line and no measured estimate");
  cmd->add_flag("--progress", o.force_progress,
                "Progress line also when stderr is not a terminal (a line every 10 s)");
}

// Every output a run writes, checked (and its directory created) before the
// run starts (ppkit/core/output_path.hpp).
void check_outputs(const FdtdStep::Problem& p, const RunOptions& o) {
  if (!o.probes_csv_path.empty()) require_writable_file(o.probes_csv_path, "--probes");
  for (const auto& s : p.snapshots)
    for (const std::string& stem : {s.vtk, s.png})
      if (!stem.empty()) require_writable_file(stem + ".pvd", "--snapshots");
  if (!o.checkpoints.checkpoint_file.empty())
    require_writable_file(o.checkpoints.checkpoint_file, "--checkpoint");
}

// Largest difference of two runs' final fields: max |a - b| over the nodes of
// each group (E, H) divided by the group's RMS in `base` (as the compare's
// check against the serial reference, verification.hpp).
double field_difference(const FdtdStep::Result& a, const FdtdStep::Result& base) {
  double worst = 0;
  for (int group = 0; group < 2; ++group) {
    double sum = 0, diff = 0;
    std::size_t count = 0;
    for (int c = 3 * group; c < 3 * group + 3; ++c) {
      if (a.fields[c].size() != base.fields[c].size()) return INFINITY;
      for (std::size_t n = 0; n < base.fields[c].size(); ++n) {
        const double b = base.fields[c][n];
        sum += b * b;
        diff = std::max(diff, std::abs(double(a.fields[c][n]) - b));
        if (!std::isfinite(double(a.fields[c][n]))) diff = INFINITY;
      }
      count += base.fields[c].size();
    }
    const double rms = count ? std::sqrt(sum / double(count)) : 0;
    if (rms > 0) worst = std::max(worst, diff / rms);
  }
  return worst;
}

template <class T>
std::array<T, 3> three(const std::vector<T>& v, const std::string& option,
                       const std::string& example) {
  if (v.size() != 3)
    throw Error(option + " needs three comma-separated values, got " + std::to_string(v.size()),
                example);
  return {v[0], v[1], v[2]};
}

// "auto" for an fp64 problem: the most preferred available variant with an
// fp64 path (FdtdStep::Traits); an explicit name is kept (a variant without
// fp64 refuses the problem in prepare(), naming the ones that run it).
std::string resolve_variant(const std::string& name, const FdtdStep::Problem& p) {
  if (name != "auto" || p.precision != Precision::fp64) return name;
  const Variant<FdtdStep>* best = nullptr;
  for (const auto& v : Registry<FdtdStep>::all()) {
    if (v.traits.fp64 && v.availability().available && (!best || best->preference < v.preference))
      best = &v;
  }
  if (!best)
    throw Error(
        "no variant with an fp64 path can run here",
        std::string("precision fp32, or a build with ") + variants_supporting(StepFeature::fp64));
  return best->name;
}

// Runs the prepared problem to its end: in chunks while a progress line or
// the measured estimate may be shown (StepApplier: the same kernels and
// buffers as run(); a far field is recorded by run() only), else in one run().
void run_to_end(PreparedRun<FdtdStep::Result>& prepared, const FdtdStep::Problem& p,
                ppkit::ProgressMode mode) {
  auto* applier = dynamic_cast<StepApplier*>(&prepared);
  RunProgress progress(double(p.steps), "steps", mode);
  if (!progress.active() || applier == nullptr || !p.far_field.empty()) {
    prepared.run();
    return;
  }
  applier->restart();
  std::int64_t chunk = 1;
  const double cells = double(p.grid.cells());
  const auto start = std::chrono::steady_clock::now();
  while (applier->step() < p.steps) {
    const auto chunk_start = std::chrono::steady_clock::now();
    applier->advance(std::min(chunk, p.steps - applier->step()), nullptr);
    applier->wait(nullptr);
    // Chunks of at least 0.1 s: one wait per chunk costs nothing then.
    if (seconds_since(chunk_start) < 0.1 && chunk < (std::int64_t(1) << 30)) chunk *= 2;
    const double done = double(applier->step());
    progress.update(done,
                    format_rate(cells * done / std::max(1e-9, seconds_since(start)), "cells/s"));
  }
  progress.finish();
}

// Runs the problem on every selected variant and prints what a user checks
// first; the outputs come from the first variant that runs.
RunReport run_and_report(FdtdStep::Problem p, const RunOptions& o) {
  ppkit::Runtime runtime;
  if (!o.precision.empty()) {
    try {
      p.precision = parse_precision(o.precision);
    } catch (const Error& e) {
      throw Error("--precision: " + e.problem(), e.valid());
    }
  }
  for (const auto& spec : o.snapshot_specs) p.snapshots.push_back(parse_snapshot_spec(spec));
  for (const auto& s : p.snapshots) validate(s, p.grid);
  check_outputs(p, o);
  const bool checkpointed =
      !o.checkpoints.checkpoint_file.empty() || !o.checkpoints.restart_file.empty();
  if (checkpointed) {
    // The checkpointed stepper runs fields, materials, CPML, point sources,
    // probes and energy; it does not carry the other features' state.
    const char* unsupported = !p.plane_waves.empty()           ? "a plane wave"
                              : p.periodic[0] || p.periodic[1] ? "periodic boundaries"
                              : !p.phasors.frequencies.empty() ? "phasors"
                              : !p.snapshots.empty()           ? "snapshots"
                              : !p.far_field.empty()           ? "a far-field transform"
                                                               : nullptr;
    if (unsupported)
      throw Error(std::string("--checkpoint/--restart cannot run a problem with ") + unsupported,
                  "checkpointed runs of problems with materials, CPML, point sources and probes; "
                  "run this problem without --checkpoint/--restart");
    require(o.checkpoints.checkpoint_file.empty() || o.checkpoints.checkpoint_every > 0,
            "--checkpoint needs --checkpoint-every N", "N >= 1 steps");
    if (!o.checkpoints.restart_file.empty())
      require(
          std::ifstream(o.checkpoints.restart_file).good(),
          "--restart '" + o.checkpoints.restart_file + "' cannot be read: " + std::strerror(errno),
          "a checkpoint written by --checkpoint");
    // A continued run (more --steps) keeps the energy schedule of the run it continues.
    if (!o.checkpoints.restart_file.empty())
      p.energy_interval = checkpoint_energy_interval(o.checkpoints.restart_file, p.energy_interval);
  }
  check_plan(p, o.max_steps, "");
  std::vector<const Variant<FdtdStep>*> chosen;
  if (checkpointed) {
    // The checkpointed stepper runs the Kokkos kernels; "auto" picks the
    // preferred Kokkos variant (said on the variant line below).
    chosen = cli::select_variants<FdtdStep>(o.variant);
    require(chosen.size() == 1, "--checkpoint/--restart run one variant",
            "--variant auto or one kokkos-* variant name");
    cli::require_runnable<FdtdStep>(chosen[0]->name);
    chosen = {&Registry<FdtdStep>::find(
        stepper_variant_name(o.variant == "auto" ? "auto" : chosen[0]->name))};
  } else {
    chosen = cli::select_variants<FdtdStep>(o.variant == "auto" ? resolve_variant(o.variant, p)
                                                                : o.variant);
  }
  const auto& g = p.grid;
  std::cout << fmt::format(
      "grid {}x{}x{} cells of {:.4g} x {:.4g} x {:.4g} m, dt {:.4g} s (Courant {:.3f}), {} steps, "
      "CPML {} cells, {}\n",
      g.nx, g.ny, g.nz, g.dx, g.dy, g.dz, g.dt, g.courant_number(), p.steps, p.cpml.thickness,
      to_string(p.precision));
  RunReport report;
  bool have_base = false;
  std::string base_name;
  for (const auto* v : chosen) {
    const auto availability = v->availability();
    if (!availability.available) {
      std::cout << fmt::format("variant {}: {}\n", v->name,
                               cli::status_text("SKIP", availability.reason));
      continue;
    }
    if (chosen.size() > 1 && p.precision == Precision::fp64 && !v->traits.fp64) {
      std::cout << fmt::format("variant {}: SKIP: no fp64 path\n", v->name);
      continue;
    }
    std::cout << fmt::format("variant {} on {}{}\n", v->name, v->device(),
                             checkpointed ? " (checkpointed runs step the Kokkos kernels)" : "");
    // Lower bound: compulsory traffic (docs/fdtd.md, "Performance model").
    ppkit::cli::print_time_estimate(step_bytes(p), v->backend);
    FdtdStep::Result r;
    double seconds = 0;
    std::unique_ptr<PreparedRun<FdtdStep::Result>> prepared;
    std::unique_ptr<Stepper> stepper;
    try {
      if (checkpointed)  // the Kokkos stepper of the same kernels, in chunks of N steps
        stepper = make_stepper(v->name, p);
      else
        prepared = v->prepare(p);
    } catch (const Error& e) {
      if (chosen.size() == 1) throw;  // one variant: its refusal is the command's
      std::cout << fmt::format("variant {}: {}\n", v->name, cli::status_text("SKIP", e.what()));
      continue;
    }
    const char* status = "PASS";
    try {
      const auto start = std::chrono::steady_clock::now();
      if (checkpointed) {
        CheckpointOptions ck = o.checkpoints;
        auto progress = std::make_shared<RunProgress>(double(p.steps), "steps",
                                                      progress_mode(o.quiet, o.force_progress));
        ck.on_chunk = [progress](std::int64_t done) { progress->update(double(done)); };
        r = run_with_checkpoints(*stepper, p, ck);
      } else {
        run_to_end(*prepared, p, progress_mode(o.quiet, o.force_progress));
        r = prepared->result();
        throw_if_faulty(p, p.steps, find_field_fault(r.fields, blow_up_bound));
      }
      seconds = seconds_since(start);
    } catch (const Error& e) {  // a field went NaN, infinite or blew up
      if (chosen.size() == 1) throw;
      status = "FAIL";
      std::cout << fmt::format("variant {}: {}\n", v->name, cli::status_text(status, e.what()));
    } catch (const std::exception& e) {
      if (chosen.size() == 1) throw;
      status = "ERROR";
      std::cout << fmt::format("variant {}: {}\n", v->name, cli::status_text(status, e.what()));
    }
    if (std::string(status) != "PASS") {
      report.failed = true;
      continue;
    }
    std::cout << fmt::format("{:.3f} s, {} (cells x steps per second)\n", seconds,
                             format_rate(double(g.cells()) * double(p.steps) / seconds, "cells/s"));
    for (std::size_t n = 0; n < r.energy.size(); ++n)
      if (n + 1 == r.energy.size() || r.energy.size() <= 10)
        std::cout << fmt::format("energy after step {}: {:.6e} J\n", r.energy_steps[n] + 1,
                                 r.energy[n]);
    // PASS: the run reached its last step with finite fields below the
    // blow-up bound (the health check). The difference to the first variant
    // is information, not a verdict: fp32 rounding of differently ordered
    // updates grows with the steps in a lossless box.
    std::string detail = "finite fields after the last step";
    if (have_base)
      detail += fmt::format("; fields differ from {}'s by {:.2e} of their RMS", base_name,
                            field_difference(r, report.result));
    std::cout << fmt::format("variant {}: {}\n", v->name, cli::status_text("PASS", detail));
    if (!have_base) {
      report.result = std::move(r);
      have_base = true;
      base_name = v->name;
    }
  }
  if (!have_base) {
    if (report.failed) return report;
    throw cli::NothingRan("no selected variant of fdtd.step can run here (every row skipped)");
  }
  const FdtdStep::Result& r = report.result;
  if (!o.probes_csv_path.empty()) {
    write_text_file(o.probes_csv_path, probes_csv(p, r));
    std::cout << fmt::format("{} probes x {} steps written to {}\n", p.probes.size(), p.steps,
                             o.probes_csv_path);
  }
  if (!p.snapshots.empty()) {
    const auto files = write_snapshot_files(p.grid, p.snapshots, r.frames);
    std::cout << fmt::format("{} snapshot frames: {} files written{}{}\n", r.frames.size(),
                             files.size(), files.empty() ? "" : ", e.g. ",
                             files.empty() ? "" : files.front());
  }
  return report;
}

void add_halfspace_subcommand(CLI::App* fdtd);

void add_fdtd_command(CLI::App& app) {
  auto* fdtd =
      app.add_subcommand("fdtd", "3D Yee FDTD with CPML: PEC cavity, Hertzian dipole, JSON cases");
  fdtd->require_subcommand(1);

  // ---- cavity ---------------------------------------------------------------
  struct CavityArgs {
    std::vector<double> size{0.1, 0.07, 0.045};
    std::vector<std::int64_t> cells{40, 28, 18};
    std::int64_t steps = 2000;
    RunOptions run;
  };
  auto cavity_args = std::make_shared<CavityArgs>();
  auto* cavity = fdtd->add_subcommand("cavity", "PEC box excited by a broadband off-centre dipole");
  cavity->add_option("--size", cavity_args->size, "Box size LX,LY,LZ in metres")
      ->delimiter(',')
      ->capture_default_str();
  cavity->add_option("--cells", cavity_args->cells, "Cells NX,NY,NZ")
      ->delimiter(',')
      ->capture_default_str();
  cavity->add_option("--steps", cavity_args->steps, "Time steps")->capture_default_str();
  add_run_options(cavity, cavity_args->run);
  cavity->callback([cavity_args] {
    const auto size = three(cavity_args->size, "--size", "--size 0.1,0.07,0.045");
    const auto cells = three(cavity_args->cells, "--cells", "--cells 40,28,18");
    for (auto c : cells)
      require(c >= 2, "--cells " + std::to_string(c) + " is too small", ">= 2 per axis");
    auto p = make_cavity_problem(size, {cells[0], cells[1], cells[2]}, cavity_args->steps);
    p.energy_interval = std::max<std::int64_t>(1, cavity_args->steps / 10);
    const bool failed = run_and_report(p, cavity_args->run).failed;
    std::cout << "lowest resonances with Ez (TM_z) in this box:\n";
    for (std::array<int, 3> m : {std::array<int, 3>{1, 1, 0}, {2, 1, 0}, {1, 2, 0}, {1, 1, 1}})
      std::cout << fmt::format("  mode {}{}{}: continuum {:.6e} Hz, Yee grid {:.6e} Hz\n", m[0],
                               m[1], m[2], cavity_frequency_continuum(size, m),
                               cavity_frequency_yee(p.grid, m));
    if (failed) std::exit(cli::kVerificationFailed);
  });

  // ---- dipole ---------------------------------------------------------------
  struct DipoleArgs {
    std::int64_t cells = 64, steps = 400;
    int cpml = 10;
    double dx = 1e-3;
    std::vector<std::int64_t> distances{8, 12, 16};
    std::string far_field_csv;
    double far_field_frequency = 0;
    RunOptions run;
  };
  auto dipole_args = std::make_shared<DipoleArgs>();
  auto* dipole =
      fdtd->add_subcommand("dipole", "Hertzian dipole at the centre of a CPML-bounded cube");
  dipole->add_option("--cells", dipole_args->cells, "Cells per axis of the cube")
      ->capture_default_str();
  dipole->add_option("--cell-size", dipole_args->dx, "Cell size in metres")->capture_default_str();
  dipole->add_option("--cpml", dipole_args->cpml, "CPML thickness in cells")->capture_default_str();
  dipole->add_option("--steps", dipole_args->steps, "Time steps")->capture_default_str();
  dipole->add_option("--distances", dipole_args->distances, "Ez probe distances (cells) along +x")
      ->delimiter(',')
      ->capture_default_str();
  add_run_options(dipole, dipole_args->run);
  dipole->add_option("--far-field", dipole_args->far_field_csv,
                     "Near-to-far-field transform on a box 2 cells inside the CPML: write "
                     "frequency, theta, phi, |E_theta|, |E_phi| (V/m at 1 m) to this CSV");
  dipole
      ->add_option("--far-field-frequency", dipole_args->far_field_frequency,
                   "Frequency of the far field in Hz (0: the source's centre frequency)")
      ->capture_default_str();
  dipole->callback([dipole_args] {
    require(std::isfinite(dipole_args->dx) && dipole_args->dx > 0,
            fmt::format("--cell-size {:g} is not a positive length", dipole_args->dx),
            "> 0 metres");
    const double f_far = dipole_args->far_field_frequency;
    require(std::isfinite(f_far) && f_far >= 0,
            fmt::format("--far-field-frequency {:g} is not a frequency", f_far),
            "> 0 Hz, or 0 for the source's centre frequency");
    require(f_far == 0 || !dipole_args->far_field_csv.empty(),
            "--far-field-frequency without --far-field", "--far-field FILE.csv as well");
    require(dipole_args->cpml >= 0, "--cpml " + std::to_string(dipole_args->cpml), ">= 0 cells");
    if (!dipole_args->far_field_csv.empty())
      require_writable_file(dipole_args->far_field_csv, "--far-field");
    auto p = make_dipole_problem(dipole_args->cells, dipole_args->dx, dipole_args->cpml,
                                 dipole_args->steps, dipole_args->distances);
    p.sources[0].waveform = Waveform::ricker;
    p.energy_interval = std::max<std::int64_t>(1, dipole_args->steps / 10);
    if (!dipole_args->far_field_csv.empty()) {
      constexpr double pi = 3.14159265358979323846;
      NearToFarField n;
      const index_t lo = dipole_args->cpml + 2, hi = dipole_args->cells - dipole_args->cpml - 2;
      require(hi - lo >= 2,
              "--cells " + std::to_string(dipole_args->cells) +
                  " leaves no room for the far-field surface inside the CPML",
              "cells >= 2 cpml + 6");
      n.box_min = {lo, lo, lo};
      n.box_max = {hi, hi, hi};
      n.frequencies = {f_far > 0 ? f_far : p.sources[0].frequency};
      // A DFT at or above the Nyquist frequency of the time step samples nothing.
      require(n.frequencies[0] < 0.5 / p.grid.dt,
              fmt::format("--far-field-frequency {:g} Hz is above the Nyquist frequency {:.4g} Hz "
                          "of the time step",
                          n.frequencies[0], 0.5 / p.grid.dt),
              fmt::format("0 < f < {:.4g} Hz", 0.5 / p.grid.dt));
      for (int t = 0; t <= 36; ++t)
        for (double phi : {0.0, 0.25 * pi, 0.5 * pi}) n.directions.push_back({t * pi / 36, phi});
      p.far_field.push_back(n);
    }
    const auto report = run_and_report(p, dipole_args->run);
    const auto& r = report.result;
    if (!p.far_field.empty() && !r.radiation.empty()) {
      const auto& n = p.far_field[0];
      std::string csv =
          "frequency_hz,theta_deg,phi_deg,e_theta_v_per_m_at_1m,e_phi_v_per_m_at_1m\n";
      double peak = 0, worst = 0;
      for (std::size_t d = 0; d < n.directions.size(); ++d) {
        const auto e = far_field_at_1m(r.radiation[d], n.frequencies[0]);
        peak = std::max(peak, e[0]);
        csv += fmt::format("{:.9e},{:.4f},{:.4f},{:.9e},{:.9e}\n", n.frequencies[0],
                           n.directions[d][0] * 180 / 3.14159265358979323846,
                           n.directions[d][1] * 180 / 3.14159265358979323846, e[0], e[1]);
      }
      for (std::size_t d = 0; d < n.directions.size(); ++d) {
        const double st = std::sin(n.directions[d][0]);
        const double e = far_field_at_1m(r.radiation[d], n.frequencies[0])[0] / peak;
        worst = std::max(worst, std::abs(e * e - st * st));
      }
      write_text_file(dipole_args->far_field_csv, csv);
      std::cout << fmt::format(
          "far field at {:.4g} Hz: {} directions written to {}; max |E_theta|^2 / peak - "
          "sin^2(theta) = {:.2e}\n",
          n.frequencies[0], n.directions.size(), dipole_args->far_field_csv, worst);
    }
    if (report.failed) std::exit(cli::kVerificationFailed);
  });

  // ---- run --case -------------------------------------------------------------
  auto case_args = std::make_shared<std::pair<std::string, RunOptions>>();
  auto* run = fdtd->add_subcommand("run",
                                   "Run a JSON case file (grid, materials, boxes, CPML, sources, "
                                   "plane wave, probes, snapshots)");
  run->add_option("--case", case_args->first, "Case file (JSON)")->required();
  add_run_options(run, case_args->second);
  run->callback([case_args] {
    const CaseFile c = read_case_file(case_args->first);
    const FdtdStep::Problem& p = c.problem;
    RunOptions o = case_args->second;
    if (o.probes_csv_path.empty()) o.probes_csv_path = c.probes_path;
    if (c.sar) {
      require(o.precision != "fp64" && p.precision == Precision::fp32,
              "fp64 with the \"sar\" section of " + case_args->first,
              "fp32: phasors, and so the SAR, are accumulated in fp32 runs only");
      require(o.checkpoints.checkpoint_file.empty() && o.checkpoints.restart_file.empty(),
              "--checkpoint/--restart with the \"sar\" section of " + case_args->first,
              "a run without checkpoints: the checkpointed stepper carries no phasors");
    }
    const auto report = run_and_report(p, o);
    const auto& r = report.result;
    if (!c.energy_path.empty() && !r.energy.empty()) {
      write_text_file(c.energy_path, energy_csv(p, r));
      std::cout << "energy written to " << c.energy_path << "\n";
    }
    if (c.sar)
      write_case_sar(*c.sar, compute_sar(case_sar_input(p, *c.sar, &r.phasors)), std::cout);
    if (report.failed) std::exit(cli::kVerificationFailed);
  });
  add_halfspace_subcommand(fdtd);
}

// ---- halfspace: plane wave on a lossy half-space, SAR profile ----------------
void add_halfspace_subcommand(CLI::App* fdtd) {
  struct HalfspaceArgs {
    HalfspaceSpec spec;
    std::string variant = "auto", profile_path, summary_path, vtk_path, png_path;
    std::int64_t max_steps = kDefaultMaxSteps;
    bool quiet = false, force_progress = false;
  };
  auto args = std::make_shared<HalfspaceArgs>();
  auto* cmd = fdtd->add_subcommand(
      "halfspace",
      "1 V/m plane wave normally incident on a lossy half-space z >= 0 (periodic column): SAR "
      "profile against the analytic solution");
  cmd->add_option("--eps-r", args->spec.eps_r, "Relative permittivity of the medium")->required();
  cmd->add_option("--sigma", args->spec.sigma, "Conductivity of the medium (S/m)")->required();
  cmd->add_option("--rho", args->spec.rho, "Mass density of the medium (kg/m^3)")->required();
  cmd->add_option("--freq", args->spec.frequency, "Frequency (Hz)")->required();
  cmd->add_option("--cells-per-wavelength", args->spec.cells_per_wavelength,
                  "Cells per wavelength in the medium")
      ->capture_default_str();
  cmd->add_option("--variant", args->variant, cli::variant_help("fdtd.step"))
      ->capture_default_str();
  cmd->add_option("--sar-profile", args->profile_path, "CSV depth,sar (m, W/kg)")->required();
  cmd->add_option("--sar-summary", args->summary_path,
                  "CSV summary: whole-body, peak 1 g and 10 g SAR");
  cmd->add_option("--sar-vtk", args->vtk_path,
                  "VTK ImageData (.vti) of |E|, SAR, 1 g and 10 g SAR of the medium's cells");
  cmd->add_option("--sar-png", args->png_path, "PNG of the SAR on an x-z slice");
  add_max_steps_option(cmd, args->max_steps);
  cmd->add_flag("--quiet", args->quiet, "No progress line and no measured estimate");
  cmd->add_flag("--progress", args->force_progress,
                "Progress line also when stderr is not a terminal (a line every 10 s)");
  cmd->callback([args] {
    const HalfspaceModel model = make_halfspace(args->spec);
    for (const auto& [path, option] : {std::pair{args->profile_path, "--sar-profile"},
                                       {args->summary_path, "--sar-summary"},
                                       {args->vtk_path, "--sar-vtk"},
                                       {args->png_path, "--sar-png"}})
      if (!path.empty()) require_writable_file(path, option);
    // Both runs planned before either starts.
    check_plan(model.incident, args->max_steps, "incident run: ", false);
    check_plan(model.medium, args->max_steps, "half-space run: ", false);
    ppkit::Runtime runtime;  // one Kokkos lifetime for both runs
    RunOptions o;
    o.variant = args->variant;
    o.max_steps = args->max_steps;
    o.quiet = args->quiet;
    o.force_progress = args->force_progress;
    std::cout << "incident run (vacuum column):\n";
    const auto incident_report = run_and_report(model.incident, o);
    std::cout << "half-space run:\n";
    const auto medium_report = run_and_report(model.medium, o);
    const auto& incident = incident_report.result;
    const auto& medium = medium_report.result;
    if (incident.fields[0].empty() || medium.fields[0].empty())  // every variant failed
      std::exit(cli::kVerificationFailed);
    const HalfspaceSar sar = halfspace_sar(model, medium, incident);
    std::string csv = "depth,sar\n";
    double worst = 0;
    for (std::size_t q = 0; q < sar.depth.size(); ++q) {
      csv += fmt::format("{:.9e},{:.9e}\n", sar.depth[q], sar.sar[q]);
      if (sar.depth[q] <= 2 / lossy_alpha(args->spec)) {
        const double exact = halfspace_sar_analytic(args->spec, sar.depth[q]);
        worst = std::max(worst, std::abs(sar.sar[q] - exact) / exact);
      }
    }
    write_text_file(args->profile_path, csv);
    std::cout << fmt::format(
        "medium wavelength {:.4g} m, attenuation {:.4g} 1/m, cell {:.4g} m\n"
        "SAR at depth {:.4g} m: {:.6g} W/kg (analytic {:.6g}); worst relative error within two "
        "penetration depths {:.3g}\n"
        "whole-column SAR {:.6g} W/kg, peak 1 g {:.6g} W/kg, peak 10 g {:.6g} W/kg\n",
        lossy_wavelength(args->spec), lossy_alpha(args->spec), model.medium.grid.dz,
        sar.depth.front(), sar.sar.front(), halfspace_sar_analytic(args->spec, sar.depth.front()),
        worst, sar.maps.whole_body_sar, sar.maps.peak_1g, sar.maps.peak_10g);
    std::cout << sar.depth.size() << " depths written to " << args->profile_path << "\n";
    if (!args->summary_path.empty()) {
      write_sar_summary(args->summary_path, sar.maps, args->spec.frequency);
      std::cout << "summary written to " << args->summary_path << "\n";
    }
    const YeeGrid& g = model.medium.grid;
    if (!args->vtk_path.empty()) {
      write_sar_vti(args->vtk_path, sar.maps, g.dz, {0.5 * g.dx, 0.5 * g.dy, 0.5 * g.dz});
      std::cout << "SAR maps written to " << args->vtk_path << "\n";
    }
    if (!args->png_path.empty()) {
      write_sar_png(args->png_path, sar.maps);
      std::cout << "SAR slice written to " << args->png_path << "\n";
    }
    if (incident_report.failed || medium_report.failed) std::exit(cli::kVerificationFailed);
  });
}

ppkit::cli::CommandRegistrar registrar{"fdtd", add_fdtd_command};
}  // namespace
