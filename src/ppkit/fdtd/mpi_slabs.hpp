#pragma once
// fdtd.step on MPI ranks: a 1D slab decomposition along x (equal slabs of
// the nx + 1 node planes), each rank running the Kokkos kernels of
// yee_kokkos_kernels.hpp on its planes plus one ghost plane per side.
// Before the H update the tangential E (Ey, Ez) of the first owned plane goes
// to the left neighbour; before the E update the tangential H (Hy, Hz) of the
// last owned plane goes to the right neighbour. CPML profiles are global, so
// the layers continue across ranks; results equal the single-rank run.
// Built only with PPKIT_ENABLE_MPI.
#include <mpi.h>

#include "ppkit/fdtd/fdtd_step.hpp"

namespace ppkit::fdtd {

// Collective over comm; every rank passes the same problem. Rank 0 returns the
// whole result (fields gathered, probes and energy); other ranks return their
// energy and probe series only. Throws ppkit::Error when there are more ranks
// than node planes.
FdtdStep::Result run_mpi_slabs(const FdtdStep::Problem& problem, MPI_Comm comm);

}  // namespace ppkit::fdtd
