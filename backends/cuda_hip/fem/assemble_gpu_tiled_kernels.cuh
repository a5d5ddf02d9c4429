#pragma once
// Strategy (g) of fem.assemble: one block per Morton tile, merged in shared
// memory. Part of assemble_gpu_kernels.cuh.
#include "backends/cuda_hip/fem/assemble_gpu_device.cuh"

namespace ppkit::fem::assembly_kernels {
namespace {

// ---- (g) tiled: one block per Morton tile, merged in shared memory --------
// The tile's distinct CSR blocks are an accumulator in dynamic shared memory
// (9 doubles per block, tiled_layout.hpp). Colour by colour, each warp
// (32-lane sub-group) computes one element with the factored algorithm and
// adds its 18 values per lane straight into the accumulator (elements of a
// colour share no node, hence no block: no atomics, no Ke staging); a block
// barrier between colours. Then the block adds the accumulator to the CSR
// values with atomics, 32-lane chunks of contiguous row segments, so each
// reduction covers whole runs of a row instead of the element's 6-value runs.
constexpr int kTiledWarps = 4;  // a structured 32-element tile has 8 colours of 4 elements
static_assert(gpu::kSubgroupWidth * kTiledWarps % gpu::kWarpSize == 0,
              "blocks hold whole warps/wavefronts");
struct TiledElementShared {
  double G[192];    // G[24 q + 3 a + i]; before that x (24) and J (72) alias it
  double C[72];     // cofactors of J_q
  double scale[8];  // 1 / det J_q
  double wdet[8];   // det J_q
};

__global__ void __launch_bounds__(gpu::kSubgroupWidth* kTiledWarps)
    tiled_kernel(Hex8TiledArrays A) {
  extern __shared__ double accumulator[];  // 9 * A.max_blocks
  __shared__ double s_dN[192];
  __shared__ TiledElementShared element_shared[kTiledWarps];
  const std::int64_t t = blockIdx.x;
  const int values = 9 * A.tile_blocks[t];
  for (int m = threadIdx.x; m < 192; m += blockDim.x) s_dN[m] = c_dN[m];
  for (int m = threadIdx.x; m < values; m += blockDim.x) accumulator[m] = 0;
  __syncthreads();
  const int lane = element_lane(), warp = element_in_block();
  TiledElementShared& S = element_shared[warp];
  double* x = S.G;
  double* J = S.G + 24;
  const std::int64_t last_colour = A.tile_colours[t + 1];
  for (std::int64_t g = A.tile_colours[t]; g < last_colour; ++g) {
    const std::int64_t end = A.colour_offsets[g + 1];
    // Whole sub-groups take the same trip count, so shuffles stay converged.
    for (std::int64_t k = A.colour_offsets[g] + warp; k < end; k += kTiledWarps) {
      if (lane < 24) x[lane] = A.coordinates[24 * k + lane];
      const std::int32_t my_node = lane < 8 ? A.nodes[8 * k + lane] : 0;
      // Blocks (a, 2(lane%4)) and (a, 2(lane%4) + 1) are [8a + b] = 2 lane, 2 lane + 1.
      const std::uint32_t slot_pair =
          reinterpret_cast<const std::uint32_t*>(A.block_slots + 64 * k)[lane];
      gpu::warp_sync();
      factored_geometry(lane, s_dN, x, J, S.C, S.scale, S.wdet, S.G);
      double M0[9], M1[9];
      factored_lane_blocks(lane, S.G, S.scale, M0, M1);
      double* block0 = accumulator + 9 * int(slot_pair & 0xffffu);
      double* block1 = accumulator + 9 * int(slot_pair >> 16);
#pragma unroll
      for (int i = 0; i < 3; ++i)
#pragma unroll
        for (int j = 0; j < 3; ++j) {
          block0[3 * i + j] += factored_entry(M0, i, j, A.lambda, A.mu);
          block1[3 * i + j] += factored_entry(M1, i, j, A.lambda, A.mu);
        }
      const std::int64_t load_node =
          gpu::shfl(my_node, lane < 24 ? lane / 3 : 0, gpu::kSubgroupWidth);
      factored_body_force<true>(lane, load_node, S.wdet, A.body_force[0], A.body_force[1],
                                A.body_force[2], A.load);
      gpu::warp_sync();  // the sub-group's next element overwrites x (aliasing G)
    }
    __syncthreads();
  }
  // Flush: lane l of a chunk adds value l - (first lane of its segment) of
  // segment first + (segments started at lanes <= l) - 1, i.e. row s % 3 of
  // the tile's run s / 3 (tiled_chunk()).
  const std::int64_t first_run = A.run_offsets[t];
  const std::int64_t last_chunk = A.chunk_offsets[t + 1];
  for (std::int64_t c = A.chunk_offsets[t] + warp; c < last_chunk; c += kTiledWarps) {
    const std::uint64_t word = A.chunks[c];
    const int lanes = int((word >> 48) & 63u);
    if (lane < lanes) {
      const std::uint32_t below = std::uint32_t(word) & (0xffffffffu >> (31 - lane));
      const std::int64_t segment = std::int64_t((word >> 32) & 0xffffu) + __popc(below) - 1;
      const int value = lane - (31 - __clz(below));
      const std::int64_t run = first_run + segment / 3;
      const int i = int(segment % 3);
      const std::int64_t position =
          A.run_positions[run] + std::int64_t(i) * A.run_row_lengths[run] + value;
      gpu::atomic_add(
          &A.values[position],
          accumulator[9 * (int(A.run_first_slots[run]) + value / 3) + 3 * i + value % 3]);
    }
  }
}

}  // namespace

}  // namespace ppkit::fem::assembly_kernels
