// MPI slabs along x equal the single-rank run: run with
// `mpirun --oversubscribe -np 2 ppkit_fdtd_mpi_test [--halo auto|direct|staged]`.
// The problem has CPML on all faces (so the x layers and the y/z layers cross
// the slab boundary), random materials and initial fields, sources and probes
// on both ranks and at the seams. Every run is checked with the overlap of the
// interior update and the halo exchange on and off, through the halo path the
// library picks (host-direct on a CPU, CUDA-aware or staged on a GPU) and
// through pinned host buffers (staged); `--halo` keeps only one path. Then a
// checkpoint mid-run restored into a fresh solver gives the straight run, and
// a restore on another number of ranks is refused.
// Exit status 0 when every check passes.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "ppkit/core/error.hpp"
#include "ppkit/fdtd/mpi_slabs.hpp"
#include "ppkit/mpi/mpi_runtime.hpp"
#include "fdtd_test_problem.hpp"

namespace {
using namespace ppkit::fdtd;
using namespace ppkit::mpi;

ppkit::FdtdStep::Problem make_problem(unsigned seed) {
  std::mt19937 rng(seed);
  ppkit::FdtdStep::Problem p;
  p.grid = make_grid(17, 12, 11, 17e-3, 12e-3, 11e-3, 0.95);
  p.cpml.thickness = 3;
  p.cpml.kappa_max = 2;
  p.cpml.alpha_max = 0.05;
  p.steps = 25;
  p.energy_interval = 5;
  p.materials = {Material{}, Material{3.0, 1.0, 0.01, false}, Material{1, 1, 0, true}};
  p.material_id.resize(std::size_t(p.grid.nodes()));
  for (auto& id : p.material_id) id = std::uint32_t(rng() % 3);
  test_problem::randomize_fields(p, rng);
  for (index_t i : {4, 9, 13}) {  // sources and probes in both slabs and at the seam
    PointSource s;
    s.component = Component::ez;
    s.i = i, s.j = 5, s.k = 4;
    s.waveform = Waveform::ricker;
    s.frequency = 2e10;
    s.amplitude = 1e-8;
    p.sources.push_back(s);
    for (Component c : {Component::ey, Component::hz}) {
      Probe pr;
      pr.component = c;
      pr.i = i, pr.j = 6, pr.k = 7;
      p.probes.push_back(pr);
    }
  }
  return p;
}
}  // namespace

int main(int argc, char** argv) {
  int failures = 0;
  {
    MpiKokkosRuntime runtime(argc, argv);
    const int rank = runtime.rank(), ranks = runtime.ranks();
    std::vector<HaloPath> paths{HaloPath::automatic, HaloPath::staged};
    for (int a = 1; a + 1 < argc; ++a)
      if (std::string(argv[a]) == "--halo") paths = {parse_halo_path(argv[a + 1])};
    unsigned seed = 12345;
    if (rank == 0) seed = unsigned(std::random_device{}());
    MPI_Bcast(&seed, 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
    const auto problem = make_problem(seed);
    ppkit::FdtdStep::Result single;
    if (rank == 0) single = reference_step(problem);
    for (HaloPath path : paths)
      for (bool overlap : {true, false}) {
        MpiSlabOptions options;
        options.overlap = overlap;
        options.halo = path;
        MpiSlabSolver solver(problem, MPI_COMM_WORLD, options);
        solver.advance(problem.steps);
        const auto slabs = solver.result(true);
        if (rank != 0) continue;
        const std::string config = std::to_string(ranks) + " ranks on " + runtime.device_name() +
                                   ", halo " + solver.halo_path() + ", overlap " +
                                   (overlap ? "on" : "off");
        auto check = [&](bool ok, const char* what, double value) {
          std::printf("%s %s: %g (seed %u, %s)\n", ok ? "PASS" : "FAIL", what, value, seed,
                      config.c_str());
          failures += ok ? 0 : 1;
        };
        const double fields = fields_relative_error(slabs.fields, single.fields);
        check(fields < 2e-5, "fields vs single rank", fields);
        double probes = 0;
        for (std::size_t n = 0; n < single.probe_values.size(); ++n)
          probes =
              std::max(probes, double(std::abs(slabs.probe_values[n] - single.probe_values[n])) /
                                   (std::abs(double(single.probe_values[n])) + 1e-6));
        check(probes < 1e-3 && slabs.probe_values.size() == single.probe_values.size(),
              "probes vs single rank", probes);
        double energy = slabs.energy.size() == single.energy.size() ? 0 : 1;
        for (std::size_t n = 0; n < single.energy.size() && n < slabs.energy.size(); ++n)
          energy = std::max(energy, std::abs(slabs.energy[n] / single.energy[n] - 1));
        check(energy < 1e-5, "energy vs single rank", energy);
      }
    {
      // Checkpoint after 10 steps, restore into a fresh solver and finish:
      // bitwise the straight run. Restoring on another number of ranks is
      // refused on every rank of that run, naming the valid count.
      const std::string path =
          (std::filesystem::temp_directory_path() / ("ppkit_slab_ckpt_" + std::to_string(seed)))
              .string();
      MpiSlabSolver straight(problem, MPI_COMM_WORLD), first(problem, MPI_COMM_WORLD),
          second(problem, MPI_COMM_WORLD);
      straight.advance(problem.steps);
      first.advance(10);
      first.write_checkpoint(path);
      second.restore(path);
      second.advance(problem.steps - 10);
      const auto a = straight.result(true), b = second.result(true);
      MPI_Comm fewer;
      MPI_Comm_split(MPI_COMM_WORLD, rank < ranks - 1 ? 0 : MPI_UNDEFINED, rank, &fewer);
      std::string refused = "(no error)";
      if (fewer != MPI_COMM_NULL) {
        MpiSlabSolver other(problem, fewer);
        try {
          other.restore(path);
        } catch (const ppkit::Error& e) {
          refused = e.what();
        }
        MPI_Comm_free(&fewer);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      std::filesystem::remove(path + ".rank" + std::to_string(rank));
      if (rank == 0) {
        std::filesystem::remove(path);
        const bool same = a.fields == b.fields && a.probe_values == b.probe_values &&
                          a.energy == b.energy && a.energy_steps == b.energy_steps;
        std::printf("%s checkpoint at step 10 and restore: bitwise the straight run\n",
                    same ? "PASS" : "FAIL");
        const std::string expected = "was written by " + std::to_string(ranks) +
                                     " MPI ranks, this run has " + std::to_string(ranks - 1);
        const bool named = refused.find(expected) != std::string::npos &&
                           refused.find("mpirun -np " + std::to_string(ranks)) != std::string::npos;
        std::printf("%s restore on %d ranks refused: %s\n", named ? "PASS" : "FAIL", ranks - 1,
                    refused.c_str());
        failures += (same ? 0 : 1) + (named ? 0 : 1);
      }
    }
    MPI_Bcast(&failures, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  return failures == 0 ? 0 : 1;
}
