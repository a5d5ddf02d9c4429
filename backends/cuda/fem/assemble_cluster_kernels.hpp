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

namespace ppkit::fem {

// The kernel's inputs, layouts as in cluster_layout.hpp;
// kernel 1's geometry as in Hex8GatherArrays. A thread block takes one
// cluster at a time, in dynamic shared memory its accumulator (80 B per
// block of max_blocks, 24 B per node of max_nodes) and its row table (2 B per
// row block of max_row_blocks); its elements' geometry is read from global
// memory.
struct Hex8ClusterArrays {
  const double* geometry = nullptr;               // 80 per element: [10 (8 e + q) + m]
  const std::int32_t* node_of_slot = nullptr;     // per slot
  const std::int64_t* cluster_slots = nullptr;    // per cluster + 1
  const std::int32_t* cluster_blocks = nullptr;   // per cluster
  const std::uint16_t* slot_blocks = nullptr;     // per slot
  const std::int64_t* slot_rows = nullptr;        // per slot
  const std::int64_t* cluster_colours = nullptr;  // per cluster + 1
  const std::int64_t* colour_offsets = nullptr;   // per colour group + 1: packs
  // 8 per pack: its elements (input order), -1 after the last.
  const std::int32_t* pack_members = nullptr;
  const std::uint32_t* lane_blocks = nullptr;  // 32 per pack
  // 32 per pack, lane 4 a + p: row a's cluster slot (kClusterNoSlot for p = 3),
  // its node wait (p = 0, else 0), row a's element in the pack
  // (ClusterGatherLayout::row_members) and the pack's element count, a byte each.
  const std::uint32_t* lane_nodes = nullptr;
  const std::int64_t* row_block_offsets = nullptr;  // per cluster + 1
  const std::uint16_t* row_blocks = nullptr;        // ClusterGatherLayout::row_blocks
  double* values = nullptr;                         // CSR values (every one written once)
  double* load = nullptr;                           // load vector (every entry written once)
  double lambda = 0, mu = 0;                        // Lame constants
  double body_force[3] = {0, 0, 0};
  // Of the largest cluster (dynamic shared memory): accumulator blocks, nodes,
  // row blocks.
  int max_blocks = 0, max_nodes = 0, max_row_blocks = 0;
};

}  // namespace ppkit::fem

namespace ppkit::fem::cuda_cluster {

// The kernel's shape: warps per block (the layout's colour groups hold at
// most that many packs, ClusterGatherOptions::colour_capacity, one group's
// packs at once), blocks (clusters) per SM, and whether the accumulator keeps
// each block of two cluster nodes once (ClusterGatherOptions::
// symmetric_blocks: 1,260 blocks, 101 KB, for a 64-node brick instead of
// 1,728, 138 KB). Kept once, two clusters of 10 warps share an SM and one's
// chain of ordered adds (the colour waits, cuda/cluster-gather step 2)
// overlaps the other's, where one cluster of 20 warps leaves the SM partly
// idle while its last colours wait. Both shapes fit the kernel in 96
// registers a thread (640 threads per SM), so nothing spills.
struct ClusterKernelShape {
  int warps = 20;
  int blocks_per_sm = 1;
  bool symmetric_blocks = false;
};

// Two clusters of 10 warps per SM, blocks kept once, where the SM's shared
// memory holds two such accumulators of a 64-node brick (228 KB on an
// H100/H200); else one cluster of 20 warps with every block kept (an A100's
// 164 KB holds one 138 KB accumulator).
ClusterKernelShape cluster_kernel_shape();

// Elements per pack (ClusterGatherOptions::max_pack_elements): elements whose
// cluster nodes are other nodes at other local numbers are formed into one
// product and combine, wait, add and count once (cluster_layout.hpp). With 4,
// a box's 64-node cluster makes 65 packs of its 125 elements, where every
// element alone makes 125 waits and counts; with 8 it makes 64 packs, but its
// 8 corner elements then run one after the other in one warp, a long chain
// that the warps of later colours wait for (docs/fem.md, strategy (i)).
constexpr int kClusterPackElements = 4;

// Doubles per accumulator block in shared memory: its 9 values padded to 10,
// so that each block starts on a 16-byte boundary and its read-modify-write
// takes 5 loads and 5 stores (4 of 16 bytes) instead of 9 and 9; the
// accumulator of a 64-node brick grows from 124 to 138 KB. The layout's block
// numbers are chosen for this stride (renumber_accumulator_blocks,
// cluster_banks.hpp).
constexpr int kClusterBlockStride = 10;

// Persistent blocks take the clusters in order; a.geometry from
// Hex8Kernels::launch_gauss_geometry. On `stream` (a cudaStream_t; null: the
// default stream). Throws ppkit::Error if a cluster needs more shared memory
// than the device gives one block.
void launch_cluster_gather(const Hex8ClusterArrays& a, std::int64_t clusters,
                           const ClusterKernelShape& shape, void* stream = nullptr);

// The compute capability (major * 10 + minor) of the kernel code the current
// device would run, or 0 when this build holds none for it.
int cluster_gather_binary_version();

// Most row blocks (ClusterGatherLayout::cluster_blocks) a cluster of
// max_nodes nodes may have on the current device: with none of them kept once
// its accumulator still fits one block per SM (its opt-in shared memory);
// kept once, a box's clusters fit two blocks per SM where
// cluster_kernel_shape() says so.
int cluster_block_capacity(int max_nodes);

}  // namespace ppkit::fem::cuda_cluster
