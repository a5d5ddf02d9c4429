#pragma once
// Strategy (f) of fem.assemble: factored, one warp per element, designed for
// the memory floor. Part of assemble_gpu_kernels.cuh.
#include "backends/cuda_hip/fem/assemble_gpu_device.cuh"

namespace ppkit::fem::assembly_kernels {
namespace {

// ---- (f) factored: one warp per element, designed for the memory floor -------
// Per Gauss point only the unnormalised derivatives G_a = adj(J)^T dN_a are
// formed (no division but one per Gauss point); each lane accumulates
//   M_ab = sum_q (w / det J_q) G_a G_b^T     (9 FMAs per block and Gauss point)
// for its two blocks (4 threads per row) and forms K_ab = lambda M_ab + mu M_ab^T
// + mu tr(M_ab) I once: isotropic D's structure, a third of the flops of
// B^T D B entry by entry. Ke is staged row-major in shared memory, and the warp adds
// 32 consecutive entries per instruction, so each instruction covers whole
// CSR row segments (about 10 sectors instead of 32). Positions: row start
// (CSR row offsets, cached) + 16-bit offset within the row.
constexpr int kFactoredWarps = 4;  // elements (32-lane sub-groups) per block
static_assert(gpu::kSubgroupWidth * kFactoredWarps % gpu::kWarpSize == 0,
              "blocks hold whole warps/wavefronts");
constexpr int kKeStride = 25;  // padded row stride of the staged Ke (fewer bank conflicts)
struct FactoredShared {
  double Ke[24 * kKeStride];  // staged Ke; before that, x (24), J (72), cofactors (72) alias it
  double G[192];              // G[24 q + 3 a + i] = sum_k cofactor_q(i, k) dN(q, a, k)
  double scale[8];            // w / det J_q
  double wdet[8];             // w det J_q
};

// Entry (i, j) of K_ab = lambda M_ab + mu M_ab^T + mu tr(M_ab) I.
__device__ __forceinline__ double factored_entry(const double (&M)[9], int i, int j, double lambda,
                                                 double mu) {
  return lambda * M[3 * i + j] + mu * M[3 * j + i] + (i == j ? mu * (M[0] + M[4] + M[8]) : 0.0);
}

__device__ __forceinline__ void stage_block(double* Ke, int a, int b, const double (&M)[9],
                                            double lambda, double mu) {
#pragma unroll
  for (int i = 0; i < 3; ++i)
#pragma unroll
    for (int j = 0; j < 3; ++j)
      Ke[(3 * a + i) * kKeStride + 3 * b + j] = factored_entry(M, i, j, lambda, mu);
}

// Geometry of one element on its 32-lane sub-group, from x (24 coordinates in
// shared memory, written before a warp_sync): J (72) of the 8 Gauss points,
// then on 8 lanes det J_q and the cofactors C (72), scale = 1 / det J_q and
// wdet = det J_q (Gauss weights are 1), then G (192). G may alias x and J
// (dead once C exists), never C, scale or wdet. Ends with a warp_sync.
__device__ __forceinline__ void factored_geometry(int lane, const double* s_dN, double* x,
                                                  double* J, double* C, double* scale, double* wdet,
                                                  double* G) {
  for (int m = lane; m < 72; m += 32) {  // 72 Jacobian entries of the 8 Gauss points
    const int q = m / 9, k = (m % 9) / 3, i = m % 3;
    double sum = 0;
#pragma unroll
    for (int a = 0; a < 8; ++a) sum += s_dN[(q * 8 + a) * 3 + k] * x[3 * a + i];
    J[m] = sum;
  }
  gpu::warp_sync();
  if (lane < 8) {  // 8 lanes: determinant and cofactors of one Gauss point each
    const double* Jq = J + 9 * lane;
    const double det = det3(Jq);
#pragma unroll
    for (int i = 0; i < 3; ++i)
#pragma unroll
      for (int k = 0; k < 3; ++k) C[9 * lane + 3 * i + k] = cofactor(Jq, i, k);
    scale[lane] = 1.0 / det;  // Gauss weights are 1
    wdet[lane] = det;
  }
  gpu::warp_sync();
  for (int m = lane; m < 192; m += 32) {  // 6 rounds: G of 8 nodes x 8 Gauss points
    const int q = m / 24, a = (m % 24) / 3, i = m % 3;
    const double* dN = &s_dN[(q * 8 + a) * 3];
    const double* Cq = &C[9 * q + 3 * i];
    G[m] = Cq[0] * dN[0] + Cq[1] * dN[1] + Cq[2] * dN[2];
  }
  gpu::warp_sync();
}

// Lane owns blocks (a, b0) and (a, b0 + 1): rows of node lane/4, columns of
// nodes 2(lane%4) + p. M_ab = sum_q (w / det J_q) G_a G_b^T.
__device__ __forceinline__ void factored_lane_blocks(int lane, const double* G_all,
                                                     const double* scale, double (&M0)[9],
                                                     double (&M1)[9]) {
  const int a = lane / 4, b0 = 2 * (lane % 4), b1 = b0 + 1;
#pragma unroll
  for (int m = 0; m < 9; ++m) M0[m] = M1[m] = 0;
#pragma unroll 2
  for (int q = 0; q < 8; ++q) {
    const double* G = &G_all[24 * q];
    const double s = scale[q];
    const double ha[3] = {s * G[3 * a], s * G[3 * a + 1], s * G[3 * a + 2]};
    const double g0[3] = {G[3 * b0], G[3 * b0 + 1], G[3 * b0 + 2]};
    const double g1[3] = {G[3 * b1], G[3 * b1 + 1], G[3 * b1 + 2]};
#pragma unroll
    for (int i = 0; i < 3; ++i)
#pragma unroll
      for (int j = 0; j < 3; ++j) {
        M0[3 * i + j] += ha[i] * g0[j];
        M1[3 * i + j] += ha[i] * g1[j];
      }
  }
}

// Body force: lane 3a+i (< 24) adds sum_q N_a(q) w det J_q b_i to DOF
// 3 load_node + i, where load_node is node a of the element.
template <bool kAtomic>
__device__ __forceinline__ void factored_body_force(int lane, std::int64_t load_node,
                                                    const double* wdet, double body_x,
                                                    double body_y, double body_z, double* load) {
  if (lane < 24) {
    const int la = lane / 3, li = lane % 3;
    double f = 0;
#pragma unroll
    for (int q = 0; q < 8; ++q) f += c_N[8 * q + la] * wdet[q];
    const double b = li == 0 ? body_x : (li == 1 ? body_y : body_z);
    if (kAtomic)
      gpu::atomic_add(&load[3 * load_node + li], f * b);
    else
      load[3 * load_node + li] += f * b;
  }
}

// ORDER: the order of the Ke entries over the rounds of adds (ke_entry_order.hpp);
// node-pair runs with atomics only.
template <bool kAtomic, KeEntryOrder ORDER = KeEntryOrder::row_major>
__global__ void __launch_bounds__(gpu::kSubgroupWidth* kFactoredWarps)
    factored_kernel(Hex8FactoredArrays A, std::int64_t first, std::int64_t count) {
  static_assert(kAtomic || ORDER == KeEntryOrder::row_major,
                "node-pair runs are for the atomic order only");
  __shared__ double s_dN[192];
  __shared__ FactoredShared shared[kFactoredWarps];
  for (int m = threadIdx.x; m < 192; m += blockDim.x) s_dN[m] = c_dN[m];
  __syncthreads();
  const int lane = element_lane();
  const std::int64_t w = std::int64_t(blockIdx.x) * kFactoredWarps + element_in_block();
  if (w >= count) return;  // whole sub-groups leave together; no block barrier follows
  FactoredShared& S = shared[element_in_block()];
  const std::int64_t e = first + w;
  double* x = S.Ke;
  double* J = S.Ke + 24;  // J[9q + 3k + i] = dx_i / dxi_k at Gauss point q
  double* C = S.Ke + 96;  // C[9q + 3i + k] = cofactor of J_q
  // Global loads first, so their latency overlaps the geometry.
  if (lane < 24) x[lane] = A.coordinates[24 * e + lane];
  const std::int32_t my_node = lane < 8 ? A.nodes[8 * e + lane] : 0;
  const std::uint32_t offset_pair =
      reinterpret_cast<const std::uint32_t*>(A.column_offsets + 64 * e)[lane];
  const std::uint64_t first_mask = kAtomic ? 0 : A.first_writer[e];
  // Lane r < 24 holds the start of element row r (node r/3, component r%3).
  const std::int64_t row_node = gpu::shfl(my_node, lane < 24 ? lane / 3 : 0, gpu::kSubgroupWidth);
  const std::int64_t my_row_start = lane < 24 ? A.row_offsets[3 * row_node + lane % 3] : 0;
  gpu::warp_sync();
  factored_geometry(lane, s_dN, x, J, C, S.scale, S.wdet, S.G);
  const int a = lane / 4, b0 = 2 * (lane % 4), b1 = b0 + 1;
  double M0[9], M1[9];
  factored_lane_blocks(lane, S.G, S.scale, M0, M1);
  // x, J, C are dead (every lane passed the barrier after G), so Ke may overwrite them.
  stage_block(S.Ke, a, b0, M0, A.lambda, A.mu);
  stage_block(S.Ke, a, b1, M1, A.lambda, A.mu);
  gpu::warp_sync();
  if constexpr (ORDER == KeEntryOrder::row_major) {
    // 18 rounds of 32 consecutive row-major entries: whole CSR row segments per
    // instruction. Batches of 6 rounds: all loads of a batch are issued before
    // its stores (positions within an element are distinct), so a lane has 6
    // read-modify-writes in flight instead of one.
    constexpr int kBatch = 6;
#pragma unroll
    for (int t0 = 0; t0 < 18; t0 += kBatch) {
      std::int64_t position[kBatch];
      double value[kBatch];
      bool first_writer[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        const int m = 32 * (t0 + u) + lane, r = m / 24, c = m % 24;
        const int block = 8 * (r / 3) + c / 3;
        const std::uint32_t pair = gpu::shfl(offset_pair, block / 2, gpu::kSubgroupWidth);
        const int offset = int((block & 1) ? pair >> 16 : pair & 0xffffu);
        position[u] = gpu::shfl(my_row_start, r, gpu::kSubgroupWidth) + offset + c % 3;
        value[u] = S.Ke[r * kKeStride + c];
        first_writer[u] = (first_mask >> block) & 1;
      }
      if (kAtomic) {
#pragma unroll
        for (int u = 0; u < kBatch; ++u) gpu::atomic_add(&A.values[position[u]], value[u]);
      } else {
        double old[kBatch];
#pragma unroll
        for (int u = 0; u < kBatch; ++u) old[u] = first_writer[u] ? 0.0 : A.values[position[u]];
#pragma unroll
        for (int u = 0; u < kBatch; ++u) A.values[position[u]] = old[u] + value[u];
      }
    }
  } else {
    // 20 rounds of 5 whole node-pair runs (ke_entry_order.hpp), in batches of
    // 5 rounds; idle lanes take part in the shuffles and add nothing.
    constexpr int kRounds = ke_entry_rounds(ORDER), kBatch = 5;
#pragma unroll
    for (int t0 = 0; t0 < kRounds; t0 += kBatch) {
      std::int64_t position[kBatch];
      double value[kBatch];
      bool active[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        const KeEntry entry = ke_entry(ORDER, t0 + u, lane);
        const int r = entry.row, c = entry.column, block = 8 * (r / 3) + c / 3;
        const std::uint32_t pair = gpu::shfl(offset_pair, block / 2, gpu::kSubgroupWidth);
        const int offset = int((block & 1) ? pair >> 16 : pair & 0xffffu);
        position[u] = gpu::shfl(my_row_start, r, gpu::kSubgroupWidth) + offset + c % 3;
        value[u] = S.Ke[r * kKeStride + c];
        active[u] = entry.active;
      }
#pragma unroll
      for (int u = 0; u < kBatch; ++u)
        if (active[u]) gpu::atomic_add(&A.values[position[u]], value[u]);
    }
  }
  // Body force (load zeroed before for the atomic version).
  const std::int64_t load_node = gpu::shfl(my_node, lane < 24 ? lane / 3 : 0, gpu::kSubgroupWidth);
  factored_body_force<kAtomic>(lane, load_node, S.wdet, A.body_force[0], A.body_force[1],
                               A.body_force[2], A.load);
}

}  // namespace

}  // namespace ppkit::fem::assembly_kernels
