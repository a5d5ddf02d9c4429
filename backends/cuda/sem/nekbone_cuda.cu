// Vector kernels of the CUDA Nekbone (Jacobi PCG in local form, nekbone_cuda.cpp).
// The CG loop is fused into three sweeps per iteration around axhelm so each
// vector is read as few times as possible, and the scalars (alpha, beta, the
// inner products) stay on the device: with a fixed iteration count the loop
// never waits for the host.
//   search     p = (M^-1 r) + beta p                       r, M^-1, p read; p written
//   axhelm     w = A p                                      (register-column kernels)
//   gs_mask    w = mask Q Q^T w, sum_l c w p  (c = 1/mult)  one thread per global node
//   update     x += alpha p, r -= alpha w, sum c r r and sum c M^-1 r r
// On assembled vectors (the "-assembled" variants) search and update run over
// the global nodes with c = 1, and axhelm is the assembled operator: it reads
// p through the local-to-global index, adds its local results to w at their
// global nodes (atomics) and adds each element's p_e . w_e to pAp, so no
// gather-scatter sweep runs, and its inner products are summed with atomic
// adds (block sums added to device scalars), so no one-block reduction runs
// either: three kernels per iteration.
//   search_assembled  beta = r.z(i) / r.z(i - 1); p = (M^-1 r) + beta p,
//              w = 0 (for axhelm's adds), the sums that update i fills = 0
//   axhelm     w += Q^T A_L Q p, pAp += p_e . (A_e p_e) (= p . mask w: p is
//              0 on the mask), in AxhelmKernelArgs::dot_sums' 64 slots
//   update_assembled  alpha = r.z(i) / pAp; x += alpha p, r -= alpha mask w,
//              r.r(i + 1) and r.z(i + 1) += the block sums
// r.z and r.r of iteration i live in slot i % 3 of a ring (AssembledSlot):
// search i reads slots i and i - 1 and zeroes slot i + 1, which nothing
// reads until update i has filled it. w is zeroed by the search sweep, which
// writes p anyway, not by the update sweep after reading it: there the store
// of w = 0 lands right behind the load of the same line, and that sweep ran
// several times slower with it (docs/sem.md).
// Reductions of the local form: one partial per block, then one block adds
// the partials in a fixed order (deterministic, so stored and recomputed runs
// see the same sums for the same operator values). Those of the assembled
// loop add in the order the blocks finish, as the atomic adds of w do.
#include <cuda_runtime.h>

#include "backends/cuda/sem/nekbone_cuda.hpp"

namespace ppkit::sem::nekbone_kernels {
namespace {

constexpr int threads = 256;

// Sum over the block of v (every thread calls it); the result is valid in thread 0.
__device__ double block_sum(double v) {
  __shared__ double warp_sums[threads / 32];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  v = 0;
  if (warp == 0) {
    v = lane < threads / 32 ? warp_sums[lane] : 0.0;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  }
  return v;
}

__global__ void __launch_bounds__(threads)
    residuals_kernel(long long n, const double* r, const double* c, const double* c_inv_diag,
                     double* partials, int blocks) {
  double rr = 0, rz = 0;
  for (long long l = blockIdx.x * (long long)threads + threadIdx.x; l < n;
       l += (long long)gridDim.x * threads) {
    const double v = r[l], cl = c ? c[l] : 1.0;  // c null: every entry once
    rr += cl * v * v;
    rz += c_inv_diag[l] * v * v;
  }
  rr = block_sum(rr);
  __syncthreads();
  rz = block_sum(rz);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = rr;
    partials[blocks + blockIdx.x] = rz;
  }
}

// search on assembled vectors, iteration it: beta from the r.z ring, w = 0
// for the assembled axhelm's adds, and the sums this iteration fills zeroed.
__global__ void __launch_bounds__(threads)
    search_assembled_kernel(long long n, const double* __restrict__ inv_diag,
                            const double* __restrict__ r, double* __restrict__ p,
                            double* __restrict__ w, double* scalars, int it) {
  const double rz_now = scalars[rz_ring + it % 3], rz_before = scalars[rz_ring + (it + 2) % 3];
  // 0, not 0/0, once the residual is exactly 0 (a fixed-iteration solve
  // does not stop there).
  const double beta = it == 0 || rz_before == 0.0 ? 0.0 : rz_now / rz_before;
  if (blockIdx.x == 0) {
    if (threadIdx.x < dot_sum_slots) scalars[pap_slots + threadIdx.x] = 0.0;
    if (threadIdx.x == 0) {
      scalars[rz_ring + (it + 1) % 3] = 0.0;
      scalars[rr_ring + (it + 1) % 3] = 0.0;
    }
  }
  for (long long g = blockIdx.x * (long long)threads + threadIdx.x; g < n;
       g += (long long)gridDim.x * threads) {
    p[g] = inv_diag[g] * r[g] + beta * p[g];
    w[g] = 0.0;
  }
}

__global__ void __launch_bounds__(threads)
    search_kernel(long long n, const double* inv_diag, const double* r, double* p,
                  const double* scalars) {
  const double beta = scalars[beta_slot];
  for (long long l = blockIdx.x * (long long)threads + threadIdx.x; l < n;
       l += (long long)gridDim.x * threads)
    p[l] = inv_diag[l] * r[l] + beta * p[l];
}

// w <- mask Q Q^T w; if p: partial sums of sum_l c_l w_l p_l = sum_g w_g p_g
// (p is continuous: every copy of a global node holds the same value).
__global__ void __launch_bounds__(threads)
    gs_mask_kernel(long long global_count, const int* offsets, const int* locals,
                   const unsigned char* interior, double* w, const double* p, double* partials) {
  double wp = 0;
  for (long long g = blockIdx.x * (long long)threads + threadIdx.x; g < global_count;
       g += (long long)gridDim.x * threads) {
    const int begin = offsets[g], end = offsets[g + 1];
    double sum = 0;
    for (int a = begin; a < end; ++a) sum += w[locals[a]];
    const double value = interior[g] ? sum : 0.0;
    // A single interior copy already holds its sum: no store.
    if (end - begin > 1 || !interior[g])
      for (int a = begin; a < end; ++a) w[locals[a]] = value;
    if (p) wp += value * p[locals[begin]];
  }
  if (p) {
    wp = block_sum(wp);
    if (threadIdx.x == 0) partials[blockIdx.x] = wp;
  }
}

// w_g = interior_g * sum over the copies of g of w_local; if p: partial sums
// of sum_g w_g p_g.
__global__ void __launch_bounds__(threads)
    gather_sum_mask_kernel(long long global_count, const int* offsets, const int* locals,
                           const unsigned char* interior, const double* w_local, const double* p,
                           double* w, double* partials) {
  double wp = 0;
  for (long long g = blockIdx.x * (long long)threads + threadIdx.x; g < global_count;
       g += (long long)gridDim.x * threads) {
    double sum = 0;
    for (int a = offsets[g]; a < offsets[g + 1]; ++a) sum += w_local[locals[a]];
    const double value = interior[g] ? sum : 0.0;
    w[g] = value;
    if (p) wp += value * p[g];
  }
  if (p) {
    wp = block_sum(wp);
    if (threadIdx.x == 0) partials[blockIdx.x] = wp;
  }
}

__global__ void __launch_bounds__(threads)
    update_kernel(long long n, const double* p, const double* w, const double* c,
                  const double* c_inv_diag, double* x, double* r, const double* scalars,
                  double* partials, int blocks) {
  const double alpha = scalars[alpha_slot];
  double rr = 0, rz = 0;
  for (long long l = blockIdx.x * (long long)threads + threadIdx.x; l < n;
       l += (long long)gridDim.x * threads) {
    x[l] += alpha * p[l];
    const double v = r[l] - alpha * w[l], cl = c ? c[l] : 1.0;  // c null: every entry once
    r[l] = v;
    rr += cl * v * v;
    rz += c_inv_diag[l] * v * v;
  }
  rr = block_sum(rr);
  __syncthreads();
  rz = block_sum(rz);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = rr;
    partials[blocks + blockIdx.x] = rz;
  }
}

// The residual dots of r on assembled vectors added to slot `slot` of the ring.
__device__ void add_residual_dots(double* scalars, int slot, double rr, double rz) {
  rr = block_sum(rr);
  __syncthreads();
  rz = block_sum(rz);
  if (threadIdx.x == 0) {
    atomicAdd(scalars + rr_ring + slot, rr);
    atomicAdd(scalars + rz_ring + slot, rz);
  }
}

// r.r and r.z of the initial residual on assembled vectors into ring slot 0
// (zeroed before).
__global__ void __launch_bounds__(threads)
    residuals_assembled_kernel(long long n, const double* __restrict__ r,
                               const double* __restrict__ inv_diag, double* scalars) {
  double rr = 0, rz = 0;
  for (long long g = blockIdx.x * (long long)threads + threadIdx.x; g < n;
       g += (long long)gridDim.x * threads) {
    const double v = r[g];
    rr += v * v;
    rz += inv_diag[g] * v * v;
  }
  add_residual_dots(scalars, 0, rr, rz);
}

// update on assembled vectors, iteration it: w is axhelm's unmasked sum,
// masked here. Every load first (restrict: no aliasing), then the stores.
__global__ void __launch_bounds__(threads)
    update_assembled_kernel(long long n, const double* __restrict__ p, const double* __restrict__ w,
                            const unsigned char* __restrict__ interior,
                            const double* __restrict__ inv_diag, double* __restrict__ x,
                            double* __restrict__ r, double* scalars, int it) {
  // p.Ap: the sum of its slots, by the first warp, shared through the block.
  __shared__ double s_pap;
  if (threadIdx.x < 32) {
    double pap = 0;
    for (int k = threadIdx.x; k < dot_sum_slots; k += 32) pap += scalars[pap_slots + k];
    for (int offset = 16; offset > 0; offset /= 2) pap += __shfl_xor_sync(0xffffffffu, pap, offset);
    if (threadIdx.x == 0) s_pap = pap;
  }
  __syncthreads();
  const double pap = s_pap;
  const double alpha = pap == 0.0 ? 0.0 : scalars[rz_ring + it % 3] / pap;
  double rr = 0, rz = 0;
  for (long long g = blockIdx.x * (long long)threads + threadIdx.x; g < n;
       g += (long long)gridDim.x * threads) {
    const double pg = p[g], xg = x[g], wg = w[g], rg = r[g], dg = inv_diag[g];
    const bool in = interior[g] != 0;
    x[g] = xg + alpha * pg;
    const double v = rg - alpha * (in ? wg : 0.0);
    r[g] = v;
    rr += v * v;
    rz += dg * v * v;
  }
  add_residual_dots(scalars, (it + 1) % 3, rr, rz);
}

// One block: sums partials[0..blocks) (and [blocks..2 blocks)), then the CG
// scalars. mode 0: after the initial residual; 1: after gs_mask (alpha);
// 2: after update (residual, beta).
__global__ void __launch_bounds__(threads)
    finalize_kernel(int mode, const double* partials, int blocks, double* scalars) {
  double a = 0, b = 0;
  for (int k = threadIdx.x; k < blocks; k += threads) {
    a += partials[k];
    if (mode != 1) b += partials[blocks + k];
  }
  a = block_sum(a);
  __syncthreads();
  b = block_sum(b);
  if (threadIdx.x != 0) return;
  if (mode == 1) {
    scalars[pap_slot] = a;
    // 0, not 0/0, once the residual is exactly 0 (a fixed-iteration solve
    // does not stop there).
    scalars[alpha_slot] = a == 0.0 ? 0.0 : scalars[rtz_slot] / a;
    return;
  }
  scalars[rr_slot] = a;
  // Mode 0 starts the iteration: there is no previous r.z to read (the slot is
  // still unwritten then; compute-sanitizer initcheck flagged the read).
  scalars[beta_slot] = mode == 0 || scalars[rtz_slot] == 0.0 ? 0.0 : b / scalars[rtz_slot];
  scalars[rtz_slot] = b;
}

__global__ void __launch_bounds__(threads)
    subtract_kernel(long long n, const double* a, const double* b, double* out) {
  for (long long l = blockIdx.x * (long long)threads + threadIdx.x; l < n;
       l += (long long)gridDim.x * threads)
    out[l] = a[l] - b[l];
}

}  // namespace

int grid_for(long long n) {
  const long long blocks = (n + threads - 1) / threads;
  return int(blocks < max_blocks ? (blocks < 1 ? 1 : blocks) : max_blocks);
}

void residuals(const NekboneDeviceVectors& v, double* scalars, double* partials) {
  const int blocks = grid_for(v.count);
  residuals_kernel<<<blocks, threads>>>(v.count, v.r, v.c, v.c_inv_diag, partials, blocks);
  finalize_kernel<<<1, threads>>>(0, partials, blocks, scalars);
}

void search(const NekboneDeviceVectors& v, const double* scalars) {
  search_kernel<<<grid_for(v.count), threads>>>(v.count, v.inv_diag, v.r, v.p, scalars);
}

void residuals_assembled(const NekboneDeviceVectors& v, double* scalars) {
  residuals_assembled_kernel<<<grid_for(v.count), threads>>>(v.count, v.r, v.inv_diag, scalars);
}

void search_assembled(const NekboneDeviceVectors& v, double* scalars, int it) {
  search_assembled_kernel<<<grid_for(v.count), threads>>>(v.count, v.inv_diag, v.r, v.p, v.w,
                                                          scalars, it);
}

void gs_mask(const GatherScatterDevicePlan& plan, double* w, const double* p, double* scalars,
             double* partials) {
  const int blocks = grid_for(plan.global_count);
  gs_mask_kernel<<<blocks, threads>>>(plan.global_count, plan.offsets, plan.locals, plan.interior,
                                      w, p, partials);
  if (p) finalize_kernel<<<1, threads>>>(1, partials, blocks, scalars);
}

void gather_sum_mask(const GatherScatterDevicePlan& plan, const double* w_local, const double* p,
                     double* w, double* scalars, double* partials) {
  const int blocks = grid_for(plan.global_count);
  gather_sum_mask_kernel<<<blocks, threads>>>(plan.global_count, plan.offsets, plan.locals,
                                              plan.interior, w_local, p, w, partials);
  if (p) finalize_kernel<<<1, threads>>>(1, partials, blocks, scalars);
}

void update(const NekboneDeviceVectors& v, double* scalars, double* partials) {
  const int blocks = grid_for(v.count);
  update_kernel<<<blocks, threads>>>(v.count, v.p, v.w, v.c, v.c_inv_diag, v.x, v.r, scalars,
                                     partials, blocks);
  finalize_kernel<<<1, threads>>>(2, partials, blocks, scalars);
}

void update_assembled(const NekboneDeviceVectors& v, const unsigned char* interior, double* scalars,
                      int it) {
  update_assembled_kernel<<<grid_for(v.count), threads>>>(v.count, v.p, v.w, interior, v.inv_diag,
                                                          v.x, v.r, scalars, it);
}

void subtract(long long n, const double* a, const double* b, double* out) {
  subtract_kernel<<<grid_for(n), threads>>>(n, a, b, out);
}

}  // namespace ppkit::sem::nekbone_kernels
