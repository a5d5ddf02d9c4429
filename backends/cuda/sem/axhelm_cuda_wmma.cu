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
// L1/shared pipe is what bounds the register-column cuda/trilinear at N = 7
// (docs/sem.md).
//
// Registers. The t contractions are register FMAs over the lane's two
// columns, but their operands and results are kept out of the registers of
// the slice loop: u_t of every slice is formed first and parked in per-lane
// shared slots (each lane uses only its own slots: no barrier, no bank
// conflict), (G u)_t of slice k replaces u_t of slice k there, and y_k's r and
// s terms go to a second slot array; the t transpose y_m += sum_k D[k][m]
// (G u)_t,k runs once at the end. The slice loop then holds the column terms
// of the geometry, D's fragments and one slice's temporaries: 168 registers
// without spilling, 12 warps per SM. Holding u and y (64 registers) through
// the loop instead, with the u fragments moved by shuffles, spills at 168
// registers.
//
// cuda/trilinear-wmma-t (kTensorT) forms u_t and the t transpose as m8n8k4
// products too, per row j of the element's columns (U_t = D U, y += D^T
// (G u)_t), exchanging the slots across the warp; 128 registers without
// spilling, 16 warps per SM. On Hopper the fp64 products share a pipe with the
// FP64 FMAs (m8n8k4 peaks at about the FMA rate, perf/core/fp64_mma_rates.cu),
// so this moves work rather than removing it; what it gains is the registers
// for 16 warps per SM, which hide more latency, so the CUDA recompute
// Nekbone prefers it to cuda/trilinear-wmma (nekbone_cuda.cpp).
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

#include "backends/cuda/core/mma_f64.cuh"
#include "backends/cuda/sem/axhelm_cuda.hpp"
#include "backends/cuda_hip/sem/axhelm_gpu_columns.cuh"

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
// 128 (444 bytes of spill loads) 4, at 96 5. The kernel keeps 168: 12 warps
// per SM, because the spill loads of a tighter bound cost more than the
// extra warps hide.
constexpr int min_resident_warps = 12;
// With the t contractions on tensor cores (kTensorT, cuda/trilinear-wmma-t)
// the kernel needs 128 registers without spilling: 16 warps per SM.
constexpr int min_resident_warps_tensor_t = 16;
// Slots per slice row (32 lanes + 4 of padding): the cross-lane accesses of
// the t products, 8 rows of 64 contiguous bytes, fall into alternating bank
// halves; the lane-own accesses are unaffected.
constexpr int kSlotStride = 36;

// The fp64 products (fragments as in the header comment).
using cuda::mma_m16n8k4;
using cuda::mma_m8n8k4;

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

// G grad u at the lane's node h (column h) of slice K: (gr, gs, gt) =
// lambda0 G (ur, us, ut), recomputed from the column's terms (recompute) or
// loaded from the element's stored factors (factors: the lane's two columns,
// two nodes = one 16-byte load per factor); returns the mass factor
// lambda1 w|J| (Helmholtz; unused otherwise).
template <int K>
__device__ __forceinline__ double apply_geometry(const AxhelmKernelArgs& a, bool recompute,
                                                 bool helmholtz, const Column& column,
                                                 double scale_ij, const double* factors, int h,
                                                 double ur, double us, double ut, double& gr,
                                                 double& gs, double& gt) {
  constexpr int NQ2 = 64, NP = 512;
  if (recompute) {
    double ar[3], as[3], at[3];
    const double det = column.cofactors(c_nodes[K], ar, as, at);
    const double w = scale_ij * c_weights[K];
    const double scale = a.lambda0 * w * reciprocal(det);
    double v[3];
#pragma unroll
    for (int d = 0; d < 3; ++d) v[d] = scale * fma(ar[d], ur, fma(as[d], us, at[d] * ut));
    gr = ar[0] * v[0] + ar[1] * v[1] + ar[2] * v[2];
    gs = as[0] * v[0] + as[1] * v[1] + as[2] * v[2];
    gt = at[0] * v[0] + at[1] * v[1] + at[2] * v[2];
    return a.lambda1 * w * det;
  }
  double f[7];
#pragma unroll
  for (int n = 0; n < 7; ++n) {
    f[n] = 0;
    if (n < 6 || helmholtz) {
      const double2 pair = __ldg(reinterpret_cast<const double2*>(factors + n * NP + K * NQ2));
      f[n] = h == 0 ? pair.x : pair.y;
    }
  }
  gr = a.lambda0 * (f[0] * ur + f[1] * us + f[2] * ut);
  gs = a.lambda0 * (f[1] * ur + f[3] * us + f[4] * ut);
  gt = a.lambda0 * (f[2] * ur + f[4] * us + f[5] * ut);
  return a.lambda1 * f[6];
}

// The assembled operator's input (kGather): the warp copies element e's 512
// values x[global_of_local[l]] into mine (lane l gathers nodes 2l, 2l + 1 of
// every slice) and returns them as the element's local vector.
__device__ __forceinline__ const double* gather_element(const AxhelmKernelArgs& a, long long e,
                                                        int lane, double2* mine) {
  constexpr int NQ = 8, NQ2 = 64, NP = 512;
#pragma unroll
  for (int k = 0; k < NQ; ++k) {
    const int2 at =
        __ldg(reinterpret_cast<const int2*>(a.global_of_local + e * NP + k * NQ2 + 2 * lane));
    mine[k * 32 + lane] = make_double2(__ldg(a.x + at.x), __ldg(a.x + at.y));
  }
  __syncwarp();
  return reinterpret_cast<const double*>(mine);
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

// What both tensor-core kernels hold per element and lane (g, q): D's
// fragments D[g][q], D[g][4+q] (B of u_r = U D^T, A of u_s = D U) and D[q][g],
// D[4+q][g] (B of (G u)_r D, A of D^T (G u)_s); for a recomputed element the
// trilinear terms of the lane's columns (i, j) = (2q + h, g) and w_i w_j,
// else its stored factors from the lane's two columns on.
struct LaneElement {
  bool recompute, helmholtz;
  double d_gq, d_g4q, d_qg, d_4qg;
  Column column[2];
  double scale_ij[2] = {0, 0};
  const double* factors;
  // s_C: the warp's 24 doubles of shared memory for the vertex coefficients.
  __device__ __forceinline__ LaneElement(const AxhelmKernelArgs& a, long long e, int lane,
                                         double* s_C) {
    constexpr int NQ = 8, NP = 512;
    const int g = lane >> 2, q = lane & 3;
    const long long slot = a.factor_slot ? a.factor_slot[e] : e;
    recompute = slot < 0;
    helmholtz = a.helmholtz != 0;
    d_gq = c_D[g * NQ + q], d_g4q = c_D[g * NQ + 4 + q];
    d_qg = c_D[q * NQ + g], d_4qg = c_D[(4 + q) * NQ + g];
    if (recompute) {
      gpu_common::trilinear_coefficients(a.vertices, e, lane, 32, s_C);
      __syncwarp();
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        column[h].init(s_C, c_nodes[2 * q + h], c_nodes[g]);
        scale_ij[h] = c_weights[2 * q + h] * c_weights[g];
      }
    }
    factors = a.factors + (recompute ? 0 : slot) * 7 * NP + 2 * lane;
  }
};

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
  const LaneElement el(a, e, lane, s_C[warp]);
  const bool recompute = el.recompute, helmholtz = el.helmholtz;
  const double d_gq = el.d_gq, d_g4q = el.d_g4q, d_qg = el.d_qg, d_4qg = el.d_4qg;
  const Column(&column)[2] = el.column;
  const double(&scale_ij)[2] = el.scale_ij;
  const double* factors = el.factors;

#pragma unroll 1
  for (int c = 0; c < NCOL; ++c) {
    const double* xe = a.x + c * a.field_stride + e * NP;  // the element's u[k][j][i]
    const double* x = xe + 2 * lane;                       // the lane's two columns
    extern __shared__ double2 s_gathered[];  // [warps_per_block][NP / 2], kGather only
    const double* gathered = nullptr;
    if constexpr (kGather) {
      static_assert(NCOL == 1, "a gathered input holds one field");
      gathered = gather_element(a, e, lane, s_gathered + warp * (NP / 2));
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
      double gr[2], gs[2], gt[2], y[2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const double mass =
            apply_geometry<k>(a, recompute, helmholtz, column[h], scale_ij[h], factors, h, ur[h],
                              us[h], h == 0 ? ut.x : ut.y, gr[h], gs[h], gt[h]);
        y[h] = helmholtz ? mass * input_at<kGather>(x + k * NQ2 + h, xe, gathered) : 0.0;
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

// cuda/trilinear-wmma-m16 (sm_90): every product whose varying operand is A
// as one m16n8k4 over two k-slices or 16 nodes at once (rows g and g + 8),
// half the tensor-core instructions of m8n8k4 for the same work:
//   u_r of slices k, k+1   A = [U_k; U_k+1] (rows j), B = D^T      2 per pair
//   (G u)_r D, k and k+1   A = row gathers of both slices, B = D  2 per pair
//   U_t, 16 nodes n        A(n, m) = U[m][n], B = D^T             8 per element
//   y_t, 16 nodes n        A(n, k) = (G u)_t[k][n], B = D         8 per element
// u_s = D U_k and D^T (G u)_s have U in B and stay m8n8k4 (4 per slice):
// 64 tensor-core instructions per element against 96 in cuda/trilinear-wmma-t.
// The kernel is latency-bound (a chain of dependent products per slice), so
// it keeps 16 warps per SM (min_resident_warps_pairs) to hide the latency.
// The t products see the element as 64 x 8 (node n = 8 j + i of a slice,
// slice k): their results (U_t at (n, 2q), (n, 2q+1)) go to slot rows of
// both arrays, which the slice loop reads two nodes per lane as before.
// Slot row k starts at pair_row(k) = 68 k + 4 (k / 4) doubles: the t
// products' column accesses (rows 2q, 2q + 1 and rows q, q + 4 at nodes
// 16 b + g) then fall into distinct 8-byte banks per half warp, and 16
// warps' slots and gathered elements fit an SM's shared memory (208 KB).
__host__ __device__ constexpr int pair_row(int k) { return 68 * k + 4 * (k >> 2); }
constexpr int pair_slots = 68 * 7 + 4 + 64;  // pair_row(7) + 64 doubles
// Whether the rows row(q), q = 0..3, read or written at nodes 16 b + g by the
// half warp g = 0..3 (or 4..7) meet 16 distinct 8-byte banks (16 per 128 B).
template <class Row>
constexpr bool rows_conflict_free(Row row) {
  for (int half = 0; half < 2; ++half) {
    bool used[16] = {};
    for (int q = 0; q < 4; ++q)
      for (int g = 4 * half; g < 4 * half + 4; ++g) {
        const int bank = (pair_row(row(q)) + g) % 16;
        if (used[bank]) return false;
        used[bank] = true;
      }
  }
  return true;
}
static_assert(rows_conflict_free([](int q) { return 2 * q; }) &&
                  rows_conflict_free([](int q) { return 2 * q + 1; }) &&
                  rows_conflict_free([](int q) { return q; }) &&
                  rows_conflict_free([](int q) { return q + 4; }),
              "the t products' slot accesses must not conflict in shared-memory banks");
static_assert(pair_row(7) + 64 == pair_slots && pair_row(4) >= pair_row(3) + 64,
              "slot rows of 64 doubles must not overlap");
constexpr int min_resident_warps_pairs = 16;

// The assembled operator's output of one node (local node l): y added at its
// global node; returns x_l y_l, its share of x_e . y_e.
__device__ __forceinline__ double scatter_add(const AxhelmKernelArgs& a, long long l, double y,
                                              double x) {
  atomicAdd(a.y + __ldg(a.global_of_local + l), y);
  return x * y;
}

// kHelmholtz: the equation at compile time, so that a Poisson kernel carries
// no mass term (read at run time, the flag leaves lambda1 w|J| formed in every
// node, 2 multiplies, whichever the equation).
template <int NCOL, bool kGather, bool kHelmholtz>
__global__ void __launch_bounds__(32, min_resident_warps_pairs)
    axhelm_mma_pairs_kernel(const AxhelmKernelArgs a) {
  constexpr int NQ = 8, NQ2 = 64, NP = 512;
  __shared__ double s_C[24];
  // Slot rows (pair_row) of u_t, replaced by (G u)_t once used, and of y's r,
  // s (and mass) terms.
  __shared__ __align__(16) double s_t[pair_slots];
  __shared__ __align__(16) double s_rs[pair_slots];
  const int lane = threadIdx.x, g = lane >> 2, q = lane & 3;
  const long long e = blockIdx.x;
  const LaneElement el(a, e, lane, s_C);
  const bool recompute = el.recompute;
  constexpr bool helmholtz = kHelmholtz;
  const double d_gq = el.d_gq, d_g4q = el.d_g4q, d_qg = el.d_qg, d_4qg = el.d_4qg;
  const Column(&column)[2] = el.column;
  const double(&scale_ij)[2] = el.scale_ij;
  const double* factors = el.factors;
  const int node = 8 * g + 2 * q;  // the lane's nodes (i = 2q + h, j = g) of every slice

#pragma unroll 1
  for (int c = 0; c < NCOL; ++c) {
    const double* xe = a.x + c * a.field_stride + e * NP;
    const double* x = xe + node;
    extern __shared__ double2 s_gathered[];  // [NP / 2], kGather only
    const double* gathered = nullptr;
    if constexpr (kGather) {
      static_assert(NCOL == 1, "a gathered input holds one field");
      gathered = gather_element(a, e, lane, s_gathered);
    }
    // The previous field's t products have read the slots.
    __syncwarp();
    // U_t at 16 nodes n = 16 b + (g, g + 8): C(n, k) = sum_m U[m][n] D[k][m].
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      const int n = 16 * b + g;
      double ut[4] = {0, 0, 0, 0};
      mma_m16n8k4(ut, input_at<kGather>(xe + q * NQ2 + n, xe, gathered),
                  input_at<kGather>(xe + q * NQ2 + n + 8, xe, gathered), d_gq);
      mma_m16n8k4(ut, input_at<kGather>(xe + (4 + q) * NQ2 + n, xe, gathered),
                  input_at<kGather>(xe + (4 + q) * NQ2 + n + 8, xe, gathered), d_g4q);
      s_t[pair_row(2 * q) + n] = ut[0];
      s_t[pair_row(2 * q + 1) + n] = ut[1];
      s_t[pair_row(2 * q) + n + 8] = ut[2];
      s_t[pair_row(2 * q + 1) + n + 8] = ut[3];
    }
    __syncwarp();
    static_for<NQ / 2>([&](auto pair_constant) {
      constexpr int k0 = 2 * decltype(pair_constant)::value, k1 = k0 + 1;
      const double* xk0 = xe + k0 * NQ2;
      const double* xk1 = xe + k1 * NQ2;
      // u_r of both slices: C rows g (slice k0) and g + 8 (slice k1).
      double ur[4] = {0, 0, 0, 0}, us0[2] = {0, 0}, us1[2] = {0, 0};
      mma_m16n8k4(ur, input_at<kGather>(xk0 + g * NQ + q, xe, gathered),
                  input_at<kGather>(xk1 + g * NQ + q, xe, gathered), d_gq);
      mma_m16n8k4(ur, input_at<kGather>(xk0 + g * NQ + 4 + q, xe, gathered),
                  input_at<kGather>(xk1 + g * NQ + 4 + q, xe, gathered), d_g4q);
      mma_m8n8k4(us0[0], us0[1], d_gq, input_at<kGather>(xk0 + q * NQ + g, xe, gathered));
      mma_m8n8k4(us0[0], us0[1], d_g4q, input_at<kGather>(xk0 + (4 + q) * NQ + g, xe, gathered));
      mma_m8n8k4(us1[0], us1[1], d_gq, input_at<kGather>(xk1 + q * NQ + g, xe, gathered));
      mma_m8n8k4(us1[0], us1[1], d_g4q, input_at<kGather>(xk1 + (4 + q) * NQ + g, xe, gathered));
      const double2 ut0 = *reinterpret_cast<const double2*>(s_t + pair_row(k0) + node);
      const double2 ut1 = *reinterpret_cast<const double2*>(s_t + pair_row(k1) + node);
      // Nodes 0, 1: slice k0; 2, 3: slice k1 (the m16n8k4 accumulator order).
      double gr[4], gs[4], gt[4], y[4];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const double mass0 =
            apply_geometry<k0>(a, recompute, helmholtz, column[h], scale_ij[h], factors, h, ur[h],
                               us0[h], h == 0 ? ut0.x : ut0.y, gr[h], gs[h], gt[h]);
        const double mass1 = apply_geometry<k1>(
            a, recompute, helmholtz, column[h], scale_ij[h], factors, h, ur[2 + h], us1[h],
            h == 0 ? ut1.x : ut1.y, gr[2 + h], gs[2 + h], gt[2 + h]);
        y[h] = helmholtz ? mass0 * input_at<kGather>(x + k0 * NQ2 + h, xe, gathered) : 0.0;
        y[2 + h] = helmholtz ? mass1 * input_at<kGather>(x + k1 * NQ2 + h, xe, gathered) : 0.0;
      }
      *reinterpret_cast<double2*>(s_t + pair_row(k0) + node) = make_double2(gt[0], gt[1]);
      *reinterpret_cast<double2*>(s_t + pair_row(k1) + node) = make_double2(gt[2], gt[3]);
      // y += (G u)_r D for both slices, D^T (G u)_s per slice.
      double r0[2], r1[2], op0, op1;
      row_gather(gr[0], gr[1], g, q, r0[0], r0[1]);
      row_gather(gr[2], gr[3], g, q, r1[0], r1[1]);
      mma_m16n8k4(y, r0[0], r1[0], d_qg);
      mma_m16n8k4(y, r0[1], r1[1], d_4qg);
      column_gather(gs[0], gs[1], g, q, op0, op1);
      mma_m8n8k4(y[0], y[1], d_qg, op0);
      mma_m8n8k4(y[0], y[1], d_4qg, op1);
      column_gather(gs[2], gs[3], g, q, op0, op1);
      mma_m8n8k4(y[2], y[3], d_qg, op0);
      mma_m8n8k4(y[2], y[3], d_4qg, op1);
      *reinterpret_cast<double2*>(s_rs + pair_row(k0) + node) = make_double2(y[0], y[1]);
      *reinterpret_cast<double2*>(s_rs + pair_row(k1) + node) = make_double2(y[2], y[3]);
    });
    __syncwarp();
    // y at 16 nodes n: C(n, m) = (r, s, mass terms)(n, m) + sum_k (G u)_t[k][n] D[k][m].
    double* out = a.y + c * a.field_stride + e * NP;
    double dot = 0;  // kGather: this lane's share of x_e . y_e
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      const int n = 16 * b + g;
      double y[4] = {s_rs[pair_row(2 * q) + n], s_rs[pair_row(2 * q + 1) + n],
                     s_rs[pair_row(2 * q) + n + 8], s_rs[pair_row(2 * q + 1) + n + 8]};
      mma_m16n8k4(y, s_t[pair_row(q) + n], s_t[pair_row(q) + n + 8], d_qg);
      mma_m16n8k4(y, s_t[pair_row(4 + q) + n], s_t[pair_row(4 + q) + n + 8], d_4qg);
#pragma unroll
      for (int v = 0; v < 4; ++v) {
        const int local = (2 * q + (v & 1)) * NQ2 + n + 8 * (v >> 1);
        if constexpr (kGather)
          dot += scatter_add(a, e * NP + local, y[v], gathered[local]);
        else
          out[local] = y[v];
      }
    }
    if constexpr (kGather) add_element_dot(a, e, lane, dot);
  }
}

template <bool kTensorT>
void launch(const AxhelmKernelArgs& a) {
  const unsigned grid = unsigned((a.elements + warps_per_block - 1) / warps_per_block);
  if (a.global_of_local)  // one field (AxhelmKernelArgs)
    axhelm_mma_kernel<1, kTensorT, true>
        <<<grid, 32 * warps_per_block, warps_per_block * 512 * sizeof(double),
           static_cast<cudaStream_t>(a.stream)>>>(a);
  else if (a.ncol == 3)
    axhelm_mma_kernel<3, kTensorT, false>
        <<<grid, 32 * warps_per_block, 0, static_cast<cudaStream_t>(a.stream)>>>(a);
  else
    axhelm_mma_kernel<1, kTensorT, false>
        <<<grid, 32 * warps_per_block, 0, static_cast<cudaStream_t>(a.stream)>>>(a);
}

}  // namespace

void set_constants_wmma(int nq, const double* derivative, const double* nodes,
                        const double* weights) {
  columns::copy_constants(nq, derivative, nodes, weights);
}

void launch_trilinear_wmma(const AxhelmKernelArgs& a) { launch<false>(a); }
void launch_trilinear_wmma_t(const AxhelmKernelArgs& a) { launch<true>(a); }

template <bool kHelmholtz>
void launch_pairs(const AxhelmKernelArgs& a) {
  const unsigned grid = unsigned(a.elements);
  if (a.global_of_local)
    axhelm_mma_pairs_kernel<1, true, kHelmholtz>
        <<<grid, 32, 512 * sizeof(double), static_cast<cudaStream_t>(a.stream)>>>(a);
  else if (a.ncol == 3)
    axhelm_mma_pairs_kernel<3, false, kHelmholtz>
        <<<grid, 32, 0, static_cast<cudaStream_t>(a.stream)>>>(a);
  else
    axhelm_mma_pairs_kernel<1, false, kHelmholtz>
        <<<grid, 32, 0, static_cast<cudaStream_t>(a.stream)>>>(a);
}

void launch_trilinear_wmma_m16(const AxhelmKernelArgs& a) {
  if (a.helmholtz)
    launch_pairs<true>(a);
  else
    launch_pairs<false>(a);
}

int wmma_m16_binary_version() {
  cudaFuncAttributes attributes{};
  if (cudaFuncGetAttributes(&attributes, axhelm_mma_pairs_kernel<1, false, false>) != cudaSuccess) {
    (void)cudaGetLastError();  // not a sticky error: leave nothing for the next launch check
    return 0;
  }
  return attributes.binaryVersion;
}

}  // namespace ppkit::sem::cuda_kernels
