// CUDA kernels of fem.assemble: plain structs only (assembly_device_arrays.hpp).
// Entry formula (isotropic B^T D B, entry by entry), for element rows of node
// a, component i, and columns of node b, component j, with g = dN/dx:
//   K_(a i)(b j) = sum_q |J_q| w_q (lambda g_ai g_bj + mu g_aj g_bi + mu delta_ij g_a . g_b)
#include "backends/cuda/core/cuda_check.hpp"
#include "backends/cuda/fem/assemble_cuda_kernels.hpp"

namespace ppkit::fem::cuda_kernels {
namespace {

__constant__ double c_dN[192];  // [(q*8 + a)*3 + k]
__constant__ double c_N[64];    // [q*8 + a]

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kWarpsPerBlock = 4;

__device__ __forceinline__ double det3(const double* J) {
  return J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
         J[2] * (J[3] * J[7] - J[4] * J[6]);
}
// inv[3i + k] = cofactor C_ki / det (J[3k + i] = dx_i/dxi_k); cyclic indices carry the sign.
__device__ __forceinline__ double inverse_entry(const double* J, double det, int i, int k) {
  const int k1 = (k + 1) % 3, k2 = (k + 2) % 3, i1 = (i + 1) % 3, i2 = (i + 2) % 3;
  return (J[3 * k1 + i1] * J[3 * k2 + i2] - J[3 * k1 + i2] * J[3 * k2 + i1]) / det;
}

// Component i of the body force without a dynamic index into the kernel
// parameters (which would copy them to local memory).
__device__ __forceinline__ double body_component(const Hex8AssemblyArrays& A, int i) {
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
template <bool kAtomic>
__device__ __forceinline__ void add_block(double* values, std::int64_t base, std::int64_t stride,
                                          const double (&K)[9]) {
#pragma unroll
  for (int i = 0; i < 3; ++i)
#pragma unroll
    for (int j = 0; j < 3; ++j) {
      double* target = &values[base + i * stride + j];
      if (kAtomic)
        atomicAdd(target, K[3 * i + j]);
      else
        *target += K[3 * i + j];
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
    const double det = det3(J);
    double inv[9];
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) inv[3 * i + k] = inverse_entry(J, det, i, k);
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

// ---- (b) warp per element, 4 threads per row --------------------------------
// Lane l owns rows of node a = l/4 and columns of nodes b = 2(l%4) + pass.
// Lane l < 24 holds coordinate (node l/3, component l%3) in a register.
template <bool kAtomic>
__global__ void __launch_bounds__(32 * kWarpsPerBlock)
    warp_4tpr_kernel(Hex8AssemblyArrays A, std::int64_t first, std::int64_t count) {
  const std::int64_t w = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (w >= count) return;  // whole warps leave together
  const int lane = threadIdx.x & 31;
  const std::int64_t e = first + w;
  const int my_a = lane / 3,
            my_i = lane % 3;  // coordinate / derivative this lane holds (lane < 24)
  const double x = lane < 24 ? A.coordinates[24 * e + lane] : 0.0;
  const int row_node = lane / 4, col0 = 2 * (lane % 4), col1 = col0 + 1;
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
      p += __shfl_down_sync(kFullMask, p, 12);
      p += __shfl_down_sync(kFullMask, p, 6);
      p += __shfl_down_sync(kFullMask, p, 3);
#pragma unroll
      for (int i = 0; i < 3; ++i) J[3 * k + i] = __shfl_sync(kFullMask, p, i);
    }
    // Determinant and inverse in every lane's registers (cheaper than a
    // one-lane compute + broadcast on current GPUs).
    const double det = det3(J);
    // Inverse with compile-time indices (registers); lane 3a+i keeps dN_a/dx_i.
    double inv[9];
#pragma unroll
    for (int i = 0; i < 3; ++i)
#pragma unroll
      for (int k = 0; k < 3; ++k) inv[3 * i + k] = inverse_entry(J, det, i, k);
    double g = 0;
    if (lane < 24) {
      const double d0 = c_dN[(q * 8 + my_a) * 3], d1 = c_dN[(q * 8 + my_a) * 3 + 1],
                   d2 = c_dN[(q * 8 + my_a) * 3 + 2];
      const double g0 = inv[0] * d0 + inv[1] * d1 + inv[2] * d2;
      const double g1 = inv[3] * d0 + inv[4] * d1 + inv[5] * d2;
      const double g2 = inv[6] * d0 + inv[7] * d1 + inv[8] * d2;
      g = my_i == 0 ? g0 : (my_i == 1 ? g1 : g2);
      f += c_N[8 * q + my_a] * det;
    }
    double ga[3], gb0[3], gb1[3];
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      ga[c] = __shfl_sync(kFullMask, g, 3 * row_node + c);
      gb0[c] = __shfl_sync(kFullMask, g, 3 * col0 + c);
      gb1[c] = __shfl_sync(kFullMask, g, 3 * col1 + c);
    }
    add_entries(K0, det, A.lambda, A.mu, ga, gb0);
    add_entries(K1, det, A.lambda, A.mu, ga, gb1);
  }
  // Assembly in two passes (even / odd column node); positions in lane order.
  const std::int32_t my_node = lane < 8 ? A.nodes[8 * e + lane] : 0;
  const std::int64_t node = __shfl_sync(kFullMask, my_node, row_node);
  const std::int64_t stride = A.row_offsets[3 * node + 1] - A.row_offsets[3 * node];
  add_block<kAtomic>(A.values, A.block_positions[64 * e + lane], stride, K0);       // pass 0
  add_block<kAtomic>(A.values, A.block_positions[64 * e + 32 + lane], stride, K1);  // pass 1
  const std::int64_t load_node = __shfl_sync(kFullMask, my_node, lane < 24 ? my_a : 0);
  if (lane < 24) {
    double* target = &A.load[3 * load_node + my_i];
    const double value = f * body_component(A, my_i);
    if (kAtomic)
      atomicAdd(target, value);
    else
      *target += value;
  }
}

// ---- (d) PPNI, 4 threads per row ---------------------------------------------
struct PpniShared {
  double x[24], jac[72], inv[72], det[8], g[192];
};

__global__ void __launch_bounds__(32 * kWarpsPerBlock)
    ppni_4tpr_kernel(Hex8AssemblyArrays A, std::int64_t first, std::int64_t count) {
  __shared__ PpniShared shared[kWarpsPerBlock];
  const int warp_in_block = threadIdx.x / 32, lane = threadIdx.x & 31;
  const std::int64_t w = std::int64_t(blockIdx.x) * kWarpsPerBlock + warp_in_block;
  if (w >= count) return;
  PpniShared& s = shared[warp_in_block];
  const std::int64_t e = first + w;
  if (lane < 24) s.x[lane] = A.coordinates[24 * e + lane];
  __syncwarp();
  // All 72 Jacobian entries at once: jac[9q + 3k + i].
  for (int m = lane; m < 72; m += 32) {
    const int q = m / 9, k = (m % 9) / 3, i = m % 3;
    double sum = 0;
#pragma unroll
    for (int a = 0; a < 8; ++a) sum += c_dN[(q * 8 + a) * 3 + k] * s.x[3 * a + i];
    s.jac[m] = sum;
  }
  __syncwarp();
  if (lane < 8) s.det[lane] = det3(&s.jac[9 * lane]);  // 8 lanes: determinants
  __syncwarp();
  for (int m = lane; m < 72; m += 32) {  // inverse entries by cofactors
    const int q = m / 9, i = (m % 9) / 3, k = m % 3;
    s.inv[m] = inverse_entry(&s.jac[9 * q], s.det[q], i, k);
  }
  __syncwarp();
  for (int m = lane; m < 192; m += 32) {  // physical derivatives g[24q + 3a + i]
    const int q = m / 24, a = (m % 24) / 3, i = m % 3;
    const double* dN = &c_dN[(q * 8 + a) * 3];
    s.g[m] = s.inv[9 * q + 3 * i] * dN[0] + s.inv[9 * q + 3 * i + 1] * dN[1] +
             s.inv[9 * q + 3 * i + 2] * dN[2];
  }
  __syncwarp();
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
  const std::int64_t node = __shfl_sync(kFullMask, my_node, row_node);
  const std::int64_t stride = A.row_offsets[3 * node + 1] - A.row_offsets[3 * node];
  add_block<false>(A.values, A.block_positions[64 * e + lane], stride, K0);       // pass 0
  add_block<false>(A.values, A.block_positions[64 * e + 32 + lane], stride, K1);  // pass 1
  const int my_a = lane / 3, my_i = lane % 3;
  const std::int64_t load_node = __shfl_sync(kFullMask, my_node, lane < 24 ? my_a : 0);
  if (lane < 24) {
    double f = 0;
    for (int q = 0; q < 8; ++q) f += c_N[8 * q + my_a] * s.det[q];
    A.load[3 * load_node + my_i] += f * body_component(A, my_i);
  }
}

unsigned blocks_for(std::int64_t threads, int per_block) {
  return unsigned((threads + per_block - 1) / per_block);
}

}  // namespace

void upload_shape_tables(const double* natural_derivatives, const double* shape_values) {
  PPKIT_CUDA_CHECK(cudaMemcpyToSymbol(c_dN, natural_derivatives, 192 * sizeof(double)));
  PPKIT_CUDA_CHECK(cudaMemcpyToSymbol(c_N, shape_values, 64 * sizeof(double)));
}

void launch_thread_per_element(const Hex8AssemblyArrays& a, std::int64_t first,
                               std::int64_t count) {
  if (count <= 0) return;
  thread_per_element_kernel<<<blocks_for(count, 128), 128>>>(a, first, count);
  PPKIT_CUDA_CHECK_LAUNCH();
}

void launch_warp_4tpr(const Hex8AssemblyArrays& a, std::int64_t first, std::int64_t count) {
  if (count <= 0) return;
  warp_4tpr_kernel<false>
      <<<blocks_for(count, kWarpsPerBlock), 32 * kWarpsPerBlock>>>(a, first, count);
  PPKIT_CUDA_CHECK_LAUNCH();
}

void launch_atomic_4tpr(const Hex8AssemblyArrays& a, std::int64_t first, std::int64_t count) {
  if (count <= 0) return;
  warp_4tpr_kernel<true>
      <<<blocks_for(count, kWarpsPerBlock), 32 * kWarpsPerBlock>>>(a, first, count);
  PPKIT_CUDA_CHECK_LAUNCH();
}

void launch_ppni_4tpr(const Hex8AssemblyArrays& a, std::int64_t first, std::int64_t count) {
  if (count <= 0) return;
  ppni_4tpr_kernel<<<blocks_for(count, kWarpsPerBlock), 32 * kWarpsPerBlock>>>(a, first, count);
  PPKIT_CUDA_CHECK_LAUNCH();
}

}  // namespace ppkit::fem::cuda_kernels
