#pragma once
// The element-wise kernels of fem.assemble (Kiran et al. 2019): (a) thread per
// element, (b)/(c) warp per element with 4 or 8 threads per row (and (b) with
// atomics), (d) PPNI, (e) two kernels. Part of assemble_gpu_kernels.cuh.
#include "backends/cuda_hip/fem/assemble_gpu_device.cuh"

namespace ppkit::fem::assembly_kernels {
namespace {

// ---- (a) thread per element ---------------------------------------------------
__global__ void thread_per_element_kernel(Hex8AssemblyArrays A, std::int64_t first,
                                          std::int64_t count) {
  const std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= count) return;
  const std::int64_t e = first + t;
  double x[24], Ke[576], fe[24];
  for (int m = 0; m < 24; ++m) {
    x[m] = A.coordinates[24 * e + m];
    fe[m] = 0;
  }
  for (int m = 0; m < 576; ++m) Ke[m] = 0;
  for (int q = 0; q < 8; ++q) {
    double J[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int a = 0; a < 8; ++a)
      for (int k = 0; k < 3; ++k)
        for (int i = 0; i < 3; ++i) J[3 * k + i] += c_dN[(q * 8 + a) * 3 + k] * x[3 * a + i];
    const double det = det3(J), inv_det = 1.0 / det;
    double inv[9];
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) inv[3 * i + k] = inverse_entry(J, inv_det, i, k);
    double g[24];
    for (int a = 0; a < 8; ++a)
      for (int i = 0; i < 3; ++i) {
        const double* dN = &c_dN[(q * 8 + a) * 3];
        g[3 * a + i] = inv[3 * i] * dN[0] + inv[3 * i + 1] * dN[1] + inv[3 * i + 2] * dN[2];
      }
    for (int a = 0; a < 8; ++a) {
      for (int b = 0; b < 8; ++b) {
        double K[9];
        for (int m = 0; m < 9; ++m) K[m] = 0;
        add_entries(K, det, A.lambda, A.mu, g + 3 * a, g + 3 * b);
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) Ke[24 * (3 * a + i) + 3 * b + j] += K[3 * i + j];
      }
      for (int i = 0; i < 3; ++i) fe[3 * a + i] += c_N[8 * q + a] * det * A.body_force[i];
    }
  }
  for (int a = 0; a < 8; ++a) {
    const std::int64_t node = A.nodes[8 * e + a];
    const std::int64_t stride = A.row_offsets[3 * node + 1] - A.row_offsets[3 * node];
    for (int b = 0; b < 8; ++b) {
      const std::int64_t base = A.block_positions[64 * e + 8 * a + b];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          A.values[base + i * stride + j] += Ke[24 * (3 * a + i) + 3 * b + j];
    }
    for (int i = 0; i < 3; ++i) A.load[3 * node + i] += fe[3 * a + i];
  }
}

// ---- (b)/(c) warp per element, 4 or 8 threads per row ------------------------
// In pass p lane l owns the 3x3 block of rows of node Map::row(l, p) and
// columns of node Map::column(l, p).
// Lane l < 24 holds coordinate (node l/3, component l%3) in a register.
struct FourPerRow {  // rows of node l/4, columns of nodes 2(l%4) + p
  static constexpr bool kRowPerPass = false, kColumnPerPass = true;
  __device__ static int row(int lane, int) { return lane / 4; }
  __device__ static int column(int lane, int pass) { return 2 * (lane % 4) + pass; }
};
struct EightPerRow {  // rows of nodes 2(l/8) + p, columns of node l%8
  static constexpr bool kRowPerPass = true, kColumnPerPass = false;
  __device__ static int row(int lane, int pass) { return 2 * (lane / 8) + pass; }
  __device__ static int column(int lane, int) { return lane % 8; }
};

template <class Map, bool kAtomic>
__global__ void __launch_bounds__(kThreadsPerBlock)
    warp_kernel(Hex8AssemblyArrays A, std::int64_t first, std::int64_t count) {
  const std::int64_t w =
      (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / gpu::kSubgroupWidth;
  if (w >= count) return;  // whole sub-groups leave together
  const int lane = element_lane();
  const std::int64_t e = first + w;
  const int my_a = lane / 3,
            my_i = lane % 3;  // coordinate / derivative this lane holds (lane < 24)
  const double x = lane < 24 ? A.coordinates[24 * e + lane] : 0.0;
  const int row0 = Map::row(lane, 0), row1 = Map::row(lane, 1);
  const int col0 = Map::column(lane, 0), col1 = Map::column(lane, 1);
  double K0[9], K1[9];
#pragma unroll
  for (int m = 0; m < 9; ++m) K0[m] = K1[m] = 0;
  double f = 0;
  for (int q = 0; q < 8; ++q) {
    // Jacobian: for each k, lanes 3a+i hold dN(q,a,k) x_ai; a shuffle-down tree
    // over strides 12, 6, 3 sums the 8 nodes into lanes 0..2 (3 of 9 entries per pass).
    double J[9];
#pragma unroll
    for (int k = 0; k < 3; ++k) {
      double p = lane < 24 ? c_dN[(q * 8 + my_a) * 3 + k] * x : 0.0;
      p += gpu::shfl_down(p, 12u, gpu::kSubgroupWidth);
      p += gpu::shfl_down(p, 6u, gpu::kSubgroupWidth);
      p += gpu::shfl_down(p, 3u, gpu::kSubgroupWidth);
#pragma unroll
      for (int i = 0; i < 3; ++i) J[3 * k + i] = gpu::shfl(p, i, gpu::kSubgroupWidth);
    }
    // Determinant and inverse in every lane's registers (cheaper than a
    // one-lane compute + broadcast on current GPUs).
    const double det = det3(J), inv_det = 1.0 / det;
    double g = 0;
    if (lane < 24) {
      // Lane 3a+i keeps dN_a/dx_i = sum_k inv[3i + k] dN_a/dxi_k (compile-time indices).
      const double d0 = c_dN[(q * 8 + my_a) * 3], d1 = c_dN[(q * 8 + my_a) * 3 + 1],
                   d2 = c_dN[(q * 8 + my_a) * 3 + 2];
      double gi[3];
#pragma unroll
      for (int i = 0; i < 3; ++i)
        gi[i] =
            (cofactor(J, i, 0) * d0 + cofactor(J, i, 1) * d1 + cofactor(J, i, 2) * d2) * inv_det;
      g = my_i == 0 ? gi[0] : (my_i == 1 ? gi[1] : gi[2]);
      f += c_N[8 * q + my_a] * det;
    }
    double ga0[3], ga1[3], gb0[3], gb1[3];
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      ga0[c] = gpu::shfl(g, 3 * row0 + c, gpu::kSubgroupWidth);
      ga1[c] = Map::kRowPerPass ? gpu::shfl(g, 3 * row1 + c, gpu::kSubgroupWidth) : ga0[c];
      gb0[c] = gpu::shfl(g, 3 * col0 + c, gpu::kSubgroupWidth);
      gb1[c] = Map::kColumnPerPass ? gpu::shfl(g, 3 * col1 + c, gpu::kSubgroupWidth) : gb0[c];
    }
    add_entries(K0, det, A.lambda, A.mu, ga0, gb0);
    add_entries(K1, det, A.lambda, A.mu, ga1, gb1);
  }
  // Assembly in two passes; the positions are stored in lane order [32 pass + lane].
  const std::int32_t my_node = lane < 8 ? A.nodes[8 * e + lane] : 0;
  const std::int64_t node0 = gpu::shfl(my_node, row0, gpu::kSubgroupWidth);
  const std::int64_t node1 = gpu::shfl(my_node, row1, gpu::kSubgroupWidth);
  const std::int64_t stride0 = A.row_offsets[3 * node0 + 1] - A.row_offsets[3 * node0];
  const std::int64_t stride1 =
      Map::kRowPerPass ? A.row_offsets[3 * node1 + 1] - A.row_offsets[3 * node1] : stride0;
  add_block<kAtomic>(A.values, A.block_positions[64 * e + lane], stride0, K0);       // pass 0
  add_block<kAtomic>(A.values, A.block_positions[64 * e + 32 + lane], stride1, K1);  // pass 1
  const std::int64_t load_node = gpu::shfl(my_node, lane < 24 ? my_a : 0, gpu::kSubgroupWidth);
  if (lane < 24) {
    double* target = &A.load[3 * load_node + my_i];
    const double value = f * body_component(A, my_i);
    if (kAtomic)
      gpu::atomic_add(target, value);
    else
      *target += value;
  }
}

// ---- (d) PPNI, 4 threads per row ---------------------------------------------
struct PpniShared {
  double x[24], jac[72], inv[72], det[8], inv_det[8], g[192];
};

__global__ void __launch_bounds__(kThreadsPerBlock)
    ppni_4tpr_kernel(Hex8AssemblyArrays A, std::int64_t first, std::int64_t count) {
  __shared__ PpniShared shared[kElementsPerBlock];
  const int warp_in_block = element_in_block(), lane = element_lane();
  const std::int64_t w = std::int64_t(blockIdx.x) * kElementsPerBlock + warp_in_block;
  if (w >= count) return;
  PpniShared& s = shared[warp_in_block];
  const std::int64_t e = first + w;
  if (lane < 24) s.x[lane] = A.coordinates[24 * e + lane];
  gpu::warp_sync();
  // All 72 Jacobian entries at once: jac[9q + 3k + i].
  for (int m = lane; m < 72; m += 32) {
    const int q = m / 9, k = (m % 9) / 3, i = m % 3;
    double sum = 0;
#pragma unroll
    for (int a = 0; a < 8; ++a) sum += c_dN[(q * 8 + a) * 3 + k] * s.x[3 * a + i];
    s.jac[m] = sum;
  }
  gpu::warp_sync();
  if (lane < 8) {  // 8 lanes: determinants
    s.det[lane] = det3(&s.jac[9 * lane]);
    s.inv_det[lane] = 1.0 / s.det[lane];
  }
  gpu::warp_sync();
  for (int m = lane; m < 72; m += 32) {  // inverse entries by cofactors
    const int q = m / 9, i = (m % 9) / 3, k = m % 3;
    s.inv[m] = inverse_entry(&s.jac[9 * q], s.inv_det[q], i, k);
  }
  gpu::warp_sync();
  for (int m = lane; m < 192; m += 32) {  // physical derivatives g[24q + 3a + i]
    const int q = m / 24, a = (m % 24) / 3, i = m % 3;
    const double* dN = &c_dN[(q * 8 + a) * 3];
    s.g[m] = s.inv[9 * q + 3 * i] * dN[0] + s.inv[9 * q + 3 * i + 1] * dN[1] +
             s.inv[9 * q + 3 * i + 2] * dN[2];
  }
  gpu::warp_sync();
  const int row_node = lane / 4, col0 = 2 * (lane % 4), col1 = col0 + 1;
  double K0[9], K1[9];
#pragma unroll
  for (int m = 0; m < 9; ++m) K0[m] = K1[m] = 0;
  for (int q = 0; q < 8; ++q) {
    const double* g = &s.g[24 * q];
    add_entries(K0, s.det[q], A.lambda, A.mu, g + 3 * row_node, g + 3 * col0);
    add_entries(K1, s.det[q], A.lambda, A.mu, g + 3 * row_node, g + 3 * col1);
  }
  const std::int32_t my_node = lane < 8 ? A.nodes[8 * e + lane] : 0;
  const std::int64_t node = gpu::shfl(my_node, row_node, gpu::kSubgroupWidth);
  const std::int64_t stride = A.row_offsets[3 * node + 1] - A.row_offsets[3 * node];
  add_block<false>(A.values, A.block_positions[64 * e + lane], stride, K0);       // pass 0
  add_block<false>(A.values, A.block_positions[64 * e + 32 + lane], stride, K1);  // pass 1
  const int my_a = lane / 3, my_i = lane % 3;
  const std::int64_t load_node = gpu::shfl(my_node, lane < 24 ? my_a : 0, gpu::kSubgroupWidth);
  if (lane < 24) {
    double f = 0;
    for (int q = 0; q < 8; ++q) f += c_N[8 * q + my_a] * s.det[q];
    A.load[3 * load_node + my_i] += f * body_component(A, my_i);
  }
}

// ---- (e) two kernels -----------------------------------------------------------
// Kernel 1 (also (h)'s and (i)'s): one thread per (element, Gauss point) writes
// the inverse Jacobian (9) and |J| w (1) to global memory:
// geometry[10 (8 e + q) + m]. It reads the element's 8 nodes and their
// coordinates from the mesh's (3 per node, shared by the node's elements)
// rather than the element's own 24-coordinate copy: 32 bytes of node numbers
// and coordinates its neighbours read too (cache hits) instead of 192 bytes
// of its own. The natural derivatives come from the Gauss point's 12
// shape-function products in registers (Hex8GaussProducts, the node a
// compile-time constant), not from a shared table (72 loads a thread with
// 4-way bank conflicts, which keep the L1/shared pipe busy). A block's 1,280
// results are staged in shared memory in their global order (each thread's
// 10 doubles as 5 16-byte stores: 8 consecutive threads' stores, 80 B apart,
// fall on distinct 16-byte bank groups) and stored contiguously, in whole
// 32-byte sectors: on sm_90 by one bulk copy per block (gpu_portability.hpp),
// which takes the stores off the threads, elsewhere by 16-byte stores. Each
// thread storing its own 10 doubles straight from registers, 80 B apart,
// would leave partial sectors.
constexpr int kGeometryThreads = 128;
__global__ void __launch_bounds__(kGeometryThreads)
    gauss_geometry_kernel(Hex8AssemblyArrays A, double* geometry, std::int64_t points) {
  __shared__ __align__(16) double2 s_records[5 * kGeometryThreads];
  const std::int64_t first =
      std::int64_t(blockIdx.x) * kGeometryThreads;  // the block's first point
  const std::int64_t t = first + threadIdx.x;
  if (t < points) {
    const std::int64_t e = t / 8;
    const int q = int(t % 8);
    const Hex8GaussProducts shape(q);  // 8 dN_a/dxi_k at Gauss point q
    // The element's 8 nodes (two 16-byte loads), then each node's 3
    // coordinates: 32 bytes and coordinates its neighbours read too, instead
    // of the element's own 192 bytes.
    const auto* node_pairs = reinterpret_cast<const int4*>(A.nodes + 8 * e);  // 16-byte aligned
    const int4 low = node_pairs[0], high = node_pairs[1];
    const std::int32_t node_of[8] = {low.x, low.y, low.z, low.w, high.x, high.y, high.z, high.w};
    double J[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};  // [3 k + i] = dx_i / dxi_k
    hex8_for_each_node([&](auto node) {
      constexpr int a = decltype(node)::value;
      const double dN[3] = {shape.scaled_derivative<a, 0>(), shape.scaled_derivative<a, 1>(),
                            shape.scaled_derivative<a, 2>()};
      const double* x = A.node_coordinates + 3 * std::int64_t(node_of[a]);
      const double xa[3] = {x[0], x[1], x[2]};
#pragma unroll
      for (int k = 0; k < 3; ++k)
#pragma unroll
        for (int i = 0; i < 3; ++i) J[3 * k + i] += dN[k] * xa[i];
    });
#pragma unroll
    for (int m = 0; m < 9; ++m) J[m] *= 0.125;
    const double det = det3(J), inv_det = 1.0 / det;
    double record[10];
#pragma unroll
    for (int i = 0; i < 3; ++i)
#pragma unroll
      for (int k = 0; k < 3; ++k) record[3 * i + k] = inverse_entry(J, inv_det, i, k);
    record[9] = det;  // Gauss weights are 1
#pragma unroll
    for (int m = 0; m < 5; ++m)
      s_records[5 * threadIdx.x + m] = make_double2(record[2 * m], record[2 * m + 1]);
  }
  const int block_points =
      int(points - first < kGeometryThreads ? points - first : kGeometryThreads);
  auto* const out = reinterpret_cast<double2*>(geometry + 10 * first);
#if defined(PPKIT_GPU_BULK_COPY)
  gpu::bulk_store_fence();
  __syncthreads();
  if (threadIdx.x == 0) {
    gpu::bulk_copy_to_global(out, s_records, 80u * unsigned(block_points));
    gpu::bulk_copy_wait_read();  // the staging stays until read
  }
#else
  __syncthreads();
  for (int m = threadIdx.x; m < 5 * block_points; m += kGeometryThreads) out[m] = s_records[m];
#endif
}

// Kernel 2: a block of 576 threads per element, thread r*24 + c computes entry
// (r, c) of Ke (row-major) over the 8 Gauss points and adds it; the 24 threads
// of column 0 also add the body-force entry of row r.
constexpr int kEntryThreads = 576;
__global__ void __launch_bounds__(kEntryThreads)
    entry_kernel(Hex8AssemblyArrays A, const double* geometry, std::int64_t first) {
  __shared__ double s_geometry[80], s_dN[192];
  const std::int64_t e = first + blockIdx.x;
  const int t = threadIdx.x;
  if (t < 80) s_geometry[t] = geometry[80 * e + t];
  if (t < 192) s_dN[t] = c_dN[t];
  __syncthreads();
  const int row = t / 24, column = t % 24;
  const int a = row / 3, i = row % 3, b = column / 3, j = column % 3;
  double K = 0, f = 0;
#pragma unroll 2
  for (int q = 0; q < 8; ++q) {
    const double* inv = &s_geometry[10 * q];
    const double* dNa = &s_dN[(q * 8 + a) * 3];
    const double* dNb = &s_dN[(q * 8 + b) * 3];
    double ga[3], gb[3];
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      ga[c] = inv[3 * c] * dNa[0] + inv[3 * c + 1] * dNa[1] + inv[3 * c + 2] * dNa[2];
      gb[c] = inv[3 * c] * dNb[0] + inv[3 * c + 1] * dNb[1] + inv[3 * c + 2] * dNb[2];
    }
    const double gai = i == 0 ? ga[0] : (i == 1 ? ga[1] : ga[2]);
    const double gaj = j == 0 ? ga[0] : (j == 1 ? ga[1] : ga[2]);
    const double gbi = i == 0 ? gb[0] : (i == 1 ? gb[1] : gb[2]);
    const double gbj = j == 0 ? gb[0] : (j == 1 ? gb[1] : gb[2]);
    const double dot = ga[0] * gb[0] + ga[1] * gb[1] + ga[2] * gb[2];
    const double s = inv[9];
    K += s * (A.lambda * gai * gbj + A.mu * gaj * gbi + (i == j ? A.mu * dot : 0.0));
    f += c_N[8 * q + a] * s;
  }
  const std::int64_t node = A.nodes[8 * e + a];
  const std::int64_t stride = A.row_offsets[3 * node + 1] - A.row_offsets[3 * node];
  A.values[A.block_positions[64 * e + 8 * a + b] + i * stride + j] += K;
  if (column == 0) A.load[3 * node + i] += f * body_component(A, i);
}

}  // namespace

}  // namespace ppkit::fem::assembly_kernels
