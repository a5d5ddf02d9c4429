// cuda/blocked-k2, -k4: the temporally blocked Yee pass (scheme, halo and
// ring: ppkit/fdtd/yee_blocked.hpp, whose per-node functions it calls, so its
// arithmetic is that of the Kokkos form and the serial reference). A block of
// 256 threads per y-z tile marches along x; the ring of the six fields over
// steps + 2 x-planes of the tile's window is in shared memory, the psi ring
// in a per-block slice of global memory (only nodes in the CPML layers touch
// it). The window's nodes are spread over the threads with z fastest, so a
// warp reads consecutive z of a row.
#include <cuda_runtime.h>

#include "backends/cuda/fdtd/fdtd_cuda_blocked_kernels.hpp"

namespace ppkit::fdtd::cuda_blocked {
namespace {

constexpr int block_threads = 256;

__global__ void __launch_bounds__(block_threads) pass_kernel(const blocked::Pass<float> p) {
  extern __shared__ float F[];
  const std::int64_t tile = blockIdx.x, nx = p.a.g.nx, steps = p.a.steps;
  const blocked::Window w = p.window(tile);
  float* P = p.a.psi_ring + tile * p.t.psi_values();
  double* energy = p.a.energy_partial + tile * p.t.ring;
  const int tid = int(threadIdx.x);
  if (tid == 0)
    for (std::int64_t l = 0; l < steps; ++l) energy[l] = 0;
  // Calls f(ly, lz) for the window nodes [ly0, ly1) x [lz0, lz1), z fastest.
  const auto for_nodes = [&](std::int64_t ly0, std::int64_t ly1, std::int64_t lz0, std::int64_t lz1,
                             auto&& f) {
    const std::int64_t nz = lz1 - lz0, count = (ly1 - ly0) * nz;
    for (std::int64_t m = tid; m < count; m += block_threads) f(ly0 + m / nz, lz0 + m % nz);
  };
  for (std::int64_t pos = 0; pos <= nx + steps; ++pos) {
    if (pos <= nx) {
      const blocked::Plane in = p.plane(pos);
      for_nodes(0, w.ny, 0, w.nz,
                [&](std::int64_t ly, std::int64_t lz) { p.load_node(F, P, w, in, ly, lz); });
    }
    __syncthreads();
    for (std::int64_t level = 0; level < steps; ++level) {
      const std::int64_t x = pos - 1 - level, step = p.a.first_step + level;
      if (x < 0 || x > nx) continue;  // the same for every thread of the block
      const blocked::Plane pl = p.plane(x);
      for_nodes(0, w.h_ly_end(), 0, w.h_lz_end(),
                [&](std::int64_t ly, std::int64_t lz) { p.h_node(F, P, w, pl, ly, lz); });
      __syncthreads();
      for_nodes(w.e_ly_begin(), w.ny, w.e_lz_begin(), w.nz,
                [&](std::int64_t ly, std::int64_t lz) { p.e_node(F, P, w, pl, ly, lz); });
      __syncthreads();
      if (tid == 0) p.sources(F, w, x, step);
      __syncthreads();
      if (tid == 0) p.probes(F, w, x, step);
      if (p.a.energy_after[step]) {
        double acc = 0;
        for_nodes(w.cy0 - w.wy0, w.cy1 - w.wy0, w.cz0 - w.wz0, w.cz1 - w.wz0,
                  [&](std::int64_t ly, std::int64_t lz) { acc += p.energy(F, w, pl, ly, lz); });
        for (int offset = 16; offset > 0; offset /= 2)
          acc += __shfl_down_sync(0xffffffffu, acc, offset);
        if (tid % 32 == 0) atomicAdd(&energy[level], acc);
      }
    }
    const std::int64_t done = pos - steps;
    if (done >= 0 && done <= nx) {
      const blocked::Plane out = p.plane(done);
      for_nodes(w.cy0 - w.wy0, w.cy1 - w.wy0, w.cz0 - w.wz0, w.cz1 - w.wz0,
                [&](std::int64_t ly, std::int64_t lz) { p.store_node(F, P, w, out, ly, lz); });
    }
    __syncthreads();
  }
}

}  // namespace

std::size_t shared_bytes(const blocked::Tiling& t) {
  return std::size_t(t.field_values()) * sizeof(float);
}

std::size_t shared_bytes_max() {
  int device = 0, bytes = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) !=
          cudaSuccess)
    return 48 * 1024;
  return std::size_t(bytes);
}

void pass(const blocked::Pass<float>& p) {
  const std::size_t bytes = shared_bytes(p.t);
  if (cudaFuncSetAttribute(pass_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)) !=
      cudaSuccess)
    return;  // reported by last_launch_error()
  pass_kernel<<<unsigned(p.t.tiles()), block_threads, bytes>>>(p);
}

const char* last_launch_error() {
  const cudaError_t status = cudaGetLastError();
  return status == cudaSuccess ? nullptr : cudaGetErrorString(status);
}

}  // namespace ppkit::fdtd::cuda_blocked
