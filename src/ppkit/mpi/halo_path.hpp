#pragma once
// How the planes a rank exchanges with its neighbours travel, shared by the
// FDTD slabs (fdtd/mpi_slabs.hpp) and the Nekbone interface planes
// (sem/nekbone_mpi.hpp): straight from the arrays where they live (host
// memory, or device memory with a CUDA-aware MPI) or staged through pinned
// host buffers. Built only with PPKIT_ENABLE_MPI.
#include <string>

namespace ppkit::mpi {

enum class HaloPath {
  automatic,  // direct when the data are in host memory or MPI reports CUDA-aware support
  direct,     // MPI reads and writes the arrays themselves (device pointers on a GPU)
  staged,     // copies through pinned host buffers
};
// "auto", "direct" (also "device", "cuda-aware") or "staged"; throws ppkit::Error otherwise.
HaloPath parse_halo_path(const std::string& text);

// Whether MPI is handed the arrays themselves (true) or pinned host copies:
// `automatic` asks mpi_reports_cuda_aware() (mpi_runtime.hpp) when the data
// are in device memory.
bool halo_is_direct(HaloPath path, bool data_in_host_memory);
// "cuda-aware" (device pointers to MPI), "host-direct" (host memory, no
// copies) or "staged" (pinned host buffers).
std::string halo_path_name(bool direct, bool data_in_host_memory);

}  // namespace ppkit::mpi
