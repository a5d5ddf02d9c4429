#include "ppkit/mpi/mpi_runtime.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>

#include "ppkit/core/kokkos_spaces.hpp"
#include "ppkit/core/openmp_binding.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI: MPIX_Query_cuda_support()
#endif

namespace ppkit::mpi {

int mpi_local_rank(MPI_Comm comm) {
  MPI_Comm host;
  int rank = 0;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
  MPI_Comm_rank(host, &rank);
  MPI_Comm_free(&host);
  return rank;
}

bool mpi_reports_cuda_aware() {
#if defined(OMPI_HAVE_MPI_EXT_CUDA)
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string s(text, std::size_t(std::max(0, length)));
  const auto end = s.find_first_of(std::string("\r\n\0", 3));
  return end == std::string::npos ? s : s.substr(0, end);
}

namespace {
// GPUs this process sees (after CUDA_VISIBLE_DEVICES); 0 without a GPU backend.
int visible_gpus() {
#if defined(KOKKOS_ENABLE_CUDA)
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
#else
  return 0;
#endif
}
}  // namespace

MpiKokkosRuntime::MpiKokkosRuntime(int& argc, char**& argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    MPI_Init(&argc, &argv);
    owns_mpi_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
  local_rank_ = mpi_local_rank(MPI_COMM_WORLD);
  if (Kokkos::is_initialized()) return;
  const int gpus = visible_gpus();
  if (gpus > 0) device_ = local_rank_ % gpus;
  record_openmp_binding_before_kokkos_initialize();
#if KOKKOS_VERSION >= 40000
  Kokkos::InitializationSettings settings;
  if (device_ >= 0) settings.set_device_id(device_);
  Kokkos::initialize(settings);
#else
  Kokkos::InitArguments arguments;
  if (device_ >= 0) arguments.device_id = device_;
  Kokkos::initialize(arguments);
#endif
  owns_kokkos_ = true;
}

MpiKokkosRuntime::~MpiKokkosRuntime() {
  if (owns_kokkos_ && Kokkos::is_initialized()) Kokkos::finalize();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (owns_mpi_ && !finalized) MPI_Finalize();
}

std::string MpiKokkosRuntime::device_name() const {
  const std::string name = kokkos_space_device<Kokkos::DefaultExecutionSpace>();
  return device_ >= 0 ? name + ", device " + std::to_string(device_) : name;
}

}  // namespace ppkit::mpi
