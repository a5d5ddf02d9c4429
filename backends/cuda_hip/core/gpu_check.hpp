#pragma once
// Runtime failures in code shared by CUDA and HIP (the kernels' launchers and
// their runtime calls) as ppkit::Error naming the vendor, the call and the
// location, for the vendor of the translation unit's compiler
// (gpu_portability.hpp). The same messages as PPKIT_CUDA_CHECK
// (backends/cuda/core/cuda_check.hpp) and PPKIT_HIP_CHECK
// (backends/hip/core/hip_check.hpp), which vendor-only code uses.
//
// Include only from translation units compiled by nvcc (.cu) or a HIP
// compiler (.hip).
#include <string>

#include "backends/cuda_hip/core/gpu_portability.hpp"
#include "ppkit/core/error.hpp"

namespace ppkit::gpu {

#if defined(PPKIT_GPU_HIP)
using Status = hipError_t;
inline constexpr Status kSuccess = hipSuccess;
inline const char* runtime_name() { return "HIP"; }
inline const char* status_string(Status status) { return hipGetErrorString(status); }
inline Status last_error() { return hipGetLastError(); }
#else
using Status = cudaError_t;
inline constexpr Status kSuccess = cudaSuccess;
inline const char* runtime_name() { return "CUDA"; }
inline const char* status_string(Status status) { return cudaGetErrorString(status); }
inline Status last_error() { return cudaGetLastError(); }
#endif

inline void check(Status status, const char* call, const char* file, int line) {
  if (status != kSuccess)
    throw Error(std::string(runtime_name()) + " error in " + call + " at " + file + ":" +
                std::to_string(line) + ": " + status_string(status));
}

}  // namespace ppkit::gpu

#define PPKIT_GPU_CHECK(call) ::ppkit::gpu::check((call), #call, __FILE__, __LINE__)
// After a kernel launch: launch-configuration errors now, execution errors at the next sync.
#define PPKIT_GPU_CHECK_LAUNCH() PPKIT_GPU_CHECK(::ppkit::gpu::last_error())
