#pragma once
// fdtd.step on MPI ranks: a 1D slab decomposition along x (equal slabs of
// the nx + 1 node planes), each rank running the Kokkos kernels of
// yee_kokkos_kernels.hpp in the default execution space (one GPU per rank on a
// GPU build) on its planes plus one ghost plane per side.
// After the H update the tangential H (Hy, Hz) of the last owned plane goes to
// the right neighbour's ghost plane i_begin - 1; after the E update (and the
// sources) the tangential E (Ey, Ez) of the first owned plane goes to the left
// neighbour's ghost plane i_end. CPML profiles are global, so the layers
// continue across ranks; results equal the single-rank run bitwise.
//
// Overlap (MpiSlabOptions::overlap): each half step first updates the plane
// whose values are sent, posts nonblocking sends and receives, updates the
// rest of the slab while the planes travel, then waits. Halo planes are sent
// from the field arrays themselves (x-planes are contiguous) when MPI can read
// them (host memory, or device memory with a CUDA-aware MPI), or staged
// through pinned host buffers. Built only with PPKIT_ENABLE_MPI.
//
// Rank-local variants (MpiSlabOptions::variant): any registered fdtd.step
// variant whose traits say slab (step_features.hpp: kokkos-*/plain and
// /split, opencl/plain and /float4, cuda/split-x*) steps each rank's slab as
// a problem of its own (Problem::slab: the x CPML of the global grid) with
// one halo plane per side that is not a global face. Each step the rank
// sends Ey, Ez of its first owned plane to the left neighbour and Ex, Ey, Ez
// of its last one to the right neighbour (what the owned planes' next
// updates need, mpi_slabs.cpp) through copy_planes() and host buffers. With
// MpiSlabOptions::overlap and a variant whose traits say slab_overlap
// (kokkos-*/plain and /split, opencl/plain and /float4, cuda/split-x*), the
// step updates E on those edge planes first (StepApplier::begin_step), posts
// them, and updates the rest while they travel (finish_step); other variants
// advance whole steps and then exchange (the same fields either way). These runs also
// take phasors (each rank accumulates its planes of the box; result()
// gathers them on rank 0; sar() computes the SAR where the planes are) and
// periodic y (within each plane). Energy is summed over the owned planes on the host
// at the energy steps.
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>

#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/sar.hpp"
#include "ppkit/mpi/halo_path.hpp"

namespace ppkit::fdtd {

struct MpiSlabOptions {
  // Kokkos slab kernels, and variants whose traits say slab_overlap.
  bool overlap = true;
  mpi::HaloPath halo = mpi::HaloPath::automatic;
  // Empty: the Kokkos slab kernels above (overlap, no phasors or periodic
  // boundaries). Otherwise the rank-local fdtd.step variant: a name, "auto"
  // or a strategy among the variants whose traits say slab.
  std::string variant;
};

// Per rank, accumulated by advance() since construction or reset_stats().
struct MpiSlabStats {
  std::int64_t steps = 0;
  double seconds = 0;       // host wall time in advance()
  double halo_seconds = 0;  // host time staging, posting and waiting for halo planes
  double halo_bytes = 0;    // bytes this rank sent
};

class MpiSlabSolver {
 public:
  // Collective over comm; every rank passes the same problem. Throws
  // ppkit::Error when there are more ranks than node planes; when setting up
  // fails on some rank, every rank throws, naming the first failing rank.
  MpiSlabSolver(const FdtdStep::Problem& problem, MPI_Comm comm,
                const MpiSlabOptions& options = {});
  ~MpiSlabSolver();
  MpiSlabSolver(const MpiSlabSolver&) = delete;
  MpiSlabSolver& operator=(const MpiSlabSolver&) = delete;

  // Collective: the next `steps` steps (at most problem.steps in all).
  void advance(std::int64_t steps);
  // Collective: rank 0 gets the fields (when gather_fields), every rank the
  // probes and the energies taken so far.
  // gather_phasors: rank 0 also gets the whole phasor box (runs with
  // options.variant and phasors); without it no rank holds more than its planes.
  FdtdStep::Result result(bool gather_fields = true, bool gather_phasors = true) const;
  // Collective (runs with options.variant and phasors): the SAR of the
  // phasor box computed where its planes are, no rank holding the whole box
  // (mpi_sar.hpp). input as for compute_sar (sar.hpp) without `phasors`:
  // sigma and rho per cell of the whole box, the same on every rank. Every
  // rank gets the box's mass, power, whole-body SAR and peaks; the maps are
  // the rank's own cell rows, or every cell on rank 0 with gather_maps.
  SarMaps sar(const SarInput& input, bool gather_maps = true) const;

  // Collective checkpoints of the Kokkos slab kernels' state (fields with
  // their halo planes, CPML memory, probe record, energies, steps done):
  // rank 0 writes `path`, a manifest with the rank count and the steps, and
  // rank r its slab to `path`.rank<r>. restore() refuses, on every rank, a
  // checkpoint written by another number of ranks or of another problem,
  // naming the rank count that would be valid. Runs with options.variant
  // refuse both: a prepared variant does not hand out its CPML memory.
  void write_checkpoint(const std::string& path) const;
  void restore(const std::string& path);

  const MpiSlabStats& stats() const;
  void reset_stats();
  // "cuda-aware" (device pointers to MPI), "host-direct" (fields in host
  // memory, no copies) or "staged" (pinned host buffers).
  std::string halo_path() const;
  // Whether this run overlaps the halo exchange (options.overlap, the
  // variant's slab_overlap trait, and more than one rank for a variant).
  bool overlap() const;
  // Global node planes [first, end) this rank owns.
  index_t first_plane() const;
  index_t end_plane() const;
  // The rank-local variant, or "kokkos slab kernels" without options.variant.
  std::string variant() const;

 private:
  struct Impl;
  struct VariantImpl;
  std::unique_ptr<Impl> impl_;
  std::unique_ptr<VariantImpl> variant_;
};

// The whole run: rank 0 returns the whole result (fields gathered, probes and
// energy); other ranks return their energy and probe series only.
FdtdStep::Result run_mpi_slabs(const FdtdStep::Problem& problem, MPI_Comm comm,
                               const MpiSlabOptions& options = {});

}  // namespace ppkit::fdtd
