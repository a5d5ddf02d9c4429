#pragma once
// PPKIT_FEM_HD: a small function the FEM host code, the CUDA/HIP kernels and
// the Kokkos kernels all call (shape-function signs, Ke entry orders).
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>  // __host__ and __device__
#endif
#if defined(__CUDACC__) || defined(__HIPCC__)
#define PPKIT_FEM_HD __host__ __device__ inline
#else
#define PPKIT_FEM_HD inline
#endif
