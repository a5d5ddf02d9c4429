#pragma once
// The register-column axhelm kernels (Swirydowicz, Chalmers, Karakus &
// Warburton, "Acceleration of tensor-product operations for high-order finite
// element methods", IJHPCA 2019, sections 5-6; Cao et al., arXiv 2504.07042,
// section 4): behind cuda/stored, cuda/trilinear and cuda/trilinear-partial.
//
// Thread (i, j) of an Nq x Nq slice owns the column u(i, j, :) and the result
// column y(i, j, :) in registers and runs the k-loop, so the t contractions
// never touch shared memory: their D[k][m] (k, m compile-time after unrolling)
// are constant-bank operands of the DFMAs, not loads. Only the r and s
// contractions go through shared memory, and they are arranged so that every
// shared access is a 16-byte vector load along a contiguous row:
//   s_u[j][m]    the slice row-major     -> u_r(i,j) = sum_m D[i][m] s_u[j][m]
//   s_uT[i][m]   the slice transposed    -> u_s(i,j) = sum_m D[j][m] s_uT[i][m]
//   s_gr[j][m]   (G grad u)_r row-major  -> sum_m D[m][i] s_gr[j][m]
//   s_gsT[i][m]  (G grad u)_s transposed -> sum_m D[m][j] s_gsT[i][m]
// Rows are padded to a stride S = Nq rounded up to 2 mod 4 doubles: 16-byte
// aligned rows whose starting banks differ, so the 8 distinct rows a warp
// touches (Nq = 8) are one conflict-free wavefront per LDS.128. The four D
// vectors a thread needs (rows i and j of D and of D^T) are padded shared rows
// too, or, where d_in_registers() says it pays (the stored kernel at
// Nq >= 8, both kernels with three fields at Nq = 8), 4 Nq registers
// loaded once. Per k-slice and thread at Nq = 8 that is 32 LDS.128
// (16 with D in registers) + 4 STS, against 86 scalar shared loads for
// one-element-per-block kernels with D in shared memory (axhelm_gpu_kernel.cuh).
//
// Small Nq: EPB = elements_per_block(Nq) elements share a block (threadIdx.z),
// so a block has >= 64 threads and the 32-blocks-per-SM limit does not cap
// occupancy at Nq <= 5.
//
// Geometry (GEOM):
//   stored   the 6 (7) factors of each node loaded, one k-slice ahead
//   recompute  trilinear elements (factor_slot < 0) rebuild G from their 8
//            vertices (paper section 3.2): J_t and the j-only / i-only terms
//            before the k-loop, two 3-vector FMAs + cofactors per node
//   partial  trilinear elements load one value per node, lambda0 w / |J|,
//            computed at set-up, and recompute only the cofactor vectors
//            (paper section 3.3, "partial recompute"): no division and no
//            determinant in the kernel, 1 double per node instead of 6
// Non-trilinear elements of mixed meshes load their stored factors in all three.
//
// CUDA only (cp.async, inline PTX, NVIDIA register budgets); the HIP kernel of
// the same algorithm is backends/hip/sem/axhelm_hip_columns.hpp, and what the
// two share is in axhelm_gpu_columns.cuh.
#include <cuda_runtime.h>

#include "backends/cuda/core/async_copy.cuh"
#include "backends/cuda_hip/sem/axhelm_gpu_columns.cuh"

namespace ppkit::sem::columns {

// Elements per block for Nq <= 7: at least 64 threads per block and few idle
// lanes in the last warp (Nq = 3: 63 of 64, Nq = 5: 125 of 128, Nq = 6: 72 of
// 96, Nq = 7: 147 of 160).
__host__ __device__ constexpr int elements_per_block(int nq) {
  return nq == 2 ? 16 : nq == 3 ? 7 : nq == 4 ? 4 : nq == 5 ? 5 : nq == 6 ? 2 : nq == 7 ? 3 : 1;
}
// Register budget per thread: __launch_bounds__ asks for as many resident
// blocks as fit with this many registers per thread, and ptxas keeps each
// thread within it. The stored kernel is memory-bound and needs occupancy
// (bytes in flight); the recompute kernels are FP64-bound and get more
// registers for instruction-level parallelism. ptxas -v (sm_90), D in shared
// memory: stored, Nq = 8, one field fits 80 registers without spills (12
// blocks, 24 warps per SM), the recompute kernels 128 (8 blocks, 16 warps).
// D_IN_REGISTERS needs the 4 Nq doubles of the thread's D vectors more: at
// Nq = 8, 168 registers (6 blocks, 3 warps per SM sub-partition) hold the
// stored kernel without spills, and with half the warps it is faster.
__host__ __device__ constexpr int register_budget(int geometry_mode, int nq, int ncol,
                                                  bool d_in_registers) {
  const int one_field = d_in_registers ? (geometry_mode == 0 && nq <= 8 ? 168 : 255)
                                       : (geometry_mode == 0 && nq <= 8 ? 80 : 128);
  const int budget = ncol == 1 ? one_field : 2 * one_field;
  return budget > 255 ? 255 : budget;
}
__host__ __device__ constexpr int min_blocks(int threads, int regs) {
  return 65536 / (((threads + 31) / 32) * 32 * regs) < 1
             ? 1
             : 65536 / (((threads + 31) / 32) * 32 * regs);
}

// sum_m d[m] row[m] with 16-byte loads (row 16-byte aligned).
// 16-byte shared-memory loads kept as such (plain double2 loads through a
// cast pointer were split into scalar loads) and kept in the k-loop: D never
// changes, so plain loads of it may be lifted out of the loop, holding 4 Nq
// doubles of D per thread in registers (64 registers at Nq = 8).
__device__ __forceinline__ double2 load_d2(const double* p) {
  double2 v;
  asm volatile("ld.shared.v2.f64 {%0, %1}, [%2];"
               : "=d"(v.x), "=d"(v.y)
               : "r"(unsigned(__cvta_generic_to_shared(p))));
  return v;
}
__device__ __forceinline__ double load_d(const double* p) {
  double v;
  asm volatile("ld.shared.f64 %0, [%1];" : "=d"(v) : "r"(unsigned(__cvta_generic_to_shared(p))));
  return v;
}

// sum_m d[m] row[m], both 16-byte aligned shared rows, as 16-byte loads.
template <int NQ>
__device__ __forceinline__ double row_dot(const double* row, const double* d) {
  double even = 0, odd = 0;  // two chains: half the dependent-FMA latency
#pragma unroll
  for (int m = 0; m + 1 < NQ; m += 2) {
    const double2 v = load_d2(row + m);
    const double2 w = load_d2(d + m);
    even = fma(w.x, v.x, even);
    odd = fma(w.y, v.y, odd);
  }
  if (NQ % 2) even = fma(load_d(d + NQ - 1), load_d(row + NQ - 1), even);
  return even + odd;
}

// sum_m d[m] row[m], the row a 16-byte aligned shared row, d in registers.
template <int NQ>
__device__ __forceinline__ double row_dot_registers(const double* row, const double (&d)[NQ]) {
  double even = 0, odd = 0;
#pragma unroll
  for (int m = 0; m + 1 < NQ; m += 2) {
    const double2 v = load_d2(row + m);
    even = fma(d[m], v.x, even);
    odd = fma(d[m + 1], v.y, odd);
  }
  if (NQ % 2) even = fma(d[NQ - 1], load_d(row + NQ - 1), even);
  return even + odd;
}

// Asynchronous global -> shared copies (async_copy.cuh): the geometric
// factors of the next k-slices travel while the current slice is contracted,
// without holding them in registers (6 doubles = 12 registers per slice in
// flight). Each thread copies and later reads only its own values, so
// cp.async.wait_group is the only synchronisation they need.
using cuda::commit_async;
using cuda::copy_async;
using cuda::wait_async;

// Slices of factors in shared memory: the one being used and one ahead
// (Nq < 8: the slices are short and blocks hold several elements) or two
// ahead (Nq >= 8). 8 x 7 x stages bytes per thread.
__host__ __device__ constexpr int factor_stages(int nq) { return nq >= 8 ? 3 : 2; }

// D_IN_REGISTERS: the thread's four D vectors (rows i and j of D and of D^T)
// are read from shared memory once into 4 Nq registers, so the r and s
// contractions load only the slice rows (half the shared-memory loads).
// GATHER (one field): the assembled operator (AxhelmKernelArgs::global_of_local):
// x is a vector of global nodes read at local node l as x[global_of_local[l]],
// the results are added to y at their global nodes, and x_e . y_e (the column
// sums reduced in shared memory) is added to dot_sums[e % dot_sum_slots].
template <int NQ, int NCOL, Geometry GEOM, bool D_IN_REGISTERS, bool GATHER = false>
__global__ void __launch_bounds__(NQ* NQ* elements_per_block(NQ),
                                  min_blocks(NQ* NQ* elements_per_block(NQ),
                                             register_budget(int(GEOM), NQ, NCOL, D_IN_REGISTERS)))
    axhelm_columns_kernel(const AxhelmKernelArgs a) {
  constexpr int NQ2 = NQ * NQ, NP = NQ2 * NQ, EPB = elements_per_block(NQ), S = row_stride(NQ);
  constexpr int STAGES = factor_stages(NQ);
  constexpr bool MAY_RECOMPUTE = GEOM != Geometry::stored;
  __shared__ __align__(16) double s_u[EPB][NCOL][NQ][S];
  __shared__ __align__(16) double s_uT[EPB][NCOL][NQ][S];
  __shared__ __align__(16) double s_gr[EPB][NCOL][NQ][S];
  __shared__ __align__(16) double s_gsT[EPB][NCOL][NQ][S];
  __shared__ __align__(16) double s_D[NQ][S];
  __shared__ __align__(16) double s_DT[NQ][S];
  __shared__ double s_C[MAY_RECOMPUTE ? EPB : 1][24];
  __shared__ double s_stage[STAGES][7][EPB * NQ2];  // factors of slices k .. k+STAGES-1
  const int i = threadIdx.x, j = threadIdx.y, z = threadIdx.z, t = j * NQ + i;
  const int tid = z * NQ2 + t;
  const long long e = (long long)blockIdx.x * EPB + z;
  const bool valid = e < a.elements;  // the last block may be partly empty
  const long long slot = !valid ? 0 : (MAY_RECOMPUTE && a.factor_slot ? a.factor_slot[e] : e);
  const bool recompute = MAY_RECOMPUTE && slot < 0;
  const bool helmholtz = a.helmholtz != 0;

  // D (row-major) and D^T in shared memory with padded rows: every contraction
  // reads a D row as 16-byte vectors (rows i, j of D for u_r, u_s; rows i, j
  // of D^T for the transposed contractions), or copies them into registers.
  for (int n = t + NQ2 * z; n < NQ2; n += NQ2 * EPB) {
    const int row = n / NQ, col = n % NQ;
    s_D[row][col] = __ldg(a.derivative + n);
    s_DT[col][row] = s_D[row][col];
  }
  double r_d[D_IN_REGISTERS ? 4 : 1][NQ];
  if constexpr (D_IN_REGISTERS) {
    __syncthreads();
#pragma unroll
    for (int m = 0; m < NQ; ++m) {
      r_d[0][m] = s_D[i][m];
      r_d[1][m] = s_D[j][m];
      r_d[2][m] = s_DT[i][m];
      r_d[3][m] = s_DT[j][m];
    }
  }
  auto dot_d = [&](const double* row, auto q) {
    constexpr int Q = decltype(q)::value;
    if constexpr (D_IN_REGISTERS)
      return row_dot_registers<NQ>(row, r_d[Q]);
    else
      return row_dot<NQ>(row, Q < 2 ? &s_D[Q == 0 ? i : j][0] : &s_DT[Q == 2 ? i : j][0]);
  };
  double r_u[NCOL][NQ], r_y[NCOL][NQ];
#pragma unroll
  for (int c = 0; c < NCOL; ++c)
#pragma unroll
    for (int k = 0; k < NQ; ++k) {
      if constexpr (GATHER)
        r_u[c][k] = valid ? __ldg(a.x + __ldg(a.global_of_local + e * NP + k * NQ2 + t)) : 0.0;
      else
        r_u[c][k] = valid ? __ldg(a.x + c * a.field_stride + e * NP + k * NQ2 + t) : 0.0;
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
  // What a node of this thread's column loads, copied to s_stage two k-slices
  // ahead: 6 (7) stored factors, or for partial recompute lambda0 w/|J|.
  const bool load_all = !recompute && valid;
  const bool load_scale = GEOM == Geometry::partial && recompute && valid;
  const double* factors = a.factors + (load_all ? slot : 0) * 7 * NP + t;
  const double* scales =
      GEOM == Geometry::partial ? a.node_scale + (valid ? e : 0) * NP + t : nullptr;
  auto fetch = [&](auto k_constant) {
    constexpr int k = decltype(k_constant)::value;
    if (k < NQ) {
      double(&stage)[7][EPB * NQ2] = s_stage[k % STAGES];
      if (load_all) {
#pragma unroll
        for (int f = 0; f < 6; ++f) copy_async(&stage[f][tid], factors + f * NP + k * NQ2);
        if (helmholtz) copy_async(&stage[6][tid], factors + 6 * NP + k * NQ2);
      } else if (GEOM == Geometry::partial && load_scale) {
        copy_async(&stage[0][tid], scales + k * NQ2);
      }
    }
    commit_async();  // one group per slice, empty past the last
  };
  fetch(std::integral_constant<int, 0>{});
  if (STAGES == 3) fetch(std::integral_constant<int, 1>{});

  static_for<NQ>([&](auto k_constant) {
    constexpr int k = decltype(k_constant)::value;
    fetch(std::integral_constant<int, k + STAGES - 1>{});
    wait_async<STAGES - 1>();  // the group of slice k has landed
    const double(&stage)[7][EPB * NQ2] = s_stage[k % STAGES];
    // Geometric factors of node (i, j, k): lambda0 G and lambda1 w|J|.
    double g[6], mass = 0;
    node_factors<GEOM, k>(
        recompute, helmholtz, column, wij, a.lambda0, a.lambda1,
        [&](int f) { return stage[f][tid]; }, [](double x, double d) { return x * __drcp_rn(d); },
        g, mass);
    contract_slice<k>(i, j, z, s_u, s_uT, s_gr, s_gsT, r_u, r_y, g, mass, helmholtz, dot_d,
                      [](int m) { return c_D[k * NQ + m]; });
  });
  if constexpr (GATHER) {
    double dot = 0;
#pragma unroll
    for (int k = 0; k < NQ; ++k) {
      dot += r_u[0][k] * r_y[0][k];
      if (valid) atomicAdd(a.y + __ldg(a.global_of_local + e * NP + k * NQ2 + t), r_y[0][k]);
    }
    double(&s_dot)[EPB][NQ2] = reinterpret_cast<double(&)[EPB][NQ2]>(s_stage[0][0][0]);
    __syncthreads();  // every thread is past its last read of s_stage
    s_dot[z][t] = dot;
    __syncthreads();
    if (valid && t == 0) {
      double sum = 0;
      for (int n = 0; n < NQ2; ++n) sum += s_dot[z][n];
      atomicAdd(a.dot_sums + e % dot_sum_slots, sum);
    }
    return;
  }
  if (!valid) return;
#pragma unroll
  for (int c = 0; c < NCOL; ++c)
#pragma unroll
    for (int k = 0; k < NQ; ++k) a.y[c * a.field_stride + e * NP + k * NQ2 + t] = r_y[c][k];
}

// Where the D vectors pay their registers (chosen from ppkit compare runs,
// docs/sem.md): the stored kernel with one field at Nq >= 8, where the stored
// kernel is bandwidth-bound and halving its LDS.128 per slice lets it stream
// closer to the copy bandwidth, and both kernels with three fields at
// Nq = 8. Elsewhere D stays in shared memory: the stored kernel at Nq = 4, 6
// loses more to the registers than it saves in shared loads; the recompute
// kernel with one field at Nq = 8 would need 194 registers (8 warps per SM);
// other three-field orders spill (ptxas spills 40-984 bytes at Nq >= 9) and
// partial recompute has not been tried with D in registers.
__host__ __device__ constexpr bool d_in_registers(Geometry geometry, int nq, int ncol) {
  return ncol == 1 ? geometry == Geometry::stored && nq >= 8
                   : nq == 8 && (geometry == Geometry::stored || geometry == Geometry::recompute);
}

template <int NQ, Geometry GEOM>
void launch_columns_nq(const AxhelmKernelArgs& a) {
  constexpr int EPB = elements_per_block(NQ);
  const dim3 block(NQ, NQ, EPB);
  const unsigned grid = unsigned((a.elements + EPB - 1) / EPB);
  if (a.global_of_local)  // one field (AxhelmKernelArgs)
    axhelm_columns_kernel<NQ, 1, GEOM, d_in_registers(GEOM, NQ, 1), true>
        <<<grid, block, 0, static_cast<cudaStream_t>(a.stream)>>>(a);
  else if (a.ncol == 3)
    axhelm_columns_kernel<NQ, 3, GEOM, d_in_registers(GEOM, NQ, 3)>
        <<<grid, block, 0, static_cast<cudaStream_t>(a.stream)>>>(a);
  else
    axhelm_columns_kernel<NQ, 1, GEOM, d_in_registers(GEOM, NQ, 1)>
        <<<grid, block, 0, static_cast<cudaStream_t>(a.stream)>>>(a);
}

// Nq = 2..10 (N = 1..9, compiled_max_nq); other Nq are rejected by the glue.
template <Geometry GEOM>
void launch_columns(const AxhelmKernelArgs& a) {
  switch (a.nq) {
    case 2:
      return launch_columns_nq<2, GEOM>(a);
    case 3:
      return launch_columns_nq<3, GEOM>(a);
    case 4:
      return launch_columns_nq<4, GEOM>(a);
    case 5:
      return launch_columns_nq<5, GEOM>(a);
    case 6:
      return launch_columns_nq<6, GEOM>(a);
    case 7:
      return launch_columns_nq<7, GEOM>(a);
    case 8:
      return launch_columns_nq<8, GEOM>(a);
    case 9:
      return launch_columns_nq<9, GEOM>(a);
    case 10:
      return launch_columns_nq<10, GEOM>(a);
    default:
      break;
  }
}

}  // namespace ppkit::sem::columns
