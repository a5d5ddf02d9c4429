// opencl/sorted-float4, opencl/group-per-cell-float4, opencl/unsorted-float4
// (sph.interaction) and opencl/symplectic-float4 (sph.step): the WCSPH kernels
// of docs/sph.md in OpenCL C 1.2, the OpenCL twin of
// backends/cuda_hip/sph/sph_gpu_kernels.cuh.
//
// Particles are two float4 records, the position with the kind (x, y, z, kind)
// and the velocity with the density (vx, vy, vz, rho), as DualSPHysics' velrhop:
// one 16-byte load per neighbour for the distance test and the
// boundary-boundary skip, a second only for the neighbours that interact.
// Binning reads the position record alone. Renumbering by cell (Guan et al.) is a
// counting sort: atomic count per cell, exclusive scan (work-group scans in
// local memory over tiles), scatter, a sort of each cell's few indices (the
// numbering, and every sum, is then reproducible), gather. One work-item per
// particle walks the 27-cell stencil of its cell; after renumbering the three
// cells of a row along x are one index range, so it walks 9 ranges. The time
// step maxima reduce in local memory, one atomic per work-group.
//
// The pair physics repeats src/ppkit/sph/sph_pair.hpp term for term (OpenCL C
// cannot include C++); the structs below have the layout of the host's
// KernelConstants, CellGrid and DomainBox (sph_types.hpp; sph_opencl.cpp
// checks the sizes).

#ifndef SCAN_BLOCK
#define SCAN_BLOCK 256
#endif
#define SCAN_ITEMS 8
#define SCAN_TILE (SCAN_BLOCK * SCAN_ITEMS)
#ifndef REDUCE_BLOCK
#define REDUCE_BLOCK 256
#endif

#define KIND_FLUID 0.0f
#define KIND_BOUNDARY 1.0f
#define KIND_ESCAPED 2.0f

typedef struct {
  float h, inv_h, support2, grad_factor, mass, rho0, inv_rho0, tait_b, c0, alpha, delta_term, eta2;
  float gx, gy, gz, lx, ly, lz;
  int periodic_x, periodic_y, periodic_z;
} KernelConstants;

typedef struct {
  float lo_x, lo_y, lo_z, inv_cell_x, inv_cell_y, inv_cell_z;
  int nx, ny, nz, periodic_x, periodic_y, periodic_z;
} CellGrid;

typedef struct {
  float lo[3], hi[3], length[3];
  int periodic[3];
} DomainBox;

typedef struct {
  float drho, ax, ay, az, visc_max;
} PairSums;

// ---- pair physics (sph_pair.hpp) -------------------------------------------------

// Tait equation of state, gamma = 7 (Monaghan 1994).
inline float tait_pressure(const KernelConstants* k, float rho) {
  const float x = rho * k->inv_rho0;
  const float x3 = x * x * x;
  return k->tait_b * (x3 * x3 * x - 1.0f);
}
inline float sound_speed(const KernelConstants* k, float rho) {
  const float x = rho * k->inv_rho0;
  return k->c0 * x * x * x;
}

inline float minimum_image(float d, float length, int periodic) {
  if (periodic) {
    if (d > 0.5f * length)
      d -= length;
    else if (d < -0.5f * length)
      d += length;
  }
  return d;
}

// Continuity (Monaghan 1992) + delta-SPH (Molteni & Colagrossi 2009) for fluid
// pairs; momentum with Monaghan's viscosity for a fluid particle i; the
// Wendland C2 gradient grad_i W_ij = grad_factor (1 - q/2)^3 r_ij.
inline void add_pair(const KernelConstants* k, bool i_fluid, bool j_fluid, float rx, float ry,
                     float rz, float r2, float ux, float uy, float uz, float rho_i, float p_i,
                     float c_i, float rho_j, PairSums* s) {
  const float r = sqrt(r2);
  const float t = 1.0f - 0.5f * r * k->inv_h;
  const float fac = k->grad_factor * t * t * t;
  const float vol_j = k->mass / rho_j;
  const float u_dot_r = ux * rx + uy * ry + uz * rz;
  float drho = rho_i * vol_j * fac * u_dot_r;
  if (i_fluid && j_fluid)
    drho += k->delta_term * (rho_j - rho_i) * (-fac * r2) / (r2 + k->eta2) * vol_j;
  s->drho += drho;
  if (!i_fluid) return;
  const float p_j = tait_pressure(k, rho_j);
  float coeff = (p_i + p_j) / (rho_i * rho_j);
  const float dot_rr2 = u_dot_r / (r2 + k->eta2);
  if (u_dot_r < 0.0f) {
    const float c_ij = 0.5f * (c_i + sound_speed(k, rho_j));
    const float mu = k->h * dot_rr2;
    coeff += -k->alpha * c_ij * mu / (0.5f * (rho_i + rho_j));
  }
  const float f = -k->mass * coeff * fac;
  s->ax += f * rx;
  s->ay += f * ry;
  s->az += f * rz;
  const float a = dot_rr2 < 0.0f ? -dot_rr2 : dot_rr2;
  if (a > s->visc_max) s->visc_max = a;
}

inline int cell_coordinate(float x, float lo, float inv_cell, int n) {
  const int c = (int)((x - lo) * inv_cell);
  return c < 0 ? 0 : (c >= n ? n - 1 : c);
}

inline int neighbour_coordinate(int c, int d, int n, int periodic) {
  const int m = c + d;
  if (m < 0) return periodic ? m + n : -1;
  if (m >= n) return periodic ? m - n : -1;
  return m;
}

// Escaped particles go to the extra bucket cells() that no stencil visits.
inline int cell_of(const CellGrid* g, float4 p, float kind) {
  if (kind == KIND_ESCAPED) return g->nx * g->ny * g->nz;
  const int cx = cell_coordinate(p.x, g->lo_x, g->inv_cell_x, g->nx);
  const int cy = cell_coordinate(p.y, g->lo_y, g->inv_cell_y, g->ny);
  const int cz = cell_coordinate(p.z, g->lo_z, g->inv_cell_z, g->nz);
  return (cz * g->ny + cy) * g->nx + cx;
}

// ---- counting sort by cell -------------------------------------------------------

__kernel void count_cells(CellGrid g, int n, __global const float4* pos_kind, __global int* cell,
                          __global int* cell_count, __global int* cell_fluid) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  const float4 p = pos_kind[i];
  const int c = cell_of(&g, p, p.w);
  cell[i] = c;
  atomic_inc(&cell_count[c]);
  if (p.w == KIND_FLUID) atomic_inc(&cell_fluid[c]);
}

// Exclusive prefix sum of one value per work-item over the work-group
// (Hillis-Steele in local memory); *total receives the group's sum.
inline int group_exclusive_sum(int value, int* total, __local int* partial) {
  const int t = (int)get_local_id(0);
  partial[t] = value;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int offset = 1; offset < SCAN_BLOCK; offset *= 2) {
    const int add = t >= offset ? partial[t - offset] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    partial[t] += add;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  *total = partial[SCAN_BLOCK - 1];
  const int inclusive = partial[t];
  barrier(CLK_LOCAL_MEM_FENCE);
  return inclusive - value;
}

inline int load_items(__global const int* in, long count, long first, int* items) {
  int sum = 0;
  for (int k = 0; k < SCAN_ITEMS; ++k) {
    items[k] = first + k < count ? in[first + k] : 0;
    sum += items[k];
  }
  return sum;
}

inline void store_exclusive(__global int* out, long count, long first, const int* items,
                            int offset) {
  for (int k = 0; k < SCAN_ITEMS; ++k) {
    if (first + k < count) out[first + k] = offset;
    offset += items[k];
  }
}

// Pass 1: each work-group sums its tile of SCAN_TILE entries.
__kernel __attribute__((reqd_work_group_size(SCAN_BLOCK, 1, 1))) void scan_sum_tiles(
    __global const int* in, int count, __global int* tile_sums) {
  __local int partial[SCAN_BLOCK];
  int items[SCAN_ITEMS];
  const long first = (long)get_group_id(0) * SCAN_TILE + (long)get_local_id(0) * SCAN_ITEMS;
  const int sum = load_items(in, count, first, items);
  int total = 0;
  group_exclusive_sum(sum, &total, partial);
  if (get_local_id(0) == 0) tile_sums[get_group_id(0)] = total;
}

// Pass 2, one work-group: tile_sums[t] becomes the sum of the tiles before t
// (chunks of SCAN_TILE tiles with a running carry: any number of tiles).
__kernel __attribute__((reqd_work_group_size(SCAN_BLOCK, 1, 1))) void scan_tile_offsets(
    __global int* tile_sums, int tiles) {
  __local int partial[SCAN_BLOCK];
  int carry = 0;
  for (long chunk = 0; chunk < tiles; chunk += SCAN_TILE) {
    int items[SCAN_ITEMS];
    const long first = chunk + (long)get_local_id(0) * SCAN_ITEMS;
    const int sum = load_items(tile_sums, tiles, first, items);
    int total = 0;
    const int before = group_exclusive_sum(sum, &total, partial);
    store_exclusive(tile_sums, tiles, first, items, carry + before);
    carry += total;
  }
}

// Pass 3: each work-group scans its tile and adds the tile's offset.
__kernel __attribute__((reqd_work_group_size(SCAN_BLOCK, 1, 1))) void scan_within_tiles(
    __global const int* in, int count, __global const int* tile_offsets, __global int* out) {
  __local int partial[SCAN_BLOCK];
  int items[SCAN_ITEMS];
  const long first = (long)get_group_id(0) * SCAN_TILE + (long)get_local_id(0) * SCAN_ITEMS;
  const int sum = load_items(in, count, first, items);
  int total = 0;
  const int before = group_exclusive_sum(sum, &total, partial);
  store_exclusive(out, count, first, items, tile_offsets[get_group_id(0)] + before);
}

__kernel void scatter(int n, __global const int* cell, __global const int* cell_start,
                      __global int* fill, __global int* permutation) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  const int c = cell[i];
  permutation[cell_start[c] + atomic_inc(&fill[c])] = i;
}

// Atomics fill a cell in any order; sorting each cell's few indices makes the
// numbering (and so every sum) reproducible run to run.
__kernel void sort_cells(int cells, __global const int* cell_start, __global int* permutation) {
  const int c = (int)get_global_id(0);
  if (c > cells) return;
  const int begin = cell_start[c], end = cell_start[c + 1];
  for (int a = begin + 1; a < end; ++a) {
    const int value = permutation[a];
    int b = a - 1;
    while (b >= begin && permutation[b] > value) {
      permutation[b + 1] = permutation[b];
      --b;
    }
    permutation[b + 1] = value;
  }
}

__kernel void gather(int n, __global const int* permutation, __global const float4* from_pos,
                     __global const float4* from_vel, __global const int* from_id,
                     __global float4* to_pos, __global float4* to_vel, __global int* to_id) {
  const int k = (int)get_global_id(0);
  if (k >= n) return;
  const int i = permutation[k];
  to_pos[k] = from_pos[i];
  to_vel[k] = from_vel[i];
  to_id[k] = from_id[i];
}

// ---- interaction -------------------------------------------------------------------

// Neighbours in slots [begin, end): the particles themselves (sorted) or
// through the permutation (indirect). The position record decides the
// distance test and the boundary-boundary skip; the velocity record is read
// only for neighbours that interact.
inline void visit_range(const KernelConstants* k, __global const float4* restrict pos_kind,
                        __global const float4* restrict vel_rho,
                        __global const int* restrict permutation, bool indirect, int i,
                        bool fluid_i, float4 pi, float4 vi, float p_i, float c_i, int begin,
                        int end, PairSums* sums) {
  for (int slot = begin; slot < end; ++slot) {
    const int j = indirect ? permutation[slot] : slot;
    const float4 pj = pos_kind[j];
    const float rx = minimum_image(pi.x - pj.x, k->lx, k->periodic_x);
    const float ry = minimum_image(pi.y - pj.y, k->ly, k->periodic_y);
    const float rz = minimum_image(pi.z - pj.z, k->lz, k->periodic_z);
    const float r2 = rx * rx + ry * ry + rz * rz;
    if (r2 >= k->support2 || j == i) continue;
    const bool fluid_j = pj.w == KIND_FLUID;
    if (!fluid_i && !fluid_j) continue;
    const float4 vj = vel_rho[j];
    add_pair(k, fluid_i, fluid_j, rx, ry, rz, r2, vi.x - vj.x, vi.y - vj.y, vi.z - vj.z, vi.w, p_i,
             c_i, vj.w, sums);
  }
}

// One work-item per particle (slot i of the arrays). Boundary particles skip
// rows of cells without fluid (their density changes only through fluid).
inline void interaction_body(const KernelConstants* k, const CellGrid* g, int n, bool indirect,
                             __global const float4* restrict pos_kind,
                             __global const float4* restrict vel_rho,
                             __global const int* restrict cell_start,
                             __global const int* restrict cell_fluid,
                             __global const int* restrict permutation,
                             __global float4* restrict acc_drho, __global float* restrict visc) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  const float4 pi = pos_kind[i];
  const float4 vi = vel_rho[i];
  if (pi.w == KIND_ESCAPED) {
    acc_drho[i] = (float4)(0.0f);
    visc[i] = 0.0f;
    return;
  }
  const bool fluid_i = pi.w == KIND_FLUID;
  const float p_i = tait_pressure(k, vi.w);
  const float c_i = sound_speed(k, vi.w);
  PairSums sums = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  const int cx = cell_coordinate(pi.x, g->lo_x, g->inv_cell_x, g->nx);
  const int cy = cell_coordinate(pi.y, g->lo_y, g->inv_cell_y, g->ny);
  const int cz = cell_coordinate(pi.z, g->lo_z, g->inv_cell_z, g->nz);
  for (int dz = -1; dz <= 1; ++dz) {
    const int mz = neighbour_coordinate(cz, dz, g->nz, g->periodic_z);
    if (mz < 0) continue;
    for (int dy = -1; dy <= 1; ++dy) {
      const int my = neighbour_coordinate(cy, dy, g->ny, g->periodic_y);
      if (my < 0) continue;
      const int row = (mz * g->ny + my) * g->nx;
      if (!g->periodic_x) {
        const int lo = cx > 0 ? cx - 1 : 0;
        const int hi = cx < g->nx - 1 ? cx + 1 : g->nx - 1;
        if (!fluid_i) {
          int fluid = 0;
          for (int m = lo; m <= hi; ++m) fluid += cell_fluid[row + m];
          if (fluid == 0) continue;
        }
        visit_range(k, pos_kind, vel_rho, permutation, indirect, i, fluid_i, pi, vi, p_i, c_i,
                    cell_start[row + lo], cell_start[row + hi + 1], &sums);
      } else {
        for (int dx = -1; dx <= 1; ++dx) {
          const int mx = neighbour_coordinate(cx, dx, g->nx, 1);
          if (!fluid_i && cell_fluid[row + mx] == 0) continue;
          visit_range(k, pos_kind, vel_rho, permutation, indirect, i, fluid_i, pi, vi, p_i, c_i,
                      cell_start[row + mx], cell_start[row + mx + 1], &sums);
        }
      }
    }
  }
  if (fluid_i)
    acc_drho[i] = (float4)(sums.ax + k->gx, sums.ay + k->gy, sums.az + k->gz, sums.drho);
  else
    acc_drho[i] = (float4)(0.0f, 0.0f, 0.0f, sums.drho);
  visc[i] = sums.visc_max;
}

// Particles renumbered by cell: neighbours are the slots of the cell ranges.
__kernel void interaction_sorted(
    KernelConstants k, CellGrid g, int n, __global const float4* restrict pos_kind,
    __global const float4* restrict vel_rho, __global const int* restrict cell_start,
    __global const int* restrict cell_fluid, __global const int* restrict permutation,
    __global float4* restrict acc_drho, __global float* restrict visc) {
  interaction_body(&k, &g, n, false, pos_kind, vel_rho, cell_start, cell_fluid, permutation,
                   acc_drho, visc);
}

// Particles in any order, binned only: neighbours read through the permutation.
__kernel void interaction_indirect(
    KernelConstants k, CellGrid g, int n, __global const float4* restrict pos_kind,
    __global const float4* restrict vel_rho, __global const int* restrict cell_start,
    __global const int* restrict cell_fluid, __global const int* restrict permutation,
    __global float4* restrict acc_drho, __global float* restrict visc) {
  interaction_body(&k, &g, n, true, pos_kind, vel_rho, cell_start, cell_fluid, permutation,
                   acc_drho, visc);
}

// ---- work-group per cell (renumbered particles) ----------------------------------------
// The OpenCL twin of kokkos-<space>/team-per-cell (Guan et al.'s warp per cell,
// DualSPHysics' cell mode): one work-group per occupied cell stages the
// neighbour candidates of the cell's 9 row ranges (27 cells along a periodic x)
// in local memory, CELL_CHUNK records at a time, and each work-item computes one
// particle of the cell against them. A candidate is then read from global
// memory once per cell instead of once per particle of the cell. Neighbours are
// visited in the order of interaction_sorted: each sum adds the same terms in
// the same order.
#ifndef CELL_GROUP
#define CELL_GROUP 32
#endif
#ifndef CELL_CHUNK
#define CELL_CHUNK 128
#endif

// Lists each occupied cell once (and the bucket of escaped particles): the
// first slot of a cell appends it. The list's order does not matter (each
// cell's sums are computed independently).
__kernel void list_cells(CellGrid g, int n, __global const float4* pos_kind,
                         __global const int* cell_start, __global int* cell_list,
                         __global int* listed) {
  const int k = (int)get_global_id(0);
  if (k >= n) return;
  const float4 p = pos_kind[k];
  const int c = cell_of(&g, p, p.w);
  if (cell_start[c] == k) cell_list[atomic_inc(listed)] = c;
}

__kernel __attribute__((reqd_work_group_size(CELL_GROUP, 1, 1))) void interaction_cells(
    KernelConstants k, CellGrid g, __global const int* restrict cell_list,
    __global const float4* restrict pos_kind, __global const float4* restrict vel_rho,
    __global const int* restrict cell_start, __global const int* restrict cell_fluid,
    __global float4* restrict acc_drho, __global float* restrict visc) {
  __local float4 staged_pos[CELL_CHUNK], staged_vel[CELL_CHUNK];
  const int c = cell_list[get_group_id(0)];
  const int t = (int)get_local_id(0);
  const int begin = cell_start[c], end = cell_start[c + 1];
  if (c == g.nx * g.ny * g.nz) {  // escaped particles: no interaction
    for (int i = begin + t; i < end; i += CELL_GROUP) {
      acc_drho[i] = (float4)(0.0f);
      visc[i] = 0.0f;
    }
    return;
  }
  // The candidate ranges, as interaction_body walks them. A cell without fluid
  // holds only boundary particles, which skip rows without fluid; a boundary
  // particle in a cell with fluid gets nothing from such rows either.
  const int cx = c % g.nx, cy = (c / g.nx) % g.ny, cz = c / (g.nx * g.ny);
  const bool own_fluid = cell_fluid[c] > 0;
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
          for (int m = lo; m <= hi; ++m) fluid += cell_fluid[row + m];
          if (fluid == 0) continue;
        }
        range_begin[ranges] = cell_start[row + lo];
        range_end[ranges++] = cell_start[row + hi + 1];
        continue;
      }
      for (int dx = -1; dx <= 1; ++dx) {
        const int mx = neighbour_coordinate(cx, dx, g.nx, 1);
        if (!own_fluid && cell_fluid[row + mx] == 0) continue;
        range_begin[ranges] = cell_start[row + mx];
        range_end[ranges++] = cell_start[row + mx + 1];
      }
    }
  }
  for (int own = begin; own < end; own += CELL_GROUP) {
    const int i = own + t;
    const bool active = i < end;
    float4 pi = (float4)(0.0f), vi = (float4)(0.0f);
    if (active) {
      pi = pos_kind[i];
      vi = vel_rho[i];
    }
    const bool fluid_i = pi.w == KIND_FLUID;
    const float p_i = tait_pressure(&k, vi.w);
    const float c_i = sound_speed(&k, vi.w);
    PairSums sums = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    for (int r = 0; r < ranges; ++r) {
      for (int first = range_begin[r]; first < range_end[r]; first += CELL_CHUNK) {
        const int count = min(CELL_CHUNK, range_end[r] - first);
        barrier(CLK_LOCAL_MEM_FENCE);  // the previous chunk is consumed
        for (int q = t; q < count; q += CELL_GROUP) {
          staged_pos[q] = pos_kind[first + q];
          staged_vel[q] = vel_rho[first + q];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (!active) continue;
        for (int q = 0; q < count; ++q) {
          const float4 pj = staged_pos[q];
          const float rx = minimum_image(pi.x - pj.x, k.lx, k.periodic_x);
          const float ry = minimum_image(pi.y - pj.y, k.ly, k.periodic_y);
          const float rz = minimum_image(pi.z - pj.z, k.lz, k.periodic_z);
          const float r2 = rx * rx + ry * ry + rz * rz;
          if (r2 >= k.support2 || first + q == i) continue;
          const bool fluid_j = pj.w == KIND_FLUID;
          if (!fluid_i && !fluid_j) continue;
          const float4 vj = staged_vel[q];
          add_pair(&k, fluid_i, fluid_j, rx, ry, rz, r2, vi.x - vj.x, vi.y - vj.y, vi.z - vj.z,
                   vi.w, p_i, c_i, vj.w, &sums);
        }
      }
    }
    if (!active) continue;
    if (fluid_i)
      acc_drho[i] = (float4)(sums.ax + k.gx, sums.ay + k.gy, sums.az + k.gz, sums.drho);
    else
      acc_drho[i] = (float4)(0.0f, 0.0f, 0.0f, sums.drho);
    visc[i] = sums.visc_max;
  }
}

// ---- time step and integration -------------------------------------------------------

// Maxima over fluid particles of |a|^2, rho and the viscous term: a tree in
// local memory per work-group, then one atomic_max per group and quantity on
// the bit patterns (non-negative floats order like their bits as ints).
__kernel __attribute__((reqd_work_group_size(REDUCE_BLOCK, 1, 1))) void time_step_maxima(
    int n, __global const float4* pos_kind, __global const float4* vel_rho,
    __global const float4* acc_drho, __global const float* visc, __global int* maxima) {
  __local float la[REDUCE_BLOCK], lr[REDUCE_BLOCK], lv[REDUCE_BLOCK];
  const int i = (int)get_global_id(0);
  const int t = (int)get_local_id(0);
  float a2 = 0.0f, rho = 0.0f, vs = 0.0f;
  if (i < n && pos_kind[i].w == KIND_FLUID) {
    const float4 a = acc_drho[i];
    a2 = a.x * a.x + a.y * a.y + a.z * a.z;
    rho = vel_rho[i].w;
    vs = visc[i];
  }
  la[t] = a2;
  lr[t] = rho;
  lv[t] = vs;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int width = REDUCE_BLOCK / 2; width > 0; width /= 2) {
    if (t < width) {
      la[t] = fmax(la[t], la[t + width]);
      lr[t] = fmax(lr[t], lr[t + width]);
      lv[t] = fmax(lv[t], lv[t + width]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) {
    atomic_max(&maxima[0], as_int(la[0]));
    atomic_max(&maxima[1], as_int(lr[0]));
    atomic_max(&maxima[2], as_int(lv[0]));
  }
}

inline float wrap(float x, float lo, float length, int periodic) {
  if (!periodic) return x;
  if (x < lo) return x + length;
  if (x >= lo + length) return x - length;
  return x;
}

// Half step to t^{n+1/2}; keeps the state at t^n in start.
__kernel void predictor(float dt, float rho0, DomainBox d, int n, __global float4* pos_kind,
                        __global float4* vel_rho, __global float4* start_pos,
                        __global float4* start_vel, __global const float4* acc_drho) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  float4 x = pos_kind[i];
  float4 v = vel_rho[i];
  start_pos[i] = x;
  start_vel[i] = v;
  if (x.w == KIND_ESCAPED) return;
  const float h2 = 0.5f * dt;
  const float4 a = acc_drho[i];
  const float rho = v.w + h2 * a.w;
  if (x.w == KIND_BOUNDARY) {
    v.w = rho < rho0 ? rho0 : rho;
    vel_rho[i] = v;
    return;
  }
  pos_kind[i] = (float4)(wrap(x.x + h2 * v.x, d.lo[0], d.length[0], d.periodic[0]),
                         wrap(x.y + h2 * v.y, d.lo[1], d.length[1], d.periodic[1]),
                         wrap(x.z + h2 * v.z, d.lo[2], d.length[2], d.periodic[2]), x.w);
  vel_rho[i] = (float4)(v.x + h2 * a.x, v.y + h2 * a.y, v.z + h2 * a.z, rho);
}

// u^{n+1} = u^n + dt a^{n+1/2}, r^{n+1} = r^n + dt (u^n + u^{n+1})/2,
// rho^{n+1} = rho^n (2 - eps)/(2 + eps), eps = -dt drho^{n+1/2}/rho^{n+1/2}.
__kernel void corrector(float dt, float rho0, DomainBox d, int n, __global float4* pos_kind,
                        __global float4* vel_rho, __global const float4* start_pos,
                        __global const float4* start_vel, __global const float4* acc_drho) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  const float4 x0 = start_pos[i];
  if (x0.w == KIND_ESCAPED) return;
  const float4 v0 = start_vel[i];
  const float4 a = acc_drho[i];
  float4 v = vel_rho[i];
  const float eps = -a.w / v.w * dt;
  const float rho = v0.w * (2.0f - eps) / (2.0f + eps);
  if (x0.w == KIND_BOUNDARY) {
    v.w = rho < rho0 ? rho0 : rho;
    vel_rho[i] = v;
    return;
  }
  const float vx = v0.x + dt * a.x, vy = v0.y + dt * a.y, vz = v0.z + dt * a.z;
  pos_kind[i] =
      (float4)(wrap(x0.x + 0.5f * dt * (vx + v0.x), d.lo[0], d.length[0], d.periodic[0]),
               wrap(x0.y + 0.5f * dt * (vy + v0.y), d.lo[1], d.length[1], d.periodic[1]),
               wrap(x0.z + 0.5f * dt * (vz + v0.z), d.lo[2], d.length[2], d.periodic[2]), x0.w);
  vel_rho[i] = (float4)(vx, vy, vz, rho);
}

inline bool finite_value(float v) { return (v - v) == 0.0f; }

// flags[0]: fluid particles escaped now (outside the domain, or isolated with
// rho < rho_min: DualSPHysics' RhopOut rule); flags[1]: the smallest slot
// with a non-finite state or rho > rho_max (n when none).
__kernel void check_state(DomainBox d, float rho_min, float rho_max, int n,
                          __global float4* pos_kind, __global float4* vel_rho,
                          __global int* flags) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  const float4 x = pos_kind[i];
  if (x.w == KIND_ESCAPED) return;
  const float4 v = vel_rho[i];
  const bool bad =
      !(finite_value(x.x) && finite_value(x.y) && finite_value(x.z) && finite_value(v.x) &&
        finite_value(v.y) && finite_value(v.z) && finite_value(v.w) && v.w <= rho_max);
  if (bad) atomic_min(&flags[1], i);
  if (x.w != KIND_FLUID) return;
  const float q[3] = {x.x, x.y, x.z};
  bool outside = v.w < rho_min;
  for (int a = 0; a < 3; ++a)
    if (!d.periodic[a] && (q[a] < d.lo[a] || q[a] > d.hi[a])) outside = true;
  if (!outside) return;
  pos_kind[i] = (float4)(x.x, x.y, x.z, KIND_ESCAPED);
  vel_rho[i] = (float4)(0.0f, 0.0f, 0.0f, v.w);
  atomic_inc(&flags[0]);
}
