// cuda/wavefront: a full fdtd.step (H then E, Taflove & Hagness eq.
// 3.18-3.19, CPML of Roden & Gedney 2000) in one launch, fusing the two half
// steps through a wavefront over the x-planes so that E is updated while the
// H it needs, and the E it overwrites, are still in L2.
//
// Why: the split kernels move 72 B per node and step (each half step reads 6
// fields and writes 3), which caps them at ~57 G nodes/s at 4.1 TB/s. Here
// E^n and H^{n-1/2} are read from DRAM once (by the H update) and H^{n+1/2}
// and E^{n+1} written once: 48 B per node and step if the E update of plane p
// finds in L2 what the H update of planes p and p+1 touched (one or two
// planes of six fields: 6-14 MB at 512^3-768^3, below the 50 MB L2).
//
// Schedule: work items in the order H(0), H(1), E(0), H(2), E(1), ...,
// H(P-1), E(P-2), E(P-1) over the P = nx + 1 planes, each item the plane's
// tiles of 32 z x 32 y nodes (32 x 8 threads, 4 consecutive rows each).
// Every block takes the next ticket from a global counter when it starts, so
// tickets are handed out in order whatever order the hardware runs blocks
// in. E(p) overwrites E at plane p, which H(p) and H(p-1) read, and reads
// H^{n+1/2} at planes p and p-1: an E(p) block waits until all tiles of H(p)
// and H(p-1) are done (per-plane completion counters). H tiles never wait,
// and every H ticket an E tile waits for was handed out before its own, to a
// running block: no deadlock, at most one item of lag. Updates are in place.
// This file is compiled with -Xptxas -dlcm=cg (global loads bypass L1), so a
// block never sees an L1 copy older than the data another SM wrote; the
// neighbour reuse goes through L2. cuda/wavefront-l1 (fdtd_cuda_wavefront_l1.cu)
// is the same code with the default L1 caching: it relies on the GPU-scope
// fence after the wait (acquire) to drop stale L1 lines and saves L2
// bandwidth; the GPU tests tell whether that holds. Materials as in cuda/split.
#include <cuda_runtime.h>

#include "backends/cuda/fdtd/fdtd_cuda_materials.cuh"
#include "backends/cuda/fdtd/fdtd_cuda_split_kernels.hpp"

#ifndef PPKIT_WAVEFRONT_STEP
#define PPKIT_WAVEFRONT_STEP wavefront_step
#endif

namespace ppkit::fdtd::cuda_split {
namespace {
using namespace detail;

constexpr int wave_z = 32, wave_threads_y = 8, wave_rows = 4;
constexpr int wave_y = wave_threads_y * wave_rows;  // 32 rows per tile
constexpr int wave_threads = wave_z * wave_threads_y;

// Item m of the schedule: which half step and plane.
__device__ __forceinline__ void wave_item(int64_t m, int64_t planes, bool& electric, int64_t& p) {
  if (m == 0) {
    electric = false;
    p = 0;
  } else if (m & 1) {
    p = (m + 1) / 2;
    electric = p >= planes;  // the last item: E(P-1)
    if (electric) p = planes - 1;
  } else {
    electric = true;
    p = m / 2 - 1;
  }
}

// Rows j0..j0+3 of column k on plane i: H^{n+1/2}.
template <class Id>
__device__ __forceinline__ void wave_h(const StepArgs& s, const float2* table, int64_t i,
                                       int64_t j0, int64_t k) {
  const YeeKernelArgs& a = s.a;
  const split::Box& b = s.h.interior.box;
  const int64_t sy = s.sy, sx = (a.ny + 1) * sy, n0 = i * sx + j0 * sy + k;
  const bool fast = i >= b.lo[0] && i < b.hi[0] && j0 >= b.lo[1] && j0 + wave_rows <= b.hi[1] &&
                    k >= b.lo[2] && k < b.hi[2];
  if (!fast) {  // CPML layers, PEC faces, grid edges: the general update per node
    if (k > a.nz) return;
    for (int r = 0; r < wave_rows && j0 + r <= a.ny; ++r)
      split::update_h_node(a, i, i, j0 + r, k, sy, sx, h_coefficient<Id>(s, table, n0 + r * sy));
    return;
  }
  const float ix = s.h.interior.inv_d[0], iy = s.h.interior.inv_d[1], iz = s.h.interior.inv_d[2];
  const float *ex = a.ex + n0, *ey = a.ey + n0, *ez = a.ez + n0;
  float *hx = a.hx + n0, *hy = a.hy + n0, *hz = a.hz + n0;
  float exr[wave_rows + 1], exk[wave_rows], eyr[wave_rows], eyk[wave_rows], eyi[wave_rows];
  float ezr[wave_rows + 1], ezi[wave_rows], hxr[wave_rows], hyr[wave_rows], hzr[wave_rows];
  float dh[wave_rows];
#pragma unroll
  for (int r = 0; r < wave_rows; ++r) {
    const int64_t o = r * sy;
    exr[r] = ex[o];
    exk[r] = ex[o + 1];
    eyr[r] = ey[o];
    eyk[r] = ey[o + 1];
    eyi[r] = ey[o + sx];
    ezr[r] = ez[o];
    ezi[r] = ez[o + sx];
    hxr[r] = hx[o];
    hyr[r] = hy[o];
    hzr[r] = hz[o];
    dh[r] = h_coefficient<Id>(s, table, n0 + o);
  }
  exr[wave_rows] = ex[wave_rows * sy];
  ezr[wave_rows] = ez[wave_rows * sy];
#pragma unroll
  for (int r = 0; r < wave_rows; ++r) {
    const int64_t o = r * sy;
    const float curl_x = (ezr[r + 1] - ezr[r]) * iy - (eyk[r] - eyr[r]) * iz;
    const float curl_y = (exk[r] - exr[r]) * iz - (ezi[r] - ezr[r]) * ix;
    const float curl_z = (eyi[r] - eyr[r]) * ix - (exr[r + 1] - exr[r]) * iy;
    hx[o] = hxr[r] - dh[r] * curl_x;
    hy[o] = hyr[r] - dh[r] * curl_y;
    hz[o] = hzr[r] - dh[r] * curl_z;
  }
}

// Rows j0..j0+3 of column k on plane i: E^{n+1}.
template <class Id>
__device__ __forceinline__ void wave_e(const StepArgs& s, const float2* table, int64_t i,
                                       int64_t j0, int64_t k) {
  const YeeKernelArgs& a = s.a;
  const split::Box& b = s.e.interior.box;
  const int64_t sy = s.sy, sx = (a.ny + 1) * sy, n0 = i * sx + j0 * sy + k;
  const bool fast = i >= b.lo[0] && i < b.hi[0] && j0 >= b.lo[1] && j0 + wave_rows <= b.hi[1] &&
                    k >= b.lo[2] && k < b.hi[2];
  if (!fast) {
    if (k > a.nz) return;
    for (int r = 0; r < wave_rows && j0 + r <= a.ny; ++r) {
      const float2 c = e_coefficients<Id>(s, table, n0 + r * sy);
      split::update_e_node(a, i, i, j0 + r, k, sy, sx, c.x, c.y);
    }
    return;
  }
  const float ix = s.e.interior.inv_d[0], iy = s.e.interior.inv_d[1], iz = s.e.interior.inv_d[2];
  const float *hx = a.hx + n0, *hy = a.hy + n0, *hz = a.hz + n0;
  float *ex = a.ex + n0, *ey = a.ey + n0, *ez = a.ez + n0;
  // hxr[r + 1], hzr[r + 1]: row j0 + r; hxr[0], hzr[0]: row j0 - 1.
  float hxr[wave_rows + 1], hxk[wave_rows], hyr[wave_rows], hyk[wave_rows], hyi[wave_rows];
  float hzr[wave_rows + 1], hzi[wave_rows], exr[wave_rows], eyr[wave_rows], ezr[wave_rows];
  float2 c[wave_rows];
  hxr[0] = hx[-sy];
  hzr[0] = hz[-sy];
#pragma unroll
  for (int r = 0; r < wave_rows; ++r) {
    const int64_t o = r * sy;
    hxr[r + 1] = hx[o];
    hxk[r] = hx[o - 1];
    hyr[r] = hy[o];
    hyk[r] = hy[o - 1];
    hyi[r] = hy[o - sx];
    hzr[r + 1] = hz[o];
    hzi[r] = hz[o - sx];
    exr[r] = ex[o];
    eyr[r] = ey[o];
    ezr[r] = ez[o];
    c[r] = e_coefficients<Id>(s, table, n0 + o);
  }
#pragma unroll
  for (int r = 0; r < wave_rows; ++r) {
    const int64_t o = r * sy;
    const float curl_x = (hzr[r + 1] - hzr[r]) * iy - (hyr[r] - hyk[r]) * iz;
    const float curl_y = (hxr[r + 1] - hxk[r]) * iz - (hzr[r + 1] - hzi[r]) * ix;
    const float curl_z = (hyr[r] - hyi[r]) * ix - (hxr[r + 1] - hxr[r]) * iy;
    ex[o] = c[r].x * exr[r] + c[r].y * curl_x;
    ey[o] = c[r].x * eyr[r] + c[r].y * curl_y;
    ez[o] = c[r].x * ezr[r] + c[r].y * curl_z;
  }
}

// counters[0]: next ticket; counters[1 + p]: finished H tiles of plane p.
template <class Id>
__global__ void __launch_bounds__(wave_threads)
    wavefront_kernel(const StepArgs s, int* counters, int tiles_z, int tiles_per_plane) {
  __shared__ float2 h_table[std::is_same_v<Id, unsigned char> ? shared_materials : 1];
  __shared__ float2 e_table[std::is_same_v<Id, unsigned char> ? shared_materials : 1];
  __shared__ int ticket;
  load_table<Id>(s, h_table, false);
  load_table<Id>(s, e_table, true);
  const int thread = threadIdx.y * wave_z + threadIdx.x;
  if (thread == 0) ticket = atomicAdd(counters, 1);
  __syncthreads();
  const int64_t m = ticket / tiles_per_plane;
  const int tile = int(ticket - m * tiles_per_plane);
  bool electric;
  int64_t p;
  wave_item(m, s.a.nx + 1, electric, p);
  const int64_t k = int64_t(tile % tiles_z) * wave_z + threadIdx.x;
  const int64_t j0 = int64_t(tile / tiles_z) * wave_y + int64_t(threadIdx.y) * wave_rows;
  int* done = counters + 1;
  if (electric) {
    if (thread == 0) {
      const volatile int* finished = done;
      while (finished[p] < tiles_per_plane || (p > 0 && finished[p - 1] < tiles_per_plane))
        __nanosleep(100);
      __threadfence();
    }
    __syncthreads();
    wave_e<Id>(s, e_table, p, j0, k);
  } else {
    wave_h<Id>(s, h_table, p, j0, k);
    __threadfence();  // this thread's H stores before the tile is counted
    __syncthreads();
    if (thread == 0) atomicAdd(done + p, 1);
  }
}

}  // namespace

#ifndef PPKIT_WAVEFRONT_L1
std::int64_t wavefront_counter_ints(const StepArgs& s) { return 1 + (s.a.nx + 1); }
#endif

void PPKIT_WAVEFRONT_STEP(const StepArgs& s, int* counters) {
  cudaMemsetAsync(counters, 0, std::size_t(wavefront_counter_ints(s)) * sizeof(int));
  const int tiles_z = int(s.sy / wave_z);
  const int tiles_per_plane = tiles_z * int((s.a.ny + 1 + wave_y - 1) / wave_y);
  const unsigned blocks = unsigned(2 * (s.a.nx + 1) * tiles_per_plane);
  with_id_type(s.id_bytes, [&](auto id) {
    using Id = decltype(id);
    wavefront_kernel<Id>
        <<<blocks, dim3(wave_z, wave_threads_y)>>>(s, counters, tiles_z, tiles_per_plane);
  });
}

}  // namespace ppkit::fdtd::cuda_split
