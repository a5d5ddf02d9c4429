// `ppkit fdtd run-mpi`: a JSON case file, as `ppkit fdtd run` reads it, on
// the MPI slabs of every rank of the launch (ppkit/fdtd/mpi_slabs.hpp), one
// rank per GPU, each stepping its slab with a registered fdtd.step variant
// that steps slabs. Rank 0 writes the probes and the energy. The SAR of a
// case's "sar" section is computed where the phasor planes are
// (MpiSlabSolver::sar); its maps are gathered on rank 0 only for the VTK and
// PNG outputs. Run under `mpirun -np R ppkit fdtd run-mpi --case FILE`.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <iostream>
#include <optional>

#include "ppkit/command.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/output_path.hpp"
#include "ppkit/core/progress.hpp"
#include "ppkit/core/results.hpp"
#include "ppkit/fdtd/cases.hpp"
#if defined(PPKIT_HAVE_MPI)
#include "mpi_scaling.hpp"
#include "ppkit/fdtd/mpi_slabs.hpp"
#include "ppkit/mpi/mpi_runtime.hpp"
#endif

namespace {
using namespace ppkit;
using namespace ppkit::fdtd;

struct RunMpiArgs {
  std::string case_path;
  std::string variant = "auto";
  std::string probes_csv;            // overrides the case's outputs.probes
  std::int64_t max_steps = 1000000;  // as `ppkit fdtd run --max-steps`
  bool quiet = false;
};

#if defined(PPKIT_HAVE_MPI)
// The plan, checked before the first step: the steps against --max-steps.
void check_steps(const FdtdStep::Problem& p, std::int64_t max_steps) {
  require(max_steps >= 1, "--max-steps " + std::to_string(max_steps), ">= 1");
  if (p.steps > max_steps)
    throw Error(
        fmt::format("the case plans {} time steps (dt {:.3g} s), more than --max-steps {}", p.steps,
                    p.grid.dt, max_steps),
        fmt::format("--max-steps {} or more to run it anyway, or a coarser problem", p.steps));
}

void run_case(const RunMpiArgs& a, const mpi::MpiKokkosRuntime& runtime) {
  const int rank = runtime.rank();
  // Rank 0 reads the file and every rank parses its text, so all of them
  // run the same case (copies on different hosts could differ).
  std::string text = rank == 0 ? read_case_text(a.case_path) : std::string();
  std::uint64_t length = text.size();
  MPI_Bcast(&length, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  require(length < std::uint64_t(INT_MAX),
          "case file '" + a.case_path + "' of " + std::to_string(length) + " bytes",
          "a case file under 2 GiB");
  text.resize(std::size_t(length));
  MPI_Bcast(text.data(), int(length), MPI_CHAR, 0, MPI_COMM_WORLD);
  const CaseFile c = case_from_text(text, a.case_path);
  const FdtdStep::Problem& p = c.problem;
  check_steps(p, a.max_steps);
  const std::string probes_path = a.probes_csv.empty() ? c.probes_path : a.probes_csv;
  if (rank == 0) {
    check_case_outputs(c);
    if (!a.probes_csv.empty()) require_writable_file(a.probes_csv, "--probes");
  }
  MpiSlabOptions options;
  options.variant = a.variant;
  MpiSlabSolver solver(p, MPI_COMM_WORLD, options);
  const auto& g = p.grid;
  if (rank == 0)
    std::cout << fmt::format(
        "grid {}x{}x{} cells of {:.4g} x {:.4g} x {:.4g} m, dt {:.4g} s, {} steps, CPML {} cells "
        "on {} MPI ranks ({}); rank-local variant {}, halo {}\n",
        g.nx, g.ny, g.nz, g.dx, g.dy, g.dz, g.dt, p.steps, p.cpml.thickness, runtime.ranks(),
        runtime.device_name(), solver.variant(),
        solver.overlap() ? "overlapped with the rest of each step" : "after each step");
  // Collective steps in chunks, so that rank 0 can show progress between them.
  RunProgress progress(double(p.steps), "steps",
                       rank == 0 ? progress_mode(a.quiet, false) : ProgressMode::never);
  const std::int64_t chunk = std::max<std::int64_t>(1, p.steps / 50);
  MPI_Barrier(MPI_COMM_WORLD);
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t done = 0; done < p.steps; done += chunk) {
    solver.advance(std::min(chunk, p.steps - done));
    progress.update(double(std::min(done + chunk, p.steps)));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress.finish();
  const FdtdStep::Result r = solver.result(/*gather_fields=*/false, /*gather_phasors=*/false);
  std::optional<SarMaps> sar;
  if (c.sar)
    sar = solver.sar(case_sar_input(p, *c.sar, nullptr),
                     /*gather_maps=*/!c.sar->vtk.empty() || !c.sar->png.empty());
  if (rank != 0) return;
  const double cells = double(g.nx) * double(g.ny) * double(g.nz);
  std::cout << fmt::format("{} steps in {:.3f} s: {:.4g} M cells/s on {} ranks\n", p.steps, seconds,
                           cells * double(p.steps) / seconds / 1e6, runtime.ranks());
  if (!probes_path.empty()) {
    write_text_file(probes_path, probes_csv(p, r));
    std::cout << "probes written to " << probes_path << "\n";
  }
  if (!c.energy_path.empty() && !r.energy.empty()) {
    write_text_file(c.energy_path, energy_csv(p, r));
    std::cout << "energy written to " << c.energy_path << "\n";
  }
  if (sar) write_case_sar(*c.sar, *sar, std::cout);
}

void run_case_mpi(const RunMpiArgs& a) {
  ppkit::cli::mpi_scaling::run_on_every_rank(
      "fdtd run-mpi", [&](mpi::MpiKokkosRuntime& runtime) { run_case(a, runtime); });
}
#endif

void add_fdtd_run_mpi_command(CLI::App& app) {
  // Added under `ppkit fdtd` (registered before this one: commands are sorted by name).
  CLI::App* fdtd = app.get_subcommand("fdtd");
  auto args = std::make_shared<RunMpiArgs>();
  auto* cmd = fdtd->add_subcommand(
      "run-mpi",
      "Run a JSON case file on MPI slabs along x, one rank per GPU, with its probes, energy "
      "and SAR (run under mpirun -np R)");
  cmd->add_option("--case", args->case_path, "Case file (JSON), as for `ppkit fdtd run`")
      ->required();
  cmd->add_option("--variant", args->variant,
                  "Rank-local fdtd.step variant: a name, auto or a strategy among those that step "
                  "slabs (ppkit list --workload fdtd.step --json: traits slab)")
      ->capture_default_str();
  cmd->add_option("--probes", args->probes_csv, "Write the probe series to this CSV file");
  cmd->add_option("--max-steps", args->max_steps,
                  "Refuse a case planned with more time steps than this (raise it for long runs)")
      ->capture_default_str();
  cmd->add_flag("--quiet", args->quiet, "No progress line");
  cmd->callback([args] {
#if defined(PPKIT_HAVE_MPI)
    run_case_mpi(*args);
#else
    (void)args;
    throw Error("this ppkit was built without MPI",
                "configure with -DPPKIT_ENABLE_MPI=ON and run under mpirun, or `ppkit fdtd run` "
                "for one process");
#endif
  });
}

ppkit::cli::CommandRegistrar fdtd_run_mpi{"fdtd-run-mpi", add_fdtd_run_mpi_command};

}  // namespace
