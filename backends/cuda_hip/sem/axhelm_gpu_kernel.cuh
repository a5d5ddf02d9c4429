#pragma once
// The first axhelm kernel, one source for CUDA (.cu, nvcc) and HIP (.hip,
// clang) through backends/cuda_hip/core/gpu_portability.hpp (nekRS's layout; Cao et al., arXiv
// 2504.07042, sections 3-4): one element per block of Nq x Nq threads, thread (i, j) owns the
// column x(i, j, :) in registers and runs the k-loop; each k-slice goes through shared memory for
// the r and s contractions. D for the r/s contractions sits in shared memory (rows padded against
// bank conflicts); the t contractions read D[k][m] from constant memory, where every thread of the
// block reads the same address (a broadcast).
//
// Geometry: RECOMPUTE elements (factor_slot < 0) rebuild G from their 8
// vertices; J_t and the j-only/i-only terms E0, E1, F0, F1 are computed before
// the k-loop, so each node costs two 3-vector FMAs plus the cofactors.
//
// Nothing in it is specific to one vendor: shared memory, constant memory,
// __ldg (a plain load on AMD) and block barriers map one to one. One element
// per block of Nq x Nq threads does not depend on the warp width: on a
// 64-lane wavefront the Nq = 8 block is one wavefront instead of two warps.
#include "backends/cuda_hip/sem/axhelm_gpu_settle.cuh"
#include "backends/cuda_hip/sem/axhelm_gpu_common.cuh"
#include "backends/cuda_hip/core/gpu_portability.hpp"
#include "ppkit/sem/axhelm_kernel_args.hpp"

namespace ppkit::sem::dshared {

using gpu_common::c_D;
using gpu_common::c_nodes;
using gpu_common::c_weights;
using gpu_common::copy_constants;
using gpu_common::trilinear_coefficients;

// Per-column terms of the trilinear Jacobian (paper eq. 11-13).
struct TrilinearColumn : gpu_common::JacobianColumn {
  double wij;
  __device__ void init(const double* s_C, double r, double s, double w_ij) {
    JacobianColumn::init(s_C, r, s);
    wij = w_ij;
  }
  // lambda0 G and lambda1 w|J| at t = t_k (weight w_k).
  __device__ void factors(double t, double wk, double lambda0, double lambda1, double g[7]) const {
    double jr[3], js[3];
#pragma unroll
    for (int d = 0; d < 3; ++d) {
      jr[d] = e0[d] + t * e1[d];
      js[d] = f0[d] + t * f1[d];
    }
    const double ar0 = js[1] * jt[2] - js[2] * jt[1], ar1 = js[2] * jt[0] - js[0] * jt[2],
                 ar2 = js[0] * jt[1] - js[1] * jt[0];
    const double as0 = jt[1] * jr[2] - jt[2] * jr[1], as1 = jt[2] * jr[0] - jt[0] * jr[2],
                 as2 = jt[0] * jr[1] - jt[1] * jr[0];
    const double at0 = jr[1] * js[2] - jr[2] * js[1], at1 = jr[2] * js[0] - jr[0] * js[2],
                 at2 = jr[0] * js[1] - jr[1] * js[0];
    const double det = jr[0] * ar0 + jr[1] * ar1 + jr[2] * ar2;
    const double w = wij * wk;
    const double scale = lambda0 * w / det;
    g[0] = scale * (ar0 * ar0 + ar1 * ar1 + ar2 * ar2);
    g[1] = scale * (ar0 * as0 + ar1 * as1 + ar2 * as2);
    g[2] = scale * (ar0 * at0 + ar1 * at1 + ar2 * at2);
    g[3] = scale * (as0 * as0 + as1 * as1 + as2 * as2);
    g[4] = scale * (as0 * at0 + as1 * at1 + as2 * at2);
    g[5] = scale * (at0 * at0 + at1 * at1 + at2 * at2);
    g[6] = lambda1 * w * det;
  }
};

// Loads lambda0 G and lambda1 w|J| of node n of a stored element.
__device__ inline void load_factors(const double* element_factors, int n, int np, bool helmholtz,
                                    double lambda0, double lambda1, double g[7]) {
#pragma unroll
  for (int f = 0; f < 6; ++f) g[f] = lambda0 * __ldg(element_factors + f * np + n);
  g[6] = helmholtz ? lambda1 * __ldg(element_factors + 6 * np + n) : 0.0;
}

// static, as the constant tables it reads (axhelm_gpu_common.cuh): each
// translation unit launches its own instance.
template <int NQ, int NCOL, bool RECOMPUTE>
static __global__ void __launch_bounds__(NQ* NQ) axhelm_kernel(const AxhelmKernelArgs a) {
  constexpr int NQ2 = NQ * NQ, NP = NQ2 * NQ;
  __shared__ double s_D[NQ][NQ + 1];
  __shared__ double s_q[NCOL][NQ][NQ];
  __shared__ double s_gr[NCOL][NQ][NQ];
  __shared__ double s_gs[NCOL][NQ][NQ];
  __shared__ double s_C[24];
  const int i = threadIdx.x, j = threadIdx.y, t = j * NQ + i;
  const long long e = blockIdx.x;
  const long long slot = a.factor_slot ? a.factor_slot[e] : e;
  const bool recompute = RECOMPUTE && slot < 0;
  const bool helmholtz = a.helmholtz != 0;

  s_D[j][i] = c_D[j * NQ + i];
  if (recompute) trilinear_coefficients(a.vertices, e, t, NQ2, s_C);
  double r_q[NCOL][NQ], r_y[NCOL][NQ];
#pragma unroll
  for (int c = 0; c < NCOL; ++c)
#pragma unroll
    for (int k = 0; k < NQ; ++k) {
      r_q[c][k] = __ldg(a.x + c * a.field_stride + e * NP + k * NQ2 + t);
      r_y[c][k] = 0.0;
    }
  __syncthreads();

  TrilinearColumn column;
  if (recompute) column.init(s_C, c_nodes[i], c_nodes[j], c_weights[i] * c_weights[j]);
  const double* element_factors = a.factors + (recompute ? 0 : slot) * 7 * NP;

  // Stored factors are fetched one slice ahead, so their latency overlaps the
  // contractions of the current slice.
  double g_next[7] = {0, 0, 0, 0, 0, 0, 0};
  if (!recompute) load_factors(element_factors, t, NP, helmholtz, a.lambda0, a.lambda1, g_next);

#pragma unroll
  for (int k = 0; k < NQ; ++k) {
    double g[7];
    if (recompute) {
      column.factors(c_nodes[k], c_weights[k], a.lambda0, a.lambda1, g);
    } else {
#pragma unroll
      for (int f = 0; f < 7; ++f) g[f] = g_next[f];
      if (k + 1 < NQ)
        load_factors(element_factors, (k + 1) * NQ2 + t, NP, helmholtz, a.lambda0, a.lambda1,
                     g_next);
    }
#pragma unroll
    for (int c = 0; c < NCOL; ++c) s_q[c][j][i] = r_q[c][k];
    __syncthreads();
#pragma unroll
    for (int c = 0; c < NCOL; ++c) {
      double qr = 0, qs = 0, qt = 0;
#pragma unroll
      for (int m = 0; m < NQ; ++m) {
        qr += s_D[i][m] * s_q[c][j][m];
        qs += s_D[j][m] * s_q[c][m][i];
        qt += c_D[k * NQ + m] * r_q[c][m];
      }
      s_gr[c][j][i] = g[0] * qr + g[1] * qs + g[2] * qt;
      s_gs[c][j][i] = g[1] * qr + g[3] * qs + g[4] * qt;
      const double gt = g[2] * qr + g[4] * qs + g[5] * qt;
#pragma unroll
      for (int m = 0; m < NQ; ++m) r_y[c][m] = settle(r_y[c][m] + c_D[k * NQ + m] * gt);
      if (helmholtz) r_y[c][k] += g[6] * r_q[c][k];
    }
    __syncthreads();
#pragma unroll
    for (int c = 0; c < NCOL; ++c) {
      double sum = 0;
#pragma unroll
      for (int m = 0; m < NQ; ++m) sum += s_D[m][i] * s_gr[c][j][m] + s_D[m][j] * s_gs[c][m][i];
      r_y[c][k] = settle(r_y[c][k] + sum);
    }
  }
#pragma unroll
  for (int c = 0; c < NCOL; ++c)
#pragma unroll
    for (int k = 0; k < NQ; ++k) a.y[c * a.field_stride + e * NP + k * NQ2 + t] = r_y[c][k];
}

}  // namespace ppkit::sem::dshared
