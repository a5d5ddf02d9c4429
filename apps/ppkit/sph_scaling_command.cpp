// `ppkit sph scaling`: the SPHERIC test 2 dam break on MPI slabs along x
// (sph/mpi_slabs.hpp; docs/sph.md, "MPI slabs"), one rank per GPU, run under
// `mpirun -np R ppkit sph scaling ...`. The same dam break runs on
// sub-communicators of 1, 2, 4, ... and R ranks of the same launch (as
// `ppkit fdtd scaling`), so speed-up and parallel efficiency are taken against
// the one-rank run of that launch, and every run's gauge heights are compared
// with the one-rank run's. Rank 0 also runs the same case on every available
// single-device sph.step variant (opencl/ and cuda/symplectic-float4, the
// Kokkos solver) and reports the efficiency against the fastest of them:
// t_best / (R t_R), times per step. Strong scaling only: the case is fixed by --dp.
// `ppkit sph dambreak-mpi`: one dam break on all ranks of the launch with the
// probe CSV, per-rank checkpoints and restart of `ppkit sph dambreak`.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "ppkit/command.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/output_path.hpp"
#include "ppkit/core/progress.hpp"
#include "ppkit/core/registry.hpp"
#include "ppkit/core/results.hpp"
#include "ppkit/sph/cases.hpp"
#include "ppkit/sph/operations.hpp"
#include "ppkit/sph/probes.hpp"
#include "ppkit/sph/simulation.hpp"
#if defined(PPKIT_HAVE_MPI)
#include "mpi_scaling.hpp"
#include "ppkit/mpi/idle_barrier.hpp"
#include "ppkit/mpi/mpi_runtime.hpp"
#include "ppkit/sph/mpi_slabs.hpp"
#endif

namespace {
using namespace ppkit;
using namespace ppkit::sph;
#if defined(PPKIT_HAVE_MPI)
namespace mpi_scaling = ppkit::cli::mpi_scaling;
#endif

struct SphScalingArgs {
  CaseOptions case_options;
  double t_end = 0.2;
  std::vector<int> ranks;  // rank counts (default 1, 2, 4, ..., world)
  int balance_every = 20;
  double balance_threshold = 0.1;
  int reorder_every = 1;
  std::string halo = "auto";
  std::string probes_csv;  // the largest rank count's probes
  std::string json_path;
};

void validate(const SphScalingArgs& a) {
  require(std::isfinite(a.case_options.dp) && a.case_options.dp > 0,
          fmt::format("--dp {:g}", a.case_options.dp), "a spacing > 0 m, 0.02-0.06 on a CPU");
  require(std::isfinite(a.t_end) && a.t_end > 0, fmt::format("--t-end {:g}", a.t_end), "> 0 s");
  require(a.balance_every >= 0, fmt::format("--balance-every {}", a.balance_every),
          "0 (never) or a positive number of steps");
  require(std::isfinite(a.balance_threshold) && a.balance_threshold > 0,
          fmt::format("--balance-threshold {:g}", a.balance_threshold), "> 0, e.g. 0.1 for 10%");
  require(a.reorder_every >= 0, fmt::format("--reorder-every {}", a.reorder_every),
          "0 (never) or a positive number of steps");
  for (int r : a.ranks) require(r >= 1, fmt::format("--ranks {}", r), "rank counts >= 1");
}

struct DamBreakMpiArgs {
  CaseOptions case_options;
  RunOptions run;
  int balance_every = 20;
  double balance_threshold = 0.1;
  int reorder_every = 1;
  std::string halo = "auto";
};

void validate_dambreak(const DamBreakMpiArgs& a) {
  SphScalingArgs s;
  s.case_options = a.case_options;
  s.t_end = a.run.t_end;
  s.balance_every = a.balance_every;
  s.balance_threshold = a.balance_threshold;
  s.reorder_every = a.reorder_every;
  validate(s);
  validate(a.run);
}

#if defined(PPKIT_HAVE_MPI)
// The slab solver's options from `sph scaling` or `sph dambreak-mpi` arguments.
template <class Args>
MpiSphOptions mpi_options(const Args& a) {
  MpiSphOptions options;
  options.halo = mpi::parse_halo_path(a.halo);
  options.reorder.every = a.reorder_every;
  options.balance_every = a.balance_every;
  options.balance_threshold = a.balance_threshold;
  return options;
}

struct Row {
  int ranks = 1;
  std::int64_t steps = 0;
  double seconds = 0, halo_ms = 0, halo_mb = 0, speedup = -1, efficiency = -1;
  double efficiency_best = -1;  // against the fastest single-device variant
  double height_rms = -1;       // m, against the one-rank run
  std::int64_t migrated = 0, rebalances = 0;
  std::string halo;
  std::vector<std::int64_t> fluid, boundary;  // per rank, at the end
  std::vector<double> compute;                // per rank: seconds in kernels between exchanges
  std::vector<int> columns;
  std::vector<ProbeSample> probes;
};

// RMS over the gauges H1..H4 and the samples of a against b at b's times
// (linear interpolation), 0 when b is empty.
double height_rms(const std::vector<ProbeSample>& a, const std::vector<ProbeSample>& b) {
  if (a.empty() || b.empty()) return -1;
  double sum = 0;
  for (const auto& s : a)
    for (int g = 0; g < 4; ++g) {
      double ref = b.back().height[std::size_t(g)];
      for (std::size_t i = 1; i < b.size(); ++i)
        if (b[i].time >= s.time) {
          const double w =
              std::clamp((s.time - b[i - 1].time) / (b[i].time - b[i - 1].time), 0.0, 1.0);
          ref = (1 - w) * b[i - 1].height[std::size_t(g)] + w * b[i].height[std::size_t(g)];
          break;
        }
      const double d = s.height[std::size_t(g)] - ref;
      sum += d * d;
    }
  return std::sqrt(sum / double(4 * a.size()));
}

// The fastest available single-device sph.step variant on the case, each run
// to --t-end without probes or outputs (on rank 0 only).
struct Best {
  std::string name = "-";
  double seconds_per_step = 0;
  std::vector<std::pair<std::string, double>> all;  // every variant run: s/step
};

Best best_single_device(const Case& c, const SphScalingArgs& a) {
  Best best;
  for (const auto& v : Registry<Step>::all()) {
    if (!v.availability().available) continue;
    try {
      auto solver = make_solver(v.name, c, ReorderPolicy{a.reorder_every});
      RunOptions run;
      run.t_end = a.t_end;
      run.probe_interval = a.t_end;
      run.progress = ProgressMode::never;
      const RunSummary s = run_simulation(*solver, c, spheric_test2_probes(c.params), run);
      const double per_step = s.wall_seconds / double(std::max<std::int64_t>(1, s.steps));
      best.all.emplace_back(v.name, per_step);
      if (best.seconds_per_step == 0 || per_step < best.seconds_per_step)
        best.name = v.name, best.seconds_per_step = per_step;
    } catch (const std::exception& e) {
      std::cout << fmt::format("single-device baseline: {} left out: {}\n", v.name, e.what());
    }
  }
  return best;
}

// The dam break on the first `ranks` ranks of the world; the row is complete on world rank 0.
Row run_one(const Case& c, int ranks, const SphScalingArgs& a, bool write_probes) {
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm comm;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank < ranks ? 0 : MPI_UNDEFINED, world_rank, &comm);
  Row row;
  row.ranks = ranks;
  if (comm != MPI_COMM_NULL) {
    MpiSphSolver solver(c, comm, mpi_options(a));
    RunOptions run;
    run.t_end = a.t_end;
    run.probe_interval = 0.01;
    if (write_probes) run.probes_csv = a.probes_csv;
    MPI_Barrier(comm);
    const RunSummary summary = run_mpi_simulation(solver, c, spheric_test2_probes(c.params), run);
    const MpiSphStats& s = solver.stats();
    double halo_max = 0, halo_bytes = 0;
    std::int64_t migrated = 0;
    MPI_Reduce(&s.halo_seconds, &halo_max, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    MPI_Reduce(&s.halo_bytes, &halo_bytes, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    MPI_Reduce(&s.migrated, &migrated, 1, MPI_INT64_T, MPI_SUM, 0, comm);
    const MpiParticleCounts counts = solver.counts();
    row.compute.resize(std::size_t(ranks));
    MPI_Gather(&s.compute_seconds, 1, MPI_DOUBLE, row.compute.data(), 1, MPI_DOUBLE, 0, comm);
    row.fluid.resize(std::size_t(ranks));
    row.boundary.resize(std::size_t(ranks));
    MPI_Gather(&counts.fluid, 1, MPI_INT64_T, row.fluid.data(), 1, MPI_INT64_T, 0, comm);
    MPI_Gather(&counts.boundary, 1, MPI_INT64_T, row.boundary.data(), 1, MPI_INT64_T, 0, comm);
    row.steps = summary.steps;
    row.seconds = summary.wall_seconds;
    const double steps = double(std::max<std::int64_t>(1, summary.steps));
    row.halo_ms = 1e3 * halo_max / steps;
    row.halo_mb = halo_bytes / steps / 1e6;
    row.migrated = migrated;
    row.rebalances = s.rebalances;
    row.halo = ranks > 1 ? solver.halo_path() : "-";
    row.columns = solver.slab_columns();
    row.probes = summary.probes;
    MPI_Comm_free(&comm);
  }
  mpi::idle_barrier(MPI_COMM_WORLD);  // ranks outside this run sleep, leaving it the cores
  return row;
}

void run_scaling(const SphScalingArgs& a) {
  validate(a);
  mpi::parse_halo_path(a.halo);
  mpi_scaling::run_on_every_rank("sph scaling", [&](mpi::MpiKokkosRuntime& runtime) {
    const int rank = runtime.rank(), world = runtime.ranks();
    const auto counts = mpi_scaling::rank_counts(a.ranks, world);
    const Case c = make_spheric_dambreak(a.case_options);
    require(
        c.particles.count(kFluid) > 0,
        fmt::format("--dp {:g} leaves no fluid particle in the water column", a.case_options.dp),
        "a spacing well below the column's size");
    nlohmann::json j = mpi_scaling::describe_ranks(runtime.device_name());
    Best best;
    if (rank == 0) {
      best = best_single_device(c, a);
      nlohmann::json timed;
      std::string line;
      for (const auto& [name, seconds] : best.all) {
        timed[name] = seconds;
        line += fmt::format("{}{} {:.3f}", line.empty() ? "" : ", ", name, 1e3 * seconds);
      }
      std::cout << fmt::format("fastest single-device variant: {} ({:.3f} ms/step)\n", best.name,
                               1e3 * best.seconds_per_step);
      std::cout << fmt::format("  single-device ms/step: {}\n", line);
      j["single_rank_best"] = {{"variant", best.name},
                               {"seconds_per_step", best.seconds_per_step},
                               {"seconds_per_step_by_variant", timed}};
    }
    mpi::idle_barrier(MPI_COMM_WORLD);  // the other ranks leave the cores to rank 0 meanwhile
    if (rank == 0) {
      std::cout << fmt::format(
          "{}: {} particles ({} fluid), to t = {:g} s; load check every {} steps "
          "(threshold {:g}%); ms/step: wall time of the slowest rank per step; eff.: against the "
          "1-rank run; eff. best: against the fastest single-device variant; halo ms/step: "
          "ghost selection, packing, exchange (waits for the neighbour included) and unpacking "
          "(max "
          "over ranks); H RMS: gauges "
          "H1..H4 against the 1-rank run\n\n",
          c.name, c.particles.size(), c.particles.count(kFluid), a.t_end, a.balance_every,
          100 * a.balance_threshold);
      std::cout << fmt::format(
          "{:>6}{:>7}{:>10}{:>9}{:>7}{:>10}{:>14}{:>10}{:>10}{:>10}{:>11}  {}\n", "ranks", "steps",
          "ms/step", "speedup", "eff.", "eff. best", "halo ms/step", "halo MB", "migrated",
          "rebal.", "H RMS mm", "halo path");
    }
    std::vector<ProbeSample> one_rank_probes;
    double one_rank_seconds = 0;
    for (int ranks : counts) {
      Row row = run_one(c, ranks, a, ranks == counts.back() && !a.probes_csv.empty());
      if (rank != 0) continue;
      if (ranks == 1) {
        one_rank_probes = row.probes;
        one_rank_seconds = row.seconds;
      }
      if (one_rank_seconds > 0) {
        row.speedup = one_rank_seconds / row.seconds;
        row.efficiency = row.speedup / ranks;
        row.height_rms = height_rms(row.probes, one_rank_probes);
      }
      const double ms = 1e3 * row.seconds / double(std::max<std::int64_t>(1, row.steps));
      if (best.seconds_per_step > 0 && ms > 0)
        row.efficiency_best = 1e3 * best.seconds_per_step / (double(ranks) * ms);
      std::cout << fmt::format(
          "{:>6}{:>7}{:>10.3f}{:>9}{:>7}{:>10}{:>14.3f}{:>10.3f}{:>10}{:>10}{:>11}  {}\n", ranks,
          row.steps, ms, row.speedup < 0 ? "-" : fmt::format("{:.2f}", row.speedup),
          mpi_scaling::efficiency_cell(row.efficiency),
          mpi_scaling::efficiency_cell(row.efficiency_best), row.halo_ms, row.halo_mb, row.migrated,
          row.rebalances, row.height_rms < 0 ? "-" : fmt::format("{:.3g}", 1e3 * row.height_rms),
          row.halo);
      for (int r = 0; r < ranks; ++r)
        std::cout << fmt::format(
            "{:>13} {}: {} fluid + {} boundary particles, cell columns [{}, {}), kernels {:.3f} "
            "ms/step\n",
            "rank", r, row.fluid[std::size_t(r)], row.boundary[std::size_t(r)],
            row.columns[std::size_t(r)], row.columns[std::size_t(r) + 1],
            1e3 * row.compute[std::size_t(r)] / double(std::max<std::int64_t>(1, row.steps)));
      std::cout.flush();
      nlohmann::json r =
          mpi_scaling::study_row(ranks, row.efficiency, row.efficiency_best, row.halo);
      r["steps"] = row.steps;
      r["seconds"] = row.seconds;
      r["seconds_per_step"] = row.seconds / double(std::max<std::int64_t>(1, row.steps));
      r["speedup"] = mpi_scaling::efficiency_json(row.speedup);
      r["halo_ms_per_step_max"] = row.halo_ms;
      r["halo_mb_sent_per_step_max"] = row.halo_mb;
      r["migrated"] = row.migrated;
      r["rebalances"] = row.rebalances;
      r["height_rms_vs_one_rank_m"] = mpi_scaling::efficiency_json(row.height_rms);
      r["fluid_per_rank"] = row.fluid;
      r["boundary_per_rank"] = row.boundary;
      r["kernel_seconds_per_rank"] = row.compute;
      r["slab_columns"] = row.columns;
      j["runs"].push_back(r);
    }
    if (rank == 0 && !a.probes_csv.empty())
      std::cout << fmt::format("probes of the {}-rank run written to {}\n", counts.back(),
                               a.probes_csv);
    mpi_scaling::write_report(j, a.json_path, rank);
  });
}

// `ppkit sph dambreak-mpi`: one run on every rank of the launch.
void run_dambreak_mpi(const DamBreakMpiArgs& a) {
  validate_dambreak(a);
  mpi::parse_halo_path(a.halo);
  mpi_scaling::run_on_every_rank("sph dambreak-mpi", [&](mpi::MpiKokkosRuntime& runtime) {
    const int rank = runtime.rank();
    const Case c = make_spheric_dambreak(a.case_options);
    require(
        c.particles.count(kFluid) > 0,
        fmt::format("--dp {:g} leaves no fluid particle in the water column", a.case_options.dp),
        "a spacing well below the column's size");
    MpiSphSolver solver(c, MPI_COMM_WORLD, mpi_options(a));
    if (rank == 0)
      std::cout << fmt::format("{}: {} particles ({} fluid) on {} MPI ranks ({}), halo path {}\n",
                               c.name, c.particles.size(), c.particles.count(kFluid),
                               runtime.ranks(), runtime.device_name(), solver.halo_path());
    const RunSummary s = run_mpi_simulation(solver, c, spheric_test2_probes(c.params), a.run);
    const MpiParticleCounts counts = solver.counts();
    const std::int64_t mine[3] = {counts.fluid, counts.boundary, counts.escaped};
    std::vector<std::int64_t> all(std::size_t(3 * runtime.ranks()));
    MPI_Gather(mine, 3, MPI_INT64_T, all.data(), 3, MPI_INT64_T, 0, MPI_COMM_WORLD);
    std::int64_t migrated = 0;
    const std::int64_t mine_migrated = solver.stats().migrated;
    MPI_Reduce(&mine_migrated, &migrated, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank != 0) return;
    const double per_step = s.wall_seconds / double(std::max<std::int64_t>(1, s.steps));
    std::cout << fmt::format(
        "reached t = {:.4f} s in {} steps, {:.1f} s wall ({:.3f} ms/step, slowest rank); {} fluid "
        "particles escaped; {} migrated; slab boundaries moved {} times\n",
        s.time, s.steps, s.wall_seconds, 1e3 * per_step, s.escaped, migrated,
        solver.stats().rebalances);
    const auto& b = solver.slab_columns();
    for (int r = 0; r < runtime.ranks(); ++r)
      std::cout << fmt::format(
          "rank {}: {} fluid + {} boundary particles ({} escaped), cell columns "
          "[{}, {})\n",
          r, all[std::size_t(3 * r)], all[std::size_t(3 * r + 1)], all[std::size_t(3 * r + 2)],
          b[std::size_t(r)], b[std::size_t(r) + 1]);
    if (!a.run.probes_csv.empty()) std::cout << "probes written to " << a.run.probes_csv << "\n";
    if (!a.run.checkpoint_file.empty())
      std::cout << fmt::format("checkpoint written to {}.rank0 .. rank{}\n", a.run.checkpoint_file,
                               runtime.ranks() - 1);
  });
}
#endif

void add_sph_scaling_command(CLI::App& app) {
  // Added under `ppkit sph` (registered before this one: commands are sorted by name).
  CLI::App* sph = app.get_subcommand("sph");
  auto a = std::make_shared<SphScalingArgs>();
  auto* cmd = sph->add_subcommand(
      "scaling",
      "Dam break on MPI slabs along x, one rank per GPU: strong scaling against 1 rank of the "
      "same launch (run under mpirun -np R)");
  cmd->add_option("--dp", a->case_options.dp, "Particle spacing [m]")->capture_default_str();
  cmd->add_option("--t-end", a->t_end, "Simulated end time [s]")->capture_default_str();
  cmd->add_option("--ranks", a->ranks, "Rank counts to run (default 1, 2, 4, ..., all)")
      ->delimiter(',');
  cmd->add_option("--tank-height", a->case_options.tank_height, "Tank wall height [m]")
      ->capture_default_str();
  cmd->add_option("--balance-every", a->balance_every,
                  "Steps between load checks (0: never move the slab boundaries)")
      ->capture_default_str();
  cmd->add_option("--balance-threshold", a->balance_threshold,
                  "Rebalance when a rank's fluid particle count is this fraction off the mean")
      ->capture_default_str();
  cmd->add_option("--reorder-every", a->reorder_every,
                  "Renumber particles by cell every K steps (0: never)")
      ->capture_default_str();
  cmd->add_option("--halo", a->halo,
                  "auto (direct when MPI reports CUDA-aware support), direct or staged")
      ->capture_default_str();
  cmd->add_option("--probes", a->probes_csv, "Probe CSV of the largest rank count's run");
  cmd->add_option("--json", a->json_path, "Write the runs to this JSON file");
  cmd->callback([a] {
    if (!a->json_path.empty()) ppkit::require_writable_file(a->json_path, "--json");
    if (!a->probes_csv.empty()) ppkit::require_writable_file(a->probes_csv, "--probes");
#if defined(PPKIT_HAVE_MPI)
    run_scaling(*a);
#else
    validate(*a);
    throw Error("this ppkit was built without MPI",
                "configure with -DPPKIT_ENABLE_MPI=ON and run under mpirun");
#endif
  });

  auto d = std::make_shared<DamBreakMpiArgs>();
  auto* dam = sph->add_subcommand(
      "dambreak-mpi",
      "The dam break of `sph dambreak` on MPI slabs along x, one rank per GPU (run under "
      "mpirun -np R): probes, per-rank checkpoints, restart on the same rank count");
  dam->add_option("--dp", d->case_options.dp, "Particle spacing [m]")->required();
  dam->add_option("--t-end", d->run.t_end, "Simulated end time [s]")->required();
  dam->add_option("--tank-height", d->case_options.tank_height, "Tank wall height [m]")
      ->capture_default_str();
  dam->add_option("--probes", d->run.probes_csv, "Probe CSV: time,H1..H4,P1..P8 (rank 0 writes)");
  dam->add_option("--probe-interval", d->run.probe_interval, "Probe sampling interval [s]")
      ->capture_default_str();
  dam->add_option("--checkpoint", d->run.checkpoint_file,
                  "Checkpoint file name; every rank writes <file>.rank<r>");
  dam->add_option("--checkpoint-every", d->run.checkpoint_every, "Checkpoint interval [s]")
      ->capture_default_str();
  dam->add_option("--restart", d->run.restart_file,
                  "Continue from this checkpoint (written on the same number of ranks)");
  dam->add_option("--max-steps", d->run.max_steps, "Stop after this many steps (-1: no limit)")
      ->capture_default_str();
  dam->add_option("--balance-every", d->balance_every,
                  "Steps between load checks (0: never move the slab boundaries)")
      ->capture_default_str();
  dam->add_option("--balance-threshold", d->balance_threshold,
                  "Rebalance when a rank's fluid particle count is this fraction off the mean")
      ->capture_default_str();
  dam->add_option("--reorder-every", d->reorder_every,
                  "Renumber particles by cell every K steps (0: never)")
      ->capture_default_str();
  dam->add_option("--halo", d->halo,
                  "auto (direct when MPI reports CUDA-aware support), direct or staged")
      ->capture_default_str();
  dam->callback([d] {
    if (!d->run.probes_csv.empty()) ppkit::require_writable_file(d->run.probes_csv, "--probes");
#if defined(PPKIT_HAVE_MPI)
    run_dambreak_mpi(*d);
#else
    validate_dambreak(*d);
    throw Error("this ppkit was built without MPI",
                "configure with -DPPKIT_ENABLE_MPI=ON and run under mpirun");
#endif
  });
}

ppkit::cli::CommandRegistrar sph_scaling{"sph-scaling", add_sph_scaling_command};

}  // namespace
