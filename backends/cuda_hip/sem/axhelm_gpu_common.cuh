#pragma once
// What both GPU axhelm kernel shapes (first kernels, register columns; CUDA and
// HIP) share: the constant tables of D, the GLL nodes and weights, and the
// trilinear element map x(r,s,t) = sum_q C_q r^q0 s^q1 t^q2 with
// q = q0 + 2 q1 + 4 q2 (paper eq. 10) with the t-independent terms of its
// Jacobian along one (r, s) column (eq. 11-13).
#include "backends/cuda_hip/core/gpu_portability.hpp"
#include "ppkit/sem/axhelm_kernel_args.hpp"
#include "ppkit/sem/trilinear_jacobian.hpp"

namespace ppkit::sem::gpu_common {

// Constant memory is per translation unit (no relocatable device code): each
// .cu/.hip that includes this header has its own tables, filled by its own
// copy_constants (static: internal linkage). Kernels that read them must be
// static too: with external linkage, the same kernel instance compiled into
// two units of one library (the CUDA and the HIP build on NVIDIA) is merged by
// the linker, and one unit's launch runs the other's copy, which reads the
// other unit's tables (all zero when that unit never filled them). Failures surface through the
// caller's next launch check (cudaGetLastError / hipGetLastError report the
// last failed runtime call).
static __constant__ double c_D[kernel_max_nq * kernel_max_nq];
static __constant__ double c_nodes[kernel_max_nq];
static __constant__ double c_weights[kernel_max_nq];

static void copy_constants(int nq, const double* derivative, const double* nodes,
                           const double* weights) {
#if defined(PPKIT_GPU_HIP)
  (void)hipMemcpyToSymbol(HIP_SYMBOL(c_D), derivative, sizeof(double) * nq * nq);
  (void)hipMemcpyToSymbol(HIP_SYMBOL(c_nodes), nodes, sizeof(double) * nq);
  (void)hipMemcpyToSymbol(HIP_SYMBOL(c_weights), weights, sizeof(double) * nq);
#else
  cudaMemcpyToSymbol(c_D, derivative, sizeof(double) * nq * nq);
  cudaMemcpyToSymbol(c_nodes, nodes, sizeof(double) * nq);
  cudaMemcpyToSymbol(c_weights, weights, sizeof(double) * nq);
#endif
}

// C_q = 1/8 sum_v sign(v, q) V_v for the 24 entries; entry C[qd / 3][qd % 3]
// is computed by thread qd mod threads (blocks of fewer than 24 threads take
// several each).
__device__ inline void trilinear_coefficients(const double* vertices, long long e, int t,
                                              int threads, double* s_C) {
  for (int qd = t; qd < 24; qd += threads) {
    const int q = qd / 3, d = qd % 3;
    double sum = 0;
#pragma unroll
    for (int v = 0; v < 8; ++v) {
      double sign = 1;
#pragma unroll
      for (int b = 0; b < 3; ++b)
        if ((q >> b) & 1) sign = ((v >> b) & 1) ? sign : -sign;
      sum += sign * __ldg(vertices + (e * 8 + v) * 3 + d);
    }
    s_C[qd] = 0.125 * sum;
  }
}

using ppkit::sem::JacobianColumn;  // ppkit/sem/trilinear_jacobian.hpp

}  // namespace ppkit::sem::gpu_common
