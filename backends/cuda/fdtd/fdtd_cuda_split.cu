// cuda/split-x<R>: fdtd.step for NVIDIA GPUs designed from the bytes it must
// move (Taflove & Hagness eq. 3.18-3.19, CPML of Roden & Gedney 2000).
//
// A half step reads 6 fields and writes 3 at every node: 36 B, 72 B per full
// step, plus a 1-byte material id per half step (none with one material).
// Everything else must come from caches, and enough loads must be in flight
// to cover the DRAM latency (Little's law: ~4 TB/s x ~0.7 us = ~3 MB in
// flight on the chip, ~20 KB per SM). So:
//  - Interior / shell split (yee_split.hpp): the interior kernel has no CPML
//    branch, no psi and constant 1/du; the CPML layers and PEC faces (~12% of
//    the nodes at 512^3 with 10 cells) run through a thin general kernel
//    over a flat list of shell nodes.
//  - Interior tiles: 32 z nodes (one warp, z-contiguous, the rows pitched to
//    128-byte alignment) x 8 y rows x R x-planes per thread. The R planes are
//    loaded before any is computed (no loop-carried dependence as in a long
//    x march), so a thread has ~10 R independent loads in flight. The x
//    neighbour plane is shared by the R planes in registers (only 1 in R
//    planes reads it from L2), the z neighbour comes from the line the warp
//    just loaded (L1), the y neighbour from the row above/below in the same
//    block (L1; one row in 8 from L2).
//  - Blocks are ordered z, y, then x (slowest), so the planes one x-group
//    reads as neighbours are read as centres by the next group shortly after,
//    while still in L2 (reuse distance: one plane of all fields, ~14 MB at
//    768^3, below the 50 MB L2).
//  - Material ids: 1 byte with the coefficient table (<= 256 materials) in
//    shared memory, 2 or 4 bytes with the table read through L1, no id array
//    at all for a single material. 64-bit node indices throughout (768^3 has
//    4.5e8 nodes per field, 2.7e9 field values).
//  - Energy: warp-shuffle reduction, shared memory across warps, one double
//    atomic per block.
#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "backends/cuda/fdtd/fdtd_cuda_materials.cuh"
#include "backends/cuda/fdtd/fdtd_cuda_split_kernels.hpp"
#include "ppkit/fdtd/materials.hpp"

namespace ppkit::fdtd::cuda_split {
namespace {
using namespace detail;

using std::int64_t;

constexpr int tile_z = 32, tile_y = 8, tile_threads = tile_z * tile_y;
constexpr int shell_block = 256, energy_block = 256;
// Shell kernels: the general update issues all its loads first (yee_split.hpp)
// and takes more than 64 registers uncapped, 3 blocks per SM; capped at 64,
// 4 blocks per SM keep more loads in flight (ptxas, sm_90: 8 bytes spill in
// the 4-byte-id E kernel only).
constexpr int shell_min_blocks = 4;
constexpr unsigned full_mask = 0xffffffffu;

// Thread (k, j) of an interior tile and its first plane i0; false outside the box.
template <int R>
__device__ __forceinline__ bool interior_node(const split::Box& b, int64_t& i0, int64_t& j,
                                              int64_t& k) {
  k = (b.lo[2] & ~int64_t(tile_z - 1)) + int64_t(blockIdx.x) * tile_z + threadIdx.x;
  j = b.lo[1] + int64_t(blockIdx.y) * tile_y + threadIdx.y;
  i0 = b.lo[0] + int64_t(blockIdx.z) * R;
  return k >= b.lo[2] && k < b.hi[2] && j < b.hi[1];
}

// H^{n+1/2} = H^{n-1/2} - dh curl E^n on the interior, R planes per thread.
template <class Id, int R>
__global__ void __launch_bounds__(tile_threads) interior_h_kernel(const StepArgs s) {
  __shared__ float2 table[std::is_same_v<Id, unsigned char> ? shared_materials : 1];
  load_table<Id>(s, table, false);
  const split::Interior& in = s.h.interior;
  int64_t i0, j, k;
  if (!interior_node<R>(in.box, i0, j, k)) return;
  const int64_t sy = s.sy, sx = (s.a.ny + 1) * sy, n0 = i0 * sx + j * sy + k;
  if (i0 + R > in.box.hi[0]) {  // the last, partial group of planes
    for (int64_t n = n0; n < in.box.hi[0] * sx; n += sx)
      split::update_h_interior(s.a, n, sy, sx, in.inv_d, h_coefficient<Id>(s, table, n));
    return;
  }
  const float ikx = in.inv_d[0], iky = in.inv_d[1], ikz = in.inv_d[2];
  const float *ex = s.a.ex + n0, *ey = s.a.ey + n0, *ez = s.a.ez + n0;
  float *hx = s.a.hx + n0, *hy = s.a.hy + n0, *hz = s.a.hz + n0;
  // All loads first: E is read-only in this kernel (non-coherent path).
  float exc[R], exk[R], exj[R], eyc[R + 1], eyk[R], ezc[R + 1], ezj[R];
  float hxc[R], hyc[R], hzc[R], dh[R];
#pragma unroll
  for (int p = 0; p < R; ++p) {
    const int64_t o = p * sx;
    exc[p] = __ldg(ex + o);
    exk[p] = __ldg(ex + o + 1);
    exj[p] = __ldg(ex + o + sy);
    eyc[p] = __ldg(ey + o);
    eyk[p] = __ldg(ey + o + 1);
    ezc[p] = __ldg(ez + o);
    ezj[p] = __ldg(ez + o + sy);
    hxc[p] = __ldcs(hx + o);  // read once, written once: evict first
    hyc[p] = __ldcs(hy + o);
    hzc[p] = __ldcs(hz + o);
    dh[p] = h_coefficient<Id>(s, table, n0 + o);
  }
  eyc[R] = __ldg(ey + R * sx);
  ezc[R] = __ldg(ez + R * sx);
#pragma unroll
  for (int p = 0; p < R; ++p) {
    const int64_t o = p * sx;
    const float curl_x = (ezj[p] - ezc[p]) * iky - (eyk[p] - eyc[p]) * ikz;
    const float curl_y = (exk[p] - exc[p]) * ikz - (ezc[p + 1] - ezc[p]) * ikx;
    const float curl_z = (eyc[p + 1] - eyc[p]) * ikx - (exj[p] - exc[p]) * iky;
    __stcs(hx + o, hxc[p] - dh[p] * curl_x);
    __stcs(hy + o, hyc[p] - dh[p] * curl_y);
    __stcs(hz + o, hzc[p] - dh[p] * curl_z);
  }
}

// E^{n+1} = ca E^n + cb curl H^{n+1/2} on the interior, R planes per thread.
template <class Id, int R>
__global__ void __launch_bounds__(tile_threads) interior_e_kernel(const StepArgs s) {
  __shared__ float2 table[std::is_same_v<Id, unsigned char> ? shared_materials : 1];
  load_table<Id>(s, table, true);
  const split::Interior& in = s.e.interior;
  int64_t i0, j, k;
  if (!interior_node<R>(in.box, i0, j, k)) return;
  const int64_t sy = s.sy, sx = (s.a.ny + 1) * sy, n0 = i0 * sx + j * sy + k;
  if (i0 + R > in.box.hi[0]) {
    for (int64_t n = n0; n < in.box.hi[0] * sx; n += sx) {
      const float2 c = e_coefficients<Id>(s, table, n);
      split::update_e_interior(s.a, n, sy, sx, in.inv_d, c.x, c.y);
    }
    return;
  }
  const float ikx = in.inv_d[0], iky = in.inv_d[1], ikz = in.inv_d[2];
  const float *hx = s.a.hx + n0, *hy = s.a.hy + n0, *hz = s.a.hz + n0;
  float *ex = s.a.ex + n0, *ey = s.a.ey + n0, *ez = s.a.ez + n0;
  // hyv[p + 1], hzv[p + 1]: plane i0 + p; hyv[0], hzv[0]: plane i0 - 1.
  float hxc[R], hxk[R], hxj[R], hyv[R + 1], hyk[R], hzv[R + 1], hzj[R];
  float exc[R], eyc[R], ezc[R];
  float2 c[R];
  hyv[0] = __ldg(hy - sx);
  hzv[0] = __ldg(hz - sx);
#pragma unroll
  for (int p = 0; p < R; ++p) {
    const int64_t o = p * sx;
    hxc[p] = __ldg(hx + o);
    hxk[p] = __ldg(hx + o - 1);
    hxj[p] = __ldg(hx + o - sy);
    hyv[p + 1] = __ldg(hy + o);
    hyk[p] = __ldg(hy + o - 1);
    hzv[p + 1] = __ldg(hz + o);
    hzj[p] = __ldg(hz + o - sy);
    exc[p] = __ldcs(ex + o);
    eyc[p] = __ldcs(ey + o);
    ezc[p] = __ldcs(ez + o);
    c[p] = e_coefficients<Id>(s, table, n0 + o);
  }
#pragma unroll
  for (int p = 0; p < R; ++p) {
    const int64_t o = p * sx;
    const float curl_x = (hzv[p + 1] - hzj[p]) * iky - (hyv[p + 1] - hyk[p]) * ikz;
    const float curl_y = (hxc[p] - hxk[p]) * ikz - (hzv[p + 1] - hzv[p]) * ikx;
    const float curl_z = (hyv[p + 1] - hyv[p]) * ikx - (hxc[p] - hxj[p]) * iky;
    __stcs(ex + o, c[p].x * exc[p] + c[p].y * curl_x);
    __stcs(ey + o, c[p].x * eyc[p] + c[p].y * curl_y);
    __stcs(ez + o, c[p].x * ezc[p] + c[p].y * curl_z);
  }
}

// The shell (CPML layers, PEC faces): one thread per node, general update.
template <class Id>
__global__ void __launch_bounds__(shell_block, shell_min_blocks) shell_h_kernel(const StepArgs s) {
  __shared__ float2 table[std::is_same_v<Id, unsigned char> ? shared_materials : 1];
  load_table<Id>(s, table, false);
  const int64_t q = int64_t(blockIdx.x) * shell_block + threadIdx.x;
  if (q >= s.h.shell.first[6]) return;
  int64_t i, j, k;
  split::shell_node(s.h.shell, q, i, j, k);
  const int64_t sy = s.sy, sx = (s.a.ny + 1) * sy, n = i * sx + j * sy + k;
  split::update_h_node(s.a, i, i, j, k, sy, sx, h_coefficient<Id>(s, table, n));
}

template <class Id>
__global__ void __launch_bounds__(shell_block, shell_min_blocks) shell_e_kernel(const StepArgs s) {
  __shared__ float2 table[std::is_same_v<Id, unsigned char> ? shared_materials : 1];
  load_table<Id>(s, table, true);
  const int64_t q = int64_t(blockIdx.x) * shell_block + threadIdx.x;
  if (q >= s.e.shell.first[6]) return;
  int64_t i, j, k;
  split::shell_node(s.e.shell, q, i, j, k);
  const int64_t sy = s.sy, sx = (s.a.ny + 1) * sy, n = i * sx + j * sy + k;
  const float2 c = e_coefficients<Id>(s, table, n);
  split::update_e_node(s.a, i, i, j, k, sy, sx, c.x, c.y);
}

template <class Id>
__global__ void __launch_bounds__(energy_block)
    energy_kernel(const StepArgs s, int64_t nodes, double* sum) {
  __shared__ double warp_sums[energy_block / 32];
  const YeeKernelArgs& a = s.a;
  double acc = 0;
  for (int64_t n = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; n < nodes;
       n += int64_t(gridDim.x) * blockDim.x) {
    const float e2 = a.ex[n] * a.ex[n] + a.ey[n] * a.ey[n] + a.ez[n] * a.ez[n];
    const float h2 = a.hx[n] * a.hx[n] + a.hy[n] * a.hy[n] + a.hz[n] * a.hz[n];
    float eps = s.eps0, mu = s.mu0;
    if constexpr (!std::is_same_v<Id, OneMaterial>) {
      const float* row = a.material_table + int64_t(material_of<Id>(s, n)) * material_stride;
      eps = __ldg(row + coef_eps);
      mu = __ldg(row + coef_mu);
    }
    acc += 0.5 * (double(eps) * e2 + double(mu) * h2);
  }
  for (int offset = 16; offset > 0; offset >>= 1) acc += __shfl_down_sync(full_mask, acc, offset);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    acc = lane < energy_block / 32 ? warp_sums[lane] : 0.0;
    for (int offset = 16; offset > 0; offset >>= 1) acc += __shfl_down_sync(full_mask, acc, offset);
    if (lane == 0) atomicAdd(sum, acc);
  }
}

template <class F>
void with_planes(int planes, F&& f) {
  switch (planes) {
    case 1:
      f(std::integral_constant<int, 1>{});
      break;
    case 4:
      f(std::integral_constant<int, 4>{});
      break;
    default:
      f(std::integral_constant<int, 2>{});
      break;
  }
}

dim3 interior_grid(const split::Box& b, int planes) {
  const int64_t k0 = b.lo[2] & ~int64_t(tile_z - 1);
  return dim3(unsigned((b.hi[2] - k0 + tile_z - 1) / tile_z),
              unsigned((b.hi[1] - b.lo[1] + tile_y - 1) / tile_y),
              unsigned((b.hi[0] - b.lo[0] + planes - 1) / planes));
}

unsigned shell_blocks(const split::Shell& sh) {
  return unsigned((sh.first[6] + shell_block - 1) / shell_block);
}

// The shell kernel of a half step runs on a side stream, concurrently with the
// interior kernel (they write disjoint nodes and read only the other field):
// its short, latency-bound rows of CPML nodes overlap the interior's stream
// of full lines instead of adding their time after it. Fork and join through
// events, so the default stream sees one half step as before.
struct ShellStream {
  cudaStream_t stream = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr;
};

ShellStream& shell_stream() {
  constexpr int max_devices = 64;
  static ShellStream per_device[max_devices];
  int device = 0;
  cudaGetDevice(&device);
  ShellStream& ss = per_device[device % max_devices];
  if (!ss.stream) {
    cudaStreamCreateWithFlags(&ss.stream, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&ss.fork, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&ss.join, cudaEventDisableTiming);
  }
  return ss;
}

template <class LaunchShell, class LaunchInterior>
void overlapped(bool has_shell, LaunchShell&& launch_shell, LaunchInterior&& launch_interior) {
  if (!has_shell) {
    launch_interior(cudaStream_t(nullptr));
    return;
  }
  ShellStream& ss = shell_stream();
  cudaEventRecord(ss.fork, nullptr);
  cudaStreamWaitEvent(ss.stream, ss.fork, 0);
  launch_shell(ss.stream);
  launch_interior(cudaStream_t(nullptr));
  cudaEventRecord(ss.join, ss.stream);
  cudaStreamWaitEvent(nullptr, ss.join, 0);
}

}  // namespace

void update_h(const StepArgs& s, int planes_per_thread) {
  with_id_type(s.id_bytes, [&](auto id) {
    using Id = decltype(id);
    overlapped(
        s.h.shell.first[6] > 0,
        [&](cudaStream_t st) {
          shell_h_kernel<Id><<<shell_blocks(s.h.shell), shell_block, 0, st>>>(s);
        },
        [&](cudaStream_t st) {
          if (split::box_empty(s.h.interior.box)) return;  // a grid thinner than the CPML
          with_planes(planes_per_thread, [&](auto planes) {
            constexpr int R = decltype(planes)::value;
            interior_h_kernel<Id, R>
                <<<interior_grid(s.h.interior.box, R), dim3(tile_z, tile_y), 0, st>>>(s);
          });
        });
  });
}

void update_e(const StepArgs& s, int planes_per_thread) {
  with_id_type(s.id_bytes, [&](auto id) {
    using Id = decltype(id);
    overlapped(
        s.e.shell.first[6] > 0,
        [&](cudaStream_t st) {
          shell_e_kernel<Id><<<shell_blocks(s.e.shell), shell_block, 0, st>>>(s);
        },
        [&](cudaStream_t st) {
          if (split::box_empty(s.e.interior.box)) return;  // a grid thinner than the CPML
          with_planes(planes_per_thread, [&](auto planes) {
            constexpr int R = decltype(planes)::value;
            interior_e_kernel<Id, R>
                <<<interior_grid(s.e.interior.box, R), dim3(tile_z, tile_y), 0, st>>>(s);
          });
        });
  });
}

void field_energy(const StepArgs& s, double* device_sum) {
  cudaMemsetAsync(device_sum, 0, sizeof(double));
  const int64_t nodes = (s.a.nx + 1) * (s.a.ny + 1) * s.sy;
  const unsigned blocks =
      unsigned(std::min<int64_t>((nodes + energy_block - 1) / energy_block, 4096));
  with_id_type(s.id_bytes, [&](auto id) {
    using Id = decltype(id);
    energy_kernel<Id><<<blocks, energy_block>>>(s, nodes, device_sum);
  });
}

const char* last_launch_error() {
  const cudaError_t status = cudaGetLastError();
  return status == cudaSuccess ? nullptr : cudaGetErrorString(status);
}

}  // namespace ppkit::fdtd::cuda_split
