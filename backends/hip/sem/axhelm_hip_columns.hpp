#pragma once
// The register-column axhelm kernels on AMD CDNA / Hygon DCU (hip/stored,
// hip/trilinear, hip/trilinear-partial): the algorithm of the CUDA ones
// (backends/cuda/sem/axhelm_cuda_columns.cuh; Swirydowicz et al., IJHPCA 2019;
// Cao et al., arXiv 2504.07042, section 4) with the geometry, constant tables
// and compile-time k-loop of axhelm_gpu_columns.cuh shared. Thread (i, j) of
// an Nq x Nq slice owns u(i, j, :) and y(i, j, :) in registers; the r and s
// contractions read padded shared (LDS) rows: the slice row-major and
// transposed, the G-weighted gradient likewise. The t contractions read row k
// of D from shared memory (one address for the whole wavefront: a broadcast)
// rather than from the constant table as on CUDA: there the compiler loaded
// all Nq^2 constants into scalar registers at once (128 SGPRs at Nq = 8, more
// than a wave has) and spilled them.
//
// Why a separate kernel and not the CUDA source behind a portability header:
// the CUDA kernel is built around sm_80 features and NVIDIA resource rules
// that have no one-to-one AMD counterpart:
//   - cp.async staging of the factors two k-slices ahead (no register held for
//     data in flight). CDNA has no general asynchronous global->LDS copy of
//     doubles (gfx90a's buffer_load ... lds moves dwords only), so here the
//     factors of slice k+1 are prefetched into registers while slice k is
//     contracted, as the first CUDA kernels do; registers are the cheaper
//     resource on CDNA (512 VGPRs per lane and SIMD against 255 per thread).
//   - inline PTX ld.shared.v2.f64: on AMD plain loads of adjacent padded-row
//     doubles already become ds_read2_b64 / ds_read_b128. The padding S = Nq
//     rounded up to 2 mod 4 also suits the LDS's 32 4-byte banks: at Nq = 8
//     the 8 row starts (stride 20 banks) cover 8 distinct 4-bank groups, so a
//     16-byte row read of one wavefront is conflict-free.
//   - __drcp_rn: HIP maps it to v_rcp_f64, an approximation, not the
//     correctly rounded reciprocal; 1/|J| is a division here.
//   - __launch_bounds__(threads, min blocks) with NVIDIA's 64 K-register
//     file: HIP's second argument means waves per execution unit instead; only
//     the block size is bounded and the register allocation is the compiler's.
//   - elements per block chosen for 32-lane warps: on a 64-lane wavefront the
//     lane fill differs (below).
//   - the y updates of each slice pass through settle() (axhelm_gpu_settle.cuh),
//     without which the AMDGPU compiler kept every slice's loaded rows live
//     to the end of the kernel and spilled (no kernel here spills with it).
// Not run on AMD hardware: compiled for gfx906 and gfx90a and checked by the
// variant tests wherever a HIP device exists.
#include "backends/cuda_hip/sem/axhelm_gpu_columns.cuh"

namespace ppkit::sem::columns {

// Elements per block for 64-lane wavefronts: blocks of whole, well-filled
// wavefronts (Nq = 2: 128 of 128 lanes, 3: 63 of 64, 4: 64 of 64, 5: 125 of
// 128, 6: 252 of 256, 7: 245 of 256, 8: 64 of 64, 9: 243 of 256, 10: 100 of
// 128). Shared memory per element is 4 Nq S ncol doubles (Nq = 9, 3 fields:
// 8.6 KB, 26 KB for the block of 3; 64 KB per CU).
constexpr int hip_elements_per_block(int nq) {
  return nq == 2   ? 16
         : nq == 3 ? 7
         : nq == 4 ? 4
         : nq == 5 ? 5
         : nq == 6 ? 7
         : nq == 7 ? 5
         : nq == 9 ? 3
                   : 1;
}
constexpr int hip_block_threads(int nq) { return nq * nq * hip_elements_per_block(nq); }

// sum_m d[m] row[m] over two padded shared rows, in two chains as in the CUDA
// kernel (same summation order, so the same rounding).
template <int NQ>
__device__ __forceinline__ double lds_row_dot(const double* row, const double* d) {
  double even = 0, odd = 0;
#pragma unroll
  for (int m = 0; m + 1 < NQ; m += 2) {
    even = fma(d[m], row[m], even);
    odd = fma(d[m + 1], row[m + 1], odd);
  }
  if (NQ % 2) even = fma(d[NQ - 1], row[NQ - 1], even);
  return even + odd;
}

template <int NQ, int NCOL, Geometry GEOM>
__global__ void __launch_bounds__(hip_block_threads(NQ))
    axhelm_columns_hip_kernel(const AxhelmKernelArgs a) {
  constexpr int NQ2 = NQ * NQ, NP = NQ2 * NQ, EPB = hip_elements_per_block(NQ);
  constexpr int S = row_stride(NQ);
  constexpr bool MAY_RECOMPUTE = GEOM != Geometry::stored;
  __shared__ __attribute__((aligned(16))) double s_u[EPB][NCOL][NQ][S];
  __shared__ __attribute__((aligned(16))) double s_uT[EPB][NCOL][NQ][S];
  __shared__ __attribute__((aligned(16))) double s_gr[EPB][NCOL][NQ][S];
  __shared__ __attribute__((aligned(16))) double s_gsT[EPB][NCOL][NQ][S];
  __shared__ __attribute__((aligned(16))) double s_D[NQ][S];
  __shared__ __attribute__((aligned(16))) double s_DT[NQ][S];
  __shared__ double s_C[MAY_RECOMPUTE ? EPB : 1][24];
  const int i = threadIdx.x, j = threadIdx.y, z = threadIdx.z, t = j * NQ + i;
  const long long e = (long long)blockIdx.x * EPB + z;
  const bool valid = e < a.elements;  // the last block may be partly empty
  const long long slot = !valid ? 0 : (MAY_RECOMPUTE && a.factor_slot ? a.factor_slot[e] : e);
  const bool recompute = MAY_RECOMPUTE && slot < 0;
  const bool helmholtz = a.helmholtz != 0;

  for (int n = t + NQ2 * z; n < NQ2; n += NQ2 * EPB) {
    const int row = n / NQ, col = n % NQ;
    const double d = a.derivative[n];
    s_D[row][col] = d;
    s_DT[col][row] = d;
  }
  double r_u[NCOL][NQ], r_y[NCOL][NQ];
#pragma unroll
  for (int c = 0; c < NCOL; ++c)
#pragma unroll
    for (int k = 0; k < NQ; ++k) {
      r_u[c][k] = valid ? a.x[c * a.field_stride + e * NP + k * NQ2 + t] : 0.0;
      r_y[c][k] = 0.0;
    }

  Column column;
  double wij = 0;
  if (MAY_RECOMPUTE) {
    if (recompute) trilinear_coefficients(a.vertices, e, t, NQ2, s_C[z]);
    __syncthreads();
    column.init(s_C[z], c_nodes[i], c_nodes[j]);  // unused by stored elements
    wij = c_weights[i] * c_weights[j];
  }
  // What a node of this thread's column loads, one k-slice ahead in
  // registers: 6 (7) stored factors, or for partial recompute w/|J| (the kernel scales it by
  // lambda0).
  const bool load_all = !recompute && valid;
  const bool load_scale = GEOM == Geometry::partial && recompute && valid;
  const double* factors = a.factors + (load_all ? slot : 0) * 7 * NP + t;
  const double* scales =
      GEOM == Geometry::partial ? a.node_scale + (valid ? e : 0) * NP + t : nullptr;
  double next[7] = {0, 0, 0, 0, 0, 0, 0};
  auto fetch = [&](int k) {
    if (load_all) {
#pragma unroll
      for (int f = 0; f < 6; ++f) next[f] = factors[f * NP + k * NQ2];
      next[6] = helmholtz ? factors[6 * NP + k * NQ2] : 0.0;
    } else if (load_scale) {
      next[0] = scales[k * NQ2];
    }
  };
  fetch(0);

  static_for<NQ>([&](auto k_constant) {
    constexpr int k = decltype(k_constant)::value;
    double current[7];
#pragma unroll
    for (int f = 0; f < 7; ++f) current[f] = next[f];
    if (k + 1 < NQ) fetch(k + 1);
    // Geometric factors of node (i, j, k): lambda0 G and lambda1 w|J|.
    double g[6], mass = 0;
    node_factors<GEOM, k>(
        recompute, helmholtz, column, wij, a.lambda0, a.lambda1, [&](int f) { return current[f]; },
        [](double x, double d) { return x / d; }, g, mass);
    contract_slice<k>(
        i, j, z, s_u, s_uT, s_gr, s_gsT, r_u, r_y, g, mass, helmholtz,
        [&](const double* row, auto q) {
          constexpr int Q = decltype(q)::value;
          return lds_row_dot<NQ>(row, Q < 2 ? &s_D[Q == 0 ? i : j][0] : &s_DT[Q == 2 ? i : j][0]);
        },
        [&](int m) { return s_D[k][m]; });
  });
  if (!valid) return;
#pragma unroll
  for (int c = 0; c < NCOL; ++c)
#pragma unroll
    for (int k = 0; k < NQ; ++k) a.y[c * a.field_stride + e * NP + k * NQ2 + t] = r_y[c][k];
}

template <int NQ, Geometry GEOM>
void launch_columns_hip_nq(const AxhelmKernelArgs& a) {
  constexpr int EPB = hip_elements_per_block(NQ);
  static_assert(hip_block_threads(NQ) <= 1024, "a block fits the hardware limit");
  const dim3 block(NQ, NQ, EPB);
  const unsigned grid = unsigned((a.elements + EPB - 1) / EPB);
  if (a.ncol == 3)
    axhelm_columns_hip_kernel<NQ, 3, GEOM>
        <<<grid, block, 0, static_cast<hipStream_t>(a.stream)>>>(a);
  else
    axhelm_columns_hip_kernel<NQ, 1, GEOM>
        <<<grid, block, 0, static_cast<hipStream_t>(a.stream)>>>(a);
}

// Nq = 2..10 (N = 1..9, compiled_max_nq); other Nq are rejected by the glue.
template <Geometry GEOM>
void launch_columns_hip(const AxhelmKernelArgs& a) {
  switch (a.nq) {
    case 2:
      return launch_columns_hip_nq<2, GEOM>(a);
    case 3:
      return launch_columns_hip_nq<3, GEOM>(a);
    case 4:
      return launch_columns_hip_nq<4, GEOM>(a);
    case 5:
      return launch_columns_hip_nq<5, GEOM>(a);
    case 6:
      return launch_columns_hip_nq<6, GEOM>(a);
    case 7:
      return launch_columns_hip_nq<7, GEOM>(a);
    case 8:
      return launch_columns_hip_nq<8, GEOM>(a);
    case 9:
      return launch_columns_hip_nq<9, GEOM>(a);
    case 10:
      return launch_columns_hip_nq<10, GEOM>(a);
    default:
      break;
  }
}

}  // namespace ppkit::sem::columns
