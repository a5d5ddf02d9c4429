// cuda/cluster-gather: strategy (i) of fem.assemble (reasoning in docs/fem.md,
// "Strategy (i): cluster gather on fp64 tensor cores"; layout in
// cluster_layout.hpp).
//
// The element matrix as one product. With g_b(q) = J_q^-T grad_xi N_b(q) the
// physical derivatives of node b at Gauss point q and W_q = |J_q| w_q,
//   T(i, j)[a][b] = sum_q W_q g_ai(q) g_bj(q)          (a, b nodes; i, j components)
//   K_(a i)(b j) = lambda T(i, j)[a][b] + mu T(j, i)[a][b] + delta_ij mu sum_k T(k, k)[a][b]
// (isotropic B^T D B, assemble_gpu_kernels.cuh's entry formula). Each T(i, j)
// is an 8 x 8 matrix over the node pair, the product of A_i = [W_q g_ai(q)]
// (8 nodes x 8 Gauss points) and B_j = A_j^T without the weights: the nine
// products form the element's 576 entries, K lane-locally from T.
//
// Tensor-core layout (PTX ISA, "matrix fragments for mma.m8n8k4 / mma.m16n8k8"
// with .f64; checked by ppkit_fp64_mma_rates): lane 4 a + p holds the A and B
// fragments of node a at Gauss points p and p + 4, which it forms itself
// (3 derivatives each, from J_q^-1), and receives T(i, j)[a][2 p] and
// T(i, j)[a][2 p + 1]: the 3 x 3 blocks (a, 2 p) and (a, 2 p + 1) of K. On
// sm_80 the nine T(i, j) take 18 m8n8k4 products; on sm_90 T(0, j) and
// T(1, j) are one m16n8k8 product (rows i = 0, 1 stacked), 3 of them plus 6
// m8n8k4 for T(2, j): 2 / 3 of the issue time (on sm_90 m16n8k8 does 4 times
// the work of m8n8k4 at half its rate; perf/core/fp64_mma_rates.cu measures
// both). T(2, j) stays on m8n8k4: an m16n8k8 over zero rows would issue in
// the same time and spend half its work on the zeros (docs/fem.md,
// strategy (i)).
//
// Packs (cluster_layout.hpp). Elements whose nodes in the cluster are other
// nodes at other local numbers a share one T: each element's products are
// summed into it with its A rows masked to zero except the rows a it holds,
// so row a of T is row a's element's (B, the columns, is each element's).
// The pack then combines, waits, adds and counts once.
#include "backends/cuda/fem/assemble_cluster_kernels.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "backends/cuda/core/cuda_check.hpp"
#include "backends/cuda/core/async_copy.cuh"
#include "backends/cuda/core/mma_f64.cuh"
#include "ppkit/core/error.hpp"
#include "ppkit/fem/cluster_layout.hpp"  // kClusterNoBlock, kClusterNoSlot
#include "ppkit/fem/hex8_shape.hpp"

namespace ppkit::fem::cuda_cluster {
namespace {

using cuda::copy_async;   // sm_80
using cuda::mma_m16n8k8;  // sm_90
using cuda::mma_m8n8k4;
using cuda::wait_all_async;  // sm_80

__device__ __forceinline__ double body_component(const Hex8ClusterArrays& A, int i) {
  return i == 0 ? A.body_force[0] : (i == 1 ? A.body_force[1] : A.body_force[2]);
}

constexpr int kBlockStride = kClusterBlockStride;  // assemble_cluster_kernels.hpp

// Dynamic shared memory, in doubles: the accumulator (kBlockStride per block,
// [kBlockStride block + 3 i + j], the cluster's kept blocks), the load (3 per
// node, then a sink of 4 for the lanes of nodes outside the cluster), a
// counter per node of the elements that have added its blocks (32-bit,
// rounded up to doubles).
__host__ __device__ constexpr std::int64_t load_offset(int max_blocks) {
  return kBlockStride * std::int64_t(max_blocks);
}
__host__ __device__ constexpr std::int64_t counters_offset(int max_blocks, int max_nodes) {
  return (load_offset(max_blocks) + 3 * std::int64_t(max_nodes) + 4 + 1) / 2 * 2;
}
// Then the cluster's slot table: per slot its first CSR row (64-bit), its
// node and its first accumulator block (32-bit; one more block entry, the
// cluster's block count, ends the last slot).
__host__ __device__ constexpr std::int64_t slot_table_offset(int max_blocks, int max_nodes) {
  return counters_offset(max_blocks, max_nodes) + (max_nodes + 1) / 2;
}
// Then the cluster's row blocks (ClusterGatherLayout::row_blocks, 16-bit).
__host__ __device__ constexpr std::int64_t row_table_offset(int max_blocks, int max_nodes) {
  return (slot_table_offset(max_blocks, max_nodes) + max_nodes + (2 * max_nodes + 1 + 1) / 2 + 1) /
         2 * 2;  // 16-byte aligned for the copies
}
// Then, per warp, two stages of a pack's words (kPackWords 32-bit words: its
// lane blocks, lane nodes and 8 members), brought by cp.async a pack ahead.
constexpr int kPackWords = 32 + 32 + 8;
__host__ __device__ constexpr std::int64_t words_offset(int max_blocks, int max_nodes,
                                                        int max_row_blocks) {
  return row_table_offset(max_blocks, max_nodes) + (max_row_blocks + 16 + 7) / 8 * 2;
}
std::size_t shared_bytes(int max_blocks, int max_nodes, int max_row_blocks, int warps) {
  return sizeof(double) * std::size_t(words_offset(max_blocks, max_nodes, max_row_blocks)) +
         sizeof(std::uint32_t) * 2 * kPackWords * std::size_t(warps);
}

constexpr int kRecord = 80;  // doubles of one element's Gauss-point geometry

// Adds one element's products to T(i, j)[a][2 p + h] (and its body-force
// weight sum_q N_a(q) W_q to weight) from its geometry record, with row a of A
// (lane 4 a + p's W_q g_a(q)) masked to zero unless `own`: the element of a
// pack that forms row a (ClusterGatherLayout::row_members).
__device__ __forceinline__ void add_element_products(const double* record, int p, bool own,
                                                     const double (&N)[2], const double (&dN)[2][3],
                                                     double (&T)[3][3][2], double& weight) {
  // The record straight from global memory (the 8 lanes of a Gauss-point
  // pair read the same 160 B), not brought into shared memory a
  // cluster ahead by the copy engine, which would take 80 KB of shared memory
  // and a barrier per colour group.
  double g[2][3], wg[2][3];  // g_a(q); W_q g_a(q), zero unless row a is this element's
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const double2* point = reinterpret_cast<const double2*>(record + 10 * (p + 4 * h));
    double inv[10];  // J_q^-1 ([3 i + k] = dxi_k / dx_i), then W_q
#pragma unroll
    for (int m = 0; m < 5; ++m) {
      const double2 pair = point[m];
      inv[2 * m] = pair.x;
      inv[2 * m + 1] = pair.y;
    }
    const double row_weight = own ? inv[9] : 0.0;
#pragma unroll
    for (int i = 0; i < 3; ++i) {
      g[h][i] = inv[3 * i] * dN[h][0] + inv[3 * i + 1] * dN[h][1] + inv[3 * i + 2] * dN[h][2];
      wg[h][i] = row_weight * g[h][i];
    }
    weight += N[h] * row_weight;
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#pragma unroll
  for (int j = 0; j < 3; ++j) {
    mma_m16n8k8(T[0][j][0], T[0][j][1], T[1][j][0], T[1][j][1], wg[0][0], wg[0][1], wg[1][0],
                wg[1][1], g[0][j], g[1][j]);
    mma_m8n8k4(T[2][j][0], T[2][j][1], wg[0][2], g[0][j]);
    mma_m8n8k4(T[2][j][0], T[2][j][1], wg[1][2], g[1][j]);
  }
#else
#pragma unroll
  for (int i = 0; i < 3; ++i)
#pragma unroll
    for (int j = 0; j < 3; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) mma_m8n8k4(T[i][j][0], T[i][j][1], wg[h][i], g[h][j]);
#endif
}

// Persistent blocks (a grid of the device's resident blocks), cluster after
// cluster in the layout's order, W = Warps warps each (ClusterKernelShape).
// Per cluster:
//  1. each warp forms its first pack (step 2) while other warps may still
//     store the rows of the cluster before, then meets them at a barrier;
//     the cluster's slot table (each node's CSR row, node number and first
//     row block) and its row table then come into shared memory for the
//     rows' stores;
//  2. warp w forms packs w, w + W, ... in colour order (lane 4 a + p:
//     blocks (a, 2 p), (a, 2 p + 1) of row a's element), each of the pack's
//     elements whole from its geometry record (kernel 1's, 640 B) read from
//     global memory, and adds the blocks of the cluster's nodes into the
//     accumulator once, for each such node, the packs of lower colours
//     containing it (node waits) have added theirs (a counter per node): no
//     block barrier between colours. A warp waits only for packs of lower
//     colours, which come earlier in every warp's list, so the waits always
//     end. The adds to each block follow the colour order: the sums are the
//     same in every run;
//  3. a warp per node writes its 3 rows (consecutive and equally long,
//     csr_pattern.hpp; value v of each row by lane v % 32), each row block
//     from the accumulator block that keeps it, transposed where the row is
//     the later of the two cluster nodes (ClusterGatherLayout::row_blocks),
//     and its load.
// The accumulator is never zeroed: each block's first add stores its values
// (ClusterGatherOptions::first_add_stores), so there is no zeroing pass after
// the rows and the first add loads nothing.
// Warps per block and blocks per SM (ClusterKernelShape).
template <int Warps, int BlocksPerSm>
__global__ void __launch_bounds__(32 * Warps, BlocksPerSm)
    cluster_gather_kernel(const Hex8ClusterArrays A, std::int64_t clusters) {
  constexpr int kClusterWarps = Warps, kClusterThreads = 32 * Warps;
  extern __shared__ __align__(16) double s_cluster[];
  double* accumulator = s_cluster;
  double* load = s_cluster + load_offset(A.max_blocks);
  // Per node of the cluster: the elements that have added its blocks.
  auto* added = reinterpret_cast<int*>(s_cluster + counters_offset(A.max_blocks, A.max_nodes));
  for (int m = threadIdx.x; m < 3 * A.max_nodes + 4; m += kClusterThreads) load[m] = 0;
  for (int m = threadIdx.x; m < A.max_nodes; m += kClusterThreads) added[m] = 0;
  // The slot table (loaded at each cluster's start, read by its rows' stores).
  auto* slot_row_table =
      reinterpret_cast<std::int64_t*>(s_cluster + slot_table_offset(A.max_blocks, A.max_nodes));
  auto* slot_node_table = reinterpret_cast<std::int32_t*>(slot_row_table + A.max_nodes);
  std::int32_t* slot_block_table = slot_node_table + A.max_nodes;
  std::uint32_t* const warp_words =
      reinterpret_cast<std::uint32_t*>(s_cluster +
                                       words_offset(A.max_blocks, A.max_nodes, A.max_row_blocks)) +
      2 * kPackWords * (threadIdx.x / 32);
  __syncthreads();  // zeroed
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, a = lane / 4, p = lane % 4;
  // N_a and dN_a/dxi_k at this lane's Gauss points p and p + 4 (index h).
  double N[2], dN[2][3];
  hex8_gauss_shape(a, p, N[0], dN[0]);
  hex8_gauss_shape(a, p + 4, N[1], dN[1]);

  for (std::int64_t c = blockIdx.x; c < clusters; c += gridDim.x) {
    const std::int64_t k0 = A.colour_offsets[A.cluster_colours[c]];
    const std::int64_t k1 = A.colour_offsets[A.cluster_colours[c + 1]];
    const std::int64_t first_slot = A.cluster_slots[c];
    const int nodes = int(A.cluster_slots[c + 1] - first_slot);
    // The cluster's slot and row tables into shared memory for its rows'
    // stores by cp.async, once every thread has stored the rows of the
    // cluster before (each thread calls this once per cluster, after the
    // barrier that ends those rows), so no thread waits for them here (a load
    // and a store per entry would wait for each load).
    const auto copy_tables = [&] {
      for (int s = threadIdx.x; s <= nodes; s += kClusterThreads) {
        if (s < nodes) {
          copy_async(slot_row_table + s, A.slot_rows + first_slot + s);
          copy_async(slot_node_table + s, A.node_of_slot + first_slot + s);
          slot_block_table[s] = A.slot_blocks[first_slot + s];
        } else {
          slot_block_table[s] = A.cluster_blocks[c];
        }
      }
      // Its row blocks in 16-byte copies from the 16-byte boundary at or
      // before its first (the table starts `head` entries in; the glue pads
      // row_blocks so the last copy stays inside it).
      auto* row_table =
          reinterpret_cast<uint4*>(s_cluster + row_table_offset(A.max_blocks, A.max_nodes));
      const std::int64_t first_row_block = A.row_block_offsets[c];
      const int head = int(first_row_block & 7);
      const auto* source = reinterpret_cast<const uint4*>(A.row_blocks + (first_row_block - head));
      for (int o = threadIdx.x; o < (head + A.cluster_blocks[c] + 7) / 8; o += kClusterThreads)
        copy_async(row_table + o, source + o);
    };
    // The barrier between the rows of the cluster before and this cluster's
    // adds and tables (barrier 1; __syncthreads is barrier 0): each warp
    // reaches it once per cluster, after forming its first pack (or at once
    // without one), so that pack's record loads and products overlap the
    // other warps' rows, where a __syncthreads at the cluster's start would
    // hold every warp until the last row is stored.
    bool before_barrier = true;
    const auto pass_barrier = [&] {
      asm volatile("barrier.sync 1, %0;" ::"r"(kClusterThreads) : "memory");
      before_barrier = false;
      copy_tables();
    };

    // The lane words of the warp's pack come a pack ahead, so only the
    // warp's first pack of a cluster waits on them: its block targets, its
    // node word (row a's slot, kClusterNoSlot for p = 3, whose lanes neither
    // poll nor count; its wait, for p = 0; row a's element in the pack; the
    // pack's element count: a byte each), its element lane % 8 and its first
    // element (their records' places). Read from the layout's byte tables and
    // pack offsets instead, the words would take four more loads and spill
    // registers; held in registers a pack ahead, one is spilled right after
    // its load, so each pack would wait for the next one's words. Copied by
    // cp.async into shared memory they take no registers and nothing spills.
    const auto fetch_words = [&](std::int64_t k, int stage) {
      if (k >= k1) return;
      std::uint32_t* const words = warp_words + kPackWords * stage;
      copy_async(words + lane, A.lane_blocks + 32 * k + lane);
      copy_async(words + 32 + lane, A.lane_nodes + 32 * k + lane);
      if (lane < 8)
        copy_async(words + 64 + lane,
                   reinterpret_cast<const std::uint32_t*>(A.pack_members) + 8 * k + lane);
    };
    int stage = 0;
    fetch_words(k0 + warp, stage);
#pragma unroll 1
    for (std::int64_t k = k0 + warp; k < k1; k += kClusterWarps) {
      wait_all_async();
      __syncwarp();  // the pack's 8 members, copied by lanes 0-7
      const std::uint32_t* const words = warp_words + kPackWords * stage;
      const std::uint32_t targets = words[lane], node = words[32 + lane];
      const auto member = std::int32_t(words[64 + (lane & 7)]);  // -1: none
      const auto element = std::int32_t(words[64]);
      // Into the other stage, last read a pack ago by every lane (the
      // __syncwarp above orders those reads before these copies).
      stage ^= 1;
      fetch_words(k + kClusterWarps, stage);
      const unsigned owner = node >> 16 & 0xFFu;
      double T[3][3][2];  // T(i, j)[a][2 p + h], summed over the pack's elements
#pragma unroll
      for (int i = 0; i < 3; ++i)
#pragma unroll
        for (int j = 0; j < 3; ++j) T[i][j][0] = T[i][j][1] = 0;
      double weight = 0;  // sum_q N_a(q) W_q of row a's element
      // The pack's elements one after the other into the same products: the
      // rows of element m are its nodes in the cluster (row_members), its
      // other rows of A masked to zero, so each row a of T is row a's
      // element's; B (the columns) is every element's, unmasked. The first
      // element apart, so that T is live across the records' loads only for
      // the pack's further elements.
      add_element_products(A.geometry + kRecord * std::int64_t(element), p, owner == 0, N, dN, T,
                           weight);
#pragma unroll 1
      for (int index = 1; __any_sync(0xffffffffu, index < int(node >> 24)); ++index)
        add_element_products(
            A.geometry + kRecord * std::int64_t(__shfl_sync(0xffffffffu, member, index)), p,
            owner == unsigned(index), N, dN, T, weight);
      if (before_barrier) pass_barrier();
      // The pack's blocks K = lambda T + mu T^T + mu tr(T) I (the isotropic
      // D of B^T D B in T's terms) and node a's body force, formed before the
      // wait, so that only the adds lie between it and the count that the
      // packs after this one wait for (the critical path of the colour order).
      // Formed before the barrier above instead, K would be live across it and
      // spill.
      double K[2][9];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const double trace = T[0][0][h] + T[1][1][h] + T[2][2][h];
#pragma unroll
        for (int i = 0; i < 3; ++i)
#pragma unroll
          for (int j = 0; j < 3; ++j)
            K[h][3 * i + j] = i == j ? (A.lambda + A.mu) * T[i][i][h] + A.mu * trace
                                     : A.lambda * T[i][j][h] + A.mu * T[j][i][h];
      }
      // Body force of node a: the sum over its 4 lanes' Gauss points.
      weight += __shfl_xor_sync(0xffffffffu, weight, 1);
      weight += __shfl_xor_sync(0xffffffffu, weight, 2);
      const double node_force = weight * body_component(A, p);
      // Wait until node a's packs of lower colours have added its blocks (no
      // other warp adds to them until this pack has: the next pack containing
      // node a waits for this one; one pack's 64 blocks are distinct). The warp
      // polls as one, a vote per poll, so it does not diverge while it waits (a
      // diverged warp takes the slow paths of the shuffles and __syncwarp
      // after the adds). The lanes of blocks the cluster does not keep (nodes
      // outside it; the later node's copy of a block kept once) skip their adds
      // and the warp reconverges before its count, rather than adding into a
      // sink block (shared-memory traffic that nothing reads).
      const unsigned slot = node & 0xFFu;
      const int wait = int(node >> 8 & 0xFFu);
      while (__any_sync(0xffffffffu, p == 0 && slot != kClusterNoSlot &&
                                         *static_cast<volatile int*>(added + slot) < wait)) {
      }
      __threadfence_block();
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const unsigned word = h == 0 ? targets & 0xFFFFu : targets >> 16;
        if (word == kClusterNoBlock) continue;
        const bool first_add = (word & kClusterFirstAdd) != 0;
        const unsigned block = word & ~unsigned(kClusterFirstAdd);
        double* target = accumulator + kBlockStride * block;
        double v[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        if (!first_add) {
#pragma unroll
          for (int m = 0; m < 4; ++m) {
            const double2 pair = reinterpret_cast<const double2*>(target)[m];
            v[2 * m] = pair.x;
            v[2 * m + 1] = pair.y;
          }
          v[8] = target[8];
        }
#pragma unroll
        for (int m = 0; m < 9; ++m) v[m] += K[h][m];
#pragma unroll
        for (int m = 0; m < 4; ++m)
          reinterpret_cast<double2*>(target)[m] = make_double2(v[2 * m], v[2 * m + 1]);
        target[8] = v[8];
      }
      load[slot != kClusterNoSlot ? 3 * slot + p : 3 * A.max_nodes + p] += node_force;
      __syncwarp();  // the warp's adds to node a's blocks, then its count
      if (p == 0 && slot != kClusterNoSlot) {
        __threadfence_block();
        atomicAdd(added + slot, 1);
      }
    }
    if (before_barrier) pass_barrier();  // a warp without packs in this cluster
    wait_all_async();                    // the tables' copies
    __syncthreads();                     // every element has added
    for (int m = threadIdx.x; m < nodes; m += kClusterThreads) added[m] = 0;

    const auto* row_table = reinterpret_cast<const std::uint16_t*>(
                                s_cluster + row_table_offset(A.max_blocks, A.max_nodes)) +
                            (A.row_block_offsets[c] & 7);
    for (int s = warp; s < nodes; s += kClusterWarps) {
      const std::int64_t node = slot_node_table[s], row = slot_row_table[s];
      const int first = slot_block_table[s];
      const int row_length = 3 * (slot_block_table[s + 1] - first);
      for (int v = lane; v < row_length; v += 32) {
        const int b = v / 3, jj = v - 3 * b;
        const unsigned entry = row_table[first + b];
        // Value (i, jj) of the kept block, or (jj, i) where the row reads it
        // transposed (element matrices are symmetric). The offset and stride
        // are chosen once per block rather than a select per value, which
        // keeps the 3 values' addresses out of extra registers (fewer spills).
        const bool transposed = (entry & kClusterTransposed) != 0;
        double* value = accumulator + kBlockStride * (entry & ~unsigned(kClusterTransposed)) +
                        (transposed ? 3 * jj : jj);
        const int step = transposed ? 1 : 3;
#pragma unroll
        for (int i = 0; i < 3; ++i) A.values[row + i * row_length + v] = value[i * step];
      }
      if (lane < 3) {
        A.load[3 * node + lane] = load[3 * s + lane];
        load[3 * s + lane] = 0;
      }
    }
  }
}

template <int Warps, int BlocksPerSm>
void launch_shape(const Hex8ClusterArrays& a, std::int64_t clusters, cudaStream_t stream) {
  const auto kernel = cluster_gather_kernel<Warps, BlocksPerSm>;
  const std::size_t shared = shared_bytes(a.max_blocks, a.max_nodes, a.max_row_blocks, Warps);
  PPKIT_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
  int device = 0, sms = 0, resident = 0;
  PPKIT_CUDA_CHECK(cudaGetDevice(&device));
  PPKIT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  PPKIT_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, 32 * Warps, shared));
  if (resident == 0)
    throw Error("cuda/cluster-gather: a cluster needs " + std::to_string(shared) +
                    " bytes of shared memory, more than the device gives one block",
                "clusters built with cluster_block_capacity()");
  const std::int64_t blocks = std::min<std::int64_t>(clusters, std::int64_t(sms) * resident);
  kernel<<<unsigned(blocks), 32 * Warps, shared, stream>>>(a, clusters);
  PPKIT_CUDA_CHECK_LAUNCH();
}

}  // namespace

ClusterKernelShape cluster_kernel_shape() {
  int device = 0, per_sm = 0, reserved = 0;
  PPKIT_CUDA_CHECK(cudaGetDevice(&device));
  PPKIT_CUDA_CHECK(
      cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  PPKIT_CUDA_CHECK(
      cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
  // A box's 64-node brick with its blocks kept once: 1,260 accumulator blocks
  // and 1,728 row blocks.
  const long long two = 2 * ((long long)shared_bytes(1260, 64, 1728, 10) + reserved);
  if (per_sm >= two) return ClusterKernelShape{10, 2, true};
  return ClusterKernelShape{20, 1, false};
}

void launch_cluster_gather(const Hex8ClusterArrays& a, std::int64_t clusters,
                           const ClusterKernelShape& shape, void* stream) {
  if (clusters == 0) return;
  const auto on = static_cast<cudaStream_t>(stream);
  if (shape.warps == 10 && shape.blocks_per_sm == 2 && shape.symmetric_blocks)
    launch_shape<10, 2>(a, clusters, on);
  else if (shape.warps == 20 && shape.blocks_per_sm == 1 && !shape.symmetric_blocks)
    launch_shape<20, 1>(a, clusters, on);
  else
    throw Error("cuda/cluster-gather: no kernel for " + std::to_string(shape.warps) +
                    " warps and " + std::to_string(shape.blocks_per_sm) + " blocks per SM",
                "the shapes of cluster_kernel_shape()");
}

int cluster_gather_binary_version() {
  cudaFuncAttributes attributes{};
  if (cudaFuncGetAttributes(&attributes, cluster_gather_kernel<20, 1>) != cudaSuccess) {
    (void)cudaGetLastError();  // not a sticky error: leave nothing for the next launch check
    return 0;
  }
  return attributes.binaryVersion;
}

int cluster_block_capacity(int max_nodes) {
  int device = 0, optin = 0;
  PPKIT_CUDA_CHECK(cudaGetDevice(&device));
  PPKIT_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  // shared_bytes(0, max_nodes, 0, 20) counts the word stages of the larger
  // shape's 20 warps already; each row block then takes
  // at most an accumulator block and its 16-bit entry in the row table (8
  // bytes for the table's rounding).
  const long long bytes = (long long)optin - (long long)shared_bytes(0, max_nodes, 0, 20) - 8;
  return bytes > 0 ? int(bytes / (kBlockStride * (long long)sizeof(double) + 2)) : 0;
}

}  // namespace ppkit::fem::cuda_cluster
