// Y_s = D X_s with fp64 MFMA on CDNA2+; see line_derivative_mfma.hpp.
//
// v_mfma_f64_16x16x4f64 computes C (16x16) += A (16x4) * B (4x16) for a whole
// wavefront; lane l holds A[l % 16][l / 16], B[l / 16][l % 16] and the four
// accumulator items C[l / 16 + 4 r][l % 16], r = 0..3 (the fp64 instruction
// strides the rows by 4, unlike the fp32 16x16x4 one, whose lane holds four
// consecutive rows 4 (l / 16) + r). Two slabs a and b
// share one wavefront: A = diag(D, D) (16 x 16, fed in four k-steps of 4), B
// stacks X_a (rows 0-7) over X_b (rows 8-15), so C rows 0-7 are D X_a and
// rows 8-15 are D X_b.
#include <string>

#include "backends/cuda_hip/core/gpu_portability.hpp"
#include "backends/hip/core/hip_check.hpp"
#include "backends/hip/core/line_derivative_mfma.hpp"

#if defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
#define PPKIT_HIP_FP64_MFMA 1
#endif

namespace ppkit::hip {
namespace {

constexpr int kTile = 16;  // MFMA M = N
constexpr int kStep = 4;   // MFMA K
constexpr int kWavesPerBlock = 4;
constexpr int kBlock = kWavesPerBlock * gpu::kWarpSize;
constexpr std::size_t kSlabSize = static_cast<std::size_t>(kLinePoints) * kSlabLines;
static_assert(2 * kLinePoints == kTile && kSlabLines == kTile, "two slabs fill one MFMA tile");
static_assert(kTile % kStep == 0, "the k-steps cover the tile");
// Lane l owns column l % 16 of the 16 x 16 tile and rows l / 16 + kRowGroups r:
// 4 rows (the MFMA accumulator's items) on a 64-lane wavefront, 8 on a 32-lane
// warp (NVIDIA through HIP's NVIDIA platform, RDNA), where the FMA path runs.
constexpr int kRowGroups = gpu::kWarpSize / kTile;
constexpr int kItems = kTile / kRowGroups;
static_assert(kRowGroups * kTile == gpu::kWarpSize, "a warp covers whole tile columns");

// Entry (row, column) of the stacked operands, zero outside the data.
__device__ __forceinline__ double block_diagonal(const double* d, int row, int column) {
  const bool same_block = (row < kLinePoints) == (column < kLinePoints);
  return same_block ? d[(row % kLinePoints) * kLinePoints + column % kLinePoints] : 0.0;
}
__device__ __forceinline__ double stacked_slabs(const double* x, std::size_t first_slab,
                                                std::size_t slabs, int row, int line) {
  const std::size_t slab = first_slab + static_cast<std::size_t>(row / kLinePoints);
  return slab < slabs ? x[slab * kSlabSize + (row % kLinePoints) * kSlabLines + line] : 0.0;
}

__global__ void __launch_bounds__(kBlock)
    line_derivative(const double* __restrict__ d, const double* __restrict__ x,
                    double* __restrict__ y, std::size_t slabs) {
  const int lane = static_cast<int>(threadIdx.x) % gpu::kWarpSize;
  const std::size_t wave =
      static_cast<std::size_t>(blockIdx.x) * kWavesPerBlock + threadIdx.x / gpu::kWarpSize;
  const std::size_t first_slab = 2 * wave;
  if (first_slab >= slabs) return;  // whole wavefronts leave together
  const int column = lane % kTile;  // line within the slab pair's tile
  const int row_group = lane / kTile;

#if defined(PPKIT_HIP_FP64_MFMA)
  static_assert(kItems == 4, "the MFMA lane layout is that of a 64-lane wavefront");
  using Accumulator = double __attribute__((ext_vector_type(4)));
  Accumulator c = {0.0, 0.0, 0.0, 0.0};
#pragma unroll
  for (int step = 0; step < kTile / kStep; ++step) {
    const int k = step * kStep + row_group;
    const double a = block_diagonal(d, column, k);                    // A[lane % 16][k]
    const double b = stacked_slabs(x, first_slab, slabs, k, column);  // B[k][lane % 16]
    c = __builtin_amdgcn_mfma_f64_16x16x4f64(a, b, c, 0, 0, 0);
  }
  double result[4] = {c[0], c[1], c[2], c[3]};
#else
  // Same output ownership as the MFMA path, computed with FMAs.
  double result[kItems];
#pragma unroll
  for (int r = 0; r < kItems; ++r) {
    const int row = row_group + kRowGroups * r;
    double sum = 0.0;
#pragma unroll
    for (int k = 0; k < kTile; ++k)
      sum += block_diagonal(d, row, k) * stacked_slabs(x, first_slab, slabs, k, column);
    result[r] = sum;
  }
#endif

#pragma unroll
  for (int r = 0; r < kItems; ++r) {
    const int row = row_group + kRowGroups * r;  // C[row][column] held in item r
    const std::size_t slab = first_slab + static_cast<std::size_t>(row / kLinePoints);
    if (slab < slabs) y[slab * kSlabSize + (row % kLinePoints) * kSlabLines + column] = result[r];
  }
}

}  // namespace

void launch_line_derivative(const double* derivative, const double* x, double* y,
                            std::size_t slabs) {
  if (slabs == 0) return;
  const std::size_t waves = (slabs + 1) / 2;
  const std::size_t blocks = (waves + kWavesPerBlock - 1) / kWavesPerBlock;
  line_derivative<<<static_cast<unsigned int>(blocks), kBlock>>>(derivative, x, y, slabs);
  PPKIT_HIP_CHECK_LAUNCH();
}

bool device_has_fp64_mfma() {
  int device = 0;
  hipDeviceProp_t p{};
  if (hipGetDevice(&device) != hipSuccess || hipGetDeviceProperties(&p, device) != hipSuccess) {
    (void)hipGetLastError();
    return false;
  }
  const std::string arch(p.gcnArchName);
  return arch.rfind("gfx90a", 0) == 0 || arch.rfind("gfx94", 0) == 0;
}

}  // namespace ppkit::hip
