// `ppkit fdtd scaling`: strong and weak scaling of the MPI FDTD slabs, run
// under `mpirun -np R ppkit fdtd scaling ...` with one rank per GPU. Each study
// runs on sub-communicators of 1, 2, 4, ... and R ranks of the same launch, so
// the parallel efficiency is taken against the 1-rank figure of the same
// launch: strong scaling keeps the grid (N^3), weak scaling gives each rank
// N^3 cells (grid R*N x N x N, split along x). The rank-local step is the
// Kokkos slab kernels or, with --variant, a registered fdtd.step variant that
// steps slabs (the halo overlapped where its traits say slab_overlap). Each study also times, on
// rank 0, every available single-rank fdtd.step variant on the one-rank grid and reports the
// efficiency against the fastest of them as well: rate(R) / (R rate_best). A rank that fails
// reports itself and ends the job (MPI_Abort).
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "ppkit/command.hpp"
#include "ppkit/core/output_path.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/results.hpp"
#include "ppkit/fdtd/cases.hpp"
#if defined(PPKIT_HAVE_MPI)
#include "mpi_scaling.hpp"
#include "ppkit/mpi/idle_barrier.hpp"
#include "ppkit/mpi/mpi_runtime.hpp"
#include "ppkit/core/registry.hpp"
#include "ppkit/fdtd/mpi_slabs.hpp"
#include "ppkit/fdtd/step_applier.hpp"
#include "ppkit/fdtd/step_features.hpp"
#endif

namespace {
using namespace ppkit;
using namespace ppkit::fdtd;
#if defined(PPKIT_HAVE_MPI)
namespace mpi_scaling = ppkit::cli::mpi_scaling;
#endif

struct ScalingArgs {
  std::vector<std::int64_t> strong_cells;  // global N^3
  std::vector<std::int64_t> weak_cells;    // N^3 per rank
  std::vector<int> ranks;                  // rank counts (default 1, 2, 4, ..., world)
  std::int64_t steps = 100, warmup = 10;
  int cpml = 10;
  std::string overlap = "on";
  std::string halo = "auto";
  std::string variant;  // empty: the Kokkos slab kernels
  std::string json_path;
};

void validate(const ScalingArgs& a) {
  if (a.strong_cells.empty() && a.weak_cells.empty())
    throw Error("nothing to run", "--cells N[,N..] (strong scaling) and/or --weak N[,N..]");
  for (auto n : a.strong_cells)
    if (n < 2 * a.cpml + 2)
      throw Error("--cells " + std::to_string(n) + " is too small for a CPML of " +
                      std::to_string(a.cpml) + " cells",
                  "N > 2 * cpml + 1");
  for (auto n : a.weak_cells)
    if (n < 2 * a.cpml + 2)
      throw Error("--weak " + std::to_string(n) + " is too small for a CPML of " +
                      std::to_string(a.cpml) + " cells",
                  "N > 2 * cpml + 1");
  if (a.steps < 1 || a.warmup < 0)
    throw Error("--steps " + std::to_string(a.steps) + ", --warmup " + std::to_string(a.warmup),
                "--steps >= 1, --warmup >= 0");
  if (a.overlap != "on" && a.overlap != "off" && a.overlap != "both")
    throw Error("--overlap " + a.overlap, "on, off or both");
  for (int r : a.ranks)
    if (r < 1) throw Error("--ranks " + std::to_string(r), "rank counts >= 1");
}

#if defined(PPKIT_HAVE_MPI)
// The benchmark problem (make_benchmark_problem: 1 mm cells, CPML, one soft
// Ricker dipole, no probes) on an nx x n x n grid.
FdtdStep::Problem scaling_problem(index_t nx, index_t n, int cpml, std::int64_t steps) {
  FdtdStep::Problem p = make_benchmark_problem(n, cpml, steps);
  const double dx = p.grid.dx;
  p.grid = make_grid(nx, n, n, double(nx) * dx, double(n) * dx, double(n) * dx, 0.99);
  p.sources[0].i = nx / 2;
  return p;
}

// The fastest available single-rank fdtd.step variant on a problem: each
// prepared run steps `warmup` untimed and `steps` timed steps (the problem has
// one more, so its final energy stays out of the timing, as in the slab runs).
struct Best {
  std::string name = "-";
  double rate = 0, seconds = 0;                     // cells/s, s/step
  std::vector<std::pair<std::string, double>> all;  // every variant timed: s/step
};

Best best_single_rank(const FdtdStep::Problem& problem, const ScalingArgs& a) {
  Best best;
  for (const auto& v : Registry<FdtdStep>::all()) {
    if (!v.prepare || !v.availability().available || !runs_problem(v.traits, problem)) continue;
    try {
      auto run = v.prepare(problem);
      auto* applier = dynamic_cast<StepApplier*>(run.get());
      if (!applier) continue;
      applier->restart();
      applier->advance(a.warmup, nullptr);
      applier->wait(nullptr);
      const auto t0 = std::chrono::steady_clock::now();
      applier->advance(a.steps, nullptr);
      applier->wait(nullptr);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double rate = double(problem.grid.cells()) * double(a.steps) / seconds;
      best.all.emplace_back(v.name, seconds / double(a.steps));
      if (rate > best.rate)
        best.name = v.name, best.rate = rate, best.seconds = seconds / double(a.steps);
    } catch (const std::exception& e) {
      std::cout << fmt::format("single-rank baseline: {} left out: {}\n", v.name, e.what());
    }
  }
  return best;
}

struct Row {
  std::string study;  // "strong" or "weak"
  int ranks = 1;
  std::array<index_t, 3> grid{};
  bool overlap = false;
  std::string halo;
  std::string variant;
  double seconds = 0, rate = 0, efficiency = -1, efficiency_best = -1, halo_ms = 0,
         halo_ms_mean = 0, halo_mb = 0;
};

// Runs one configuration on the first `ranks` ranks of the world; the row is
// meaningful on world rank 0.
Row run_one(const std::string& study, index_t n, int ranks, bool overlap, const ScalingArgs& a,
            const MpiSlabOptions& base) {
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm comm;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank < ranks ? 0 : MPI_UNDEFINED, world_rank, &comm);
  Row row;
  row.study = study;
  row.ranks = ranks;
  row.overlap = overlap;
  const index_t nx = study == "weak" ? n * ranks : n;
  row.grid = {nx, n, n};
  if (comm != MPI_COMM_NULL) {
    // One step more than run, so that the final energy reduction stays out of the timing.
    const auto problem = scaling_problem(nx, n, a.cpml, a.warmup + a.steps + 1);
    MpiSlabOptions options = base;
    options.overlap = overlap;
    MpiSlabSolver solver(problem, comm, options);
    solver.advance(a.warmup);
    solver.reset_stats();
    MPI_Barrier(comm);
    solver.advance(a.steps);
    const MpiSlabStats& s = solver.stats();
    double slowest = 0, halo_max = 0, halo_sum = 0;
    MPI_Allreduce(&s.seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(&s.halo_seconds, &halo_max, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(&s.halo_seconds, &halo_sum, 1, MPI_DOUBLE, MPI_SUM, comm);
    row.halo = ranks > 1 ? solver.halo_path() : "-";
    row.overlap = solver.overlap();
    row.variant = solver.variant();
    row.seconds = slowest / double(a.steps);
    row.rate = double(problem.grid.cells()) * double(a.steps) / slowest;
    row.halo_ms = 1e3 * halo_max / double(a.steps);
    row.halo_ms_mean = 1e3 * halo_sum / double(ranks) / double(a.steps);
    row.halo_mb = s.halo_bytes / double(a.steps) / 1e6;
    MPI_Comm_free(&comm);
  }
  mpi::idle_barrier(MPI_COMM_WORLD);  // ranks left out of this run leave it the cores
  return row;
}

void run_scaling(const ScalingArgs& a, mpi::MpiKokkosRuntime& runtime) {
  MpiSlabOptions base;
  base.halo = mpi::parse_halo_path(a.halo);
  base.variant = a.variant;
  // An unknown or unsuitable --variant ends the run before any timing. A
  // variant that cannot update the edge planes first (no slab_overlap trait)
  // sends the halo after each whole step: overlap off only.
  const bool variant_overlaps =
      a.variant.empty() ||
      slab_variant(a.variant, scaling_problem(16, 16, 0, 1)).traits.slab_overlap;
  const int rank = runtime.rank(), world = runtime.ranks();
  const auto counts = mpi_scaling::rank_counts(a.ranks, world);
  // Where each rank runs, so that one GPU per rank can be checked.
  nlohmann::json j = mpi_scaling::describe_ranks(runtime.device_name());
  if (rank == 0) {
    std::cout << fmt::format(
        "{} timed steps after {} warm-up steps, CPML {} cells; halo ms/step: host time staging, "
        "posting and waiting for the halo planes (max over ranks); eff.: against the 1-rank "
        "slab run; eff. best: against the fastest single-rank variant on the 1-rank grid\n\n",
        a.steps, a.warmup, a.cpml);
    if (!variant_overlaps && a.overlap != "off")
      std::cout << "--variant: the halo planes travel after each whole step of the rank-local "
                   "variant (its traits do not say slab_overlap), so only overlap off runs\n\n";
    std::cout << fmt::format("{:<7}{:>6}  {:<16}{:>16}{:>8}{:>11}{:>10}{:>14}{:>10}  {:<12}{}\n",
                             "study", "ranks", "grid", "cells/s", "eff.", "eff. best", "ms/step",
                             "halo ms/step", "halo MB", "halo path", "overlap");
  }
  std::vector<std::pair<std::string, std::int64_t>> studies;
  for (auto n : a.strong_cells) studies.emplace_back("strong", n);
  for (auto n : a.weak_cells) studies.emplace_back("weak", n);
  const std::string overlap = variant_overlaps ? a.overlap : std::string("off");
  for (const auto& [study, n] : studies) {
    double one_rank_rate = 0;
    Best best;
    if (rank == 0) {
      best = best_single_rank(scaling_problem(n, n, a.cpml, a.warmup + a.steps + 1), a);
      std::cout << fmt::format(
          "{} {}: fastest single-rank variant on {}^3: {} at {} ({:.3f} "
          "ms/step)\n",
          study, n, n, best.name, format_rate(best.rate, "cells/s"), 1e3 * best.seconds);
      nlohmann::json timed;
      std::string line;
      for (const auto& [name, seconds] : best.all) {
        timed[name] = seconds;
        line += fmt::format("{}{} {:.3f}", line.empty() ? "" : ", ", name, 1e3 * seconds);
      }
      std::cout << fmt::format("  single-rank ms/step: {}\n", line);
      j["single_rank_best"].push_back({{"study", study},
                                       {"cells", n},
                                       {"variant", best.name},
                                       {"cells_per_second", best.rate},
                                       {"seconds_per_step", best.seconds},
                                       {"seconds_per_step_by_variant", timed}});
    }
    mpi::idle_barrier(MPI_COMM_WORLD);
    mpi_scaling::sweep(counts, overlap, [&](int ranks, bool on) {
      Row row = run_one(study, n, ranks, on, a, base);
      if (rank != 0) return;
      if (ranks == 1) one_rank_rate = row.rate;
      if (one_rank_rate > 0) row.efficiency = row.rate / (double(ranks) * one_rank_rate);
      if (best.rate > 0) row.efficiency_best = row.rate / (double(ranks) * best.rate);
      const std::string grid = fmt::format("{}x{}x{}", row.grid[0], row.grid[1], row.grid[2]);
      std::cout << fmt::format(
          "{:<7}{:>6}  {:<16}{:>16}{:>8}{:>11}{:>10.3f}{:>14.3f}{:>10.2f}  {:<12}{}\n", row.study,
          row.ranks, grid, format_rate(row.rate, "cells/s"),
          mpi_scaling::efficiency_cell(row.efficiency),
          mpi_scaling::efficiency_cell(row.efficiency_best), 1e3 * row.seconds, row.halo_ms,
          row.halo_mb, row.halo, mpi_scaling::overlap_label(ranks, row.overlap));
      std::cout.flush();
      nlohmann::json r =
          mpi_scaling::study_row(row.ranks, row.efficiency, row.efficiency_best, row.halo);
      r["study"] = row.study;
      r["grid"] = row.grid;
      r["cells_per_second"] = row.rate;
      r["single_rank_best_variant"] = best.name;
      r["rank_local_variant"] = row.variant;
      r["seconds_per_step"] = row.seconds;
      r["halo_ms_per_step_max"] = row.halo_ms;
      r["halo_ms_per_step_mean"] = row.halo_ms_mean;
      r["halo_mb_sent_per_step_per_rank"] = row.halo_mb;
      r["overlap"] = mpi_scaling::overlap_json(ranks, row.overlap);
      r["steps"] = a.steps;
      r["cpml"] = a.cpml;
      j["runs"].push_back(r);
    });
  }
  mpi_scaling::write_report(j, a.json_path, rank);
}

void run_scaling(const ScalingArgs& a) {
  validate(a);
  mpi_scaling::run_on_every_rank("fdtd scaling",
                                 [&](mpi::MpiKokkosRuntime& runtime) { run_scaling(a, runtime); });
}
#endif

void add_fdtd_scaling_command(CLI::App& app) {
  // Added under `ppkit fdtd` (registered before this one: commands are sorted by name).
  CLI::App* fdtd = app.get_subcommand("fdtd");
  auto args = std::make_shared<ScalingArgs>();
  auto* cmd = fdtd->add_subcommand(
      "scaling",
      "MPI slabs along x, one rank per GPU: strong and weak scaling (run under mpirun -np R)");
  cmd->add_option("--cells", args->strong_cells, "Strong scaling: cube sizes N (N^3 cells in all)")
      ->delimiter(',');
  cmd->add_option("--weak", args->weak_cells, "Weak scaling: N^3 cells per rank (grid R*N x N x N)")
      ->delimiter(',');
  cmd->add_option("--ranks", args->ranks, "Rank counts to run (default 1, 2, 4, ..., all)")
      ->delimiter(',');
  cmd->add_option("--steps", args->steps, "Timed steps per run")->capture_default_str();
  cmd->add_option("--warmup", args->warmup, "Untimed steps before")->capture_default_str();
  cmd->add_option("--cpml", args->cpml, "CPML thickness (cells)")->capture_default_str();
  cmd->add_option("--overlap", args->overlap,
                  "Update the interior while the halo planes travel: on, off or both (with "
                  "--variant, variants whose traits say slab_overlap)")
      ->capture_default_str();
  cmd->add_option("--halo", args->halo,
                  "auto (direct when MPI reports CUDA-aware support), direct or staged")
      ->capture_default_str();
  cmd->add_option("--variant", args->variant,
                  "Rank-local fdtd.step variant: a name, auto or a strategy among those that "
                  "step slabs (default: the Kokkos slab kernels with overlapped halos)");
  cmd->add_option("--json", args->json_path, "Write the runs to this JSON file");
  cmd->callback([args] {
    if (!args->json_path.empty()) ppkit::require_writable_file(args->json_path, "--json");
#if defined(PPKIT_HAVE_MPI)
    run_scaling(*args);
#else
    validate(*args);
    throw Error("this ppkit was built without MPI",
                "configure with -DPPKIT_ENABLE_MPI=ON and run under mpirun");
#endif
  });
}

ppkit::cli::CommandRegistrar fdtd_scaling{"fdtd-scaling", add_fdtd_scaling_command};

}  // namespace
