#pragma once
// What the register-column axhelm kernels of CUDA (backends/cuda/sem/axhelm_cuda_columns.cuh)
// and HIP (backends/hip/sem/axhelm_hip_columns.hpp) share: the geometry modes,
// the constant tables, the compile-time k-loop, the padded row stride and the
// trilinear geometry of a column (Cao et al., arXiv 2504.07042, section 3),
// the factors of a node and the contraction of one k-slice.
// One source for nvcc and the HIP compiler through
// backends/cuda_hip/core/gpu_portability.hpp; the kernels themselves differ per
// vendor (see the two kernel headers for why).
#include <utility>

#include "backends/cuda_hip/sem/axhelm_gpu_settle.cuh"
#include "backends/cuda_hip/sem/axhelm_gpu_common.cuh"
#include "backends/cuda_hip/core/gpu_portability.hpp"
#include "ppkit/sem/axhelm_kernel_args.hpp"

namespace ppkit::sem::columns {

enum class Geometry { stored, recompute, partial };

using gpu_common::c_D;
using gpu_common::c_nodes;
using gpu_common::c_weights;
using gpu_common::copy_constants;
using gpu_common::trilinear_coefficients;

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

// The (i, j) column's terms of the trilinear Jacobian (paper eq. 11-13).
struct Column : gpu_common::JacobianColumn {
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

// Geometric factors of node (i, j, k) of a column: lambda0 G in g and
// lambda1 w|J| in mass. Stored elements take them from stored(f) (f = 0..6,
// the GeomFactor order); recomputing elements rebuild them from the column's
// terms, where for Geometry::partial stored(0) is w/|J|. divide(x, d)
// is x / d as each vendor computes it best.
template <Geometry GEOM, int K, class Stored, class Divide>
__device__ __forceinline__ void node_factors(bool recompute, bool helmholtz, const Column& column,
                                             double wij, double lambda0, double lambda1,
                                             Stored stored, Divide divide, double (&g)[6],
                                             double& mass) {
  if (!recompute) {
#pragma unroll
    for (int f = 0; f < 6; ++f) g[f] = lambda0 * stored(f);
    mass = helmholtz ? lambda1 * stored(6) : 0.0;
  } else {
    double ar[3], as[3], at[3];
    const double det = column.cofactors(c_nodes[K], ar, as, at);
    const double w = wij * c_weights[K];
    const double scale = GEOM == Geometry::partial ? lambda0 * stored(0) : divide(lambda0 * w, det);
    metric(scale, ar, as, at, g);
    mass = lambda1 * w * det;
  }
}

// One k-slice of the register-column contraction (thread (i, j) of element
// z of the block): the slice goes to shared memory row-major and transposed,
// u_r and u_s are padded-row dot products, u_t and the t transpose use the
// column in registers; G grad u goes back to shared memory for the r and s
// transposes. dot_d(row, q) = sum_m d_q[m] row[m] over a padded shared row,
// q an std::integral_constant naming the D vector: 0 row i of D, 1 row j of D,
// 2 row i of D^T, 3 row j of D^T; d_t(m) = D[K][m]; settle() as in
// axhelm_gpu_settle.cuh (the identity on CUDA).
template <int K, int NQ, int NCOL, int EPB, int S, class DotD, class DRowK>
__device__ __forceinline__ void contract_slice(int i, int j, int z, double (&s_u)[EPB][NCOL][NQ][S],
                                               double (&s_uT)[EPB][NCOL][NQ][S],
                                               double (&s_gr)[EPB][NCOL][NQ][S],
                                               double (&s_gsT)[EPB][NCOL][NQ][S],
                                               const double (&r_u)[NCOL][NQ],
                                               double (&r_y)[NCOL][NQ], const double (&g)[6],
                                               double mass, bool helmholtz, DotD dot_d, DRowK d_t) {
  using D_row_i = std::integral_constant<int, 0>;
  using D_row_j = std::integral_constant<int, 1>;
  using DT_row_i = std::integral_constant<int, 2>;
  using DT_row_j = std::integral_constant<int, 3>;
#pragma unroll
  for (int c = 0; c < NCOL; ++c) {
    s_u[z][c][j][i] = r_u[c][K];
    s_uT[z][c][i][j] = r_u[c][K];
  }
  __syncthreads();
#pragma unroll
  for (int c = 0; c < NCOL; ++c) {
    const double ur = dot_d(&s_u[z][c][j][0], D_row_i{});
    const double us = dot_d(&s_uT[z][c][i][0], D_row_j{});
    double ut = 0;
#pragma unroll
    for (int m = 0; m < NQ; ++m) ut = fma(d_t(m), r_u[c][m], ut);
    s_gr[z][c][j][i] = g[0] * ur + g[1] * us + g[2] * ut;
    s_gsT[z][c][i][j] = g[1] * ur + g[3] * us + g[4] * ut;
    const double gt = g[2] * ur + g[4] * us + g[5] * ut;
#pragma unroll
    for (int m = 0; m < NQ; ++m) r_y[c][m] = settle(fma(d_t(m), gt, r_y[c][m]));
    if (helmholtz) r_y[c][K] = fma(mass, r_u[c][K], r_y[c][K]);
  }
  __syncthreads();
#pragma unroll
  for (int c = 0; c < NCOL; ++c)
    r_y[c][K] = settle(
        (dot_d(&s_gr[z][c][j][0], DT_row_i{}) + dot_d(&s_gsT[z][c][i][0], DT_row_j{})) + r_y[c][K]);
}

}  // namespace ppkit::sem::columns
