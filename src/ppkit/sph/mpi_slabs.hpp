#pragma once
// sph.step on MPI ranks (docs/sph.md, "MPI slabs"): the dam break split into
// slabs of whole cell columns along x, one rank per GPU
// (ppkit/mpi/mpi_runtime.hpp). Every rank keeps the particles whose cell
// column lies in its slab and runs the portable Kokkos kernels of
// kokkos_sph.hpp and kokkos_step.hpp (the single-device solver's, unchanged)
// on its particles plus ghosts:
//   1. ghost exchange: the particles of the first and last column of the slab
//      go to the left and right neighbour (the cell size is >= the kernel
//      support 2h, so one column is the whole halo); the receiver appends them;
//   2. neighbour structure and right-hand side over owned + ghost particles
//      (the unchanged kernels run over the whole array; the ghosts' own
//      right-hand sides, which miss neighbours beyond the halo, are zeroed);
//      dt from the maxima of |a|^2, rho and the viscous term over fluid
//      particles, reduced over the ranks with MPI_Allreduce(MAX), so every
//      rank takes the single-device dt formula's value for the whole domain;
//   3. predictor; the ghosts' predicted state is exchanged again (the same
//      particles in the same order), then the second right-hand side and the
//      corrector;
//   4. ghosts dropped, escapes marked; particles whose column left the slab
//      migrate to the neighbour (repeated until every particle is home);
//   5. every `balance_every` steps, when a rank's fluid particle count is more
//      than `balance_threshold` from the mean, the slab boundaries move (in
//      whole columns) so that the counts even out.
// Results need not be bit-identical to one device: a particle's neighbour
// sums run in the order of its rank's array (owned particles, with ghosts and
// arrivals appended, renumbered together by cell), which differs from one
// device's order whenever a cell's particles come in another sequence (a
// particle migrating in +x lands after its new cell-mates, not before), so
// the fp32 sums round differently and the runs drift apart at rounding level.
// The dt reduction takes maxima (exact in any order), so dt differs only
// through the right-hand sides, not through the reduction.
// Built only with PPKIT_ENABLE_MPI.
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ppkit/mpi/halo_path.hpp"
#include "ppkit/sph/cases.hpp"
#include "ppkit/sph/operations.hpp"
#include "ppkit/sph/probes.hpp"
#include "ppkit/sph/simulation.hpp"

namespace ppkit::sph {

struct MpiSphOptions {
  mpi::HaloPath halo = mpi::HaloPath::automatic;
  ReorderPolicy reorder;
  int balance_every = 20;          // steps between load checks (0: never rebalance)
  double balance_threshold = 0.1;  // rebalance when max |n_r - mean| > threshold * mean
};

// Per rank, accumulated by step() since construction or reset_stats().
struct MpiSphStats {
  std::int64_t steps = 0;
  double seconds = 0;           // host wall time in step()
  double compute_seconds = 0;   // host wall time of the kernels between the exchanges
  double halo_seconds = 0;      // host time selecting, packing, exchanging (waiting for the
                                // neighbour included) and unpacking ghosts
  double halo_bytes = 0;        // ghost bytes this rank sent
  std::int64_t migrated = 0;    // particles this rank sent to a neighbour (migration)
  std::int64_t rebalances = 0;  // times the slab boundaries moved
};

// This rank's particles by kind (escaped particles stay on the rank they escaped from).
struct MpiParticleCounts {
  std::int64_t fluid = 0, boundary = 0, escaped = 0;
};

class MpiSphSolver {
 public:
  // Collective over comm; every rank passes the same case. Throws
  // ppkit::Error for a periodic x axis or more ranks than cell columns.
  MpiSphSolver(const Case& c, MPI_Comm comm, const MpiSphOptions& options = {});
  ~MpiSphSolver();
  MpiSphSolver(const MpiSphSolver&) = delete;
  MpiSphSolver& operator=(const MpiSphSolver&) = delete;

  // Collective: one step; throws ppkit::Error (on every rank) naming the
  // step and particle on NaN or density blow-up.
  Solver::StepInfo step();
  double time() const;
  std::int64_t steps_done() const;
  std::int64_t escaped() const;  // all ranks together

  // This rank's particles in its internal order.
  Particles local_state();
  // Collective: rank 0 gets every particle in id order, the others nothing.
  Particles gather_state();
  // Collective: the SPHERIC probes (probes.hpp), the same definition as one
  // rank: every rank sends rank 0 its particles within the kernel support of
  // a probe, rank 0 evaluates measure_probes() on them, every rank gets it.
  ProbeSample measure(const ProbeLayout& layout);

  // Collective checkpoint, one file per rank: "<path>.rank<r>" (kind
  // "sph-mpi": the rank's particles in internal order, the slab columns, the
  // rank count, time and step). A restart on the same rank count continues
  // to the same state as the straight run; another rank count is refused.
  void write_checkpoint(const std::string& path);
  void restore_checkpoint(const std::string& path);

  MpiParticleCounts counts() const;
  MPI_Comm comm() const;
  int rank() const;
  int ranks() const;
  // This rank's cell columns [first, end) along x, and all ranks' boundaries.
  int first_column() const;
  int end_column() const;
  const std::vector<int>& slab_columns() const;
  // "cuda-aware", "host-direct" or "staged" (mpi/halo_path.hpp).
  std::string halo_path() const;
  const MpiSphStats& stats() const;
  void reset_stats();

  // Defined in mpi_slabs.cpp. Public because nvcc accepts extended
  // (KOKKOS_LAMBDA) lambdas in member functions only of classes without
  // private or protected access.
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// The file of one rank of an MPI checkpoint.
std::string rank_checkpoint_path(const std::string& path, int rank);

// Slab boundaries b_0 = 0 < b_1 < ... < b_R = columns (at least one column
// each) that split the per-column weights into R nearly equal parts: b_k is
// the column boundary whose prefix sum is nearest k/R of the total.
std::vector<int> balanced_columns(const std::vector<std::int64_t>& weight, int ranks);

// run_simulation (simulation.hpp) on MPI ranks, collective: probes at the
// interval (rank 0 writes the CSV), per-rank checkpoints and restart; VTK
// output is refused. Every rank returns the same summary.
RunSummary run_mpi_simulation(MpiSphSolver& solver, const Case& c, const ProbeLayout& layout,
                              const RunOptions& o);

}  // namespace ppkit::sph
