// hip/trilinear-mfma (Nq = 8): the trilinear axhelm with the r and s
// contractions on fp64 matrix cores (v_mfma_f64_16x16x4f64, gfx90a and later
// CDNA), the AMD counterpart of cuda/trilinear-wmma (Cao et al., section 4.3).
// Separate from the CUDA source: WMMA fragments (8x8x4 per warp) and MFMA
// operands (16x16x4 per wavefront, fixed lane layout) have nothing in common.
//
// One element per block of 8 x 8 = 64 threads, i.e. one wavefront; thread
// (i, j) keeps the columns u(i, j, :) and y(i, j, :) in registers (the t
// contractions, with D[k][m] from the constant table, stay on the vector
// ALUs). Every r and s contraction is "an 8 x 8 matrix times a slice": with
// U_k the slice stored [j][i],
//   u_s = D U_k,      u_r^T = D U_k^T,      y_s = D^T G_s,      y_r^T = D^T G_r^T
// (the transposed results are written back transposed, so every shared array
// ends up [k][j][i]).
// One wavefront-wide 16 x 16 x 16 product (four MFMA k-steps of 4) does four
// of them at once: A = diag(M, M) with M = D (or D^T), B = [X_k  X_k^T ; X_k+1
// X_k+1^T] for the slice pair (k, k+1), so C holds M X_k, M X_k^T, M X_k+1 and
// M X_k+1^T. Half of A is zero, so half of the MFMA work is useful: on MI250X
// (fp64 matrix 95.7 TFLOP/s, vector 47.9) the contractions run at about the
// vector rate; what the matrix cores buy is the vector issue slots they free
// for the geometry recompute and the t contractions. Unmeasured (no AMD GPU
// was available); docs/sem.md says what to compare it with.
//
// Lane layout of v_mfma_f64_16x16x4f64 (as in
// backends/hip/core/line_derivative_mfma.hip): for a k-step s, lane l supplies
// A[l % 16][4 s + l / 16] and B[4 s + l / 16][l % 16]; accumulator item r is
// C[l / 16 + 4 r][l % 16]. So items 0, 1 belong to slice k, items 2, 3 to k+1.
//
// On targets without fp64 MFMA (gfx906, Hygon DCU) the same kernel computes
// the same C items with FMAs, so the code object exists for every target;
// the variant reports itself unavailable there (nothing to gain over hip/trilinear).
#include "backends/cuda_hip/sem/axhelm_gpu_kernel.cuh"
#include "backends/hip/sem/axhelm_hip.hpp"
#include "ppkit/core/error.hpp"

#if defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
#define PPKIT_SEM_FP64_MFMA 1
#endif

namespace ppkit::sem::hip_kernels {
void set_constants_mfma(int nq, const double* derivative, const double* nodes,
                        const double* weights) {
  dshared::copy_constants(nq, derivative, nodes, weights);
}

// The kernel's lane layout is that of a 64-lane wavefront; on a 32-lane warp
// (NVIDIA through HIP's NVIDIA platform) the variant is unavailable (no fp64
// MFMA) and its launch refuses.
#if !defined(__HIP_PLATFORM_NVIDIA__)
namespace {

using namespace ppkit::sem::dshared;

constexpr int kNq = 8, kNq2 = 64, kNp = 512;
constexpr int kTile = 16;  // MFMA M = N
constexpr int kStep = 4;   // MFMA K
static_assert(gpu::kWarpSize == kNq2, "one element of Nq = 8 is one 64-lane wavefront");

// Entry B[row][col] of the slice pair starting at k0: column block 0 reads
// slice k (stored [a][b]) as is, column block 1 transposed, from src0 and
// src1 respectively ([k][a * 8 + b] arrays in shared memory).
__device__ __forceinline__ double pair_operand(const double (*src0)[kNq2],
                                               const double (*src1)[kNq2], int k0, int row,
                                               int col) {
  const int k = k0 + row / kNq, rr = row % kNq, cc = col % kNq;
  return col < kNq ? src0[k][rr * kNq + cc] : src1[k][cc * kNq + rr];
}

// C = diag(M, M) B for the slice pair at k0 (M = D when transpose is false,
// D^T otherwise), returned as this lane's four accumulator items. The caller
// separates these reads from the writes of the results by a barrier.
__device__ __forceinline__ void pair_product(const double (&a_steps)[kTile / kStep],
                                             const double* s_D, bool transpose,
                                             const double (*src0)[kNq2], const double (*src1)[kNq2],
                                             int k0, int lane, double (&items)[4]) {
  const int col = lane % kTile, row_group = lane / kTile;
#if defined(PPKIT_SEM_FP64_MFMA)
  (void)s_D;
  (void)transpose;
  using Accumulator = double __attribute__((ext_vector_type(4)));
  Accumulator c = {0.0, 0.0, 0.0, 0.0};
#pragma unroll
  for (int step = 0; step < kTile / kStep; ++step) {
    const double b = pair_operand(src0, src1, k0, step * kStep + row_group, col);
    c = __builtin_amdgcn_mfma_f64_16x16x4f64(a_steps[step], b, c, 0, 0, 0);
  }
#pragma unroll
  for (int r = 0; r < 4; ++r) items[r] = c[r];
#else
  (void)a_steps;
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int row = row_group + 4 * r, block = row / kNq, rr = row % kNq;
    double sum = 0.0;
#pragma unroll
    for (int q = 0; q < kNq; ++q) {
      const double m = transpose ? s_D[q * kNq + rr] : s_D[rr * kNq + q];
      sum = fma(m, pair_operand(src0, src1, k0, block * kNq + q, col), sum);
    }
    items[r] = sum;
  }
#endif
}

// Writes this lane's items: column block 0 (M X_k) to dst0 as is, block 1
// (M X_k^T) to dst1 transposed, i.e. both as [k][j][i].
__device__ __forceinline__ void store_pair(double (*dst0)[kNq2], double (*dst1)[kNq2], int k0,
                                           int lane, const double (&items)[4]) {
  const int col = lane % kTile, row_group = lane / kTile, cc = col % kNq;
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int row = row_group + 4 * r, k = k0 + row / kNq, rr = row % kNq;
    if (col < kNq)
      dst0[k][rr * kNq + cc] = items[r];
    else
      dst1[k][cc * kNq + rr] = items[r];
  }
}

template <int NCOL>
__global__ void __launch_bounds__(kNq2) axhelm_mfma_kernel(const AxhelmKernelArgs a) {
  // s_r[c]: the slices of u, then u_r, then (G grad u)_r, then y_r;
  // s_s[c]: u_s, then (G grad u)_s, then y_s; all [k][j * 8 + i].
  __shared__ double s_r[NCOL][kNq][kNq2];
  __shared__ double s_s[NCOL][kNq][kNq2];
  __shared__ double s_D[kNq2];
  __shared__ double s_C[24];
  const int t = static_cast<int>(threadIdx.x), i = t % kNq, j = t / kNq, lane = t;
  const long long e = blockIdx.x;
  const long long slot = a.factor_slot ? a.factor_slot[e] : e;
  const bool recompute = slot < 0;
  const bool helmholtz = a.helmholtz != 0;

  s_D[t] = c_D[t];
  if (recompute) trilinear_coefficients(a.vertices, e, t, kNq2, s_C);
  double r_u[NCOL][kNq], r_y[NCOL][kNq];
#pragma unroll
  for (int c = 0; c < NCOL; ++c)
#pragma unroll
    for (int k = 0; k < kNq; ++k) {
      r_u[c][k] = a.x[c * a.field_stride + e * kNp + k * kNq2 + t];
      r_y[c][k] = 0.0;
      s_r[c][k][t] = r_u[c][k];
    }
  // A operands of the four k-steps for M = D and M = D^T: A[row][4 s + l / 16]
  // with row = l % 16, zero off the diagonal blocks.
  double a_d[kTile / kStep], a_dt[kTile / kStep];
  {
    const int row = lane % kTile;
#pragma unroll
    for (int step = 0; step < kTile / kStep; ++step) {
      const int col = step * kStep + lane / kTile;
      const bool on_block = row / kNq == col / kNq;
      a_d[step] = on_block ? c_D[(row % kNq) * kNq + col % kNq] : 0.0;
      a_dt[step] = on_block ? c_D[(col % kNq) * kNq + row % kNq] : 0.0;
    }
  }
  __syncthreads();

  // Phase 1: u_s = D U_k into s_s, u_r = D U_k^T into s_r (over U_k, after it is read).
#pragma unroll
  for (int c = 0; c < NCOL; ++c)
#pragma unroll
    for (int k0 = 0; k0 < kNq; k0 += 2) {
      double items[4];
      pair_product(a_d, s_D, false, s_r[c], s_r[c], k0, lane, items);
      __syncthreads();
      store_pair(s_s[c], s_r[c], k0, lane, items);
    }

  TrilinearColumn column;
  if (recompute) column.init(s_C, c_nodes[i], c_nodes[j], c_weights[i] * c_weights[j]);
  const double* element_factors = a.factors + (recompute ? 0 : slot) * 7 * kNp;
  __syncthreads();

  // Node-wise: G (grad u) with u_t from the register column; the t transpose
  // contraction and the mass term stay in registers.
#pragma unroll
  for (int k = 0; k < kNq; ++k) {
    double g[7];
    if (recompute)
      column.factors(c_nodes[k], c_weights[k], a.lambda0, a.lambda1, g);
    else
      load_factors(element_factors, k * kNq2 + t, kNp, helmholtz, a.lambda0, a.lambda1, g);
#pragma unroll
    for (int c = 0; c < NCOL; ++c) {
      const double ur = s_r[c][k][t], us = s_s[c][k][t];
      double ut = 0;
#pragma unroll
      for (int m = 0; m < kNq; ++m) ut += s_D[k * kNq + m] * r_u[c][m];
      s_r[c][k][t] = g[0] * ur + g[1] * us + g[2] * ut;  // (G grad u)_r, [j][i]
      s_s[c][k][t] = g[1] * ur + g[3] * us + g[4] * ut;  // (G grad u)_s, [j][i]
      const double gt = g[2] * ur + g[4] * us + g[5] * ut;
#pragma unroll
      for (int m = 0; m < kNq; ++m) r_y[c][m] = settle(r_y[c][m] + s_D[k * kNq + m] * gt);
      if (helmholtz) r_y[c][k] += g[6] * r_u[c][k];
    }
  }
  __syncthreads();

  // Phase 2: y_s = D^T G_s into s_s, y_r = D^T G_r^T into s_r.
#pragma unroll
  for (int c = 0; c < NCOL; ++c)
#pragma unroll
    for (int k0 = 0; k0 < kNq; k0 += 2) {
      double items[4];
      pair_product(a_dt, s_D, true, s_s[c], s_r[c], k0, lane, items);
      __syncthreads();
      store_pair(s_s[c], s_r[c], k0, lane, items);
    }
  __syncthreads();
#pragma unroll
  for (int c = 0; c < NCOL; ++c)
#pragma unroll
    for (int k = 0; k < kNq; ++k)
      a.y[c * a.field_stride + e * kNp + k * kNq2 + t] = r_y[c][k] + s_r[c][k][t] + s_s[c][k][t];
}

}  // namespace

void launch_trilinear_mfma(const AxhelmKernelArgs& a) {
  const unsigned grid = unsigned(a.elements);
  if (a.ncol == 3)
    axhelm_mfma_kernel<3><<<grid, kNq2, 0, static_cast<hipStream_t>(a.stream)>>>(a);
  else
    axhelm_mfma_kernel<1><<<grid, kNq2, 0, static_cast<hipStream_t>(a.stream)>>>(a);
}
#else
void launch_trilinear_mfma(const AxhelmKernelArgs&) {
  throw Error("hip/trilinear-mfma is AMD-only (fp64 MFMA on a 64-lane wavefront)");
}
#endif

}  // namespace ppkit::sem::hip_kernels
