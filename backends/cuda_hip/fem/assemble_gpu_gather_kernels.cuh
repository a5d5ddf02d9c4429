#pragma once
// Strategy (h) of fem.assemble: node gather, one warp per node, every CSR
// value written once. Part of assemble_gpu_kernels.cuh.
#include "backends/cuda_hip/fem/assemble_gpu_device.cuh"

namespace ppkit::fem::assembly_kernels {
namespace {

// ---- (h) node gather: one warp per node, every CSR value written once --------
// Layout in gather_layout.hpp, reasoning in docs/fem.md ("Strategy (h)").
// Per round of 4 elements around the node (element g of the round on lanes
// 8 g .. 8 g + 7), in two phases through shared memory:
//  A. lane 8 g + q takes Gauss point q: it loads J_q^-1 and |J_q| w (80 B,
//     the group's 8 lanes one contiguous 640 B record; on sm_90 the record
//     is bulk-copied into shared memory at the end of the round before, off the
//     load/store pipe that limits this kernel) and forms the
//     derivatives of all 8 nodes there, G'_b = 8 J_q^-T dN_b(q); dN_b(q) is
//     (+-1/8) times a product of two of the lane's six factors 1 +- xi_m(q)
//     (hex8_shape.hpp), so the lane keeps the 12 products in registers and
//     the signs fold into the FMAs. It stores the 8 vectors, and the node's
//     own one scaled by |J_q| w / 64;
//  B. lane 8 g + b takes node b and accumulates
//     M = sum_q (|J_q| w / 64) G'_node G'_b^T over the 8 Gauss points
//     (= sum_q |J_q| w g_node g_b^T), forms
//     K_(node, b) = lambda M + mu M^T + mu tr(M) I (isotropic B^T D B) and
//     adds it to the accumulator's block of b's column, the 4 elements one
//     after the other (within one element the 8 blocks are distinct).
// Then the accumulator (the node's 3 x 3 column blocks) is stored to the
// node's rows, value v of each row by lane v % 32 (coalesced).
// Shared memory per warp (doubles): G' at [216 g + 26 b + 3 q + i] (a 26
// stride between nodes keeps phase B's 16-byte loads of 8 lanes on distinct
// banks; 216 = 8 x 26 + 8 puts the two groups of a half-warp's phase-A
// stores on disjoint banks), the node's scaled vectors at [24 g + 3 q + i],
// and the accumulator, 9 doubles per column block (row-major 3 x 3).
constexpr int kGatherWarps = 2;  // node slots (warps, sub-groups) per block
constexpr int kGatherNodeStride = 26, kGatherGroupStride = 216;
constexpr int kGatherShared = 4 * kGatherGroupStride + 4 * 24 + 9 * kGatherWindowBlocks;
// Doubles of one element's Gauss-point geometry record (J_q^-1, |J_q| w).
constexpr int kGatherRecord = 80;
// With bulk copies (sm_90), each group's record is copied into the group's G'
// region once the round before has read G', and a barrier per warp counts
// the bytes: 2 more doubles a warp (keeping its slice a multiple of 16 bytes).
#if defined(PPKIT_GPU_BULK_COPY)
constexpr int kGatherBarrier = 2;
#else
constexpr int kGatherBarrier = 0;
#endif
// On sm_90, 10 blocks (20 warps) per SM: at most 102 registers, 96 used
// without spills, and the shared memory fits 10 blocks; without the bound the
// bulk-copy form takes 126 registers (16 warps). Elsewhere the compiler's
// choice (sm_80 would spill under the bound; HIP's second launch bound counts
// waves per execution unit instead).
#if defined(PPKIT_GPU_BULK_COPY)
#define PPKIT_NODE_GATHER_BOUNDS __launch_bounds__(gpu::kSubgroupWidth* kGatherWarps, 10)
#else
#define PPKIT_NODE_GATHER_BOUNDS __launch_bounds__(gpu::kSubgroupWidth* kGatherWarps)
#endif

__global__ void PPKIT_NODE_GATHER_BOUNDS node_gather_kernel(Hex8GatherArrays A,
                                                            std::int64_t slots) {
  __shared__ __align__(16) double s_warp[kGatherWarps][kGatherShared + kGatherBarrier];
  const std::int64_t slot = std::int64_t(blockIdx.x) * kGatherWarps + element_in_block();
  if (slot >= slots) return;
  const int lane = element_lane(), g = lane / 8, r = lane % 8;  // r: q in phase A, b in B
  double* G = s_warp[element_in_block()] + kGatherGroupStride * g;
  double* own = s_warp[element_in_block()] + 4 * kGatherGroupStride + 24 * g;
  double* accumulator = s_warp[element_in_block()] + 4 * kGatherGroupStride + 4 * 24;
  // Phase A's shape-function factors and their 12 products at Gauss point q = r.
  const Hex8GaussProducts shape(r);

  const std::int64_t node = A.node_of_slot[slot];
  const std::int64_t first = A.incidence_offsets[slot], last = A.incidence_offsets[slot + 1];
  // The node's 3 rows are consecutive and equally long (csr_pattern.hpp).
  const std::int64_t row = A.row_offsets[3 * node];
  const int row_length = int(A.row_offsets[3 * node + 1] - row), blocks = row_length / 3;
  double body_weight = 0;  // this lane's share of sum_elements sum_q N_node(q) |J_q| w
  // Each round's element and column block are loaded a round ahead (the last
  // round of a window loads the next window's first), so only the node's
  // first round waits for them. A group past the node's last element repeats
  // its first (valid memory) and adds nothing. A node in no element (unused
  // by the mesh) has no rounds and reads nothing.
  const bool has_rounds = first < last;
  std::int64_t ahead = first + g < last ? first + g : first;  // the next round's incidence
  std::int32_t next_incidence = has_rounds ? A.incidences[ahead] : 0;
  int next_column = has_rounds ? A.incidence_blocks[8 * ahead + r] : 0;  // of node b = r
#if defined(PPKIT_GPU_BULK_COPY)
  // The round's 4 geometry records, group g's at the start of its G' region,
  // copied by the copy engine at the end of the round before.
  double* records = s_warp[element_in_block()];
  auto* arrived = reinterpret_cast<unsigned long long*>(records + kGatherShared);
  const auto copy_records = [&](std::int32_t incidence) {
    if (lane == 0) gpu::bulk_barrier_expect(arrived, 4 * kGatherRecord * sizeof(double));
    if (r == 0)
      gpu::bulk_copy_to_shared(records + kGatherGroupStride * g,
                               A.geometry + kGatherRecord * std::int64_t(incidence / 8),
                               kGatherRecord * sizeof(double), arrived);
  };
  unsigned parity = 0;  // of the barrier phase the next round waits for
  if (lane == 0) gpu::bulk_barrier_init(arrived, 1);
  gpu::warp_sync();
  if (has_rounds) copy_records(next_incidence);
#endif
  for (int window = 0; window < blocks; window += kGatherWindowBlocks) {
    const int window_blocks =
        blocks - window < kGatherWindowBlocks ? blocks - window : kGatherWindowBlocks;
    for (int m = lane; m < 9 * window_blocks; m += gpu::kSubgroupWidth) accumulator[m] = 0;
#pragma unroll 1
    for (std::int64_t k0 = first; k0 < last; k0 += 4) {
      const bool valid = k0 + g < last;
      const std::int32_t incidence = next_incidence;
      const int block = next_column - window;
      const std::int64_t next_k0 = k0 + 4 < last ? k0 + 4 : first;
      ahead = next_k0 + g < last ? next_k0 + g : first;
      next_incidence = A.incidences[ahead];
      next_column = A.incidence_blocks[8 * ahead + r];
      const int a = incidence % 8;
      {                  // phase A, Gauss point q = r
        double inv[10];  // J_q^-1 ([3 i + k] = dxi_k / dx_i), then |J_q| w
#if defined(PPKIT_GPU_BULK_COPY)
        gpu::bulk_barrier_wait(arrived, parity);
        parity ^= 1;
        const double2* point =
            reinterpret_cast<const double2*>(records + kGatherGroupStride * g + 10 * r);
#else
        const double2* point = reinterpret_cast<const double2*>(
            A.geometry + kGatherRecord * std::int64_t(incidence / 8) + 10 * r);
#endif
#pragma unroll
        for (int m = 0; m < 5; ++m) {
          const double2 pair = point[m];
          inv[2 * m] = pair.x;
          inv[2 * m + 1] = pair.y;
        }
#if defined(PPKIT_GPU_BULK_COPY)
        gpu::warp_sync();  // the group's record is read before G' overwrites it
#endif
        hex8_for_each_node([&](auto node_b) {
          constexpr int b = decltype(node_b)::value;
          const double dN[3] = {shape.scaled_derivative<b, 0>(), shape.scaled_derivative<b, 1>(),
                                shape.scaled_derivative<b, 2>()};  // 8 dN_b / dxi_k
#pragma unroll
          for (int i = 0; i < 3; ++i)
            G[kGatherNodeStride * b + 3 * r + i] =
                inv[3 * i] * dN[0] + inv[3 * i + 1] * dN[1] + inv[3 * i + 2] * dN[2];
        });
        const double w = inv[9] * (1.0 / 64);
#pragma unroll
        for (int i = 0; i < 3; ++i) own[3 * r + i] = w * G[kGatherNodeStride * a + 3 * r + i];
        if (valid && window == 0)  // N_a(q) |J_q| w
          body_weight += 0.125 * shape.scaled_value(a) * inv[9];
      }
      gpu::warp_sync();
      {  // phase B, node b = r
        double M[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
        const double2* gb = reinterpret_cast<const double2*>(G + kGatherNodeStride * r);
        const double2* ga = reinterpret_cast<const double2*>(own);
#pragma unroll
        for (int pair = 0; pair < 4; ++pair) {  // Gauss points 2 pair, 2 pair + 1: 6 doubles each
          double x[6], y[6];
#pragma unroll
          for (int m = 0; m < 3; ++m) {
            const double2 u = ga[3 * pair + m], v = gb[3 * pair + m];
            x[2 * m] = u.x;
            x[2 * m + 1] = u.y;
            y[2 * m] = v.x;
            y[2 * m + 1] = v.y;
          }
#pragma unroll
          for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int i = 0; i < 3; ++i)
#pragma unroll
              for (int j = 0; j < 3; ++j) M[3 * i + j] += x[3 * h + i] * y[3 * h + j];
        }
        const double trace = M[0] + M[4] + M[8];
        double K[9];
#pragma unroll
        for (int i = 0; i < 3; ++i)
#pragma unroll
          for (int j = 0; j < 3; ++j)
            K[3 * i + j] =
                A.lambda * M[3 * i + j] + A.mu * M[3 * j + i] + (i == j ? A.mu * trace : 0.0);
        const bool adds = valid && block >= 0 && block < window_blocks;
        double* target = accumulator + 9 * block;
#pragma unroll
        for (int h = 0; h < 4; ++h) {  // elements one after the other: their blocks may coincide
          if (g == h && adds)
#pragma unroll
            for (int m = 0; m < 9; ++m) target[m] += K[m];
          gpu::warp_sync();  // also: the next round's phase A overwrites G'
        }
      }
#if defined(PPKIT_GPU_BULK_COPY)
      // G' is read (the warp barrier above). No copy is left in flight when
      // the warp exits: the last round starts none.
      if (k0 + 4 < last || window + kGatherWindowBlocks < blocks) copy_records(next_incidence);
#endif
    }
    for (int v = lane; v < 3 * window_blocks; v += gpu::kSubgroupWidth) {
      const int s = v / 3, j = v - 3 * s;
      double* target = A.values + row + 3 * window + v;
#pragma unroll
      for (int i = 0; i < 3; ++i)
        target[std::int64_t(i) * row_length] = accumulator[9 * s + 3 * i + j];
    }
    gpu::warp_sync();  // the next window clears the accumulator
  }
  body_weight = gpu::subgroup_sum(body_weight);
  if (lane < 3) A.load[3 * node + lane] = body_weight * body_component(A, lane);
}

}  // namespace

}  // namespace ppkit::fem::assembly_kernels
