// hip/sorted-float4, hip/warp-per-cell-float4, hip/unsorted-float4 (sph.interaction) and
// hip/symplectic-float4 (sph.step): the GPU glue shared with CUDA
// (backends/cuda_hip/sph/sph_gpu_glue.hpp) over the HIP runtime and the kernels of
// sph_hip_kernels.hip. Compiled by the C++ compiler against the HIP runtime API.
//
// The HIP runtime API (float4, make_float4) comes before the glue that uses it.
#include "backends/hip/core/hip_device.hpp"

#include "backends/cuda_hip/sph/sph_gpu_glue.hpp"

namespace ppkit {
namespace {

struct HipBackend {
  using Vendor = sph::gpu_kernels::Hip;
  template <class T>
  using Buffer = hip::DeviceBuffer<T>;
  static void check_launch() { PPKIT_HIP_CHECK_LAUNCH(); }
  static void synchronize() { PPKIT_HIP_CHECK(hipDeviceSynchronize()); }
  static void copy_on_device(void* to, const void* from, std::size_t bytes) {
    PPKIT_HIP_CHECK(hipMemcpy(to, from, bytes, hipMemcpyDeviceToDevice));
  }
  static DataLocation memory() {
    int device = 0;
    PPKIT_HIP_CHECK(hipGetDevice(&device));
    return DataLocation{MemoryKind::hip, device};
  }
  template <class Op>
  static Variant<Op> variant(const std::string& strategy, int preference) {
    return hip::hip_variant<Op>(strategy, preference);
  }
};

}  // namespace

namespace registration {
void register_sph_hip_variants() { sph::gpu_glue::register_variants<HipBackend>(); }
}  // namespace registration
}  // namespace ppkit
