#pragma once
// sem.nekbone on MPI ranks (docs/sem.md, "Nekbone on MPI ranks"): the box is
// split into slabs of element columns along x (slab_partition.hpp), one rank
// per GPU, each rank running the Kokkos Jacobi-PCG of nekbone_kokkos.cpp on
// its elements in the default execution space. The gather-scatter is the
// rank's own direct stiffness summation (gather_scatter.hpp) followed by an
// exchange of the two interface planes with the neighbour ranks: each rank
// sends its partial sums of the shared nodes and adds the neighbour's, so both
// copies hold the same sum bitwise (a + b = b + a). The three CG inner
// products are weighted sums over the nodes each rank owns (every global node
// counted once), MPI_Allreduce'd. The iterates equal the single-process solve
// up to the order of the additions at interface nodes and in the reductions.
//
// With overlap (the default) the planes' sums are packed from the element
// copies and posted before the rank's dssum, which runs while they travel.
// Interface planes are sent from device buffers when MPI can read them (host
// memory, or device memory with a CUDA-aware MPI) or staged through pinned
// host buffers (mpi::HaloPath, as the FDTD slabs). Built only with
// PPKIT_ENABLE_MPI.
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "ppkit/mpi/halo_path.hpp"
#include "ppkit/sem/nekbone.hpp"
#include "ppkit/sem/slab_partition.hpp"

namespace ppkit::sem {

struct NekboneMpiOptions {
  bool recompute_trilinear = false;  // axhelm recomputes trilinear elements' factors
  mpi::HaloPath exchange = mpi::HaloPath::automatic;
  // Post the interface planes (their sums taken straight from the element
  // copies) before the rank's own dssum and let that run while they travel;
  // off: dssum, then the exchange. The same numbers either way (bitwise).
  bool overlap = true;
  // The rank-local w = A p: empty, the Kokkos axhelm of the default execution
  // space (recompute_trilinear picks its geometry); otherwise any sem.axhelm
  // variant, strategy or "auto" that works on the default space's memory
  // (cuda/trilinear-wmma-m16, cuda/stored, ...), applied through the
  // embedding operator sem::Axhelm on the rank's vectors in place, queued on
  // the same stream as the CG sweeps. The set-up (lifting, diagonal) stays on
  // the Kokkos operator.
  std::string axhelm_variant;
};

// One solve, as seen by one rank (the residuals are global and the same on
// every rank; times, bytes and flops are this rank's).
struct NekboneMpiResult {
  int iterations = 0;
  double initial_residual = 0, final_residual = 0;
  std::vector<double> residuals;  // |r| after each iteration (weighted, global)
  double seconds = 0;             // host wall time of the CG loop
  // Host time packing, staging, posting, waiting for and adding the interface
  // planes; with overlap the wait includes the rest of the rank's dssum.
  double exchange_seconds = 0;
  double reduction_seconds = 0;  // MPI_Allreduce of the inner products (waits included)
  double exchange_bytes = 0;     // bytes this rank sent
  double flops = 0;              // this rank's flops (nekbone_cost of its slab)
};

class NekboneMpiSolver {
 public:
  // Collective over comm; every rank passes the same mesh and settings.
  // Throws ppkit::Error when there are more ranks than element columns.
  NekboneMpiSolver(const BoxMesh& mesh, const NekboneSettings& settings, MPI_Comm comm,
                   const NekboneMpiOptions& options = {});
  ~NekboneMpiSolver();
  NekboneMpiSolver(const NekboneMpiSolver&) = delete;
  NekboneMpiSolver& operator=(const NekboneMpiSolver&) = delete;

  // Collective: one PCG solve from x = 0 (repeatable).
  NekboneMpiResult solve();
  // Collective: the last solution (boundary values included) in the local
  // form of the whole box ([E * Np], global element order) on `root`, empty elsewhere.
  std::vector<double> gather_solution(int root = 0) const;
  // Collective: max |u - u_exact| over all ranks' nodes.
  double max_error() const;

  const SlabPartition& partition() const;
  // "cuda-aware" (device buffers to MPI), "host-direct" (host memory, no
  // copies) or "staged" (pinned host buffers); "-" on one rank.
  std::string exchange_path() const;
  // The sem.axhelm variant behind w = A p, or "built-in" (the solver's own
  // Kokkos axhelm, options.axhelm_variant empty).
  std::string axhelm_variant() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ppkit::sem
