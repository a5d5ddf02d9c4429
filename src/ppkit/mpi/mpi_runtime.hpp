#pragma once
// MPI + Kokkos start-up for one rank per GPU: MPI first, then Kokkos on the
// GPU numbered by the rank's place among the ranks of its host (its local
// rank, from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)) modulo the visible
// GPUs. Each is finalised at the end only if this object initialised it.
// Used by the MPI runs of every workload (fdtd/mpi_slabs.hpp,
// sem/nekbone_mpi.hpp) and the MPI commands. Built only with PPKIT_ENABLE_MPI.
#include <mpi.h>

#include <string>

namespace ppkit::mpi {

// The rank's number among the ranks of comm that share its host.
int mpi_local_rank(MPI_Comm comm);

// Whether the MPI library says at run time that it accepts CUDA device
// pointers (MPIX_Query_cuda_support() from mpi-ext.h); false when it has no such query.
bool mpi_reports_cuda_aware();
// MPI_Get_library_version, first line.
std::string mpi_library_version();

class MpiKokkosRuntime {
 public:
  MpiKokkosRuntime(int& argc, char**& argv);
  ~MpiKokkosRuntime();
  MpiKokkosRuntime(const MpiKokkosRuntime&) = delete;
  MpiKokkosRuntime& operator=(const MpiKokkosRuntime&) = delete;

  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  int local_rank() const { return local_rank_; }
  // The GPU this rank runs on, -1 without a GPU backend (or when Kokkos was
  // initialised by someone else).
  int device() const { return device_; }
  // e.g. "NVIDIA H200 (132 SMs), device 1" or "host".
  std::string device_name() const;

 private:
  bool owns_mpi_ = false, owns_kokkos_ = false;
  int rank_ = 0, ranks_ = 1, local_rank_ = 0, device_ = -1;
};

}  // namespace ppkit::mpi
