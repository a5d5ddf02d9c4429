#pragma once
// settle(v): v, computed where it stands. On AMD it passes through an empty
// asm statement that the compiler must assume modifies it, so a k-slice's
// results are finished within the slice. Without it the AMDGPU compiler
// (clang 15, ROCm 5.2) sank the y updates of every slice of the fully unrolled
// k-loops to the end of the axhelm kernels, keeping each slice's loaded
// shared-memory rows live: 512 VGPRs with hundreds spilled at Nq = 8 against
// 127 without spills (register-column stored kernel, one field, gfx90a;
// llvm-readobj --notes of the code object). On CUDA it is the identity, so the
// CUDA kernels compile exactly as before.
#include "backends/cuda_hip/core/gpu_portability.hpp"

namespace ppkit::sem {

__device__ __forceinline__ double settle(double v) {
#if defined(PPKIT_GPU_AMD)
  asm volatile("" : "+v"(v));
#endif
  return v;
}

}  // namespace ppkit::sem
