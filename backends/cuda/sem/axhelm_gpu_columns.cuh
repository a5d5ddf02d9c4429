#pragma once
// What the register-column axhelm kernels of CUDA (axhelm_cuda_columns.cuh)
// and HIP (backends/hip/sem/axhelm_hip_columns.hpp) share: the geometry modes,
// the constant tables, the compile-time k-loop, the padded row stride and the
// trilinear geometry of a column (Cao et al., arXiv 2504.07042, section 3).
// One source for nvcc and the HIP compiler through
// backends/hip/core/gpu_portability.hpp; the kernels themselves differ per
// vendor (see the two kernel headers for why).
#include <utility>

#include "backends/hip/core/gpu_portability.hpp"
#include "ppkit/sem/axhelm_kernel_args.hpp"

namespace ppkit::sem::columns {

enum class Geometry { stored, recompute, partial };

// Constant memory is per translation unit: each .cu including this header has
// its own tables (filled by its own copy_constants).
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

// f(std::integral_constant<int, k>) for k = 0..N-1: an unrolled loop whose
// index is a compile-time constant in every copy (#pragma unroll gives up on
// the long k-loop bodies of the recompute kernels).
template <class F, int... K>
__device__ __forceinline__ void static_for_impl(F&& f, std::integer_sequence<int, K...>) {
  (f(std::integral_constant<int, K>{}), ...);
}
template <int N, class F>
__device__ __forceinline__ void static_for(F&& f) {
  static_for_impl(f, std::make_integer_sequence<int, N>{});
}

// Padded row stride: the smallest S >= Nq with S = 2 (mod 4).
__host__ __device__ constexpr int row_stride(int nq) { return nq + ((2 - nq % 4) + 4) % 4; }

// C_q = 1/8 sum_v sign(v, q) V_v for the 24 entries, by the slice's threads.
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

// The (i, j) column's terms of the trilinear Jacobian (paper eq. 11-13).
struct Column {
  double e0[3], e1[3], f0[3], f1[3], jt[3];
  __device__ void init(const double* s_C, double r, double s) {
#pragma unroll
    for (int d = 0; d < 3; ++d) {
      e0[d] = s_C[3 * 1 + d] + s * s_C[3 * 3 + d];
      e1[d] = s_C[3 * 5 + d] + s * s_C[3 * 7 + d];
      f0[d] = s_C[3 * 2 + d] + r * s_C[3 * 3 + d];
      f1[d] = s_C[3 * 6 + d] + r * s_C[3 * 7 + d];
      jt[d] = s_C[3 * 4 + d] + r * s_C[3 * 5 + d] + s * f1[d];
    }
  }
  // Cofactor rows a_r = J_s x J_t, a_s = J_t x J_r, a_t = J_r x J_s at t;
  // returns |J| = J_r . a_r.
  __device__ __forceinline__ double cofactors(double t, double ar[3], double as[3],
                                              double at[3]) const {
    double jr[3], js[3];
#pragma unroll
    for (int d = 0; d < 3; ++d) {
      jr[d] = fma(t, e1[d], e0[d]);
      js[d] = fma(t, f1[d], f0[d]);
    }
    ar[0] = js[1] * jt[2] - js[2] * jt[1];
    ar[1] = js[2] * jt[0] - js[0] * jt[2];
    ar[2] = js[0] * jt[1] - js[1] * jt[0];
    as[0] = jt[1] * jr[2] - jt[2] * jr[1];
    as[1] = jt[2] * jr[0] - jt[0] * jr[2];
    as[2] = jt[0] * jr[1] - jt[1] * jr[0];
    at[0] = jr[1] * js[2] - jr[2] * js[1];
    at[1] = jr[2] * js[0] - jr[0] * js[2];
    at[2] = jr[0] * js[1] - jr[1] * js[0];
    return jr[0] * ar[0] + jr[1] * ar[1] + jr[2] * ar[2];
  }
};

// g[0..5] = scale (a_a . a_b) in GeomFactor order.
__device__ __forceinline__ void metric(double scale, const double ar[3], const double as[3],
                                       const double at[3], double g[6]) {
  g[0] = scale * (ar[0] * ar[0] + ar[1] * ar[1] + ar[2] * ar[2]);
  g[1] = scale * (ar[0] * as[0] + ar[1] * as[1] + ar[2] * as[2]);
  g[2] = scale * (ar[0] * at[0] + ar[1] * at[1] + ar[2] * at[2]);
  g[3] = scale * (as[0] * as[0] + as[1] * as[1] + as[2] * as[2]);
  g[4] = scale * (as[0] * at[0] + as[1] * at[1] + as[2] * at[2]);
  g[5] = scale * (at[0] * at[0] + at[1] * at[1] + at[2] * at[2]);
}

}  // namespace ppkit::sem::columns
