#pragma once
// Kernels of fem.assemble for CUDA and HIP, one source: included only by
// backends/cuda/fem/assemble_cuda_kernels.cu (nvcc) and
// backends/hip/fem/assemble_hip_kernels.hip (HIP compiler), each of which
// defines Hex8Kernels<its backend>. Plain structs only (assembly_device_arrays.hpp).
// Entry formula (isotropic B^T D B, entry by entry), for element rows of node
// a, component i, and columns of node b, component j, with g = dN/dx:
//   K_(a i)(b j) = sum_q |J_q| w_q (lambda g_ai g_bj + mu g_aj g_bi + mu delta_ij g_a . g_b)
//
// Vendor differences go through backends/cuda_hip/core/gpu_portability.hpp. "Warp
// per element" means one 32-lane sub-group (gpu::kSubgroupWidth) per element:
// a whole warp on NVIDIA, half a 64-lane wavefront on AMD/DCU, so a wavefront
// assembles two elements. Every shuffle takes width kSubgroupWidth, so lane
// numbers (0..31 below) are relative to the element's sub-group and no data
// crosses into the other element's half; the per-element shared-memory
// scratch is indexed by element_in_block(); a sub-group past the last
// element may leave while the other half of its wavefront continues, since no
// shuffle reads across halves. Blocks are multiples of 64 threads (128, 576).
// The thread-per-element (a) and two-kernel (e) kernels use no cross-lane
// operations and run unchanged.
#include "backends/cuda_hip/fem/assemble_gpu_kernels.hpp"
#include "backends/cuda_hip/core/gpu_check.hpp"
#include "backends/cuda_hip/core/gpu_portability.hpp"
#include "ppkit/fem/hex8_shape.hpp"  // hex8_sign

#if defined(PPKIT_GPU_HIP)
#define PPKIT_FEM_SHAPE_TABLES hip_shape_tables
#else
#define PPKIT_FEM_SHAPE_TABLES cuda_shape_tables
#endif

// Shape tables at the Gauss points in constant memory, filled by
// Hex8Kernels::upload_shape_tables. External linkage on purpose: a HIP compiler
// (clang 15, whole-program mode) keeps no symbol for an internal-linkage
// device variable, so hipMemcpyToSymbol could not find it and the kernels
// would read its zero initialiser. The namespace names the backend, so a
// library built with both has one pair of tables each.
namespace ppkit::fem::PPKIT_FEM_SHAPE_TABLES {
__constant__ double c_dN[192];  // [(q*8 + a)*3 + k]
__constant__ double c_N[64];    // [q*8 + a]
}  // namespace ppkit::fem::PPKIT_FEM_SHAPE_TABLES

namespace ppkit::fem::assembly_kernels {
namespace {

using PPKIT_FEM_SHAPE_TABLES::c_dN;
using PPKIT_FEM_SHAPE_TABLES::c_N;

// The lane maps below (lanes 0..31, block positions [32 pass + lane]) are the
// paper's 32-lane warp; the host glue orders block positions the same way.
static_assert(gpu::kSubgroupWidth == 32, "the FEM lane maps are written for 32 lanes per element");

// Lane within the element's 32-lane sub-group and sub-group (element) within
// the block, from the unsigned thread index: a mask and a shift, as in the
// kernels' first CUDA form (element_lane() divides the signed value).
__device__ __forceinline__ int element_lane() {
  return static_cast<int>(threadIdx.x % gpu::kSubgroupWidth);
}
__device__ __forceinline__ int element_in_block() {
  return static_cast<int>(threadIdx.x / gpu::kSubgroupWidth);
}

// Elements (32-lane sub-groups) per block of the warp-per-element kernels: 4
// CUDA warps or 2 AMD wavefronts of 128 threads.
constexpr int kElementsPerBlock = 4;
constexpr int kThreadsPerBlock = gpu::kSubgroupWidth * kElementsPerBlock;
static_assert(kThreadsPerBlock % gpu::kWarpSize == 0, "blocks hold whole warps/wavefronts");

__device__ __forceinline__ double det3(const double* J) {
  return J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
         J[2] * (J[3] * J[7] - J[4] * J[6]);
}
// Cofactor C_ki of J (J[3k + i] = dx_i/dxi_k); cyclic indices carry the sign.
// inv[3i + k] = cofactor(J, i, k) / det J.
__device__ __forceinline__ double cofactor(const double* J, int i, int k) {
  const int k1 = (k + 1) % 3, k2 = (k + 2) % 3, i1 = (i + 1) % 3, i2 = (i + 2) % 3;
  return J[3 * k1 + i1] * J[3 * k2 + i2] - J[3 * k1 + i2] * J[3 * k2 + i1];
}
// One fp64 division per Gauss point (a division is a ~10-instruction
// sequence; nine of them per lane and Gauss point used to cost as much as the
// entries themselves), then nine multiplications.
__device__ __forceinline__ double inverse_entry(const double* J, double inv_det, int i, int k) {
  return cofactor(J, i, k) * inv_det;
}

// Component i of the body force without a dynamic index into the kernel
// parameters (which would copy them to local memory).
template <class Arrays>
__device__ __forceinline__ double body_component(const Arrays& A, int i) {
  return i == 0 ? A.body_force[0] : (i == 1 ? A.body_force[1] : A.body_force[2]);
}

__device__ __forceinline__ void add_entries(double (&K)[9], double s, double lambda, double mu,
                                            const double* ga, const double* gb) {
  const double dot = ga[0] * gb[0] + ga[1] * gb[1] + ga[2] * gb[2];
#pragma unroll
  for (int i = 0; i < 3; ++i)
#pragma unroll
    for (int j = 0; j < 3; ++j)
      K[3 * i + j] += s * (lambda * ga[i] * gb[j] + mu * ga[j] * gb[i] + (i == j ? mu * dot : 0.0));
}

// Adds one lane's 3x3 block at CSR position base (rows stride apart). Taking
// the accumulators by reference keeps them in registers (no local-memory copy).
// The read-modify-write loads all 9 old values before the first store: the
// compiler cannot prove the 9 positions distinct, so `+=` entry by entry
// would wait for one global-memory round trip per entry (9 in sequence).
template <bool kAtomic>
__device__ __forceinline__ void add_block(double* values, std::int64_t base, std::int64_t stride,
                                          const double (&K)[9]) {
  double old[9];
#pragma unroll
  for (int m = 0; m < 9; ++m) old[m] = kAtomic ? 0.0 : values[base + (m / 3) * stride + m % 3];
#pragma unroll
  for (int m = 0; m < 9; ++m) {
    double* target = &values[base + (m / 3) * stride + m % 3];
    if (kAtomic)
      gpu::atomic_add(target, K[m]);
    else
      *target = old[m] + K[m];
  }
}

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
// columns of node Map::column(l, p) (docs/fem.md has the figure).
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
// rather than the element's own 24-coordinate copy: 57.5 against 69.4 us at
// 64^3 on an H200 (Nsight Compute, clocks not controlled), cuda/cluster-gather
// 0.550-0.552 against 0.562-0.565 ms at 64^3 and 4.48 against 4.57 ms at
// 128^3 (docs/results/h200.md, twenty-eighth round). The natural derivatives
// come from the Gauss point's 12 shape-function products in registers
// (Hex8GaussProducts, the node a compile-time constant). A block's 1,280
// results are staged in shared memory in their global order (each thread's
// 10 doubles as 5 16-byte stores: 8 consecutive threads' stores, 80 B apart,
// fall on distinct 16-byte bank groups) and stored contiguously: on sm_90 by
// one bulk copy per block (gpu_portability.hpp), elsewhere by 16-byte stores. The
// bulk copy took 52.5-53.3 against 55.5-57.8 us at 64^3 under Nsight Compute
// on an H200 for 16-byte stores by every thread from a staging at a stride of
// 11 doubles (cuda/cluster-gather 0.537-0.541 against 0.542-0.545 ms at 64^3,
// 4.30-4.37 against 4.35-4.41 ms at 128^3; blocks of 256 threads 56 us, of 64
// threads 51-52 us and the same assembly time; docs/results/h200.md,
// thirtieth round, runs 3-4). Each thread storing its own 10 doubles straight
// from registers, 80 B apart, leaves partial sectors: 97-99 us (thirtieth
// round). Reading the derivatives from a shared table (72 loads a thread,
// 4-way bank conflicts) and staging with 8-byte stores at a stride of 10 kept
// the L1/shared pipe 96% busy: 120 against 77 us at 64^3 under Nsight Compute
// on an H200 (L1 61% busy, DRAM 52%; docs/results/h200.md, eighteenth round).
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

// ---- (g) tiled: one block per Morton tile, merged in shared memory --------
// The tile's distinct CSR blocks are an accumulator in dynamic shared memory
// (9 doubles per block, tiled_layout.hpp). Colour by colour, each warp
// (32-lane sub-group) computes one element with the factored algorithm and
// adds its 18 values per lane straight into the accumulator (elements of a
// colour share no node, hence no block: no atomics, no Ke staging); a block
// barrier between colours. Then the block adds the accumulator to the CSR
// values with atomics, 32-lane chunks of contiguous row segments, so each
// reduction covers whole runs of a row instead of the element's 6-value runs.
constexpr int kTiledWarps = 4;  // a structured 32-element tile has 8 colours of 4 elements
static_assert(gpu::kSubgroupWidth * kTiledWarps % gpu::kWarpSize == 0,
              "blocks hold whole warps/wavefronts");
struct TiledElementShared {
  double G[192];    // G[24 q + 3 a + i]; before that x (24) and J (72) alias it
  double C[72];     // cofactors of J_q
  double scale[8];  // 1 / det J_q
  double wdet[8];   // det J_q
};

__global__ void __launch_bounds__(gpu::kSubgroupWidth* kTiledWarps)
    tiled_kernel(Hex8TiledArrays A) {
  extern __shared__ double accumulator[];  // 9 * A.max_blocks
  __shared__ double s_dN[192];
  __shared__ TiledElementShared element_shared[kTiledWarps];
  const std::int64_t t = blockIdx.x;
  const int values = 9 * A.tile_blocks[t];
  for (int m = threadIdx.x; m < 192; m += blockDim.x) s_dN[m] = c_dN[m];
  for (int m = threadIdx.x; m < values; m += blockDim.x) accumulator[m] = 0;
  __syncthreads();
  const int lane = element_lane(), warp = element_in_block();
  TiledElementShared& S = element_shared[warp];
  double* x = S.G;
  double* J = S.G + 24;
  const std::int64_t last_colour = A.tile_colours[t + 1];
  for (std::int64_t g = A.tile_colours[t]; g < last_colour; ++g) {
    const std::int64_t end = A.colour_offsets[g + 1];
    // Whole sub-groups take the same trip count, so shuffles stay converged.
    for (std::int64_t k = A.colour_offsets[g] + warp; k < end; k += kTiledWarps) {
      if (lane < 24) x[lane] = A.coordinates[24 * k + lane];
      const std::int32_t my_node = lane < 8 ? A.nodes[8 * k + lane] : 0;
      // Blocks (a, 2(lane%4)) and (a, 2(lane%4) + 1) are [8a + b] = 2 lane, 2 lane + 1.
      const std::uint32_t slot_pair =
          reinterpret_cast<const std::uint32_t*>(A.block_slots + 64 * k)[lane];
      gpu::warp_sync();
      factored_geometry(lane, s_dN, x, J, S.C, S.scale, S.wdet, S.G);
      double M0[9], M1[9];
      factored_lane_blocks(lane, S.G, S.scale, M0, M1);
      double* block0 = accumulator + 9 * int(slot_pair & 0xffffu);
      double* block1 = accumulator + 9 * int(slot_pair >> 16);
#pragma unroll
      for (int i = 0; i < 3; ++i)
#pragma unroll
        for (int j = 0; j < 3; ++j) {
          block0[3 * i + j] += factored_entry(M0, i, j, A.lambda, A.mu);
          block1[3 * i + j] += factored_entry(M1, i, j, A.lambda, A.mu);
        }
      const std::int64_t load_node =
          gpu::shfl(my_node, lane < 24 ? lane / 3 : 0, gpu::kSubgroupWidth);
      factored_body_force<true>(lane, load_node, S.wdet, A.body_force[0], A.body_force[1],
                                A.body_force[2], A.load);
      gpu::warp_sync();  // the sub-group's next element overwrites x (aliasing G)
    }
    __syncthreads();
  }
  // Flush: lane l of a chunk adds value l - (first lane of its segment) of
  // segment first + (segments started at lanes <= l) - 1, i.e. row s % 3 of
  // the tile's run s / 3 (tiled_chunk()).
  const std::int64_t first_run = A.run_offsets[t];
  const std::int64_t last_chunk = A.chunk_offsets[t + 1];
  for (std::int64_t c = A.chunk_offsets[t] + warp; c < last_chunk; c += kTiledWarps) {
    const std::uint64_t word = A.chunks[c];
    const int lanes = int((word >> 48) & 63u);
    if (lane < lanes) {
      const std::uint32_t below = std::uint32_t(word) & (0xffffffffu >> (31 - lane));
      const std::int64_t segment = std::int64_t((word >> 32) & 0xffffu) + __popc(below) - 1;
      const int value = lane - (31 - __clz(below));
      const std::int64_t run = first_run + segment / 3;
      const int i = int(segment % 3);
      const std::int64_t position =
          A.run_positions[run] + std::int64_t(i) * A.run_row_lengths[run] + value;
      gpu::atomic_add(
          &A.values[position],
          accumulator[9 * (int(A.run_first_slots[run]) + value / 3) + 3 * i + value % 3]);
    }
  }
}

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

unsigned blocks_for(std::int64_t threads, int per_block) {
  return unsigned((threads + per_block - 1) / per_block);
}

// The launch helpers' stream (void*: nullptr is the default stream).
#if defined(PPKIT_GPU_HIP)
hipStream_t native_stream(void* stream) { return static_cast<hipStream_t>(stream); }
#else
cudaStream_t native_stream(void* stream) { return static_cast<cudaStream_t>(stream); }
#endif

}  // namespace

}  // namespace ppkit::fem::assembly_kernels

namespace ppkit::fem {

#if defined(PPKIT_GPU_HIP)
using ThisBackend = HipBackend;
#else
using ThisBackend = CudaBackend;
#endif
using namespace assembly_kernels;

// Member definitions for every backend; the explicit instantiation at the end
// emits them for the compiler's own (ThisBackend) only.
template <class Backend>
void Hex8Kernels<Backend>::upload_shape_tables(const double* natural_derivatives,
                                               const double* shape_values) {
#if defined(PPKIT_GPU_HIP)
  PPKIT_GPU_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(c_dN), natural_derivatives, 192 * sizeof(double)));
  PPKIT_GPU_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(c_N), shape_values, 64 * sizeof(double)));
#else
  PPKIT_GPU_CHECK(cudaMemcpyToSymbol(c_dN, natural_derivatives, 192 * sizeof(double)));
  PPKIT_GPU_CHECK(cudaMemcpyToSymbol(c_N, shape_values, 64 * sizeof(double)));
#endif
}

template <class Backend>
void Hex8Kernels<Backend>::launch_thread_per_element(const Hex8AssemblyArrays& a,
                                                     std::int64_t first, std::int64_t count,
                                                     void* stream) {
  if (count <= 0) return;
  thread_per_element_kernel<<<blocks_for(count, 128), 128, 0, native_stream(stream)>>>(a, first,
                                                                                       count);
  PPKIT_GPU_CHECK_LAUNCH();
}

template <class Backend>
void Hex8Kernels<Backend>::launch_warp_4tpr(const Hex8AssemblyArrays& a, std::int64_t first,
                                            std::int64_t count, void* stream) {
  if (count <= 0) return;
  warp_kernel<FourPerRow, false>
      <<<blocks_for(count, kElementsPerBlock), kThreadsPerBlock, 0, native_stream(stream)>>>(
          a, first, count);
  PPKIT_GPU_CHECK_LAUNCH();
}

template <class Backend>
void Hex8Kernels<Backend>::launch_atomic_4tpr(const Hex8AssemblyArrays& a, std::int64_t first,
                                              std::int64_t count, void* stream) {
  if (count <= 0) return;
  warp_kernel<FourPerRow, true>
      <<<blocks_for(count, kElementsPerBlock), kThreadsPerBlock, 0, native_stream(stream)>>>(
          a, first, count);
  PPKIT_GPU_CHECK_LAUNCH();
}

template <class Backend>
void Hex8Kernels<Backend>::launch_ppni_4tpr(const Hex8AssemblyArrays& a, std::int64_t first,
                                            std::int64_t count, void* stream) {
  if (count <= 0) return;
  ppni_4tpr_kernel<<<blocks_for(count, kElementsPerBlock), kThreadsPerBlock, 0,
                     native_stream(stream)>>>(a, first, count);
  PPKIT_GPU_CHECK_LAUNCH();
}

template <class Backend>
void Hex8Kernels<Backend>::launch_warp_8tpr(const Hex8AssemblyArrays& a, std::int64_t first,
                                            std::int64_t count, void* stream) {
  if (count <= 0) return;
  warp_kernel<EightPerRow, false>
      <<<blocks_for(count, kElementsPerBlock), kThreadsPerBlock, 0, native_stream(stream)>>>(
          a, first, count);
  PPKIT_GPU_CHECK_LAUNCH();
}

template <class Backend>
void Hex8Kernels<Backend>::launch_gauss_geometry(const Hex8AssemblyArrays& a, double* geometry,
                                                 std::int64_t elements, void* stream) {
  if (elements <= 0) return;
  const auto on = native_stream(stream);
  gauss_geometry_kernel<<<blocks_for(8 * elements, kGeometryThreads), kGeometryThreads, 0, on>>>(
      a, geometry, 8 * elements);
  PPKIT_GPU_CHECK_LAUNCH();
}

template <class Backend>
void Hex8Kernels<Backend>::launch_entries(const Hex8AssemblyArrays& a, const double* geometry,
                                          std::int64_t first, std::int64_t count, void* stream) {
  if (count <= 0) return;
  entry_kernel<<<unsigned(count), kEntryThreads, 0, native_stream(stream)>>>(a, geometry, first);
  PPKIT_GPU_CHECK_LAUNCH();
}

template <class Backend>
void Hex8Kernels<Backend>::launch_factored(const Hex8FactoredArrays& a, std::int64_t first,
                                           std::int64_t count, KeEntryOrder order, void* stream) {
  if (count <= 0) return;
  const unsigned blocks = blocks_for(count, kFactoredWarps);
  const auto on = native_stream(stream);
  if (a.first_writer == nullptr && order == KeEntryOrder::node_pair_runs)
    factored_kernel<true, KeEntryOrder::node_pair_runs>
        <<<blocks, gpu::kSubgroupWidth * kFactoredWarps, 0, on>>>(a, first, count);
  else if (a.first_writer == nullptr)
    factored_kernel<true><<<blocks, gpu::kSubgroupWidth * kFactoredWarps, 0, on>>>(a, first, count);
  else
    factored_kernel<false>
        <<<blocks, gpu::kSubgroupWidth * kFactoredWarps, 0, on>>>(a, first, count);
  PPKIT_GPU_CHECK_LAUNCH();
}

template <class Backend>
void Hex8Kernels<Backend>::launch_tiled(const Hex8TiledArrays& a, std::int64_t tiles,
                                        void* stream) {
  if (tiles <= 0) return;
  const std::size_t dynamic_bytes = std::size_t(9) * sizeof(double) * std::size_t(a.max_blocks);
#if defined(PPKIT_GPU_HIP)
  PPKIT_GPU_CHECK(hipFuncSetAttribute(reinterpret_cast<const void*>(&tiled_kernel),
                                      hipFuncAttributeMaxDynamicSharedMemorySize,
                                      int(dynamic_bytes)));
#else
  // Above 48 KB of dynamic shared memory a kernel must opt in.
  PPKIT_GPU_CHECK(cudaFuncSetAttribute(tiled_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       int(dynamic_bytes)));
#endif
  tiled_kernel<<<unsigned(tiles), gpu::kSubgroupWidth * kTiledWarps, dynamic_bytes,
                 native_stream(stream)>>>(a);
  PPKIT_GPU_CHECK_LAUNCH();
}

template <class Backend>
int Hex8Kernels<Backend>::tiled_block_capacity() {
  int device = 0, optin = 0;
#if defined(PPKIT_GPU_HIP)
  hipFuncAttributes attributes{};
  PPKIT_GPU_CHECK(hipGetDevice(&device));
  PPKIT_GPU_CHECK(hipDeviceGetAttribute(&optin, hipDeviceAttributeMaxSharedMemoryPerBlock, device));
  PPKIT_GPU_CHECK(hipFuncGetAttributes(&attributes, reinterpret_cast<const void*>(&tiled_kernel)));
#else
  cudaFuncAttributes attributes{};
  PPKIT_GPU_CHECK(cudaGetDevice(&device));
  PPKIT_GPU_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  PPKIT_GPU_CHECK(cudaFuncGetAttributes(&attributes, tiled_kernel));
#endif
  const long long dynamic = (long long)optin - (long long)attributes.sharedSizeBytes;
  return dynamic > 0 ? int(dynamic / (9 * (long long)sizeof(double))) : 0;
}

template <class Backend>
void Hex8Kernels<Backend>::launch_node_gather(const Hex8GatherArrays& a, std::int64_t nodes,
                                              void* stream) {
  if (nodes <= 0) return;
  node_gather_kernel<<<blocks_for(nodes, kGatherWarps), gpu::kSubgroupWidth * kGatherWarps, 0,
                       native_stream(stream)>>>(a, nodes);
  PPKIT_GPU_CHECK_LAUNCH();
}

template <class Backend>
void Hex8Kernels<Backend>::synchronize() {
#if defined(PPKIT_GPU_HIP)
  PPKIT_GPU_CHECK(hipDeviceSynchronize());
#else
  PPKIT_GPU_CHECK(cudaDeviceSynchronize());
#endif
}

template <class Backend>
void Hex8Kernels<Backend>::synchronize_stream(void* stream) {
#if defined(PPKIT_GPU_HIP)
  PPKIT_GPU_CHECK(hipStreamSynchronize(native_stream(stream)));
#else
  PPKIT_GPU_CHECK(cudaStreamSynchronize(native_stream(stream)));
#endif
}

template <class Backend>
void Hex8Kernels<Backend>::zero(double* values, std::size_t count, void* stream) {
  if (count == 0) return;
#if defined(PPKIT_GPU_HIP)
  PPKIT_GPU_CHECK(hipMemsetAsync(values, 0, count * sizeof(double), native_stream(stream)));
#else
  PPKIT_GPU_CHECK(cudaMemsetAsync(values, 0, count * sizeof(double), native_stream(stream)));
#endif
}

template <class Backend>
int Hex8Kernels<Backend>::current_device() {
  int device = 0;
#if defined(PPKIT_GPU_HIP)
  PPKIT_GPU_CHECK(hipGetDevice(&device));
#else
  PPKIT_GPU_CHECK(cudaGetDevice(&device));
#endif
  return device;
}

template struct Hex8Kernels<ThisBackend>;

}  // namespace ppkit::fem

#undef PPKIT_FEM_SHAPE_TABLES
