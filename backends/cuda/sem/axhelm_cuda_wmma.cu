// cuda/trilinear-wmma (Nq = 8, sm_80+): axhelm with trilinear geometry
// recomputed from the 8 vertices and the r and s contractions of every k-slice
// as 8x8x8 matrix products on fp64 tensor cores (Cao et al., arXiv 2504.07042,
// section 4.3), in registers: one warp per element, no shared memory for the
// slices.
//
// Layout. The fp64 tensor-core instruction, mma.sync m8n8k4 (the instruction
// behind nvcuda::wmma's double fragments), gives lane l = 4 g + q
// (g = l / 4, q = l % 4) the entries (PTX ISA, "matrix fragments for
// mma.m8n8k4 with .f64"):
//   A (8x4): A(g, q)        B (4x8): B(q, g)        C (8x8): C(g, 2q), C(g, 2q+1)
// Here a k-slice U_k is an 8x8 matrix [j][i], so the warp holds a whole slice
// in accumulator layout when lane (g, q) owns the nodes (i, j) = (2q, g) and
// (2q+1, g) of every slice: the two columns u(2q, g, :), u(2q+1, g, :) and the
// matching result columns live in 32 registers, and the t contractions are
// register FMAs with D[k][m] as constant-bank operands (k, m compile-time).
// Per slice, with D's fragments in 4 registers per lane:
//   u_r = U_k D^T        A = U_k (loaded)                 B = D^T (registers)
//   u_s = D U_k          A = D (registers)                B = U_k (loaded)
//   y_k = (G u)_r D  +  D^T (G u)_s   A = (G u)_r (row gather), B = (G u)_s
//                                     (column gather)
// Each product's result comes back in the lane's own nodes, so the pointwise
// work (geometry, G grad u) needs no exchange. U_k's fragments are read
// straight from the element (four 8-byte loads per lane and slice, L1 hits
// after the slice loads of the t contraction) and (G u)_r, (G u)_s move by two
// double shuffles each (row_gather, column_gather). A shared-memory slice
// costs a store, a barrier and 8 loads per product and thread instead: the
// register-column cuda/trilinear keeps the L1/shared pipe 92% busy at N = 7
// (Nsight Compute, docs/sem.md).
//
// Registers. The t contractions are register FMAs over the lane's two
// columns, but their operands and results are kept out of the registers of
// the slice loop: u_t of every slice is formed first and parked in per-lane
// shared slots (each lane uses only its own slots: no barrier, no bank
// conflict), (G u)_t of slice k replaces u_t of slice k there, and y_k's r and
// s terms go to a second slot array; the t transpose y_m += sum_k D[k][m]
// (G u)_t,k runs once at the end. The slice loop then holds the column terms
// of the geometry, D's fragments and one slice's temporaries: 168 registers
// without spilling, 12 warps per SM. Measured on an H200 (N = 7, 32,768
// elements): 0.177 ms against 0.221 ms with u and y (64 registers) held
// through the loop (104 bytes spilled at 168 registers) and the u fragments moved by
// shuffles.
//
// cuda/trilinear-wmma-t (kTensorT) forms u_t and the t transpose as m8n8k4
// products too, per row j of the element's columns (U_t = D U, y += D^T
// (G u)_t), exchanging the slots across the warp; 128 registers without
// spilling, 16 warps per SM. On Hopper the fp64 products share a pipe with the
// FP64 FMAs (33 against 30.9 TFLOP/s measured), so this moves work rather than
// removing it; it frees registers for 16 warps per SM. Measured on an H200
// (N = 7, 32,768 elements): 0.170-0.174 ms against 0.177-0.180 ms for
// cuda/trilinear-wmma in the same processes (docs/sem.md, ninth round), so
// the CUDA recompute Nekbone runs this one.
//
// Geometry per node (recomputed elements): the cofactor rows a_r, a_s, a_t of
// J and |J| = J_r . a_r (trilinear_jacobian.hpp, paper eq. 11-13), then
//   G grad u = lambda0 w / |J| (a_r, a_s, a_t)^T (a_r u_r + a_s u_s + a_t u_t)
// (G = lambda0 w |J| J^-1 J^-T and J^-1 = (a_r a_s a_t)^T / |J|): 21 FP64
// instructions instead of 24 to form the 6 factors and 9 to apply them; 1/|J|
// from the hardware approximation and one cubic Newton step (reciprocal()).
// Stored elements of mixed meshes load their factors (two nodes = one 16-byte
// load per factor). Three fields run one after another through the same
// registers, each recomputing the geometry, so one field keeps its register
// budget.
#include <cuda_runtime.h>

#include "backends/cuda/sem/axhelm_cuda.hpp"
#include "backends/cuda/sem/axhelm_gpu_columns.cuh"

namespace ppkit::sem::cuda_kernels {
namespace {

using columns::c_D;
using columns::c_nodes;
using columns::c_weights;
using columns::Column;
using columns::static_for;

constexpr int warps_per_block = 1;  // elements per block
// Registers: unbounded, ptxas gives the kernel 180 per thread; at 168 (no
// spill) 3 warps fit an SM sub-partition (its register file holds 16,384), at
// 128 (444 bytes of spill loads) 4, at 96 5. Measured on an H200 (N = 7, 32,768
// elements): 0.177 ms with 12 warps per SM, 0.268 ms with 20.
constexpr int min_resident_warps = 12;
// With the t contractions on tensor cores (kTensorT, cuda/trilinear-wmma-t)
// the kernel needs 128 registers without spilling: 16 warps per SM.
constexpr int min_resident_warps_tensor_t = 16;
// Slots per slice row (32 lanes + 4 of padding): the cross-lane accesses of
// the t products, 8 rows of 64 contiguous bytes, fall into alternating bank
// halves; the lane-own accesses are unaffected.
constexpr int kSlotStride = 36;

// C += A B for one m8n8k4 fp64 product, fragments as in the header comment.
__device__ __forceinline__ void mma_m8n8k4(double& c0, double& c1, double a, double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
      : "+d"(c0), "+d"(c1)
      : "d"(a), "d"(b));
#else
  (void)c0, (void)c1, (void)a, (void)b;
#endif
}

// M held in accumulator layout (lane (g, q): m0 = M[g][2q], m1 = M[g][2q+1])
// -> the A fragments of M for a contraction over its column index:
// a0 = M[g][q], a1 = M[g][4+q]. Both come from lanes of the same row: in round
// one lane p sends its slot p / 2 and lane q reads lane pi(q) = 2 (q % 2) + q / 2,
// in round two the other slot from lane pi(q) ^ 2.
__device__ __forceinline__ void row_gather(double m0, double m1, int g, int q, double& a0,
                                           double& a1) {
  const int first = 4 * g + (((q & 1) << 1) | (q >> 1));
  const double r1 = __shfl_sync(0xffffffffu, (q >> 1) ? m1 : m0, first);
  const double r2 = __shfl_sync(0xffffffffu, (q >> 1) ? m0 : m1, first ^ 2);
  a0 = (q & 1) ? r2 : r1;
  a1 = (q & 1) ? r1 : r2;
}

// M in accumulator layout -> the B fragments of M for a contraction over its
// row index: b0 = M[q][g], b1 = M[4+q][g], held by lanes 4 q + g / 2 and
// 16 + 4 q + g / 2 in slot g % 2. Rows 0-3 send slot 0 in round one, rows 4-7
// slot 1, and the other slot in round two.
__device__ __forceinline__ void column_gather(double m0, double m1, int g, int q, double& b0,
                                              double& b1) {
  const int first = 4 * q + (g >> 1) + ((g & 1) << 4);
  const bool upper = g >= 4;
  const double r1 = __shfl_sync(0xffffffffu, upper ? m1 : m0, first);
  const double r2 = __shfl_sync(0xffffffffu, upper ? m0 : m1, first ^ 16);
  b0 = (g & 1) ? r2 : r1;
  b1 = (g & 1) ? r1 : r2;
}

// 1 / d to full double precision without rcp.rn's slow-path test: the
// hardware approximation x = (1 - eps) / d, then x (1 + e + e^2) with
// e = 1 - d x = eps, whose relative error is eps^3 (one Newton step of
// cubic order). Jacobian determinants are normal numbers (no flush to zero).
__device__ __forceinline__ double reciprocal(double d) {
  double x;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(x) : "d"(d));
  const double e = fma(-d, x, 1.0);
  return fma(x, fma(e, e, e), x);
}

// Node *p of the element's input: from memory, or with kGather from the
// element's gathered copy in shared memory (same offset from xe).
template <bool kGather>
__device__ __forceinline__ double input_at(const double* p, const double* xe,
                                           const double* gathered) {
  if constexpr (kGather)
    return gathered[p - xe];
  else
    return __ldg(p);
}
template <bool kGather>
__device__ __forceinline__ double2 input_pair_at(const double* p, const double* xe,
                                                 const double* gathered) {
  if constexpr (kGather)
    return *reinterpret_cast<const double2*>(gathered + (p - xe));
  else
    return __ldg(reinterpret_cast<const double2*>(p));
}

// The assembled operator's output (kGather): adds the results y of local
// nodes l, l + 1 to their global nodes and returns their share of x_e . y_e
// (x: the gathered input of the two nodes).
__device__ __forceinline__ double scatter_add_pair(const AxhelmKernelArgs& a, long long l,
                                                   double2 y, const double* x) {
  const int2 at = __ldg(reinterpret_cast<const int2*>(a.global_of_local + l));
  atomicAdd(a.y + at.x, y.x);
  atomicAdd(a.y + at.y, y.y);
  return x[0] * y.x + x[1] * y.y;
}
// dot_sums[e % dot_sum_slots] += the sum of the warp's shares (x_e . y_e).
__device__ __forceinline__ void add_element_dot(const AxhelmKernelArgs& a, long long e, int lane,
                                                double dot) {
  for (int offset = 16; offset > 0; offset /= 2) dot += __shfl_xor_sync(0xffffffffu, dot, offset);
  if (lane == 0) atomicAdd(a.dot_sums + e % dot_sum_slots, dot);
}

// kGather: the assembled operator (AxhelmKernelArgs::global_of_local): one
// field whose values are read at x[global_of_local[l]], each warp first
// copying its element's 512 values into dynamic shared memory; the results
// are added to y at their global nodes (red.global.add.f64) and the warp adds
// x_e . y_e to a dot_sums slot.
template <int NCOL, bool kTensorT, bool kGather>
__global__ void __launch_bounds__(32 * warps_per_block,
                                  (kTensorT ? min_resident_warps_tensor_t : min_resident_warps) /
                                      warps_per_block) axhelm_mma_kernel(const AxhelmKernelArgs a) {
  constexpr int NQ = 8, NQ2 = 64, NP = 512;
  __shared__ double s_C[warps_per_block][24];
  // Slots of lane l, [k][l]: u_t of slice k, replaced by (G u)_t of slice k
  // once used; and y_k's r, s (and mass) terms. The slice loop touches only
  // the lane's own slots; with kTensorT the t products before and after it
  // exchange them across the warp (__syncwarp).
  __shared__ double2 s_t[warps_per_block][NQ][kSlotStride];
  __shared__ double2 s_rs[warps_per_block][NQ][kSlotStride];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, q = lane & 3;
  const long long e = (long long)blockIdx.x * warps_per_block + warp;
  if (e >= a.elements) return;  // a whole warp: no block-wide synchronisation below
  const long long slot = a.factor_slot ? a.factor_slot[e] : e;
  const bool recompute = slot < 0;
  const bool helmholtz = a.helmholtz != 0;

  // This lane's entries of D's fragments: D[g][q], D[g][4+q] (B of u_r = U D^T,
  // A of u_s = D U) and D[q][g], D[4+q][g] (B of (G u)_r D, A of D^T (G u)_s).
  const double d_gq = c_D[g * NQ + q], d_g4q = c_D[g * NQ + 4 + q];
  const double d_qg = c_D[q * NQ + g], d_4qg = c_D[(4 + q) * NQ + g];

  Column column[2];
  double scale_ij[2] = {0, 0};  // w_i w_j of the two columns
  if (recompute) {
    gpu_common::trilinear_coefficients(a.vertices, e, lane, 32, s_C[warp]);
    __syncwarp();
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      column[h].init(s_C[warp], c_nodes[2 * q + h], c_nodes[g]);
      scale_ij[h] = c_weights[2 * q + h] * c_weights[g];
    }
  }
  const double* factors = a.factors + (recompute ? 0 : slot) * 7 * NP + 2 * lane;

#pragma unroll 1
  for (int c = 0; c < NCOL; ++c) {
    const double* xe = a.x + c * a.field_stride + e * NP;  // the element's u[k][j][i]
    const double* x = xe + 2 * lane;                       // the lane's two columns
    extern __shared__ double2 s_gathered[];  // [warps_per_block][NP / 2], kGather only
    const double* gathered = nullptr;
    if constexpr (kGather) {  // lane l gathers nodes 2l, 2l + 1 of every slice
      static_assert(NCOL == 1, "a gathered input holds one field");
      double2* mine = s_gathered + warp * (NP / 2);
#pragma unroll
      for (int k = 0; k < NQ; ++k) {
        const int2 at =
            __ldg(reinterpret_cast<const int2*>(a.global_of_local + e * NP + k * NQ2 + 2 * lane));
        mine[k * 32 + lane] = make_double2(__ldg(a.x + at.x), __ldg(a.x + at.y));
      }
      gathered = reinterpret_cast<const double*>(mine);
      __syncwarp();
    }
    if constexpr (kTensorT) {
      // The previous field's t transpose has read s_t and s_rs.
      __syncwarp();
      // u_t of every slice, U_t = D U per row j = R of the element's columns:
      // two m8n8k4 products each, A = D (registers), B(q, g) = U[k = q][j = R][i = g];
      // C(g, 2q + h) = u_t at (i = 2q + h, j = R, k = g) goes to the slot of
      // its owner, lane 4 R + q.
#pragma unroll
      for (int R = 0; R < NQ; ++R) {
        double c0 = 0, c1 = 0;
        mma_m8n8k4(c0, c1, d_gq, input_at<kGather>(xe + q * NQ2 + R * NQ + g, xe, gathered));
        mma_m8n8k4(c0, c1, d_g4q, input_at<kGather>(xe + (4 + q) * NQ2 + R * NQ + g, xe, gathered));
        s_t[warp][g][4 * R + q] = make_double2(c0, c1);
      }
      __syncwarp();
    } else {  // u_t of every slice (register FMAs over the lane's columns) to s_t.
      double u[NQ][2];
#pragma unroll
      for (int k = 0; k < NQ; ++k) {
        const double2 v = input_pair_at<kGather>(x + k * NQ2, xe, gathered);
        u[k][0] = v.x;
        u[k][1] = v.y;
      }
#pragma unroll
      for (int k = 0; k < NQ; ++k) {
        double2 ut = make_double2(0.0, 0.0);
#pragma unroll
        for (int m = 0; m < NQ; ++m) {
          ut.x = fma(c_D[k * NQ + m], u[m][0], ut.x);
          ut.y = fma(c_D[k * NQ + m], u[m][1], ut.y);
        }
        s_t[warp][k][lane] = ut;
      }
    }
    static_for<NQ>([&](auto k_constant) {
      constexpr int k = decltype(k_constant)::value;
      // u_r = U_k D^T and u_s = D U_k, each two m8n8k4 products (m = 0..3, 4..7),
      // their U_k fragments read from the element (L1): A(g, q) = U_k[g][q],
      // U_k[g][4+q]; B(q, g) = U_k[q][g], U_k[4+q][g].
      const double* xk = xe + k * NQ2;
      double ur[2] = {0, 0}, us[2] = {0, 0}, op0, op1;
      mma_m8n8k4(ur[0], ur[1], input_at<kGather>(xk + g * NQ + q, xe, gathered), d_gq);
      mma_m8n8k4(ur[0], ur[1], input_at<kGather>(xk + g * NQ + 4 + q, xe, gathered), d_g4q);
      mma_m8n8k4(us[0], us[1], d_gq, input_at<kGather>(xk + q * NQ + g, xe, gathered));
      mma_m8n8k4(us[0], us[1], d_g4q, input_at<kGather>(xk + (4 + q) * NQ + g, xe, gathered));
      const double2 ut = s_t[warp][k][lane];
      double gr[2], gs[2], gt[2], y[2] = {0, 0};
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const double u_t = h == 0 ? ut.x : ut.y;
        double mass;
        if (recompute) {
          double ar[3], as[3], at[3];
          const double det = column[h].cofactors(c_nodes[k], ar, as, at);
          const double w = scale_ij[h] * c_weights[k];
          const double scale = a.lambda0 * w * reciprocal(det);
          double v[3];
#pragma unroll
          for (int d = 0; d < 3; ++d)
            v[d] = scale * fma(ar[d], ur[h], fma(as[d], us[h], at[d] * u_t));
          gr[h] = ar[0] * v[0] + ar[1] * v[1] + ar[2] * v[2];
          gs[h] = as[0] * v[0] + as[1] * v[1] + as[2] * v[2];
          gt[h] = at[0] * v[0] + at[1] * v[1] + at[2] * v[2];
          mass = a.lambda1 * w * det;
        } else {
          double f[7];
#pragma unroll
          for (int n = 0; n < 7; ++n) {
            f[n] = 0;
            if (n < 6 || helmholtz) {
              const double2 pair =
                  __ldg(reinterpret_cast<const double2*>(factors + n * NP + k * NQ2));
              f[n] = h == 0 ? pair.x : pair.y;
            }
          }
          gr[h] = a.lambda0 * (f[0] * ur[h] + f[1] * us[h] + f[2] * u_t);
          gs[h] = a.lambda0 * (f[1] * ur[h] + f[3] * us[h] + f[4] * u_t);
          gt[h] = a.lambda0 * (f[2] * ur[h] + f[4] * us[h] + f[5] * u_t);
          mass = a.lambda1 * f[6];
        }
        if (helmholtz) y[h] = mass * input_at<kGather>(x + k * NQ2 + h, xe, gathered);
      }
      s_t[warp][k][lane] = make_double2(gt[0], gt[1]);
      // y_k += (G u)_r D + D^T (G u)_s.
      row_gather(gr[0], gr[1], g, q, op0, op1);
      mma_m8n8k4(y[0], y[1], op0, d_qg);
      mma_m8n8k4(y[0], y[1], op1, d_4qg);
      column_gather(gs[0], gs[1], g, q, op0, op1);
      mma_m8n8k4(y[0], y[1], d_qg, op0);
      mma_m8n8k4(y[0], y[1], d_4qg, op1);
      s_rs[warp][k][lane] = make_double2(y[0], y[1]);
    });
    if constexpr (kTensorT) {
      __syncwarp();  // every lane's (G u)_t and r, s terms are in its slots
      // y_m = (r, s, mass terms)_m + sum_k D[k][m] (G u)_t,k per row j = R:
      // C = D^T (G u)_t + C0, two m8n8k4 products with A = D^T (registers),
      // B(q, g) = (G u)_t at (i = g, j = R, k = q) from the slot of lane
      // 4 R + g / 2, C0 and C(g, 2q + h) = y at (i = 2q + h, j = R, m = g): the
      // slots of lane 4 R + q.
      const double* s_gt = reinterpret_cast<const double*>(&s_t[warp][0][0]);
      double* out = a.y + c * a.field_stride + e * NP;
      double dot = 0;  // kGather: this lane's share of x_e . y_e
#pragma unroll
      for (int R = 0; R < NQ; ++R) {
        double2 y = s_rs[warp][g][4 * R + q];
        mma_m8n8k4(y.x, y.y, d_qg, s_gt[q * 2 * kSlotStride + R * NQ + g]);
        mma_m8n8k4(y.x, y.y, d_4qg, s_gt[(4 + q) * 2 * kSlotStride + R * NQ + g]);
        const int node = g * NQ2 + R * NQ + 2 * q;
        if constexpr (kGather)
          dot += scatter_add_pair(a, e * NP + node, y, gathered + node);
        else
          *reinterpret_cast<double2*>(out + node) = y;
      }
      if constexpr (kGather) add_element_dot(a, e, lane, dot);
    } else {
      // y_m = (r, s, mass terms)_m + sum_k D[k][m] (G u)_t,k: the t transpose,
      // once per field from the lane's own slots.
      double gt[NQ][2];
#pragma unroll
      for (int k = 0; k < NQ; ++k) {
        const double2 v = s_t[warp][k][lane];
        gt[k][0] = v.x;
        gt[k][1] = v.y;
      }
      double* out = a.y + c * a.field_stride + e * NP + 2 * lane;
      double dot = 0;  // kGather: this lane's share of x_e . y_e
#pragma unroll
      for (int m = 0; m < NQ; ++m) {
        double2 y = s_rs[warp][m][lane];
#pragma unroll
        for (int k = 0; k < NQ; ++k) {
          y.x = fma(c_D[k * NQ + m], gt[k][0], y.x);
          y.y = fma(c_D[k * NQ + m], gt[k][1], y.y);
        }
        if constexpr (kGather)
          dot += scatter_add_pair(a, e * NP + m * NQ2 + 2 * lane, y, gathered + m * NQ2 + 2 * lane);
        else
          *reinterpret_cast<double2*>(out + m * NQ2) = y;
      }
      if constexpr (kGather) add_element_dot(a, e, lane, dot);
    }
  }
}

template <bool kTensorT>
void launch(const AxhelmKernelArgs& a) {
  const unsigned grid = unsigned((a.elements + warps_per_block - 1) / warps_per_block);
  if (a.global_of_local)  // one field (AxhelmKernelArgs)
    axhelm_mma_kernel<1, kTensorT, true>
        <<<grid, 32 * warps_per_block, warps_per_block * 512 * sizeof(double)>>>(a);
  else if (a.ncol == 3)
    axhelm_mma_kernel<3, kTensorT, false><<<grid, 32 * warps_per_block>>>(a);
  else
    axhelm_mma_kernel<1, kTensorT, false><<<grid, 32 * warps_per_block>>>(a);
}

}  // namespace

void set_constants_wmma(int nq, const double* derivative, const double* nodes,
                        const double* weights) {
  columns::copy_constants(nq, derivative, nodes, weights);
}

void launch_trilinear_wmma(const AxhelmKernelArgs& a) { launch<false>(a); }
void launch_trilinear_wmma_t(const AxhelmKernelArgs& a) { launch<true>(a); }

}  // namespace ppkit::sem::cuda_kernels
