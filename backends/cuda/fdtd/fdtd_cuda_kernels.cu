// cuda/register-x: fdtd.step hand-tuned for NVIDIA GPUs (Taflove & Hagness
// eq. 3.18-3.19 with the CPML of Roden & Gedney 2000).
//  - Blocks of 32 (z, coalesced) x 8 (y) threads march along x through a chunk
//    of planes (2.5D blocking): the x neighbour one plane ahead (H update) or
//    behind (E update) is carried in registers, so each field is read from
//    DRAM once per half step.
//  - The z neighbour comes from the next/previous lane through a warp
//    shuffle; only the warp's edge lane loads it. The y neighbour is read
//    through the read-only cache (the row above/below was just loaded by the
//    same block).
//  - Material ids are 1, 2 or 4 bytes wide; the coefficient table stays in
//    global memory and is served by L1.
//  - The energy is a warp-shuffle reduction per warp, shared memory across
//    the block's warps and one double atomicAdd per block.
#include <cuda_runtime.h>

#include <algorithm>

#include "backends/cuda/fdtd/fdtd_cuda_kernels.hpp"
#include "ppkit/fdtd/materials.hpp"

namespace ppkit::fdtd::cuda_kernels {
namespace {

constexpr int block_z = 32, block_y = 8, chunk_x = 16;
constexpr unsigned full_mask = 0xffffffffu;

template <class Id>
__device__ __forceinline__ float coefficient(const Id* ids, const float* table, long long n,
                                             int which) {
  return __ldg(table + static_cast<long long>(__ldg(ids + n)) * material_stride + which);
}

__device__ __forceinline__ float cpml_term(float d, float inv_kd, int slot, const float* b,
                                           const float* c_d, int u, float* psi, long long q) {
  if (slot < 0) return d * inv_kd;
  const float updated = __ldg(b + u) * psi[q] + __ldg(c_d + u) * d;
  psi[q] = updated;
  return d * inv_kd + updated;
}

// H^{n+1/2} = H^{n-1/2} - dh curl E^n; E at i + 1 is carried from one plane to the next.
template <class Id>
__global__ void __launch_bounds__(block_z* block_y)
    update_h_kernel(const YeeKernelArgs a, const Id* ids) {
  const long long k = static_cast<long long>(blockIdx.x) * block_z + threadIdx.x;
  const long long j = static_cast<long long>(blockIdx.y) * block_y + threadIdx.y;
  const long long i_begin = static_cast<long long>(blockIdx.z) * chunk_x;
  const long long i_end = min(i_begin + chunk_x, static_cast<long long>(a.nx) + 1);
  const bool inside = j <= a.ny && k <= a.nz;
  const long long sy = a.nz + 1, sx = (a.ny + 1) * sy;
  const bool edge_lane = threadIdx.x == block_z - 1;
  const CpmlAxisArgs &X = a.axis[0], &Y = a.axis[1], &Z = a.axis[2];
  // Per-thread constants along y and z.
  const int sly = inside ? __ldg(Y.h_slot + j) : -1, slz = inside ? __ldg(Z.h_slot + k) : -1;
  const float iky = inside ? __ldg(Y.h_inv_kd + j) : 0.f,
              ikz = inside ? __ldg(Z.h_inv_kd + k) : 0.f;

  long long n = i_begin * sx + j * sy + k;
  float ey_here = inside ? a.ey[n] : 0.f, ez_here = inside ? a.ez[n] : 0.f;
  for (long long i = i_begin; i < i_end; ++i, n += sx) {
    const float ex_here = inside ? a.ex[n] : 0.f;
    float ey_next = 0.f, ez_next = 0.f;
    if (inside && i < a.nx) {
      ey_next = a.ey[n + sx];
      ez_next = a.ez[n + sx];
    }
    // z + 1 from the next lane; the warp's last lane loads it.
    float ex_kp = __shfl_down_sync(full_mask, ex_here, 1);
    float ey_kp = __shfl_down_sync(full_mask, ey_here, 1);
    if (edge_lane && inside && k < a.nz) {
      ex_kp = __ldg(a.ex + n + 1);
      ey_kp = __ldg(a.ey + n + 1);
    }
    if (inside) {
      const float dh = coefficient(ids, a.material_table, n, coef_dh);
      const int slx = __ldg(X.h_slot + i);
      const float ikx = __ldg(X.h_inv_kd + i);
      const long long qx = (static_cast<long long>(slx) * (a.ny + 1) + j) * sy + k;
      const long long qy = (i * a.layers + sly) * sy + k;
      const long long qz = (i * (a.ny + 1) + j) * a.layers + slz;
      if (j < a.ny && k < a.nz) {
        const float dez = __ldg(a.ez + n + sy) - ez_here, dey = ey_kp - ey_here;
        const float curl = cpml_term(dez, iky, sly, Y.h_b, Y.h_c_d, int(j), a.psi_hxy, qy) -
                           cpml_term(dey, ikz, slz, Z.h_b, Z.h_c_d, int(k), a.psi_hxz, qz);
        a.hx[n] -= dh * curl;
      }
      if (i < a.nx && k < a.nz) {
        const float dex = ex_kp - ex_here, dez = ez_next - ez_here;
        const float curl = cpml_term(dex, ikz, slz, Z.h_b, Z.h_c_d, int(k), a.psi_hyz, qz) -
                           cpml_term(dez, ikx, slx, X.h_b, X.h_c_d, int(i), a.psi_hyx, qx);
        a.hy[n] -= dh * curl;
      }
      if (i < a.nx && j < a.ny) {
        const float dey = ey_next - ey_here, dex = __ldg(a.ex + n + sy) - ex_here;
        const float curl = cpml_term(dey, ikx, slx, X.h_b, X.h_c_d, int(i), a.psi_hzx, qx) -
                           cpml_term(dex, iky, sly, Y.h_b, Y.h_c_d, int(j), a.psi_hzy, qy);
        a.hz[n] -= dh * curl;
      }
    }
    ey_here = ey_next;
    ez_here = ez_next;
  }
}

// E^{n+1} = ca E^n + cb curl H^{n+1/2}; H at i - 1 is carried from the previous plane.
template <class Id>
__global__ void __launch_bounds__(block_z* block_y)
    update_e_kernel(const YeeKernelArgs a, const Id* ids) {
  const long long k = static_cast<long long>(blockIdx.x) * block_z + threadIdx.x;
  const long long j = static_cast<long long>(blockIdx.y) * block_y + threadIdx.y;
  const long long i_begin = static_cast<long long>(blockIdx.z) * chunk_x;
  const long long i_end = min(i_begin + chunk_x, static_cast<long long>(a.nx) + 1);
  const bool inside = j <= a.ny && k <= a.nz;
  const long long sy = a.nz + 1, sx = (a.ny + 1) * sy;
  const CpmlAxisArgs &X = a.axis[0], &Y = a.axis[1], &Z = a.axis[2];
  const int sly = inside ? __ldg(Y.e_slot + j) : -1, slz = inside ? __ldg(Z.e_slot + k) : -1;
  const float iky = inside ? __ldg(Y.e_inv_kd + j) : 0.f,
              ikz = inside ? __ldg(Z.e_inv_kd + k) : 0.f;
  const bool inner_y = j >= 1 && (j < a.ny || a.periodic_y), inner_z = k >= 1 && k < a.nz;

  long long n = i_begin * sx + j * sy + k;
  float hy_prev = 0.f, hz_prev = 0.f;
  if (inside && i_begin >= 1) {
    hy_prev = a.hy[n - sx];
    hz_prev = a.hz[n - sx];
  }
  for (long long i = i_begin; i < i_end; ++i, n += sx) {
    const float hx_here = inside ? a.hx[n] : 0.f, hy_here = inside ? a.hy[n] : 0.f;
    const float hz_here = inside ? a.hz[n] : 0.f;
    // z - 1 from the previous lane; the warp's first lane loads it.
    float hx_km = __shfl_up_sync(full_mask, hx_here, 1);
    float hy_km = __shfl_up_sync(full_mask, hy_here, 1);
    if (threadIdx.x == 0 && inside && k >= 1) {
      hx_km = __ldg(a.hx + n - 1);
      hy_km = __ldg(a.hy + n - 1);
    }
    if (inside) {
      const int slx = __ldg(X.e_slot + i);
      const float ikx = __ldg(X.e_inv_kd + i);
      const long long qx = (static_cast<long long>(slx) * (a.ny + 1) + j) * sy + k;
      const long long qy = (i * a.layers + sly) * sy + k;
      const long long qz = (i * (a.ny + 1) + j) * a.layers + slz;
      // Periodic x: the face i = nx is updated too (yee_kernel_args.hpp).
      const bool inner_x = i >= 1 && (i < a.nx || a.periodic_x);
      const bool do_x = i < a.nx && inner_y && inner_z, do_y = inner_x && j < a.ny && inner_z,
                 do_z = inner_x && inner_y && k < a.nz;
      if (do_x || do_y || do_z) {
        const float ca = coefficient(ids, a.material_table, n, coef_ca);
        const float cb = coefficient(ids, a.material_table, n, coef_cb);
        if (do_x) {
          const float dhz = hz_here - __ldg(a.hz + n - sy), dhy = hy_here - hy_km;
          const float curl = cpml_term(dhz, iky, sly, Y.e_b, Y.e_c_d, int(j), a.psi_exy, qy) -
                             cpml_term(dhy, ikz, slz, Z.e_b, Z.e_c_d, int(k), a.psi_exz, qz);
          a.ex[n] = ca * a.ex[n] + cb * curl;
        }
        if (do_y) {
          const float dhx = hx_here - hx_km, dhz = hz_here - hz_prev;
          const float curl = cpml_term(dhx, ikz, slz, Z.e_b, Z.e_c_d, int(k), a.psi_eyz, qz) -
                             cpml_term(dhz, ikx, slx, X.e_b, X.e_c_d, int(i), a.psi_eyx, qx);
          a.ey[n] = ca * a.ey[n] + cb * curl;
        }
        if (do_z) {
          const float dhy = hy_here - hy_prev, dhx = hx_here - __ldg(a.hx + n - sy);
          const float curl = cpml_term(dhy, ikx, slx, X.e_b, X.e_c_d, int(i), a.psi_ezx, qx) -
                             cpml_term(dhx, iky, sly, Y.e_b, Y.e_c_d, int(j), a.psi_ezy, qy);
          a.ez[n] = ca * a.ez[n] + cb * curl;
        }
      }
    }
    hy_prev = hy_here;
    hz_prev = hz_here;
  }
}

// Serial over the sources (two on one node must both apply); only those at
// nodes [node_begin, node_end), a range of x-planes.
__global__ void sources_kernel(const YeeKernelArgs a, const SourceProbeArgs s, long long step,
                               long long node_begin, long long node_end) {
  for (long long q = 0; q < s.n_sources; ++q) {
    if (s.source_index[q] < node_begin || s.source_index[q] >= node_end) continue;
    float* e = s.source_component[q] == 0 ? a.ex : s.source_component[q] == 1 ? a.ey : a.ez;
    const float value = s.source_values[q * s.steps + step];
    e[s.source_index[q]] = s.source_hard[q] ? value : e[s.source_index[q]] + value;
  }
}

__global__ void probes_kernel(const YeeKernelArgs a, const SourceProbeArgs s, long long step) {
  const long long q = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= s.n_probes) return;
  const float* fields[6] = {a.ex, a.ey, a.ez, a.hx, a.hy, a.hz};
  s.probe_values[q * s.steps + step] = fields[s.probe_component[q]][s.probe_index[q]];
}

constexpr int energy_block = 256;

template <class Id>
__global__ void __launch_bounds__(energy_block)
    energy_kernel(const YeeKernelArgs a, const Id* ids, long long nodes, double* sum) {
  __shared__ double warp_sums[energy_block / 32];
  double acc = 0;
  for (long long n = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; n < nodes;
       n += static_cast<long long>(gridDim.x) * blockDim.x) {
    const float e2 = a.ex[n] * a.ex[n] + a.ey[n] * a.ey[n] + a.ez[n] * a.ez[n];
    const float h2 = a.hx[n] * a.hx[n] + a.hy[n] * a.hy[n] + a.hz[n] * a.hz[n];
    acc += 0.5 * (double(coefficient(ids, a.material_table, n, coef_eps)) * e2 +
                  double(coefficient(ids, a.material_table, n, coef_mu)) * h2);
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

dim3 update_grid(const YeeKernelArgs& a) {
  return dim3(unsigned((a.nz + 1 + block_z - 1) / block_z),
              unsigned((a.ny + 1 + block_y - 1) / block_y),
              unsigned((a.nx + 1 + chunk_x - 1) / chunk_x));
}

template <template <class> class Launch>
void with_ids(MaterialIds ids, const YeeKernelArgs& a) {
  switch (ids.bytes) {
    case 1:
      Launch<unsigned char>::go(a, static_cast<const unsigned char*>(ids.data));
      break;
    case 2:
      Launch<unsigned short>::go(a, static_cast<const unsigned short*>(ids.data));
      break;
    default:
      Launch<unsigned int>::go(a, static_cast<const unsigned int*>(ids.data));
      break;
  }
}

template <class Id>
struct LaunchH {
  static void go(const YeeKernelArgs& a, const Id* ids) {
    update_h_kernel<Id><<<update_grid(a), dim3(block_z, block_y)>>>(a, ids);
  }
};
template <class Id>
struct LaunchE {
  static void go(const YeeKernelArgs& a, const Id* ids) {
    update_e_kernel<Id><<<update_grid(a), dim3(block_z, block_y)>>>(a, ids);
  }
};

}  // namespace

void update_h(const YeeKernelArgs& a, MaterialIds ids) { with_ids<LaunchH>(ids, a); }
void update_e(const YeeKernelArgs& a, MaterialIds ids) { with_ids<LaunchE>(ids, a); }

void sources(const YeeKernelArgs& a, const SourceProbeArgs& s, std::int64_t step,
             std::int64_t node_begin, std::int64_t node_end) {
  if (s.n_sources > 0) sources_kernel<<<1, 1>>>(a, s, step, node_begin, node_end);
}

void probes(const YeeKernelArgs& a, const SourceProbeArgs& s, std::int64_t step) {
  if (s.n_probes > 0) probes_kernel<<<unsigned((s.n_probes + 127) / 128), 128>>>(a, s, step);
}

void sources_and_probes(const YeeKernelArgs& a, const SourceProbeArgs& s, std::int64_t step) {
  sources(a, s, step);
  probes(a, s, step);
}

void field_energy(const YeeKernelArgs& a, MaterialIds ids, double* device_sum) {
  cudaMemsetAsync(device_sum, 0, sizeof(double));
  const long long nodes = (a.nx + 1) * (a.ny + 1) * (a.nz + 1);
  const unsigned blocks =
      unsigned(std::min<long long>((nodes + energy_block - 1) / energy_block, 4096));
  switch (ids.bytes) {
    case 1:
      energy_kernel<<<blocks, energy_block>>>(a, static_cast<const unsigned char*>(ids.data), nodes,
                                              device_sum);
      break;
    case 2:
      energy_kernel<<<blocks, energy_block>>>(a, static_cast<const unsigned short*>(ids.data),
                                              nodes, device_sum);
      break;
    default:
      energy_kernel<<<blocks, energy_block>>>(a, static_cast<const unsigned int*>(ids.data), nodes,
                                              device_sum);
      break;
  }
}

const char* last_launch_error() {
  const cudaError_t status = cudaGetLastError();
  return status == cudaSuccess ? nullptr : cudaGetErrorString(status);
}

}  // namespace ppkit::fdtd::cuda_kernels
