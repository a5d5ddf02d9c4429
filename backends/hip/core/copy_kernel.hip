// The HIP kernel-copy probe: a grid-stride copy, read once and written once per
// element, so it measures what a bandwidth-bound kernel can reach (hipMemcpy
// device-to-device may take a DMA engine or a driver blit kernel instead).
#include <algorithm>

#include "backends/hip/core/copy_kernel.hpp"
#include "backends/cuda_hip/core/gpu_portability.hpp"
#include "backends/hip/core/hip_check.hpp"

namespace ppkit::hip {
namespace {

// Four wavefronts per block on CDNA/DCU (eight warps on NVIDIA if compiled there).
constexpr int kCopyBlock = 4 * 64;
static_assert(kCopyBlock % gpu::kWarpSize == 0, "whole wavefronts per block");

__global__ void __launch_bounds__(kCopyBlock)
    copy_grid_stride(const double* __restrict__ source, double* __restrict__ destination,
                     std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    destination[i] = source[i];
}

}  // namespace

void launch_copy_kernel(const double* source, double* destination, std::size_t n) {
  if (n == 0) return;
  int device = 0, compute_units = 0;
  PPKIT_HIP_CHECK(hipGetDevice(&device));
  PPKIT_HIP_CHECK(
      hipDeviceGetAttribute(&compute_units, hipDeviceAttributeMultiprocessorCount, device));
  // Enough blocks to fill every CU several times over, no more than the data needs.
  const std::size_t needed = (n + kCopyBlock - 1) / kCopyBlock;
  const auto blocks = static_cast<unsigned int>(
      std::min<std::size_t>(needed, static_cast<std::size_t>(compute_units) * 16));
  copy_grid_stride<<<blocks, kCopyBlock>>>(source, destination, n);
  PPKIT_HIP_CHECK_LAUNCH();
}

}  // namespace ppkit::hip
