// cuda/sorted-float4, cuda/warp-per-cell-float4, cuda/unsorted-float4 (sph.interaction) and
// cuda/symplectic-float4 (sph.step): the shared GPU glue (sph_gpu_glue.hpp)
// over the CUDA runtime and the nvcc-built kernels (sph_cuda_kernels.cu).
#include <cuda_runtime_api.h>
#include <vector_functions.h>

#include "backends/cuda/core/cuda_device.hpp"
#include "backends/cuda_hip/sph/sph_gpu_glue.hpp"

namespace ppkit {
namespace {

struct CudaBackend {
  using Vendor = sph::gpu_kernels::Cuda;
  template <class T>
  using Buffer = cuda::DeviceBuffer<T>;
  static void check_launch() { PPKIT_CUDA_CHECK_LAUNCH(); }
  static void synchronize() { PPKIT_CUDA_CHECK(cudaDeviceSynchronize()); }
  static void copy_on_device(void* to, const void* from, std::size_t bytes) {
    PPKIT_CUDA_CHECK(cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToDevice));
  }
  static DataLocation memory() {
    int device = 0;
    PPKIT_CUDA_CHECK(cudaGetDevice(&device));
    return DataLocation{MemoryKind::cuda, device};
  }
  template <class Op>
  static Variant<Op> variant(const std::string& strategy, int preference) {
    return cuda::cuda_variant<Op>(strategy, preference);
  }
};

}  // namespace

namespace registration {
void register_sph_cuda_variants() { sph::gpu_glue::register_variants<CudaBackend>(); }
}  // namespace registration
}  // namespace ppkit
