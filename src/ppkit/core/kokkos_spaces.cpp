#include "ppkit/core/kokkos_spaces.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace ppkit {

#if defined(KOKKOS_ENABLE_SERIAL)
template <>
std::string kokkos_space_device<Kokkos::Serial>() {
  return "CPU, 1 thread";
}
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
template <>
std::string kokkos_space_device<Kokkos::OpenMP>() {
  return "CPU, " + std::to_string(Kokkos::OpenMP().concurrency()) + " threads";
}
#endif
#if defined(KOKKOS_ENABLE_THREADS)
template <>
std::string kokkos_space_device<Kokkos::Threads>() {
  return "CPU, " + std::to_string(Kokkos::Threads().concurrency()) + " threads";
}
#endif
#if defined(KOKKOS_ENABLE_CUDA)
template <>
std::string kokkos_space_device<Kokkos::Cuda>() {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, Kokkos::Cuda().cuda_device()) != cudaSuccess)
    return "CUDA device";
  return std::string(prop.name) + " (" + std::to_string(prop.multiProcessorCount) + " SMs)";
}
#endif
#if defined(KOKKOS_ENABLE_HIP)
#if KOKKOS_VERSION >= 40000
template <>
std::string kokkos_space_device<Kokkos::HIP>() {
  return "HIP device";
}
#else
template <>
std::string kokkos_space_device<Kokkos::Experimental::HIP>() {
  return "HIP device";
}
#endif
#endif

}  // namespace ppkit
