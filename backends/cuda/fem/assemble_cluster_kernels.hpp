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

// Warps per block: the layout's colour groups hold at most this many elements
// (ClusterGatherOptions::colour_capacity), one colour's elements at once. 20
// warps leave the kernel 96 registers (16 bytes spilled; 32 in version 11,
// whose records came through shared memory; the rows' slot table in shared
// memory instead of registers): 0.742-0.748 against
// 0.758-0.764 ms with 16 warps at 64^3 and 5.68-5.70 against 5.80-5.82 ms at
// 128^3 on an H200; 24 warps (80 registers, 64 bytes spilled) ran 0.780 ms
// (docs/results/h200.md, eighteenth round).
constexpr int kClusterWarps = 20;

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

// Most accumulator blocks a cluster of max_nodes nodes may have on the
// current device (its opt-in shared memory per block).
int cluster_block_capacity(int max_nodes);

}  // namespace ppkit::fem::cuda_cluster
