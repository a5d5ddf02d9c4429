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
// sm_80 the nine T(i, j) take 18 m8n8k4 products; on sm_90 the pairs
// T(0, j), T(1, j) are one m16n8k8 product (rows i = 0, 1 stacked), 3 of them
// plus 6 m8n8k4 for T(2, j), which issue in 2 / 3 of the time (m16n8k8 does
// 4 times the work of m8n8k4 at half its rate: docs/results/h200.md, tenth round).
#include "backends/cuda/fem/assemble_cluster_kernels.hpp"

#include <cuda_runtime.h>

#include "backends/cuda/core/cuda_check.hpp"
#include "ppkit/fem/cluster_layout.hpp"  // kClusterNoBlock, kClusterNoSlot
#include "ppkit/fem/hex8_shape.hpp"

namespace ppkit::fem::cuda_cluster {
namespace {

constexpr int kClusterWarps = 8;  // warps per block: one colour's elements in parallel
constexpr int kClusterThreads = 32 * kClusterWarps;

// C += A B (8 x 4 times 4 x 8), lane 4 g + p: a = A(g, p), b = B(p, g),
// c = {C(g, 2 p), C(g, 2 p + 1)}.
__device__ __forceinline__ void mma_m8n8k4(double& c0, double& c1, double a, double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
      : "+d"(c0), "+d"(c1)
      : "d"(a), "d"(b));
#else
  (void)c0, (void)c1, (void)a, (void)b;
  __trap();  // unreachable: cluster_gather_binary_version() keeps older builds off this kernel
#endif
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// C += A B (16 x 8 times 8 x 8), lane 4 g + p: a = {A(g, p), A(g + 8, p),
// A(g, p + 4), A(g + 8, p + 4)}, b = {B(p, g), B(p + 4, g)},
// c = {C(g, 2 p), C(g, 2 p + 1), C(g + 8, 2 p), C(g + 8, 2 p + 1)}.
__device__ __forceinline__ void mma_m16n8k8(double& c0, double& c1, double& c2, double& c3,
                                            double a0, double a1, double a2, double a3, double b0,
                                            double b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+d"(c0), "+d"(c1), "+d"(c2), "+d"(c3)
      : "d"(a0), "d"(a1), "d"(a2), "d"(a3), "d"(b0), "d"(b1));
}
#endif

__device__ __forceinline__ double body_component(const Hex8ClusterArrays& A, int i) {
  return i == 0 ? A.body_force[0] : (i == 1 ? A.body_force[1] : A.body_force[2]);
}

// One block per cluster, 8 warps. Dynamic shared memory: the accumulator
// (9 doubles per block, [9 block + 3 i + j], the cluster's nodes' column
// blocks in row order) and the load (3 per node).
__global__ void __launch_bounds__(kClusterThreads)
    cluster_gather_kernel(const Hex8ClusterArrays A) {
  extern __shared__ double s_cluster[];
  const std::int64_t cluster = blockIdx.x;
  const std::int64_t first_slot = A.cluster_slots[cluster];
  const int nodes = int(A.cluster_slots[cluster + 1] - first_slot);
  double* accumulator = s_cluster;
  double* load = s_cluster + 9 * A.max_blocks;
  for (int m = threadIdx.x; m < 9 * A.cluster_blocks[cluster]; m += kClusterThreads)
    accumulator[m] = 0;
  for (int m = threadIdx.x; m < 3 * nodes; m += kClusterThreads) load[m] = 0;
  __syncthreads();

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, a = lane / 4, p = lane % 4;
  // N_a and dN_a/dxi_k at this lane's Gauss points p and p + 4 (index h).
  double N[2], dN[2][3];
  hex8_gauss_shape(a, p, N[0], dN[0]);
  hex8_gauss_shape(a, p + 4, N[1], dN[1]);

  for (std::int64_t group = A.cluster_colours[cluster]; group < A.cluster_colours[cluster + 1];
       ++group) {
    const std::int64_t last = A.colour_offsets[group + 1];
#pragma unroll 1
    for (std::int64_t k = A.colour_offsets[group] + warp; k < last; k += kClusterWarps) {
      const double* record = A.geometry + 80 * std::int64_t(A.elements[k]);
      double g[2][3], wg[2][3], weight = 0;  // g_a(q), W_q g_a(q), sum_q N_a(q) W_q
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
#pragma unroll
        for (int i = 0; i < 3; ++i) {
          g[h][i] = inv[3 * i] * dN[h][0] + inv[3 * i + 1] * dN[h][1] + inv[3 * i + 2] * dN[h][2];
          wg[h][i] = inv[9] * g[h][i];
        }
        weight += N[h] * inv[9];
      }
      double T[3][3][2];  // T(i, j)[a][2 p + h]
#pragma unroll
      for (int i = 0; i < 3; ++i)
#pragma unroll
        for (int j = 0; j < 3; ++j) T[i][j][0] = T[i][j][1] = 0;
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
      // The elements of one colour share no node of the cluster, so their
      // blocks are distinct, and so are one element's 64.
      const std::uint32_t targets = A.lane_blocks[32 * k + lane];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const unsigned block = h == 0 ? targets & 0xFFFFu : targets >> 16;
        if (block == kClusterNoBlock) continue;
        const double trace = T[0][0][h] + T[1][1][h] + T[2][2][h];
        double* target = accumulator + 9 * block;
        double old[9];
#pragma unroll
        for (int m = 0; m < 9; ++m) old[m] = target[m];
#pragma unroll
        for (int i = 0; i < 3; ++i)
#pragma unroll
          for (int j = 0; j < 3; ++j)
            target[3 * i + j] = old[3 * i + j] + A.lambda * T[i][j][h] + A.mu * T[j][i][h] +
                                (i == j ? A.mu * trace : 0.0);
      }
      // Body force of node a: the sum over its 4 lanes' Gauss points.
      weight += __shfl_xor_sync(0xffffffffu, weight, 1);
      weight += __shfl_xor_sync(0xffffffffu, weight, 2);
      if (p < 3) {
        const unsigned slot = A.node_slots[8 * k + a];
        if (slot != kClusterNoSlot) load[3 * slot + p] += weight * body_component(A, p);
      }
    }
    __syncthreads();  // the next colour's elements may share this one's nodes
  }

  // The cluster's rows, a warp per node: its 3 rows are consecutive and
  // equally long (csr_pattern.hpp), value v of each row by lane v % 32.
  for (int s = warp; s < nodes; s += kClusterWarps) {
    const std::int64_t node = A.node_of_slot[first_slot + s];
    const std::int64_t row = A.row_offsets[3 * node];
    const int row_length = int(A.row_offsets[3 * node + 1] - row);
    const double* blocks = accumulator + 9 * A.slot_blocks[first_slot + s];
    for (int v = lane; v < row_length; v += 32) {
      const int c = v / 3, j = v - 3 * c;
#pragma unroll
      for (int i = 0; i < 3; ++i) A.values[row + i * row_length + v] = blocks[9 * c + 3 * i + j];
    }
    if (lane < 3) A.load[3 * node + lane] = load[3 * s + lane];
  }
}

std::size_t shared_bytes(int max_blocks, int max_nodes) {
  return sizeof(double) * (9 * std::size_t(max_blocks) + 3 * std::size_t(max_nodes));
}

}  // namespace

void launch_cluster_gather(const Hex8ClusterArrays& a, std::int64_t clusters) {
  if (clusters == 0) return;
  const std::size_t shared = shared_bytes(a.max_blocks, a.max_nodes);
  PPKIT_CUDA_CHECK(cudaFuncSetAttribute(cluster_gather_kernel,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
  cluster_gather_kernel<<<unsigned(clusters), kClusterThreads, shared>>>(a);
  PPKIT_CUDA_CHECK_LAUNCH();
}

int cluster_gather_binary_version() {
  cudaFuncAttributes attributes{};
  if (cudaFuncGetAttributes(&attributes, cluster_gather_kernel) != cudaSuccess) {
    (void)cudaGetLastError();  // not a sticky error: leave nothing for the next launch check
    return 0;
  }
  return attributes.binaryVersion;
}

int cluster_block_capacity(int max_nodes) {
  int device = 0, optin = 0;
  PPKIT_CUDA_CHECK(cudaGetDevice(&device));
  PPKIT_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const long long bytes = (long long)optin - (long long)shared_bytes(0, max_nodes);
  return bytes > 0 ? int(bytes / (9 * (long long)sizeof(double))) : 0;
}

}  // namespace ppkit::fem::cuda_cluster
