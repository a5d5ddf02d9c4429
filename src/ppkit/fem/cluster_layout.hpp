#pragma once
// Kernel inputs of the cluster-gather strategy (i) of fem.assemble (docs/fem.md,
// "Strategy (i): cluster gather on fp64 tensor cores"). Like the node gather
// (h), every CSR value is written exactly once by the owner of its row, with
// no atomics and no zeroing pass; the owner is a cluster of nodes (one thread
// block) instead of one node (one warp), so an element's matrix is formed
// once per cluster it touches instead of once per node (8 times), and it is
// formed whole, 24 x 24, by tensor-core products. With 64-node clusters that
// is 1.94 times per element on the benchmark's boxes (docs/fem.md, "Strategy
// (i)"; 3.15 times in the Morton order of the moved nodes' positions).
//
// Clusters are runs of the nodes' Morton order on the mesh's own lattice
// (lattice_morton_node_order, factored_layout.hpp: a box with moved nodes is
// still cut into 4 x 4 x 4 bricks), cut greedily at max_nodes nodes, max_blocks
// accumulator blocks or max_elements elements (a bound for kernels that hold
// per-element data of a cluster on chip). The accumulator of a cluster holds the 3 x 3 column
// blocks of its nodes' rows in the rows' order, node after node (9 doubles per block), so it is
// written to the CSR values row by row, contiguously. The cluster's elements are all elements with
// a node in the cluster, coloured greedily so that no two of one colour share a node of the cluster
// and no colour has more than colour_capacity elements (the CUDA kernel's warps, one element each).
// An element adds the blocks of a cluster node after the node's elements of
// lower colours (node_waits), so the sums follow the colour order and need no
// atomics.
//
// Symmetric blocks (symmetric_blocks). Element matrices are symmetric, so
// block (t, s) of two cluster nodes is block (s, t) transposed: the
// accumulator keeps it once, in the row of the earlier slot, the lanes of the
// later node's row add nothing (kClusterNoBlock), and the later row reads it
// transposed (row_blocks). A box's 4 x 4 x 4 brick keeps 1,260 blocks instead
// of 1,728, which lets two clusters share an H200 SM (docs/fem.md, "Strategy
// (i)").
//
// Packs (max_pack_elements > 1). An element with only some of its nodes in the
// cluster fills only those rows of the kernel's tensor-core layout (lane 4 a + p:
// rows of its node a); the others add nothing. Elements whose cluster nodes
// are other nodes at other local numbers a can share one product: row a of the
// pack is formed by the element holding a (row_members), the others' rows of a
// masked to zero, so their adds, waits and counts are made once for the pack.
// Packs are filled first fit, the elements with most nodes in the cluster
// first. On a box's 4 x 4 x 4 brick the 125 elements around the cluster make
// 64 packs of at most 8: 27 inner elements alone, the 54 face elements in pairs
// across the brick, the 36 edge elements in fours and the 8 corner elements in
// one; with at most 4 (cuda/cluster-gather), 65, the corners in two fours
// (docs/fem.md, "Strategy (i)"). Colours, colour groups and node waits are then
// the packs'.
//
// Nothing here assumes a structured mesh; only the number of clusters an
// element touches depends on the mesh's locality.
#include <cstdint>
#include <vector>

#include "ppkit/fem/assemble.hpp"
#include "ppkit/fem/gather_layout.hpp"

namespace ppkit::fem {

struct ClusterGatherOptions {
  int max_nodes = 64;         // nodes per cluster, 1..255 (element node slots are 8-bit)
  int max_blocks = 1728;      // accumulator blocks per cluster (72 B each), 27..65,534
  int max_elements = 128;     // elements per cluster, at least every element of one node
  int colour_capacity = 16;   // packs per colour group, 1 or more (CUDA kernel: its warps)
  int max_pack_elements = 1;  // elements per pack, 1..8 (1: every element alone)
  // Blocks of two cluster nodes kept once (row_blocks), in the row of the
  // earlier slot: 1,260 instead of 1,728 blocks for a box's 4 x 4 x 4 brick.
  bool symmetric_blocks = false;
  // Each accumulator block's first add (in the packs' order, which is the
  // order of its row node's counter) marked in lane_blocks
  // (kClusterFirstAdd): it stores its values instead of adding them, so the
  // accumulator needs no zeroing between clusters.
  bool first_add_stores = false;
};

// Unused entry of ClusterGatherLayout::lane_blocks / node_slots: node a of
// the element is not in the cluster (its rows belong to another cluster).
constexpr std::uint16_t kClusterNoBlock = 0xFFFF;
constexpr std::uint8_t kClusterNoSlot = 0xFF;
// ClusterGatherLayout::row_blocks: the row reads the kept block transposed.
constexpr std::uint16_t kClusterTransposed = 0x8000;
// ClusterGatherLayout::lane_blocks (first_add_stores): the lane's add is the
// block's first, a store. Kept blocks are numbered below 0x7FFF, so no
// marked block reads as kClusterNoBlock.
constexpr std::uint16_t kClusterFirstAdd = 0x8000;
// Most colour groups of one cluster.
constexpr int kClusterMaxColours = 256;

struct ClusterGatherLayout {
  std::vector<std::int32_t> node_of_slot;    // Morton order, as NodeGatherLayout's
  std::vector<std::int64_t> cluster_slots;   // cluster c: slots [slots[c], slots[c+1])
  std::vector<std::int32_t> cluster_blocks;  // row blocks of each cluster
  std::vector<std::uint16_t> slot_blocks;    // per slot: the node's first row block
  // Per cluster, its row blocks (the 3 x 3 column blocks of its nodes' rows,
  // node after node, cluster_blocks[c] of them, row_block_offsets[c] on):
  // the accumulator block that keeps it, | kClusterTransposed where the row
  // reads it transposed (symmetric_blocks). Without symmetric_blocks, block o
  // keeps row block o.
  std::vector<std::int64_t> row_block_offsets;
  std::vector<std::uint16_t> row_blocks;
  std::vector<std::int32_t> cluster_stored_blocks;  // accumulator blocks of each cluster
  std::vector<std::int64_t> slot_rows;        // per slot: CSR position of the node's first row
  std::vector<std::int64_t> cluster_colours;  // cluster c: colour groups [colours[c], [c+1])
  std::vector<std::int64_t> colour_offsets;   // group k: packs [offsets[k], [k+1])
  std::vector<std::int64_t> pack_offsets;     // pack k: its elements [offsets[k], [k+1])
  std::vector<std::int32_t> elements;         // per pack element: input-order element
  std::vector<std::uint8_t> pack_colours;     // per pack: its group within the cluster
  // 8 per pack: which of its elements (0 = its first) forms row a, the one
  // whose node a is in the cluster; kClusterNoSlot where none is.
  std::vector<std::uint8_t> row_members;
  // 32 per pack, one per lane 4 a + p of the kernel's tensor-core layout: the
  // accumulator blocks of (a, 2 p) (low 16 bits) and (a, 2 p + 1) (high 16
  // bits) of row a's element, kClusterNoBlock where no element of the pack
  // has its node a in the cluster; | kClusterFirstAdd on each kept block's
  // first add where first_add_stores.
  std::vector<std::uint32_t> lane_blocks;
  std::vector<std::uint8_t> node_slots;  // 8 per pack: slot of row a's node in the cluster
  // 8 per pack: how many of the cluster's packs of lower colours contain row
  // a's node (a node's packs have distinct colours), so the pack may add its
  // blocks once that many have added theirs.
  std::vector<std::uint8_t> node_waits;
  bool first_add_stores = false;  // ClusterGatherOptions::first_add_stores
  int max_blocks = 0;             // accumulator blocks of the largest cluster
  int max_row_blocks = 0;         // row blocks of the largest cluster
  int max_nodes = 0;              // nodes of the largest cluster
  int max_elements = 0;           // elements of the largest cluster
  int max_packs = 0;              // packs of the largest cluster
  int max_colours = 0;            // colour groups of the largest cluster
  std::int64_t num_clusters() const { return std::int64_t(cluster_slots.size()) - 1; }
  // Elements formed, each once per cluster it touches.
  std::int64_t num_cluster_elements() const { return std::int64_t(elements.size()); }
  std::int64_t num_packs() const { return std::int64_t(pack_offsets.size()) - 1; }
};

// Builds the clusters over the node gather layout's node order, incidences
// and column blocks. Throws ppkit::Error for options out of range, a node
// whose column blocks exceed max_blocks or whose elements exceed
// max_elements, or an element sharing cluster nodes with so many others that
// kClusterMaxColours colours do not separate them.
ClusterGatherLayout make_cluster_gather_layout(const AssemblyProblem& problem,
                                               const NodeGatherLayout& nodes,
                                               const ClusterGatherOptions& options = {});

}  // namespace ppkit::fem
