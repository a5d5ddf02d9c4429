// cuda/coalesced of fdtd.phasor_update and the periodic copies of the CUDA
// fdtd.step. Phasors: one thread per box node, threads along z (the fastest
// field and sum index) so every field read and every running-sum read/write
// of a warp is one 128-byte transaction; the six field values are loaded once
// and reused for all frequencies; per-sample coefficients come through the
// read-only cache. The update is pure streaming (see phasors.hpp for bytes).
#include <cuda_runtime.h>

#include "backends/cuda/fdtd/phasor_cuda_kernels.hpp"

namespace ppkit::fdtd::cuda_kernels {
namespace {

constexpr int phasor_block = 256;

__global__ void __launch_bounds__(phasor_block)
    phasor_kernel(const PhasorKernelArgs a, const float* __restrict__ coef) {
  const long long b = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (b >= a.box_nodes) return;
  const long long bk = b % a.n[2], rest = b / a.n[2];
  const long long bj = rest % a.n[1], bi = rest / a.n[1];
  const long long node = (a.lo[0] + bi) * a.sx + (a.lo[1] + bj) * a.sy + a.lo[2] + bk;
  float value[6];
#pragma unroll
  for (int c = 0; c < 6; ++c) value[c] = __ldg(a.field[c] + node);
  for (long long f = 0; f < a.frequencies; ++f) {
    const float4 w = __ldg(reinterpret_cast<const float4*>(coef) + f);
#pragma unroll
    for (int c = 0; c < 6; ++c) {
      const long long q = (f * 6 + c) * a.box_nodes + b;
      a.re[q] += (c < 3 ? w.x : w.z) * value[c];
      a.im[q] += (c < 3 ? w.y : w.w) * value[c];
    }
  }
}

// axis 1: rows j = 0 / ny over (k, i); axis 0: planes i = 0 / nx over (k, j).
__global__ void periodic_kernel(const YeeKernelArgs a, int axis, int electric, long long sy) {
  const long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long other = static_cast<long long>(blockIdx.y) * blockDim.y + threadIdx.y;
  const long long sx = (a.ny + 1) * sy;
  if (k > a.nz) return;
  long long low, high;
  float *first, *second;
  if (axis == 1) {
    if (other > a.nx) return;
    low = other * sx + k;
    high = low + a.ny * sy;
    first = electric ? a.ex : a.hx;
  } else {
    if (other > a.ny) return;
    low = other * sy + k;
    high = low + a.nx * sx;
    first = electric ? a.ey : a.hy;
  }
  second = electric ? a.ez : a.hz;
  if (electric) {
    first[low] = first[high];
    second[low] = second[high];
  } else {
    first[high] = first[low];
    second[high] = second[low];
  }
}

}  // namespace

void accumulate_phasors(const PhasorKernelArgs& a, const float* coef) {
  const unsigned blocks = unsigned((a.box_nodes + phasor_block - 1) / phasor_block);
  phasor_kernel<<<blocks, phasor_block>>>(a, coef);
}

void periodic_copy(const YeeKernelArgs& a, bool electric, std::int64_t z_pitch) {
  const long long sy = z_pitch > 0 ? z_pitch : a.nz + 1;
  for (int axis : {1, 0}) {
    if (!(axis == 1 ? a.periodic_y : a.periodic_x)) continue;
    const long long other = axis == 1 ? a.nx + 1 : a.ny + 1;
    const dim3 block(32, 8);
    const dim3 grid(unsigned((a.nz + 1 + 31) / 32), unsigned((other + 7) / 8));
    periodic_kernel<<<grid, block>>>(a, axis, electric ? 1 : 0, sy);
  }
}

const char* phasor_launch_error() {
  const cudaError_t status = cudaGetLastError();
  return status == cudaSuccess ? nullptr : cudaGetErrorString(status);
}

}  // namespace ppkit::fdtd::cuda_kernels
