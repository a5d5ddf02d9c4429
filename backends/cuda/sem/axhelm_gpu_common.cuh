#pragma once
// What both GPU axhelm kernel shapes (first kernels, register columns; CUDA and
// HIP) share: the constant tables of D, the GLL nodes and weights, and the
// trilinear element map x(r,s,t) = sum_q C_q r^q0 s^q1 t^q2 with
// q = q0 + 2 q1 + 4 q2 (paper eq. 10) with the t-independent terms of its
// Jacobian along one (r, s) column (eq. 11-13).
#include "backends/hip/core/gpu_portability.hpp"
#include "ppkit/sem/axhelm_kernel_args.hpp"
#include "ppkit/sem/trilinear_jacobian.hpp"

namespace ppkit::sem::gpu_common {

// Constant memory is per translation unit (no relocatable device code): each
// .cu/.hip that includes this header has its own tables, filled by its own
// copy_constants (static: internal linkage). Failures surface through the
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

// Input of a gathered axhelm (AxhelmKernelArgs::global_of_local) at local node
// l: x at l's global node, or with a fused search the new search direction
// p_g = inv_diag_g r_g + beta x_g (the formula of the Nekbone search sweep,
// nekbone_cuda.cu), which the copy marked first stores to p_next (every
// element reads only x, the previous direction, so no element sees a
// half-updated p).
__device__ __forceinline__ double gathered_input(const AxhelmKernelArgs& a, long long l) {
  const int at = __ldg(a.global_of_local + l);
  if (!a.search.r) return __ldg(a.x + at);
  const int g = at < 0 ? -1 - at : at;
  const double p =
      fma(__ldg(a.search.inv_diag + g), __ldg(a.search.r + g), *a.search.beta * __ldg(a.x + g));
  if (at >= 0) a.search.p_next[g] = p;
  return p;
}

using ppkit::sem::JacobianColumn;  // ppkit/sem/trilinear_jacobian.hpp

}  // namespace ppkit::sem::gpu_common
