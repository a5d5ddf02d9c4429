#pragma once
// cuda/cluster-gather, strategy (i) of fem.assemble (docs/fem.md, "Strategy (i):
// cluster gather on fp64 tensor cores"): one thread block per node cluster
// (cluster_layout.hpp) forms every element around the cluster whole with fp64
// mma.sync products, merges the blocks of the cluster's rows in shared memory
// and writes each CSR value and load entry once. NVIDIA only (compute
// capability 8.0 or newer): the products are the tensor cores' m8n8k4, and on
// sm_90 m16n8k8. Host glue sees only this header.
#include <cstdint>

#include "ppkit/fem/assembly_device_arrays.hpp"

namespace ppkit::fem::cuda_cluster {

// Warps per block and blocks (clusters) per SM: the layout's colour groups
// hold at most kClusterWarps packs (ClusterGatherOptions::colour_capacity),
// one group's packs at once. Since version 14 the accumulator keeps each block
// of two cluster nodes once (ClusterGatherOptions::symmetric_blocks: 1,260
// blocks, 101 KB, for a 64-node brick instead of 1,728, 138 KB), so two
// clusters of 10 warps share an SM and one's chain of ordered adds overlaps
// the other's: 0.625-0.626 against 0.658-0.661 ms at 64^3 and 5.02 against
// 5.07 ms at 128^3 on an H200 for one cluster of 20 warps (version 13); the
// symmetric accumulator with one cluster of 20 warps ran 0.722-0.728 ms
// (docs/results/h200.md, twenty-sixth round). 96 registers, 24 bytes spilled,
// as with 20 warps (eighteenth round: 20 warps 2% ahead of 16, 24 warps with
// 80 registers 5% behind).
constexpr int kClusterWarps = 10;
constexpr int kClusterBlocksPerSm = 2;

// Elements per pack (ClusterGatherOptions::max_pack_elements): elements whose
// cluster nodes are other nodes at other local numbers are formed into one
// product and combine, wait, add and count once (cluster_layout.hpp). With 4,
// a box's 64-node cluster makes 65 packs of its 125 elements: 0.655-0.656
// against 0.673-0.678 ms at 64^3 and 5.06 against 5.22 ms at 128^3 on an H200
// for every element alone (version 12); with 8 (64 packs, its 8 corner
// elements one after the other in one warp) 0.693-0.696 / 5.39 ms
// (docs/results/h200.md, twenty-fifth round).
constexpr int kClusterPackElements = 4;

// Persistent blocks take the clusters in order; a.geometry from
// Hex8Kernels::launch_gauss_geometry. Throws ppkit::Error if a cluster needs
// more shared memory than the device gives one block.
void launch_cluster_gather(const Hex8ClusterArrays& a, std::int64_t clusters);

// The compute capability (major * 10 + minor) of the kernel code the current
// device would run, or 0 when this build holds none for it.
int cluster_gather_binary_version();

// Most row blocks (ClusterGatherLayout::cluster_blocks) a cluster of
// max_nodes nodes may have on the current device: with none of them kept once
// its accumulator still fits one block per SM (its opt-in shared memory);
// kept once, a box's clusters fit kClusterBlocksPerSm.
int cluster_block_capacity(int max_nodes);

}  // namespace ppkit::fem::cuda_cluster
