#pragma once
// Accumulator block numbers of the cluster-gather layout chosen for the
// shared-memory banks of cuda/cluster-gather's kernel (docs/fem.md, "Strategy
// (i)"). The kernel keeps block x of a cluster's accumulator at byte
// 8 * block_stride * x of shared memory (32 banks of 4 bytes). Its accesses:
//  - the adds: lane 4 a + p of a warp reads and writes the blocks
//    lane_blocks[32 k + lane] holds (one half at a time), 16 bytes at a time
//    (a quarter warp per shared-memory pass) and the block's 9th value
//    8 bytes at a time (a half warp per pass), reads only where the add is not
//    the block's first;
//  - the rows: a warp per cluster node reads value v of each of its 3 rows by
//    lane v % 32, from the block row_blocks names (transposed where marked).
// Two lanes of one pass whose different addresses fall on one bank make the
// pass take two wavefronts (a bank conflict). Block numbers are a cluster's own, so any
// permutation of them within a cluster leaves every sum and its order as it
// was; renumber_accumulator_blocks picks one that spreads each pass over the
// banks.
#include <cstdint>

#include "ppkit/fem/cluster_layout.hpp"

namespace ppkit::fem {

// Shared-memory passes (wavefronts) of the kernel's accesses to the
// accumulator over all clusters of L: the adds' 16-byte and 8-byte accesses
// and the rows' reads.
struct AccumulatorWavefronts {
  std::int64_t adds = 0;
  std::int64_t rows = 0;
};
AccumulatorWavefronts count_accumulator_wavefronts(const ClusterGatherLayout& L, int block_stride);

// Renumbers the accumulator blocks of each cluster of L (lane_blocks and
// row_blocks, a permutation of [0, cluster_stored_blocks[c]), so max_blocks is
// unchanged) to lessen the wavefronts above. block_stride: doubles per block,
// even and at least 10 (16-byte aligned blocks of 9 values). Returns the
// number of cluster shapes it numbered (clusters of one shape share their
// numbering). Throws ppkit::Error for any other stride.
std::int64_t renumber_accumulator_blocks(ClusterGatherLayout& L, int block_stride);

}  // namespace ppkit::fem
