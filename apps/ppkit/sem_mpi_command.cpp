// `ppkit sem nekbone-mpi`: the Nekbone Jacobi-PCG on MPI ranks, one rank per
// GPU, the box split into slabs of element columns along x with an MPI
// gather-scatter (nekbone_mpi.hpp; docs/sem.md, "Nekbone on MPI ranks").
// Run under `mpirun -np R ppkit sem nekbone-mpi ...`. --scaling strong|weak
// repeats the solve on sub-communicators of 1, 2, 4, ... and R ranks of the
// same launch (as `ppkit fdtd scaling`): strong scaling keeps the box, weak
// scaling gives every rank EX element columns (box R*EX x EY x EZ). A study
// also times, on rank 0, every available single-process sem.nekbone variant
// on the one-rank box, each verified against the manufactured solution, and
// reports the efficiency against the fastest as well ("eff. best"):
// rate(R) / (R rate_best), rates in global nodes x CG iterations per second.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "ppkit/command.hpp"
#include "ppkit/core/output_path.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/results.hpp"
#include "ppkit/core/compare.hpp"
#include "ppkit/core/registry.hpp"
#include "ppkit/sem/box_mesh.hpp"
#include "ppkit/sem/nekbone.hpp"
#include "ppkit/sem/sem_cases.hpp"
#include "ppkit/sem/slab_partition.hpp"
#if defined(PPKIT_HAVE_MPI)
#include "mpi_scaling.hpp"
#include "ppkit/mpi/idle_barrier.hpp"
#include "ppkit/mpi/mpi_runtime.hpp"
#include "ppkit/sem/nekbone_mpi.hpp"
#endif

namespace {
using namespace ppkit;
using namespace ppkit::sem;
#if defined(PPKIT_HAVE_MPI)
namespace mpi_scaling = ppkit::cli::mpi_scaling;
#endif

struct MpiArgs {
  int order = 7;
  std::vector<int> elements{16, 8, 8};
  std::string deform = "trilinear";
  std::string equation = "helmholtz";
  double lambda0 = 1.0, lambda1 = 1.0;
  unsigned seed = 1;
  int iterations = 1000;
  double tol = 1e-8;
  std::string geometry = "stored";
  std::string axhelm_variant;  // empty: the solver's own Kokkos axhelm
  std::string exchange = "auto";
  std::string overlap = "on";
  int repeats = 3;
  std::string scaling = "none";
  std::vector<int> ranks;
  std::string json_path;
};

BoxMeshSpec spec_of(const MpiArgs& a) {
  if (a.elements.size() != 3)
    throw Error(fmt::format("--elements has {} values", a.elements.size()),
                "EX,EY,EZ, e.g. 16,8,8");
  BoxMeshSpec spec;
  spec.order = a.order;
  spec.ex = a.elements[0];
  spec.ey = a.elements[1];
  spec.ez = a.elements[2];
  spec.deformation = parse_deformation(a.deform);
  spec.seed = a.seed;
  return spec;
}

NekboneSettings settings_of(const MpiArgs& a) {
  NekboneSettings s;
  s.equation = parse_equation(a.equation);
  s.lambda0 = a.lambda0;
  s.lambda1 = a.lambda1;
  s.max_iterations = a.iterations;
  s.tolerance = a.tol;
  return s;
}

void validate(const MpiArgs& a) {
  (void)spec_of(a);
  (void)settings_of(a);  // the equation name
  if (a.geometry != "stored" && a.geometry != "trilinear")
    throw Error("--geometry " + a.geometry, "stored or trilinear");
  if (a.repeats < 1) throw Error("--repeats must be at least 1", ">= 1");
  if (a.overlap != "on" && a.overlap != "off" && a.overlap != "both")
    throw Error("--overlap " + a.overlap, "on, off or both");
  if (a.scaling != "none" && a.scaling != "strong" && a.scaling != "weak")
    throw Error("--scaling " + a.scaling, "none, strong or weak");
  for (int r : a.ranks)
    if (r < 1) throw Error("--ranks " + std::to_string(r), "rank counts >= 1");
}

#if defined(PPKIT_HAVE_MPI)
struct Row {
  int ranks = 1;
  std::array<int, 3> elements{};
  std::int64_t nodes = 0;  // unique global nodes
  std::string path;
  std::string axhelm;  // the sem.axhelm variant of w = A p (NekboneMpiSolver::axhelm_variant)
  bool overlap = false;
  int iterations = 0;
  double initial = 0, residual = 0, error = 0;
  double seconds = 0, gflops = 0, exchange_s = 0, reduction_s = 0, exchange_mb = 0;
  double efficiency = -1, efficiency_best = -1;
  // Global nodes x CG iterations per second: the same work whatever the variant.
  double rate() const { return seconds > 0 ? double(nodes) * iterations / seconds : 0; }
};

// The fastest single-process sem.nekbone variant on one box.
struct BestSingle {
  std::string name;
  double rate = 0, seconds_per_iteration = 0;
  std::vector<std::pair<std::string, double>> all;  // variant, seconds per iteration
};

// Every available sem.nekbone variant on one process (rank 0 of the launch),
// the median of `repeats` solves after an untimed one; a variant counts only
// when its solution is within nekbone_verification's tolerance of the
// manufactured solution, as in `ppkit sem nekbone`.
BestSingle best_single_process(const MpiArgs& a, const BoxMeshSpec& spec) {
  const BoxMesh mesh = make_box_mesh(spec);
  const NekboneProblem problem = make_nekbone_problem(mesh, settings_of(a));
  const auto verification = nekbone_verification(problem);
  BestSingle best;
  for (const auto& v : Registry<SemNekbone>::all()) {
    if (!v.prepare || !v.availability().available) continue;
    try {
      auto run = v.prepare(problem);
      run->run();
      std::vector<double> times;
      for (int k = 0; k < a.repeats; ++k) {
        const auto t0 = std::chrono::steady_clock::now();
        run->run();
        times.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(times.begin(), times.end());
      const NekboneResult r = run->result();
      CompareRow row;
      const double error = verification.check(v, r, row);
      if (!verification.passes(error) || r.iterations < 1) {
        std::cout << fmt::format(
            "single-process baseline: {} left out: error {:.3g} against the manufactured "
            "solution (tolerance {:.3g}), {} iterations\n",
            v.name, error, verification.tolerance, r.iterations);
        continue;
      }
      const double per_iteration = times[times.size() / 2] / r.iterations;
      best.all.emplace_back(v.name, per_iteration);
      const double rate = double(mesh.global_count) / per_iteration;
      if (rate > best.rate) {
        best.name = v.name;
        best.rate = rate;
        best.seconds_per_iteration = per_iteration;
      }
    } catch (const std::exception& e) {
      std::cout << fmt::format("single-process baseline: {} left out: {}\n", v.name, e.what());
    }
  }
  return best;
}

// One configuration on the first `ranks` ranks of the world (the row is
// meaningful on world rank 0): median of the repeats by the slowest rank's time.
Row run_one(const MpiArgs& a, int ranks, bool weak, bool overlap) {
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm comm;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank < ranks ? 0 : MPI_UNDEFINED, world_rank, &comm);
  Row row;
  row.ranks = ranks;
  row.overlap = overlap;
  BoxMeshSpec spec = spec_of(a);
  if (weak) spec.ex *= ranks;
  row.elements = {spec.ex, spec.ey, spec.ez};
  if (comm != MPI_COMM_NULL) {
    const BoxMesh mesh = make_box_mesh(spec);
    row.nodes = mesh.global_count;
    NekboneMpiOptions options;
    options.recompute_trilinear = a.geometry == "trilinear";
    options.exchange = mpi::parse_halo_path(a.exchange);
    options.overlap = overlap;
    options.axhelm_variant = a.axhelm_variant;
    NekboneMpiSolver solver(mesh, settings_of(a), comm, options);
    row.path = solver.exchange_path();
    row.axhelm = solver.axhelm_variant();
    struct Timed {
      double seconds, exchange, reduction;
    };
    std::vector<Timed> repeats;
    NekboneMpiResult last;
    for (int k = 0; k < a.repeats; ++k) {
      last = solver.solve();
      Timed t{};
      MPI_Allreduce(&last.seconds, &t.seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
      MPI_Allreduce(&last.exchange_seconds, &t.exchange, 1, MPI_DOUBLE, MPI_MAX, comm);
      MPI_Allreduce(&last.reduction_seconds, &t.reduction, 1, MPI_DOUBLE, MPI_MAX, comm);
      repeats.push_back(t);
    }
    std::sort(repeats.begin(), repeats.end(),
              [](const Timed& x, const Timed& y) { return x.seconds < y.seconds; });
    const Timed median = repeats[repeats.size() / 2];
    double flops = 0;
    MPI_Allreduce(&last.flops, &flops, 1, MPI_DOUBLE, MPI_SUM, comm);
    row.error = solver.max_error();
    row.iterations = last.iterations;
    row.initial = last.initial_residual;
    row.residual = last.final_residual;
    row.seconds = median.seconds;
    row.exchange_s = median.exchange;
    row.reduction_s = median.reduction;
    row.gflops = flops / median.seconds * 1e-9;
    row.exchange_mb = last.exchange_bytes / 1e6;
    MPI_Comm_free(&comm);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return row;
}

void run_nekbone_mpi(const MpiArgs& a) {
  validate(a);
  mpi_scaling::run_on_every_rank("sem nekbone-mpi", [&](mpi::MpiKokkosRuntime& runtime) {
    const int rank = runtime.rank(), world = runtime.ranks();
    const std::vector<int> counts =
        a.scaling == "none" ? std::vector<int>{world} : mpi_scaling::rank_counts(a.ranks, world);
    // At least one element column per rank (weak scaling gives each rank EX).
    if (a.scaling != "weak")
      (void)slab_columns(spec_of(a).ex, *std::max_element(counts.begin(), counts.end()));

    nlohmann::json j = mpi_scaling::describe_ranks(runtime.device_name());
    BestSingle best;
    if (a.scaling != "none") {
      if (rank == 0) {
        const BoxMeshSpec one = spec_of(a);
        best = best_single_process(a, one);
        std::string line;
        for (const auto& [name, seconds] : best.all)
          line += fmt::format("{}{} {:.3f}", line.empty() ? "" : ", ", name, 1e3 * seconds);
        if (best.rate > 0) {
          std::cout << fmt::format(
              "fastest single-process sem.nekbone variant on {}x{}x{}: {} ({:.3f} ms/iteration)\n"
              "  single-process ms/iteration: {}\n",
              one.ex, one.ey, one.ez, best.name, 1e3 * best.seconds_per_iteration, line);
          nlohmann::json timed;
          for (const auto& [name, seconds] : best.all) timed[name] = seconds;
          j["single_rank_best"] = {{"elements", {one.ex, one.ey, one.ez}},
                                   {"variant", best.name},
                                   {"node_iterations_per_second", best.rate},
                                   {"seconds_per_iteration", best.seconds_per_iteration},
                                   {"seconds_per_iteration_by_variant", timed}};
        } else {
          std::cout << "no single-process sem.nekbone variant ran here: no eff. best\n";
        }
      }
      mpi::idle_barrier(MPI_COMM_WORLD);  // the other ranks wait without spinning
    }
    if (rank == 0) {
      std::cout << fmt::format(
          "order {}, {} deformation, {}, geometry {}, axhelm {}, tol {:.1e}, median of {} solves; "
          "times: slowest rank; eff.: against the 1-rank run; eff. best: against the fastest "
          "single-process variant; exchange: packing, MPI and adding the interface planes; "
          "allreduce: the inner products\n\n",
          a.order, a.deform, a.equation, a.geometry,
          a.axhelm_variant.empty() ? std::string("built-in") : a.axhelm_variant, a.tol, a.repeats);
      std::cout << fmt::format(
          "{:<7}{:>6}  {:<11}{:>12}{:>7}{:>11}{:>11}{:>10}{:>9}{:>7}{:>10}{:>13}{:>14}"
          "{:>10}  {:<12}{}\n",
          "study", "ranks", "elements", "nodes", "iters", "residual", "max error", "time s",
          "GFLOP/s", "eff.", "eff. best", "exchange ms", "allreduce ms", "MB sent", "exchange",
          "overlap");
    }
    double one_rank_rate = 0;
    mpi_scaling::sweep(counts, a.overlap, [&](int ranks, bool overlap) {
      Row row = run_one(a, ranks, a.scaling == "weak", overlap);
      if (rank != 0) return;
      if (ranks == 1) one_rank_rate = row.gflops;
      // Strong and weak alike: the flop rate of R ranks over R times that of one
      // (weak scaling does R times the work per iteration; iteration counts may differ).
      if (a.scaling != "none" && one_rank_rate > 0)
        row.efficiency = row.gflops / (double(ranks) * one_rank_rate);
      if (best.rate > 0) row.efficiency_best = row.rate() / (double(ranks) * best.rate);
      const std::string elements =
          fmt::format("{}x{}x{}", row.elements[0], row.elements[1], row.elements[2]);
      std::cout << fmt::format(
          "{:<7}{:>6}  {:<11}{:>12}{:>7}{:>11.2e}{:>11.2e}{:>10.4f}{:>9.2f}{:>7}{:>10}{:>13.3f}"
          "{:>14.3f}{:>10.2f}  {:<12}{}\n",
          a.scaling == "none" ? "-" : a.scaling, row.ranks, elements, row.nodes, row.iterations,
          row.residual, row.error, row.seconds, row.gflops,
          mpi_scaling::efficiency_cell(row.efficiency),
          mpi_scaling::efficiency_cell(row.efficiency_best), 1e3 * row.exchange_s,
          1e3 * row.reduction_s, row.exchange_mb, row.path,
          mpi_scaling::overlap_label(ranks, row.overlap));
      std::cout.flush();
      nlohmann::json r =
          mpi_scaling::study_row(row.ranks, row.efficiency, row.efficiency_best, row.path);
      r["study"] = a.scaling;
      r["elements"] = row.elements;
      r["order"] = a.order;
      r["global_nodes"] = row.nodes;
      r["iterations"] = row.iterations;
      r["initial_residual"] = row.initial;
      r["final_residual"] = row.residual;
      r["max_error"] = row.error;
      r["seconds"] = row.seconds;
      r["gflops"] = row.gflops;
      r["exchange_seconds_max"] = row.exchange_s;
      r["allreduce_seconds_max"] = row.reduction_s;
      r["exchange_mb_sent_rank0"] = row.exchange_mb;
      r["overlap"] = mpi_scaling::overlap_json(ranks, row.overlap);
      r["geometry"] = a.geometry;
      r["axhelm_variant"] = row.axhelm;
      r["equation"] = a.equation;
      r["deformation"] = a.deform;
      r["tolerance"] = a.tol;
      j["runs"].push_back(r);
    });
    mpi_scaling::write_report(j, a.json_path, rank);
  });
}
#endif

void add_sem_mpi_command(CLI::App& app) {
  // Added under `ppkit sem` (registered before this one: commands are sorted by name).
  CLI::App* sem = app.get_subcommand("sem");
  auto a = std::make_shared<MpiArgs>();
  auto* cmd = sem->add_subcommand(
      "nekbone-mpi",
      "Nekbone PCG on MPI ranks (slabs along x, MPI gather-scatter; run under mpirun -np R)");
  cmd->add_option("--order", a->order, "Polynomial order N (1..15)")->capture_default_str();
  cmd->add_option("--elements", a->elements, "Elements per direction EX,EY,EZ (weak: per rank)")
      ->delimiter(',')
      ->expected(3);
  cmd->add_option("--deform", a->deform, "Mesh deformation: none, trilinear, curved, mixed")
      ->capture_default_str();
  cmd->add_option("--equation", a->equation, "poisson or helmholtz")->capture_default_str();
  cmd->add_option("--lambda0", a->lambda0, "Helmholtz stiffness coefficient");
  cmd->add_option("--lambda1", a->lambda1, "Helmholtz mass coefficient");
  cmd->add_option("--seed", a->seed, "Seed of the random vertex perturbation");
  cmd->add_option("--iterations", a->iterations, "Maximum CG iterations")->capture_default_str();
  cmd->add_option("--tol", a->tol, "Relative residual to stop at (0: run --iterations)")
      ->capture_default_str();
  cmd->add_option("--geometry", a->geometry,
                  "stored factors, or trilinear (recomputed for trilinear elements)")
      ->capture_default_str();
  cmd->add_option("--axhelm-variant", a->axhelm_variant,
                  "The rank-local A p: a sem.axhelm variant, strategy or auto working on the "
                  "default Kokkos space's memory (e.g. cuda/trilinear-wmma-m16, cuda/stored; "
                  "ppkit list --workload sem); default: the solver's built-in Kokkos axhelm");
  cmd->add_option("--exchange", a->exchange,
                  "Interface planes: auto (direct when MPI reports CUDA-aware support), direct "
                  "or staged (pinned host buffers)")
      ->capture_default_str();
  cmd->add_option("--overlap", a->overlap,
                  "Post the interface planes before the rank's own dssum and run it while they "
                  "travel: on, off or both")
      ->capture_default_str();
  cmd->add_option("--repeats", a->repeats, "Timed solves (median reported)")->capture_default_str();
  cmd->add_option("--scaling", a->scaling,
                  "none (all ranks), strong (same box on 1, 2, 4, ... ranks) or weak "
                  "(EX columns per rank)")
      ->capture_default_str();
  cmd->add_option("--ranks", a->ranks, "Rank counts for --scaling (default 1, 2, 4, ..., all)")
      ->delimiter(',');
  cmd->add_option("--json", a->json_path, "Write the runs to this JSON file");
  cmd->callback([a] {
    if (!a->json_path.empty()) ppkit::require_writable_file(a->json_path, "--json");
#if defined(PPKIT_HAVE_MPI)
    run_nekbone_mpi(*a);
#else
    validate(*a);
    throw Error("this ppkit was built without MPI",
                "configure with -DPPKIT_ENABLE_MPI=ON and run under mpirun");
#endif
  });
}

ppkit::cli::CommandRegistrar sem_mpi{"sem-mpi", add_sem_mpi_command};

}  // namespace
