// Hand-tuned GPU kernels of the SPH workload (see sph_gpu_kernels.hpp), one
// source for CUDA and HIP: included by exactly one translation unit per vendor,
// backends/cuda/sph/sph_cuda_kernels.cu (nvcc) and backends/hip/sph/sph_hip_kernels.hip (HIP
// compiler), which instantiates the launchers for that vendor (end of file).
// The pair physics is shared with the Kokkos kernels (src/ppkit/sph/sph_pair.hpp).
//
// What differs between the vendors is small: the time-step maxima reduce over
// 32-lane sub-groups (one per CUDA warp, two per AMD wavefront) with the
// width-kSubgroupWidth shuffles of gpu_portability.hpp, and the asynchronous
// memset is the vendor's (zero_async). Every kernel is one thread per particle
// or per cell, with blocks of kBlock = 256 threads (8 warps, 4 wavefronts),
// except warp per cell (blocks of kCellWarp = 32 threads that synchronise with
// __syncthreads, so half an AMD wavefront works too); nothing else depends on
// the warp size. The exclusive scan of the counting
// sort is written here (below) rather than taken from CUB: Debian 12's ROCm has
// no hipCUB, and one scan for both vendors makes the HIP path the code that
// the CUDA tests exercise.
#include <cstddef>

// The vendor runtime (float4, launches) before the launcher declarations.
#include "backends/cuda_hip/core/gpu_portability.hpp"

#include "backends/cuda_hip/sph/sph_gpu_kernels.hpp"
#include "ppkit/sph/sph_pair.hpp"

namespace ppkit::sph::gpu_kernels {
namespace {

#if defined(PPKIT_GPU_HIP)
using CompiledVendor = Hip;
#else
using CompiledVendor = Cuda;
#endif

constexpr int kBlock = 256;
static_assert(kBlock % gpu::kWarpSize == 0, "whole warps / wavefronts per block");
int blocks(int n) { return (n + kBlock - 1) / kBlock; }

void zero_async(void* p, std::size_t bytes) {
#if defined(PPKIT_GPU_HIP)
  (void)hipMemsetAsync(p, 0, bytes);
#else
  (void)cudaMemsetAsync(p, 0, bytes);
#endif
}

// ---- exclusive scan (counting sort by cell) ---------------------------------------
// Three passes over tiles of kScanTile ints: each block sums its tile; one block
// scans the tile sums in place (a loop over chunks with a running carry, so any
// number of tiles works); each block scans its tile and adds the tile's offset.
// Each thread owns kScanItems consecutive entries; the threads' totals are
// scanned in shared memory. Integer sums: the result is exact and the same as
// any other scan's.
constexpr int kScanBlock = 256;
constexpr int kScanItems = 8;
constexpr int kScanTile = kScanBlock * kScanItems;
static_assert(kScanBlock % gpu::kWarpSize == 0, "whole warps / wavefronts per block");

int scan_tiles(int count) { return (count + kScanTile - 1) / kScanTile; }

// Exclusive prefix sum of one value per thread over the block (Hillis-Steele in
// shared memory); `total` receives the block's sum. Every thread of the block
// must call it.
__device__ int block_exclusive_sum(int value, int& total) {
  __shared__ int partial[kScanBlock];
  const int t = static_cast<int>(threadIdx.x);
  partial[t] = value;
  __syncthreads();
  for (int offset = 1; offset < kScanBlock; offset *= 2) {
    const int add = t >= offset ? partial[t - offset] : 0;
    __syncthreads();
    partial[t] += add;
    __syncthreads();
  }
  total = partial[kScanBlock - 1];
  const int inclusive = partial[t];
  __syncthreads();  // `partial` is reused by the next call
  return inclusive - value;
}

// This thread's kScanItems consecutive entries from `first` (0 at and past count).
__device__ void load_items(const int* in, long long count, long long first,
                           int (&items)[kScanItems]) {
  for (int k = 0; k < kScanItems; ++k) items[k] = first + k < count ? in[first + k] : 0;
}

__device__ long long thread_first_item(long long tile_begin) {
  return tile_begin + static_cast<long long>(threadIdx.x) * kScanItems;
}

__global__ void __launch_bounds__(kScanBlock)
    scan_sum_tiles(const int* in, int count, int* tile_sums) {
  int items[kScanItems];
  load_items(in, count, thread_first_item(static_cast<long long>(blockIdx.x) * kScanTile), items);
  int sum = 0;
  for (int k = 0; k < kScanItems; ++k) sum += items[k];
  int total = 0;
  block_exclusive_sum(sum, total);
  if (threadIdx.x == 0) tile_sums[blockIdx.x] = total;
}

// Writes the exclusive scan of items[] plus `offset` from `first` (below count).
__device__ void store_exclusive(int* out, long long count, long long first,
                                const int (&items)[kScanItems], int offset) {
  for (int k = 0; k < kScanItems; ++k) {
    if (first + k < count) out[first + k] = offset;
    offset += items[k];
  }
}

// One block: tile_sums[t] becomes the sum of the tiles before t.
__global__ void __launch_bounds__(kScanBlock) scan_tile_offsets(int* tile_sums, int tiles) {
  int carry = 0;
  for (long long chunk = 0; chunk < tiles; chunk += kScanTile) {
    int items[kScanItems];
    const long long first = thread_first_item(chunk);
    load_items(tile_sums, tiles, first, items);
    int sum = 0;
    for (int k = 0; k < kScanItems; ++k) sum += items[k];
    int total = 0;
    const int before = block_exclusive_sum(sum, total);
    store_exclusive(tile_sums, tiles, first, items, carry + before);
    carry += total;
  }
}

__global__ void __launch_bounds__(kScanBlock)
    scan_within_tiles(const int* in, int count, const int* tile_offsets, int* out) {
  int items[kScanItems];
  const long long first = thread_first_item(static_cast<long long>(blockIdx.x) * kScanTile);
  load_items(in, count, first, items);
  int sum = 0;
  for (int k = 0; k < kScanItems; ++k) sum += items[k];
  int total = 0;
  const int before = block_exclusive_sum(sum, total);
  store_exclusive(out, count, first, items, tile_offsets[blockIdx.x] + before);
}

// out[k] = in[0] + ... + in[k-1]; tile_sums holds scan_tiles(count) ints.
void exclusive_scan(const int* in, int* out, int count, int* tile_sums) {
  const int tiles = scan_tiles(count);
  scan_sum_tiles<<<tiles, kScanBlock>>>(in, count, tile_sums);
  scan_tile_offsets<<<1, kScanBlock>>>(tile_sums, tiles);
  scan_within_tiles<<<tiles, kScanBlock>>>(in, count, tile_sums, out);
}

// ---- counting sort, interaction, integration ---------------------------------------

__device__ int cell_of(const CellGrid& g, float4 p, float kind) {
  if (kind == float(kEscaped)) return g.nx * g.ny * g.nz;
  const int cx = cell_coordinate(p.x, g.lo_x, g.inv_cell_x, g.nx);
  const int cy = cell_coordinate(p.y, g.lo_y, g.inv_cell_y, g.ny);
  const int cz = cell_coordinate(p.z, g.lo_z, g.inv_cell_z, g.nz);
  return (cz * g.ny + cy) * g.nx + cx;
}

__global__ void count_cells(CellGrid g, ParticleBuffers p, CellBuffers c) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  const float kind = p.vel_kind[i].w;
  const int cell = cell_of(g, p.pos_rho[i], kind);
  c.cell[i] = cell;
  atomicAdd(&c.cell_count[cell], 1);
  if (kind == float(kFluid)) atomicAdd(&c.cell_fluid[cell], 1);
}

__global__ void scatter(ParticleBuffers p, CellBuffers c, int* fill) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  const int cell = c.cell[i];
  c.permutation[c.cell_start[cell] + atomicAdd(&fill[cell], 1)] = i;
}

// Atomics fill a cell in any order; sorting each cell's few indices makes the
// numbering (and so every sum) reproducible run to run.
__global__ void sort_cells(CellBuffers c, int cells) {
  const int cell = blockIdx.x * blockDim.x + threadIdx.x;
  if (cell > cells) return;
  const int begin = c.cell_start[cell], end = c.cell_start[cell + 1];
  for (int a = begin + 1; a < end; ++a) {
    const int value = c.permutation[a];
    int b = a - 1;
    while (b >= begin && c.permutation[b] > value) {
      c.permutation[b + 1] = c.permutation[b];
      --b;
    }
    c.permutation[b + 1] = value;
  }
}

__global__ void gather(ParticleBuffers from, ParticleBuffers to, const int* permutation) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= from.n) return;
  const int i = permutation[k];
  to.pos_rho[k] = from.pos_rho[i];
  to.vel_kind[k] = from.vel_kind[i];
  to.id[k] = from.id[i];
}

template <bool Indirect>
__device__ __forceinline__ void visit_range(const KernelConstants& k, const ParticleBuffers& p,
                                            int i, bool fluid_i, float4 pi, float4 vi, float p_i,
                                            float c_i, const int* permutation, int begin, int end,
                                            PairSums& sums) {
  for (int slot = begin; slot < end; ++slot) {
    const int j = Indirect ? __ldg(&permutation[slot]) : slot;
    const float4 pj = __ldg(&p.pos_rho[j]);
    const float rx = minimum_image(pi.x - pj.x, k.lx, k.periodic_x);
    const float ry = minimum_image(pi.y - pj.y, k.ly, k.periodic_y);
    const float rz = minimum_image(pi.z - pj.z, k.lz, k.periodic_z);
    const float r2 = rx * rx + ry * ry + rz * rz;
    if (r2 >= k.support2 || j == i) continue;
    const float4 vj = __ldg(&p.vel_kind[j]);
    const bool fluid_j = vj.w == float(kFluid);
    if (!fluid_i && !fluid_j) continue;
    add_pair(k, fluid_i, fluid_j, rx, ry, rz, r2, vi.x - vj.x, vi.y - vj.y, vi.z - vj.z, pi.w, p_i,
             c_i, pj.w, sums);
  }
}

template <bool Indirect>
__global__ void __launch_bounds__(kBlock)
    interaction_kernel(KernelConstants k, CellGrid g, ParticleBuffers p, CellBuffers c,
                       RhsBuffers r) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  const float4 pi = p.pos_rho[i];
  const float4 vi = p.vel_kind[i];
  if (vi.w == float(kEscaped)) {
    r.acc_drho[i] = make_float4(0, 0, 0, 0);
    r.visc[i] = 0;
    return;
  }
  const bool fluid_i = vi.w == float(kFluid);
  const float p_i = tait_pressure(k, pi.w);
  const float c_i = sound_speed(k, pi.w);
  PairSums sums;
  const int cx = cell_coordinate(pi.x, g.lo_x, g.inv_cell_x, g.nx);
  const int cy = cell_coordinate(pi.y, g.lo_y, g.inv_cell_y, g.ny);
  const int cz = cell_coordinate(pi.z, g.lo_z, g.inv_cell_z, g.nz);
  for (int dz = -1; dz <= 1; ++dz) {
    const int mz = neighbour_coordinate(cz, dz, g.nz, g.periodic_z);
    if (mz < 0) continue;
    for (int dy = -1; dy <= 1; ++dy) {
      const int my = neighbour_coordinate(cy, dy, g.ny, g.periodic_y);
      if (my < 0) continue;
      const int row = (mz * g.ny + my) * g.nx;
      if (!g.periodic_x) {
        const int lo = cx > 0 ? cx - 1 : 0;
        const int hi = cx < g.nx - 1 ? cx + 1 : g.nx - 1;
        if (!fluid_i) {
          int fluid = 0;
          for (int m = lo; m <= hi; ++m) fluid += c.cell_fluid[row + m];
          if (fluid == 0) continue;
        }
        visit_range<Indirect>(k, p, i, fluid_i, pi, vi, p_i, c_i, c.permutation,
                              c.cell_start[row + lo], c.cell_start[row + hi + 1], sums);
      } else {
        for (int dx = -1; dx <= 1; ++dx) {
          const int mx = neighbour_coordinate(cx, dx, g.nx, 1);
          if (!fluid_i && c.cell_fluid[row + mx] == 0) continue;
          visit_range<Indirect>(k, p, i, fluid_i, pi, vi, p_i, c_i, c.permutation,
                                c.cell_start[row + mx], c.cell_start[row + mx + 1], sums);
        }
      }
    }
  }
  if (fluid_i)
    r.acc_drho[i] = make_float4(sums.ax + k.gx, sums.ay + k.gy, sums.az + k.gz, sums.drho);
  else
    r.acc_drho[i] = make_float4(0, 0, 0, sums.drho);
  r.visc[i] = sums.visc_max;
}

// ---- warp per cell (renumbered particles) -----------------------------------------------
// Guan et al.'s warp per cell (DualSPHysics' cell mode), the twin of
// kokkos-<space>/team-per-cell and opencl/group-per-cell-float4: a block of
// kCellWarp threads per occupied cell stages the neighbour candidates of the
// cell's 9 row ranges (27 cells along a periodic x) in shared memory,
// kCellChunk records at a time, and each thread computes one particle of the
// cell against them, so a candidate is loaded once per cell instead of once per
// particle of the cell. Neighbours are visited in the order of
// interaction_kernel<false>: each sum adds the same terms in the same order.
// Blocks loop over the listed cells (grid stride), so the launch needs no
// count from the host.
constexpr int kCellWarp = 32;
constexpr int kCellChunk = 128;
constexpr int kCellBlocks = 8192;

// Lists each occupied cell once (and the bucket of escaped particles): the
// first slot of a cell appends it; the order does not matter.
__global__ void list_cells_kernel(CellGrid g, ParticleBuffers p, CellBuffers c, int* cell_list,
                                  int* listed) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= p.n) return;
  const int cell = cell_of(g, p.pos_rho[k], p.vel_kind[k].w);
  if (c.cell_start[cell] == k) cell_list[atomicAdd(listed, 1)] = cell;
}

__global__ void __launch_bounds__(kCellWarp)
    interaction_cells_kernel(KernelConstants k, CellGrid g, ParticleBuffers p, CellBuffers c,
                             RhsBuffers r, const int* cell_list, const int* listed) {
  __shared__ float4 staged_pos[kCellChunk], staged_vel[kCellChunk];
  const int t = static_cast<int>(threadIdx.x);
  const int escaped_cell = g.nx * g.ny * g.nz;
  const int occupied = *listed;
  for (int b = static_cast<int>(blockIdx.x); b < occupied; b += static_cast<int>(gridDim.x)) {
    const int cell = cell_list[b];
    const int begin = c.cell_start[cell], end = c.cell_start[cell + 1];
    if (cell == escaped_cell) {  // escaped particles: no interaction
      for (int i = begin + t; i < end; i += kCellWarp) {
        r.acc_drho[i] = make_float4(0, 0, 0, 0);
        r.visc[i] = 0;
      }
      continue;
    }
    // The candidate ranges, as interaction_kernel walks them. A cell without
    // fluid holds only boundary particles, which skip rows without fluid; a
    // boundary particle in a cell with fluid gets nothing from such rows either.
    const int cx = cell % g.nx, cy = (cell / g.nx) % g.ny, cz = cell / (g.nx * g.ny);
    const bool own_fluid = c.cell_fluid[cell] > 0;
    int range_begin[27], range_end[27];
    int ranges = 0;
    for (int dz = -1; dz <= 1; ++dz) {
      const int mz = neighbour_coordinate(cz, dz, g.nz, g.periodic_z);
      if (mz < 0) continue;
      for (int dy = -1; dy <= 1; ++dy) {
        const int my = neighbour_coordinate(cy, dy, g.ny, g.periodic_y);
        if (my < 0) continue;
        const int row = (mz * g.ny + my) * g.nx;
        if (!g.periodic_x) {
          const int lo = cx > 0 ? cx - 1 : 0;
          const int hi = cx < g.nx - 1 ? cx + 1 : g.nx - 1;
          if (!own_fluid) {
            int fluid = 0;
            for (int m = lo; m <= hi; ++m) fluid += c.cell_fluid[row + m];
            if (fluid == 0) continue;
          }
          range_begin[ranges] = c.cell_start[row + lo];
          range_end[ranges++] = c.cell_start[row + hi + 1];
          continue;
        }
        for (int dx = -1; dx <= 1; ++dx) {
          const int mx = neighbour_coordinate(cx, dx, g.nx, 1);
          if (!own_fluid && c.cell_fluid[row + mx] == 0) continue;
          range_begin[ranges] = c.cell_start[row + mx];
          range_end[ranges++] = c.cell_start[row + mx + 1];
        }
      }
    }
    for (int own = begin; own < end; own += kCellWarp) {
      const int i = own + t;
      const bool active = i < end;
      const float4 pi = active ? p.pos_rho[i] : make_float4(0, 0, 0, 1);
      const float4 vi = active ? p.vel_kind[i] : make_float4(0, 0, 0, float(kBoundary));
      const bool fluid_i = vi.w == float(kFluid);
      const float p_i = tait_pressure(k, pi.w);
      const float c_i = sound_speed(k, pi.w);
      PairSums sums;
      for (int q0 = 0; q0 < ranges; ++q0) {
        for (int first = range_begin[q0]; first < range_end[q0]; first += kCellChunk) {
          const int count = min(kCellChunk, range_end[q0] - first);
          __syncthreads();  // the previous chunk is consumed
          for (int q = t; q < count; q += kCellWarp) {
            staged_pos[q] = __ldg(&p.pos_rho[first + q]);
            staged_vel[q] = __ldg(&p.vel_kind[first + q]);
          }
          __syncthreads();
          if (!active) continue;
          for (int q = 0; q < count; ++q) {
            const float4 pj = staged_pos[q];
            const float rx = minimum_image(pi.x - pj.x, k.lx, k.periodic_x);
            const float ry = minimum_image(pi.y - pj.y, k.ly, k.periodic_y);
            const float rz = minimum_image(pi.z - pj.z, k.lz, k.periodic_z);
            const float r2 = rx * rx + ry * ry + rz * rz;
            if (r2 >= k.support2 || first + q == i) continue;
            const float4 vj = staged_vel[q];
            const bool fluid_j = vj.w == float(kFluid);
            if (!fluid_i && !fluid_j) continue;
            add_pair(k, fluid_i, fluid_j, rx, ry, rz, r2, vi.x - vj.x, vi.y - vj.y, vi.z - vj.z,
                     pi.w, p_i, c_i, pj.w, sums);
          }
        }
      }
      if (!active) continue;
      if (fluid_i)
        r.acc_drho[i] = make_float4(sums.ax + k.gx, sums.ay + k.gy, sums.az + k.gz, sums.drho);
      else
        r.acc_drho[i] = make_float4(0, 0, 0, sums.drho);
      r.visc[i] = sums.visc_max;
    }
  }
}

// Non-negative floats order like their bit patterns as ints.
__device__ void atomic_max_nonnegative(float* address, float value) {
  atomicMax(reinterpret_cast<int*>(address), __float_as_int(value));
}

__global__ void maxima_kernel(ParticleBuffers p, RhsBuffers r, float* maxima) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a2 = 0, rho = 0, visc = 0;
  if (i < p.n && p.vel_kind[i].w == float(kFluid)) {
    const float4 a = r.acc_drho[i];
    a2 = a.x * a.x + a.y * a.y + a.z * a.z;
    rho = p.pos_rho[i].w;
    visc = r.visc[i];
  }
  // Within each 32-lane sub-group (a CUDA warp, half an AMD wavefront).
  for (unsigned int offset = gpu::kSubgroupWidth / 2; offset > 0; offset /= 2) {
    a2 = fmaxf(a2, gpu::shfl_down(a2, offset, gpu::kSubgroupWidth));
    rho = fmaxf(rho, gpu::shfl_down(rho, offset, gpu::kSubgroupWidth));
    visc = fmaxf(visc, gpu::shfl_down(visc, offset, gpu::kSubgroupWidth));
  }
  if (gpu::subgroup_lane() == 0) {
    atomic_max_nonnegative(&maxima[0], a2);
    atomic_max_nonnegative(&maxima[1], rho);
    atomic_max_nonnegative(&maxima[2], visc);
  }
}

__device__ float wrap(float x, float lo, float length, int periodic) {
  if (!periodic) return x;
  if (x < lo) return x + length;
  if (x >= lo + length) return x - length;
  return x;
}

__global__ void predictor_kernel(float dt, float rho0, DomainBox d, ParticleBuffers p,
                                 ParticleBuffers start, RhsBuffers r) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  float4 x = p.pos_rho[i];
  float4 v = p.vel_kind[i];
  start.pos_rho[i] = x;
  start.vel_kind[i] = v;
  if (v.w == float(kEscaped)) return;
  const float half = 0.5f * dt;
  const float4 a = r.acc_drho[i];
  const float rho = x.w + half * a.w;
  if (v.w == float(kBoundary)) {
    x.w = rho < rho0 ? rho0 : rho;
    p.pos_rho[i] = x;
    return;
  }
  x = make_float4(wrap(x.x + half * v.x, d.lo[0], d.length[0], d.periodic[0]),
                  wrap(x.y + half * v.y, d.lo[1], d.length[1], d.periodic[1]),
                  wrap(x.z + half * v.z, d.lo[2], d.length[2], d.periodic[2]), rho);
  v = make_float4(v.x + half * a.x, v.y + half * a.y, v.z + half * a.z, v.w);
  p.pos_rho[i] = x;
  p.vel_kind[i] = v;
}

__global__ void corrector_kernel(float dt, float rho0, DomainBox d, ParticleBuffers p,
                                 ParticleBuffers start, RhsBuffers r) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  const float4 v0 = start.vel_kind[i];
  if (v0.w == float(kEscaped)) return;
  const float4 x0 = start.pos_rho[i];
  const float4 a = r.acc_drho[i];
  const float eps = -a.w / p.pos_rho[i].w * dt;
  float rho = x0.w * (2.0f - eps) / (2.0f + eps);
  if (v0.w == float(kBoundary)) {
    p.pos_rho[i].w = rho < rho0 ? rho0 : rho;
    return;
  }
  const float vx = v0.x + dt * a.x, vy = v0.y + dt * a.y, vz = v0.z + dt * a.z;
  p.pos_rho[i] =
      make_float4(wrap(x0.x + 0.5f * dt * (vx + v0.x), d.lo[0], d.length[0], d.periodic[0]),
                  wrap(x0.y + 0.5f * dt * (vy + v0.y), d.lo[1], d.length[1], d.periodic[1]),
                  wrap(x0.z + 0.5f * dt * (vz + v0.z), d.lo[2], d.length[2], d.periodic[2]), rho);
  p.vel_kind[i] = make_float4(vx, vy, vz, v0.w);
}

__device__ bool finite(float v) { return (v - v) == 0.0f; }

__global__ void check_kernel(DomainBox d, float rho_min, float rho_max, ParticleBuffers p,
                             int* flags) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  float4 v = p.vel_kind[i];
  if (v.w == float(kEscaped)) return;
  const float4 x = p.pos_rho[i];
  const bool bad = !(finite(x.x) && finite(x.y) && finite(x.z) && finite(v.x) && finite(v.y) &&
                     finite(v.z) && finite(x.w) && x.w <= rho_max);
  if (bad) atomicMin(&flags[1], i);
  if (v.w != float(kFluid)) return;
  const float q[3] = {x.x, x.y, x.z};
  bool outside = x.w < rho_min;
  for (int a = 0; a < 3; ++a)
    if (!d.periodic[a] && (q[a] < d.lo[a] || q[a] > d.hi[a])) outside = true;
  if (!outside) return;
  p.vel_kind[i] = make_float4(0, 0, 0, float(kEscaped));
  atomicAdd(&flags[0], 1);
}

__global__ void fill_int(int* a, int value, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = value;
}

}  // namespace

template <class Vendor>
std::size_t scan_temp_bytes(long long cells) {
  return sizeof(int) * static_cast<std::size_t>(scan_tiles(static_cast<int>(cells + 2)));
}

template <class Vendor>
void bin(const CellGrid& g, const ParticleBuffers& p, const CellBuffers& c) {
  const int cells = static_cast<int>(g.cells());
  zero_async(c.cell_count, sizeof(int) * (cells + 2));
  zero_async(c.cell_fluid, sizeof(int) * (cells + 1));
  count_cells<<<blocks(p.n), kBlock>>>(g, p, c);
  exclusive_scan(c.cell_count, c.cell_start, cells + 2, static_cast<int*>(c.scan_temp));
  // The running fill count per cell reuses cell_count.
  zero_async(c.cell_count, sizeof(int) * (cells + 2));
  scatter<<<blocks(p.n), kBlock>>>(p, c, c.cell_count);
  sort_cells<<<blocks(cells + 1), kBlock>>>(c, cells);
}

template <class Vendor>
void renumber(const CellGrid& g, const ParticleBuffers& p, const ParticleBuffers& scratch,
              const CellBuffers& c) {
  bin<Vendor>(g, p, c);
  gather<<<blocks(p.n), kBlock>>>(p, scratch, c.permutation);
}

template <class Vendor>
void interaction(const KernelConstants& k, const CellGrid& g, const ParticleBuffers& p,
                 const CellBuffers& c, const RhsBuffers& r, bool sorted) {
  if (sorted)
    interaction_kernel<false><<<blocks(p.n), kBlock>>>(k, g, p, c, r);
  else
    interaction_kernel<true><<<blocks(p.n), kBlock>>>(k, g, p, c, r);
}

template <class Vendor>
void interaction_per_cell(const KernelConstants& k, const CellGrid& g, const ParticleBuffers& p,
                          const CellBuffers& c, const RhsBuffers& r, int* cell_list, int* listed) {
  if (p.n == 0) return;
  zero_async(listed, sizeof(int));
  list_cells_kernel<<<blocks(p.n), kBlock>>>(g, p, c, cell_list, listed);
  const int grid = p.n < kCellBlocks ? p.n : kCellBlocks;  // at most one occupied cell per particle
  interaction_cells_kernel<<<grid, kCellWarp>>>(k, g, p, c, r, cell_list, listed);
}

template <class Vendor>
void time_step_maxima(const ParticleBuffers& p, const RhsBuffers& r, float* maxima) {
  zero_async(maxima, 3 * sizeof(float));
  maxima_kernel<<<blocks(p.n), kBlock>>>(p, r, maxima);
}

template <class Vendor>
void predictor(float dt, float rho0, const DomainBox& d, const ParticleBuffers& p,
               const ParticleBuffers& start, const RhsBuffers& r) {
  predictor_kernel<<<blocks(p.n), kBlock>>>(dt, rho0, d, p, start, r);
}

template <class Vendor>
void corrector(float dt, float rho0, const DomainBox& d, const ParticleBuffers& p,
               const ParticleBuffers& start, const RhsBuffers& r) {
  corrector_kernel<<<blocks(p.n), kBlock>>>(dt, rho0, d, p, start, r);
}

template <class Vendor>
void check_state(const DomainBox& d, float rho_min, float rho_max, const ParticleBuffers& p,
                 int* flags) {
  fill_int<<<1, 2>>>(flags, 0, 1);
  fill_int<<<1, 1>>>(flags + 1, p.n, 1);
  check_kernel<<<blocks(p.n), kBlock>>>(d, rho_min, rho_max, p, flags);
}

// The launchers of the vendor whose compiler builds this translation unit.
template std::size_t scan_temp_bytes<CompiledVendor>(long long);
template void bin<CompiledVendor>(const CellGrid&, const ParticleBuffers&, const CellBuffers&);
template void renumber<CompiledVendor>(const CellGrid&, const ParticleBuffers&,
                                       const ParticleBuffers&, const CellBuffers&);
template void interaction<CompiledVendor>(const KernelConstants&, const CellGrid&,
                                          const ParticleBuffers&, const CellBuffers&,
                                          const RhsBuffers&, bool);
template void interaction_per_cell<CompiledVendor>(const KernelConstants&, const CellGrid&,
                                                   const ParticleBuffers&, const CellBuffers&,
                                                   const RhsBuffers&, int*, int*);
template void time_step_maxima<CompiledVendor>(const ParticleBuffers&, const RhsBuffers&, float*);
template void predictor<CompiledVendor>(float, float, const DomainBox&, const ParticleBuffers&,
                                        const ParticleBuffers&, const RhsBuffers&);
template void corrector<CompiledVendor>(float, float, const DomainBox&, const ParticleBuffers&,
                                        const ParticleBuffers&, const RhsBuffers&);
template void check_state<CompiledVendor>(const DomainBox&, float, float, const ParticleBuffers&,
                                          int*);

}  // namespace ppkit::sph::gpu_kernels
