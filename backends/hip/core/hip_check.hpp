#pragma once
// Turns HIP runtime failures into ppkit::Error naming the call and location.
//
// Host glue (.cpp) is compiled by the C++ compiler, which does not define the
// HIP platform macro that hipcc/clang -x hip define; the runtime API header
// needs one of them. ppkit's HIP backend targets AMD (ROCm) and Hygon (DTK).
#if !defined(__HIP_PLATFORM_AMD__) && !defined(__HIP_PLATFORM_NVIDIA__)
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>

#include <string>

#include "ppkit/core/error.hpp"

namespace ppkit::hip {

inline void check(hipError_t status, const char* call, const char* file, int line) {
  if (status != hipSuccess)
    throw Error(std::string("HIP error in ") + call + " at " + file + ":" + std::to_string(line) +
                ": " + hipGetErrorString(status));
}

}  // namespace ppkit::hip

#define PPKIT_HIP_CHECK(call) ::ppkit::hip::check((call), #call, __FILE__, __LINE__)
// After a kernel launch: launch-configuration errors now, execution errors at the next sync.
#define PPKIT_HIP_CHECK_LAUNCH() PPKIT_HIP_CHECK(hipGetLastError())
