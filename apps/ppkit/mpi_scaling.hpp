#pragma once
// What the MPI commands (`ppkit fdtd scaling|run-mpi`, `ppkit sem nekbone-mpi`,
// `ppkit sph scaling|dambreak-mpi`) share: the start-up and failure handling,
// the rank counts of a study, where each rank runs, and the sweep over rank
// counts and overlap settings. Each study runs on sub-communicators of the
// same launch, so parallel efficiency is rate(R) / (R rate(1)) against the
// one-rank figure of that launch. Include only where PPKIT_HAVE_MPI is defined.
#include <fmt/format.h>
#include <mpi.h>

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ppkit/core/error.hpp"
#include "ppkit/core/results.hpp"
#include "ppkit/mpi/mpi_runtime.hpp"

namespace ppkit::cli::mpi_scaling {

// Starts MPI and Kokkos (one GPU per rank) and runs f(runtime) on every rank.
// A failure on any rank ends the whole job: the rank prints "ppkit COMMAND:
// rank R of N failed: ..." and calls MPI_Abort, so no rank is left waiting
// in a collective for one that has given up.
template <class F>
void run_on_every_rank(const char* command, F&& f) {
  int argc = 0;
  char** argv = nullptr;
  mpi::MpiKokkosRuntime runtime(argc, argv);
  try {
    f(runtime);
  } catch (const std::exception& e) {
    std::cerr << fmt::format("ppkit {}: rank {} of {} failed: {}\n", command, runtime.rank(),
                             runtime.ranks(), e.what());
    std::cerr.flush();
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

// The requested rank counts, or 1, 2, 4, ... and the world size.
inline std::vector<int> rank_counts(const std::vector<int>& requested, int world) {
  std::vector<int> counts = requested;
  if (counts.empty()) {
    for (int r = 1; r < world; r *= 2) counts.push_back(r);
    counts.push_back(world);
  }
  for (int r : counts)
    if (r > world)
      throw Error("--ranks " + std::to_string(r) + " but mpirun started " + std::to_string(world),
                  "rank counts <= the number of MPI ranks (mpirun -np)");
  return counts;
}

// Collective: gathers where each rank runs and, on rank 0, prints the MPI
// library, whether it reports CUDA support and the placements, returning them
// as {"mpi_library", "mpi_reports_cuda_aware", "ranks": [...]} (null elsewhere).
inline nlohmann::json describe_ranks(const std::string& device_name) {
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  char mine[160] = {};
  std::snprintf(mine, sizeof mine, "%s", device_name.c_str());
  std::vector<char> all(std::size_t(world) * sizeof mine);
  MPI_Gather(mine, int(sizeof mine), MPI_CHAR, all.data(), int(sizeof mine), MPI_CHAR, 0,
             MPI_COMM_WORLD);
  nlohmann::json j;
  if (rank != 0) return j;
  const std::string library = mpi::mpi_library_version();
  const bool cuda_aware = mpi::mpi_reports_cuda_aware();
  std::cout << fmt::format("MPI: {}\nMPIX_Query_cuda_support: {}\n", library,
                           cuda_aware ? "yes (CUDA-aware)" : "no (or no such query)");
  j["mpi_library"] = library;
  j["mpi_reports_cuda_aware"] = cuda_aware;
  for (int r = 0; r < world; ++r) {
    const std::string where(all.data() + std::size_t(r) * sizeof mine);
    std::cout << fmt::format("rank {}: {}\n", r, where);
    j["ranks"].push_back(where);
  }
  return j;
}

// Calls run(ranks, overlap) for each rank count and each setting of
// `--overlap on|off|both`; one rank exchanges nothing, so it runs once
// (overlap off).
template <class Run>
void sweep(const std::vector<int>& counts, const std::string& overlap, Run&& run) {
  std::vector<bool> settings;
  if (overlap != "off") settings.push_back(true);
  if (overlap != "on") settings.push_back(false);
  for (int ranks : counts)
    for (bool on : ranks == 1 ? std::vector<bool>{false} : settings) run(ranks, on);
}

// The table's overlap column and the JSON's "overlap" (null for one rank).
inline const char* overlap_label(int ranks, bool overlap) {
  return ranks == 1 ? "-" : overlap ? "on" : "off";
}
inline nlohmann::json overlap_json(int ranks, bool overlap) {
  return ranks == 1 ? nlohmann::json() : nlohmann::json(overlap);
}
// Parallel efficiency as a JSON number, null when not measured (< 0).
inline nlohmann::json efficiency_json(double efficiency) {
  return efficiency < 0 ? nlohmann::json() : nlohmann::json(efficiency);
}
// The same as a table cell, "-" when not measured.
inline std::string efficiency_cell(double efficiency) {
  return efficiency < 0 ? std::string("-") : fmt::format("{:.3f}", efficiency);
}

// The keys every row of the MPI commands' JSON reports holds: the rank
// count, the parallel efficiency against the 1-rank run of the launch and
// against the fastest single-rank variant (null where not measured) and the
// path the halo took. Each command adds its own measurements.
inline nlohmann::json study_row(int ranks, double efficiency, double efficiency_best,
                                const std::string& halo_path) {
  return {{"ranks", ranks},
          {"parallel_efficiency", efficiency_json(efficiency)},
          {"efficiency_vs_best_single_rank", efficiency_json(efficiency_best)},
          {"halo_path", halo_path}};
}

// Rank 0 writes the report to `path` when one was asked for (--json).
inline void write_report(const nlohmann::json& report, const std::string& path, int rank) {
  if (rank != 0 || path.empty()) return;
  write_text_file(path, report.dump(2) + "\n");
  std::cout << "results written to " << path << "\n";
}

}  // namespace ppkit::cli::mpi_scaling
