// cuda/split-x<R>: fdtd.step for NVIDIA GPUs designed from the bytes it must
// move (Taflove & Hagness eq. 3.18-3.19, CPML of Roden & Gedney 2000).
//
// A half step reads 6 fields and writes 3 at every node: 36 B, 72 B per full
// step, plus a 1-byte material id per half step (none with one material).
// Everything else must come from caches, and enough loads must be in flight
// to cover the DRAM latency (Little's law: ~4 TB/s x ~0.7 us = ~3 MB in
// flight on the chip, ~20 KB per SM). So:
//  - Interior / shell split (yee_split.hpp): the interior update has no CPML
//    branch, no psi and constant 1/du; the CPML layers and PEC faces (~12% of
//    the nodes at 512^3 with 10 cells) run through the general update over a
//    flat list of shell nodes, in blocks interleaved with the interior tiles
//    of the same launch (BlockMap).
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
#include <string>
#include <type_traits>

#include "backends/cuda/fdtd/fdtd_cuda_materials.cuh"
#include "backends/cuda/fdtd/fdtd_cuda_split_kernels.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/fdtd/materials.hpp"

namespace ppkit::fdtd::cuda_split {
namespace {
using namespace detail;

using std::int64_t;

constexpr int tile_z = 32, tile_y = 8, tile_threads = tile_z * tile_y;
constexpr int shell_block = 256, energy_block = 256;
static_assert(shell_block == tile_threads, "one half-step launch holds both kinds of block");
// Blocks per SM the half-step kernels are compiled for: 64 registers per
// thread (ptxas, sm_90: the shell's loads-first general update needs ~66
// without a cap, the interior tiles 30-40; at 4 blocks a few bytes spill in
// the 2- and 4-byte id kernels), 32 warps per SM, which keeps ~40 KB of
// interior loads in flight per SM (Little's law above: ~20 KB needed).
constexpr int half_step_min_blocks = 4;
constexpr unsigned full_mask = 0xffffffffu;

// One half step is one launch of 256-thread blocks: interior tiles and shell
// blocks interleaved evenly, so the latency-bound shell blocks (short CPML
// rows, psi and profile loads) run beside the interior's stream of full lines
// and their time hides under it (as separate kernels, even on two streams,
// the interior's blocks filled the GPU first and the two times added up).
// Block b is a shell block iff floor(b S / T) steps at b (S shell blocks of T);
// the others are interior tiles in (z, y, x-group) order.
struct BlockMap {
  int64_t total, shell;       // blocks of the launch, shell blocks among them
  unsigned tiles_z, tiles_y;  // interior tiles per row of the (z, y, x-group) order
};

// What one block of a half-step launch updates: shell nodes from `first`
// (shell) or the interior tile (tz, ty, group).
struct BlockRole {
  bool shell;
  int64_t first, tz, ty, group;
};

// Decoded once per block by thread 0 and shared: per thread, the 64-bit
// divisions made the launch instruction-bound (8.9 ms per half step at 768^3
// against 3.8 + 1.1 ms for the two kernels it replaces).
__device__ __forceinline__ BlockRole decode_block(const BlockMap& map) {
  __shared__ int64_t role[4];
  if (threadIdx.x == 0) {
    const int64_t b = blockIdx.x, before = b * map.shell / map.total;
    if ((b + 1) * map.shell / map.total > before) {
      role[0] = -1;
      role[1] = before * shell_block;
    } else {
      const int64_t tile = b - before, row = tile / map.tiles_z, group = row / map.tiles_y;
      role[0] = group;
      role[1] = tile - row * map.tiles_z;
      role[2] = row - group * map.tiles_y;
    }
  }
  __syncthreads();
  BlockRole r{role[0] < 0, 0, 0, 0, 0};
  if (r.shell) {
    r.first = role[1];
  } else {
    r.group = role[0];
    r.tz = role[1];
    r.ty = role[2];
  }
  return r;
}

// Thread (k, j) of the block's interior tile and its first plane i0; false outside the box.
template <int R>
__device__ __forceinline__ bool interior_node(const split::Box& b, const BlockRole& role,
                                              int64_t& i0, int64_t& j, int64_t& k) {
  k = (b.lo[2] & ~int64_t(tile_z - 1)) + role.tz * tile_z + int(threadIdx.x % tile_z);
  j = b.lo[1] + role.ty * tile_y + int(threadIdx.x / tile_z);
  i0 = b.lo[0] + role.group * R;
  return k >= b.lo[2] && k < b.hi[2] && j < b.hi[1];
}

// H^{n+1/2} = H^{n-1/2} - dh curl E^n on the interior, R planes per thread.
template <class Id, int R>
__device__ __forceinline__ void interior_h(const StepArgs& s, const float2* table,
                                           const BlockRole& role) {
  const split::Interior& in = s.h.interior;
  int64_t i0, j, k;
  if (!interior_node<R>(in.box, role, i0, j, k)) return;
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
__device__ __forceinline__ void interior_e(const StepArgs& s, const float2* table,
                                           const BlockRole& role) {
  const split::Interior& in = s.e.interior;
  int64_t i0, j, k;
  if (!interior_node<R>(in.box, role, i0, j, k)) return;
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
__device__ __forceinline__ void shell_h(const StepArgs& s, const float2* table, int64_t q) {
  if (q >= s.h.shell.first[6]) return;
  int64_t i, j, k;
  split::shell_node(s.h.shell, q, i, j, k);
  const int64_t sy = s.sy, sx = (s.a.ny + 1) * sy, n = i * sx + j * sy + k;
  split::update_h_node(s.a, i, i, j, k, sy, sx, h_coefficient<Id>(s, table, n));
}

template <class Id>
__device__ __forceinline__ void shell_e(const StepArgs& s, const float2* table, int64_t q) {
  if (q >= s.e.shell.first[6]) return;
  int64_t i, j, k;
  split::shell_node(s.e.shell, q, i, j, k);
  const int64_t sy = s.sy, sx = (s.a.ny + 1) * sy, n = i * sx + j * sy + k;
  const float2 c = e_coefficients<Id>(s, table, n);
  split::update_e_node(s.a, i, i, j, k, sy, sx, c.x, c.y);
}

// One half step: the H (E) update of the interior tiles and the shell.
template <class Id, int R>
__global__ void __launch_bounds__(tile_threads, half_step_min_blocks)
    half_step_h_kernel(const StepArgs s, const BlockMap map) {
  __shared__ float2 table[std::is_same_v<Id, unsigned char> ? shared_materials : 1];
  load_table<Id>(s, table, false);
  const BlockRole role = decode_block(map);
  if (role.shell)
    shell_h<Id>(s, table, role.first + threadIdx.x);
  else
    interior_h<Id, R>(s, table, role);
}

template <class Id, int R>
__global__ void __launch_bounds__(tile_threads, half_step_min_blocks)
    half_step_e_kernel(const StepArgs s, const BlockMap map) {
  __shared__ float2 table[std::is_same_v<Id, unsigned char> ? shared_materials : 1];
  load_table<Id>(s, table, true);
  const BlockRole role = decode_block(map);
  if (role.shell)
    shell_e<Id>(s, table, role.first + threadIdx.x);
  else
    interior_e<Id, R>(s, table, role);
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

// The blocks of one half step (BlockMap above): interior tiles of 32 z x 8 y
// nodes x `planes` x-planes and shell blocks of 256 nodes.
BlockMap block_map(const HalfStep& half, int planes) {
  BlockMap map{0, 0, 0, 0};
  map.shell = (half.shell.first[6] + shell_block - 1) / shell_block;
  int64_t tiles = 0;
  if (!split::box_empty(half.interior.box)) {  // empty on grids thinner than the CPML
    const split::Box& b = half.interior.box;
    const int64_t k0 = b.lo[2] & ~int64_t(tile_z - 1);
    map.tiles_z = unsigned((b.hi[2] - k0 + tile_z - 1) / tile_z);
    map.tiles_y = unsigned((b.hi[1] - b.lo[1] + tile_y - 1) / tile_y);
    tiles = int64_t(map.tiles_z) * map.tiles_y * ((b.hi[0] - b.lo[0] + planes - 1) / planes);
  }
  map.total = tiles + map.shell;
  if (map.total >= (int64_t(1) << 31))
    throw Error("fdtd cuda/split: " + std::to_string(map.total) +
                " blocks in one half step exceed the launch limit of 2^31 - 1; use more "
                "x-planes per thread (cuda/split-x4) or a smaller grid");
  return map;
}

}  // namespace

void update_h(const StepArgs& s, int planes_per_thread) {
  with_id_type(s.id_bytes, [&](auto id) {
    using Id = decltype(id);
    with_planes(planes_per_thread, [&](auto planes) {
      constexpr int R = decltype(planes)::value;
      const BlockMap map = block_map(s.h, R);
      if (map.total > 0) half_step_h_kernel<Id, R><<<unsigned(map.total), tile_threads>>>(s, map);
    });
  });
}

void update_e(const StepArgs& s, int planes_per_thread) {
  with_id_type(s.id_bytes, [&](auto id) {
    using Id = decltype(id);
    with_planes(planes_per_thread, [&](auto planes) {
      constexpr int R = decltype(planes)::value;
      const BlockMap map = block_map(s.e, R);
      if (map.total > 0) half_step_e_kernel<Id, R><<<unsigned(map.total), tile_threads>>>(s, map);
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
