// cuda/trilinear-wmma (Nq = 8, sm_80+): the trilinear kernel with the r and s
// contractions of every k-slice done as 8x8x8 matrix products on fp64 tensor
// cores (nvcuda::wmma, m8n8k4 double fragments; Cao et al., section 4.3).
// A block is one element of 8 x 8 threads = 2 warps. With U_k the k-slice
// stored [j][i]:
//   warp 0:  Qr = U_k D^T      and later  Yr = (G q)_r D
//   warp 1:  Qs = D U_k        and later  Ys = D^T (G q)_s
// each a sum of two m8n8k4 products; the D fragments are loaded once per block.
// The t contractions stay on the CUDA cores with D[k][m] from constant memory.
#include <mma.h>

#include "backends/cuda/sem/axhelm_cuda.hpp"
#include "backends/cuda/sem/axhelm_gpu_kernel.cuh"

namespace ppkit::sem::cuda_kernels {
namespace {

using namespace ppkit::sem::dshared;

// One product of an 8x8 slice per warp, each the sum of two m8n8k4 products
// over the contraction index m = 0..3 and 4..7:
//   warp 0:  out_r = in_r B   (in_r row-major [j][m]; B in b[0], b[1])
//   warp 1:  out_s = A in_s   (A in a[0], a[1]; in_s row-major [m][i])
template <class FragBPair, class FragAPair>
__device__ __forceinline__ void slice_products(int warp, const double* in_r, const double* in_s,
                                               const FragBPair& b, const FragAPair& a,
                                               double* out_r, double* out_s) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using namespace nvcuda;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc;
  wmma::fill_fragment(acc, 0.0);
  if (warp == 0) {
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> u0, u1;
    wmma::load_matrix_sync(u0, in_r, 8);
    wmma::load_matrix_sync(u1, in_r + 4, 8);
    wmma::mma_sync(acc, u0, b[0], acc);
    wmma::mma_sync(acc, u1, b[1], acc);
    wmma::store_matrix_sync(out_r, acc, 8, wmma::mem_row_major);
  } else {
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> u0, u1;
    wmma::load_matrix_sync(u0, in_s, 8);
    wmma::load_matrix_sync(u1, in_s + 32, 8);
    wmma::mma_sync(acc, a[0], u0, acc);
    wmma::mma_sync(acc, a[1], u1, acc);
    wmma::store_matrix_sync(out_s, acc, 8, wmma::mem_row_major);
  }
#endif
}

template <int NCOL>
__global__ void __launch_bounds__(64) axhelm_wmma_kernel(const AxhelmKernelArgs a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using namespace nvcuda;
  constexpr int NQ = 8, NQ2 = 64, NP = 512;
  using FragA = wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major>;
  using FragAt = wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::col_major>;
  using FragB = wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major>;
  using FragBt = wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major>;
  using FragC = wmma::fragment<wmma::accumulator, 8, 8, 4, double>;
  __shared__ __align__(32) double s_D[NQ2];
  __shared__ __align__(32) double s_q[NCOL][NQ2];   // U_k, later Yr
  __shared__ __align__(32) double s_qr[NCOL][NQ2];  // Qr, then (G q)_r
  __shared__ __align__(32) double s_qs[NCOL][NQ2];  // Qs, then (G q)_s
  __shared__ __align__(32) double s_ys[NCOL][NQ2];  // Ys
  __shared__ double s_C[24];
  const int i = threadIdx.x, j = threadIdx.y, t = j * NQ + i, warp = t / 32;
  const long long e = blockIdx.x;
  const long long slot = a.factor_slot ? a.factor_slot[e] : e;
  const bool recompute = slot < 0;
  const bool helmholtz = a.helmholtz != 0;

  s_D[t] = c_D[t];
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

  // D fragments, split along the contraction index m into 0..3 and 4..7.
  FragBt dt_b[2];  // warp 0, Qr = U D^T: B(m, i) = D[i][m]
  FragB d_b[2];    // warp 0, Yr = Gr D:  B(m, i) = D[m][i]
  FragA d_a[2];    // warp 1, Qs = D U:   A(j, m) = D[j][m]
  FragAt dt_a[2];  // warp 1, Ys = D^T Gs: A(j, m) = D[m][j]
  if (warp == 0) {
    wmma::load_matrix_sync(dt_b[0], s_D, 8);
    wmma::load_matrix_sync(dt_b[1], s_D + 4, 8);
    wmma::load_matrix_sync(d_b[0], s_D, 8);
    wmma::load_matrix_sync(d_b[1], s_D + 32, 8);
  } else {
    wmma::load_matrix_sync(d_a[0], s_D, 8);
    wmma::load_matrix_sync(d_a[1], s_D + 4, 8);
    wmma::load_matrix_sync(dt_a[0], s_D, 8);
    wmma::load_matrix_sync(dt_a[1], s_D + 32, 8);
  }

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
    for (int c = 0; c < NCOL; ++c) s_q[c][t] = r_q[c][k];
    __syncthreads();
#pragma unroll
    for (int c = 0; c < NCOL; ++c)
      slice_products(warp, s_q[c], s_q[c], dt_b, d_a, s_qr[c], s_qs[c]);
    __syncthreads();
#pragma unroll
    for (int c = 0; c < NCOL; ++c) {
      const double qr = s_qr[c][t], qs = s_qs[c][t];
      double qt = 0;
#pragma unroll
      for (int m = 0; m < NQ; ++m) qt += c_D[k * NQ + m] * r_q[c][m];
      s_qr[c][t] = g[0] * qr + g[1] * qs + g[2] * qt;
      s_qs[c][t] = g[1] * qr + g[3] * qs + g[4] * qt;
      const double gt = g[2] * qr + g[4] * qs + g[5] * qt;
#pragma unroll
      for (int m = 0; m < NQ; ++m) r_y[c][m] += c_D[k * NQ + m] * gt;
      if (helmholtz) r_y[c][k] += g[6] * r_q[c][k];
    }
    __syncthreads();
#pragma unroll
    for (int c = 0; c < NCOL; ++c)
      slice_products(warp, s_qr[c], s_qs[c], d_b, dt_a, s_q[c], s_ys[c]);
    __syncthreads();
#pragma unroll
    for (int c = 0; c < NCOL; ++c) r_y[c][k] += s_q[c][t] + s_ys[c][t];
    // The next slice overwrites s_q[c][t], which only this thread reads here.
  }
#pragma unroll
  for (int c = 0; c < NCOL; ++c)
#pragma unroll
    for (int k = 0; k < NQ; ++k) a.y[c * a.field_stride + e * NP + k * NQ2 + t] = r_y[c][k];
#else
  (void)a;
#endif
}

}  // namespace

void set_constants_wmma(int nq, const double* derivative, const double* nodes,
                        const double* weights) {
  dshared::copy_constants(nq, derivative, nodes, weights);
}

void launch_trilinear_wmma(const AxhelmKernelArgs& a) {
  const dim3 block(8, 8);
  const unsigned grid = unsigned(a.elements);
  if (a.ncol == 3)
    axhelm_wmma_kernel<3><<<grid, block>>>(a);
  else
    axhelm_wmma_kernel<1><<<grid, block>>>(a);
}

}  // namespace ppkit::sem::cuda_kernels
