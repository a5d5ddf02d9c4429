// Plane-wave (total-field/scattered-field) consistency corrections for
// cuda/register-x, kept apart from the main update kernels: one thread per
// entry, no node twice in one list (Taflove & Hagness 3rd ed. sec. 5.8).
#include "backends/cuda/fdtd/fdtd_cuda_corrections.hpp"

#include <algorithm>

namespace ppkit::fdtd::cuda_kernels {
namespace {

__global__ void tfsf_correct_kernel(float* __restrict__ field,
                                    const std::int64_t* __restrict__ node,
                                    const float* __restrict__ w0, const float* __restrict__ w1,
                                    const std::int32_t* __restrict__ slot0,
                                    const std::int32_t* __restrict__ slot1,
                                    const float* __restrict__ row, std::int64_t count) {
  const std::int64_t q = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= count) return;
  field[node[q]] += w0[q] * row[slot0[q]] + w1[q] * row[slot1[q]];
}

__global__ void ntff_accumulate_kernel(NtffArgs a, const float* __restrict__ factors) {
  const std::int64_t q = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= a.samples) return;
  const int c = a.component[q];
  const float* field = a.field[c];
  const double value = 0.5 * (double(field[a.node_a[q]]) + double(field[a.node_b[q]]));
  const int part = c < 3 ? 0 : 2;
  for (std::int64_t f = 0; f < a.frequencies; ++f) {
    a.re[f * a.samples + q] += value * double(factors[f * 4 + part]);
    a.im[f * a.samples + q] += value * double(factors[f * 4 + part + 1]);
  }
}

struct Direction {
  double v[9];
};

constexpr int ntff_block = 256;

__global__ void ntff_radiation_kernel(NtffArgs a, std::int64_t f, Direction dir,
                                      double* __restrict__ sums) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const double* re = a.re + f * a.samples;
  const double* im = a.im + f * a.samples;
  for (std::int64_t q = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; q < a.samples;
       q += std::int64_t(gridDim.x) * blockDim.x) {
    const double w = a.weight[q];
    const double vr = re[q] * w, vi = im[q] * w;
    const double phase = dir.v[0] * a.x[q] + dir.v[1] * a.y[q] + dir.v[2] * a.z[q];
    double s, c;
    sincos(phase, &s, &c);
    const double tr = vr * c - vi * s, ti = vr * s + vi * c;
    const int comp = a.current[q];
    const double th = dir.v[3 + comp], ph = dir.v[6 + comp];
    const int first = a.magnetic[q] ? 4 : 0;
    acc[first] += tr * th;
    acc[first + 1] += ti * th;
    acc[first + 2] += tr * ph;
    acc[first + 3] += ti * ph;
  }
  // Warp-shuffle tree, then the warps' results through shared memory.
  __shared__ double warp_sums[ntff_block / 32][8];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int m = 0; m < 8; ++m) {
    double v = acc[m];
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane == 0) warp_sums[warp][m] = v;
  }
  __syncthreads();
  if (threadIdx.x < 8) {
    double v = 0;
    for (int w = 0; w < ntff_block / 32; ++w) v += warp_sums[w][threadIdx.x];
    atomicAdd(&sums[threadIdx.x], v);
  }
}

}  // namespace

void ntff_accumulate(const NtffArgs& a, const float* step_factors) {
  if (a.samples <= 0) return;
  const unsigned grid = unsigned((a.samples + ntff_block - 1) / ntff_block);
  ntff_accumulate_kernel<<<grid, ntff_block>>>(a, step_factors);
}

void ntff_radiation(const NtffArgs& a, std::int64_t f, const double dir[9], double* device_sums) {
  cudaMemsetAsync(device_sums, 0, 8 * sizeof(double));
  Direction d;
  for (int m = 0; m < 9; ++m) d.v[m] = dir[m];
  const std::int64_t blocks =
      std::min<std::int64_t>(1024, (a.samples + ntff_block - 1) / ntff_block);
  ntff_radiation_kernel<<<unsigned(std::max<std::int64_t>(1, blocks)), ntff_block>>>(a, f, d,
                                                                                     device_sums);
}

void tfsf_correct(float* field, const std::int64_t* node, const float* w0, const float* w1,
                  const std::int32_t* slot0, const std::int32_t* slot1, const float* row,
                  std::int64_t count) {
  if (count <= 0) return;
  constexpr int block = 256;
  const unsigned grid = unsigned((count + block - 1) / block);
  tfsf_correct_kernel<<<grid, block>>>(field, node, w0, w1, slot0, slot1, row, count);
}

}  // namespace ppkit::fdtd::cuda_kernels
