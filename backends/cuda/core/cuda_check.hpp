#pragma once
// Turns CUDA runtime failures into ppkit::Error naming the call and location.
#include <cuda_runtime_api.h>

#include <string>

#include "ppkit/core/error.hpp"

namespace ppkit::cuda {

inline void check(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess)
    throw Error(std::string("CUDA error in ") + call + " at " + file + ":" + std::to_string(line) +
                ": " + cudaGetErrorString(status));
}

}  // namespace ppkit::cuda

#define PPKIT_CUDA_CHECK(call) ::ppkit::cuda::check((call), #call, __FILE__, __LINE__)
// After a kernel launch: launch-configuration errors now, execution errors at the next sync.
#define PPKIT_CUDA_CHECK_LAUNCH() PPKIT_CUDA_CHECK(cudaGetLastError())
