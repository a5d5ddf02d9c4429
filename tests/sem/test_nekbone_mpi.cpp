// Nekbone on MPI ranks equals the single-process solve: run with
// `mpirun --oversubscribe -np R ppkit_sem_mpi_test [--exchange auto|direct|staged]`.
// A fresh seeded box (mixed trilinear and curved elements, uneven slabs when
// EX is not a multiple of R) is solved by the single-process Kokkos variants
// (stored and recomputed factors) on rank 0 and by NekboneMpiSolver on all
// ranks, through the exchange path the library picks (host-direct on a CPU,
// CUDA-aware or staged on a GPU) with and without overlap of the exchange and
// the rank's own dssum, and through pinned host buffers (staged).
// Checked: the same iteration count, the residual after every iteration and
// the solution to rounding (the additions at interface nodes and in the
// reductions happen in another order), both interface copies equal bitwise,
// and on one rank the very same numbers. Exit status 0 when every check passes.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "ppkit/core/kokkos_spaces.hpp"
#include "ppkit/mpi/mpi_runtime.hpp"
#include "ppkit/sem/nekbone_mpi.hpp"

namespace {
using namespace ppkit::sem;

// The single-process variant "kokkos-<default space>/<strategy>".
const ppkit::Variant<SemNekbone>& serial_variant(const std::string& strategy) {
  std::string backend;
  ppkit::for_each_kokkos_space([&](auto space) {
    if (std::is_same_v<typename decltype(space)::execution_space, Kokkos::DefaultExecutionSpace>)
      backend = space.backend;
  });
  return ppkit::Registry<SemNekbone>::find(backend + "/" + strategy);
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}
}  // namespace

int main(int argc, char** argv) {
  int failures = 0;
  {
    ppkit::mpi::MpiKokkosRuntime runtime(argc, argv);
    const int rank = runtime.rank(), ranks = runtime.ranks();
    // (exchange path, overlap): the path the library picks with and without
    // overlap, and the staged one; `--exchange` keeps one path, both overlaps.
    using ppkit::mpi::HaloPath;
    std::vector<std::pair<HaloPath, bool>> configs{
        {HaloPath::automatic, true}, {HaloPath::automatic, false}, {HaloPath::staged, true}};
    for (int a = 1; a + 1 < argc; ++a)
      if (std::string(argv[a]) == "--exchange") {
        const HaloPath path = ppkit::mpi::parse_halo_path(argv[a + 1]);
        configs = {{path, true}, {path, false}};
      }
    unsigned seed = 12345;
    if (rank == 0) seed = unsigned(std::random_device{}());
    MPI_Bcast(&seed, 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);

    struct Case {
      Equation equation;
      int order, ex;
      bool recompute;
    };
    // EX = 5: slabs of 5 columns on 1 rank, 2+3 on 2, 1+2+2 on 3.
    const Case cases[] = {{Equation::helmholtz, 4, 5, false}, {Equation::poisson, 3, 5, true}};
    for (const Case& c : cases) {
      BoxMeshSpec spec;
      spec.order = c.order;
      spec.ex = c.ex;
      spec.ey = 2;
      spec.ez = 2;
      spec.deformation = Deformation::mixed;
      spec.seed = seed;
      const BoxMesh mesh = make_box_mesh(spec);
      NekboneSettings settings;
      settings.equation = c.equation;
      settings.tolerance = 1e-10;
      settings.max_iterations = 500;
      NekboneResult single;
      double single_error = 0;
      if (rank == 0) {
        const auto problem = make_nekbone_problem(mesh, settings);
        auto run = serial_variant(c.recompute ? "trilinear" : "stored").prepare(problem);
        run->run();
        single = run->result();
        single_error = max_error(problem, single.solution);
      }
      std::vector<double> world_residuals;  // after every iteration, first configuration
      std::vector<double> first_solution;   // of the first configuration
      for (const auto& [path, overlap] : configs) {
        NekboneMpiOptions options;
        options.exchange = path;
        options.overlap = overlap;
        options.recompute_trilinear = c.recompute;
        NekboneMpiSolver solver(mesh, settings, MPI_COMM_WORLD, options);
        const NekboneMpiResult mpi = solver.solve();
        const auto solution = solver.gather_solution(0);
        const double error = solver.max_error();
        if (world_residuals.empty()) world_residuals = mpi.residuals;
        if (rank != 0) continue;
        const std::string config =
            std::string(to_string(c.equation)) + " N=" + std::to_string(c.order) + ", " +
            std::to_string(ranks) + " ranks on " + runtime.device_name() + ", exchange " +
            solver.exchange_path() + ", overlap " + (overlap ? "on" : "off") + ", " +
            (c.recompute ? "trilinear" : "stored");
        auto check = [&](bool ok, const char* what, double value) {
          std::printf("%s %s: %g (seed %u, %s)\n", ok ? "PASS" : "FAIL", what, value, seed,
                      config.c_str());
          failures += ok ? 0 : 1;
        };
        check(mpi.iterations == single.iterations && mpi.iterations < settings.max_iterations,
              "iterations equal the single-process solve", mpi.iterations);
        // Tolerances: one rank runs the same operations in the same order
        // (bitwise equal). On several ranks the additions at interface nodes
        // and in the reductions are reordered: rounding differences of about
        // 1e-16 |r0| in every residual, i.e. 1e-6 relative once |r| is down to
        // 1e-10 |r0|. Residuals: |difference| <= 1e-8 |r| + 1e-14 |r0|;
        // solutions (converged to 1e-10; measured 1e-15): 1e-11 of max |u|.
        const bool same = ranks == 1;
        auto residual_close = [&](double a, double b, double r0) {
          return same ? a == b : std::fabs(a - b) <= 1e-8 * std::fabs(b) + 1e-14 * r0;
        };
        const double tol_solution = same ? 0.0 : 1e-11;
        check(residual_close(mpi.initial_residual, single.initial_residual, 0.0),
              "initial residual vs single process",
              std::fabs(mpi.initial_residual / single.initial_residual - 1));
        check(residual_close(mpi.final_residual, single.final_residual, single.initial_residual),
              "final residual vs single process",
              std::fabs(mpi.final_residual / single.final_residual - 1));
        double difference = solution.size() == single.solution.size() ? 0 : 1;
        for (std::size_t l = 0; l < solution.size() && l < single.solution.size(); ++l)
          difference = std::max(difference, std::fabs(solution[l] - single.solution[l]));
        difference /= max_abs(single.solution);
        check(difference <= tol_solution, "solution vs single process (max rel.)", difference);
        check(std::fabs(error - single_error) <= 1e-9, "error vs exact like single process", error);
        // Every copy of a global node holds the same value bitwise, also the
        // copies of interface nodes on two ranks (both add the same two partial sums).
        std::vector<double> first(std::size_t(mesh.global_count), std::nan(""));
        double spread = solution.size() == std::size_t(mesh.local_count()) ? 0 : 1;
        for (std::size_t l = 0; l < solution.size() && spread == 0; ++l) {
          double& f = first[std::size_t(mesh.global_ids[l])];
          if (std::isnan(f)) f = solution[l];
          spread = std::max(spread, std::fabs(solution[l] - f));
        }
        check(spread == 0, "copies of every global node equal", spread);
        // Exchange paths and overlap move the same numbers in the same order.
        if (first_solution.empty()) first_solution = solution;
        check(solution == first_solution, "solution equals the first configuration's (bitwise)",
              double(solution != first_solution));
        check(mpi.residuals.size() == std::size_t(mpi.iterations) && error < 1e-2,
              "residual history and accuracy", error);
      }
      // Residual after every iteration: the world (above) against one rank alone.
      {
        MPI_Comm alone;
        MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, rank, &alone);
        NekboneMpiResult one;
        if (alone != MPI_COMM_NULL) {
          NekboneMpiOptions options;
          options.recompute_trilinear = c.recompute;  // as the world runs above
          NekboneMpiSolver solver(mesh, settings, alone, options);
          one = solver.solve();
          MPI_Comm_free(&alone);
        }
        if (rank == 0) {
          const std::vector<double>& world = world_residuals;
          // Same bound as above: |difference| <= 1e-8 |r_i| + 1e-14 |r_0|
          // (0 on one rank); reported as the largest fraction of the bound.
          bool ok = one.residuals.size() == world.size();
          double worst = 0;
          for (std::size_t i = 0; i < one.residuals.size() && i < world.size(); ++i) {
            const double difference = std::fabs(world[i] - one.residuals[i]);
            const double bound =
                ranks == 1 ? 0.0 : 1e-8 * one.residuals[i] + 1e-14 * one.initial_residual;
            ok = ok && difference <= bound;
            worst = std::max(worst, bound > 0 ? difference / bound : difference);
          }
          std::printf(
              "%s residual after every iteration, %d vs 1 rank (max difference / bound): "
              "%g (seed %u)\n",
              ok ? "PASS" : "FAIL", ranks, worst, seed);
          failures += ok ? 0 : 1;
        }
      }
      // The rank-local A p through a registered sem.axhelm variant (the
      // embedding operator; on a GPU build the CUDA kernels) instead of the
      // solver's own Kokkos axhelm: the same solve up to the variant's
      // summation order, so the solution bound of several ranks applies.
      {
        NekboneMpiOptions options;
        options.recompute_trilinear = c.recompute;
        options.axhelm_variant = c.recompute ? "trilinear" : "stored";
        NekboneMpiSolver solver(mesh, settings, MPI_COMM_WORLD, options);
        const NekboneMpiResult mpi = solver.solve();
        const auto solution = solver.gather_solution(0);
        if (rank == 0) {
          double difference = solution.size() == single.solution.size() ? 0 : 1;
          for (std::size_t l = 0; l < solution.size() && l < single.solution.size(); ++l)
            difference = std::max(difference, std::fabs(solution[l] - single.solution[l]));
          difference /= max_abs(single.solution);
          const bool ok = difference <= 1e-11 && mpi.iterations < settings.max_iterations &&
                          solver.axhelm_variant() != "built-in";
          std::printf(
              "%s solution with axhelm variant %s vs single process (max rel.): %g, "
              "%d iterations against %d (seed %u, %d ranks)\n",
              ok ? "PASS" : "FAIL", solver.axhelm_variant().c_str(), difference, mpi.iterations,
              single.iterations, seed, ranks);
          failures += ok ? 0 : 1;
        }
      }
    }
    MPI_Bcast(&failures, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  return failures == 0 ? 0 : 1;
}
