// Free-memory probes (memory_check.hpp) for the GPU spaces of the Kokkos that
// ppkit was built against: cudaMemGetInfo for kokkos-cuda and the hand-tuned
// cuda backend (both use the current CUDA device), hipMemGetInfo for kokkos-hip
// and hip. CPU spaces need no probe (the host's MemAvailable).
#include <Kokkos_Core.hpp>

#include "ppkit/core/memory_check.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif
#if defined(KOKKOS_ENABLE_HIP)
#include <hip/hip_runtime_api.h>
#endif

namespace ppkit::registration {
void register_memory_probes() {
#if defined(KOKKOS_ENABLE_CUDA)
  auto cuda = [] {
    memory::DeviceMemory m;
    std::size_t free_bytes = 0, total_bytes = 0;
    int device = 0;
    cudaDeviceProp prop{};
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess ||
        cudaGetDeviceProperties(&prop, device) != cudaSuccess)
      return m;
    m.known = true;
    m.free_bytes = double(free_bytes);
    m.total_bytes = double(total_bytes);
    m.device = prop.name;
    return m;
  };
  memory::set_probe("kokkos-cuda", cuda);
  memory::set_probe("cuda", cuda);
#endif
#if defined(KOKKOS_ENABLE_HIP)
  auto hip = [] {
    memory::DeviceMemory m;
    std::size_t free_bytes = 0, total_bytes = 0;
    if (hipMemGetInfo(&free_bytes, &total_bytes) != hipSuccess) return m;
    m.known = true;
    m.free_bytes = double(free_bytes);
    m.total_bytes = double(total_bytes);
    m.device = "HIP device";
    return m;
  };
  memory::set_probe("kokkos-hip", hip);
  memory::set_probe("hip", hip);
#endif
}
}  // namespace ppkit::registration
