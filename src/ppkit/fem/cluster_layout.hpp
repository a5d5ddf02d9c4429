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
// accumulator blocks or max_elements elements (the kernel holds their geometry
// in shared memory). The accumulator of a cluster holds the 3 x 3 column blocks
// of its nodes' rows in the rows' order, node after node (9 doubles per block),
// so it is written to the CSR values row by row, contiguously. The cluster's
// elements are all elements with a node in the cluster, coloured greedily so
// that no two of one colour share a node of the cluster and no colour has more
// than colour_capacity elements (the copies of their geometry share a barrier).
// An element adds the blocks of a cluster node after the node's elements of
// lower colours (node_waits), so the sums follow the colour order and need no
// atomics.
//
// Cluster groups (cluster_group > 1; cuda/cluster-group-gather on sm_90):
// runs of consecutive clusters, the thread blocks of one thread-block
// cluster, form each element around the group once instead of once per
// cluster it touches: the cluster holding most of its nodes forms it and adds
// the blocks of the group's other clusters' nodes into their accumulators
// (distributed shared memory). Those adds, and every add to a node that
// receives any of them, are atomic and wait for nothing (ordering them across
// thread blocks needs fences at cluster scope, which measured 2x slower);
// the other nodes' adds keep the colour order: the group's colours, no two
// elements of one colour sharing a node of the group. 8 clusters of
// 4 x 4 x 4 nodes form the 9^3 elements around their 8^3 nodes, 1.42 times
// per element on the benchmark's boxes instead of 1.94.
//
// Nothing here assumes a structured mesh; only the number of clusters an
// element touches depends on the mesh's locality.
#include <cstdint>
#include <vector>

#include "ppkit/fem/assemble.hpp"
#include "ppkit/fem/gather_layout.hpp"

namespace ppkit::fem {

struct ClusterGatherOptions {
  int max_nodes = 64;        // nodes per cluster, 1..255 (element node slots are 8-bit)
  int max_blocks = 1728;     // accumulator blocks per cluster (72 B each), 27..65,534
  int max_elements = 128;    // elements per cluster, at least every element of one node
  int colour_capacity = 16;  // elements per colour group, 1 or more (CUDA kernel: 20 warps)
  // Consecutive clusters forming their elements together, 1..kClusterMaxGroup:
  // the thread blocks of one thread-block cluster (sm_90), which add into each
  // other's accumulators through distributed shared memory. Each element
  // around the group is formed once, by the group's cluster holding most of
  // its nodes (ties to the one with fewest elements so far).
  int cluster_group = 1;
};

// Unused entry of ClusterGatherLayout::lane_blocks / node_slots: node a of
// the element is not in the cluster (its rows belong to another cluster).
constexpr std::uint16_t kClusterNoBlock = 0xFFFF;
constexpr std::uint8_t kClusterNoSlot = 0xFF;
// node_waits entry of a node that elements formed by several clusters of its
// group add into: every add to its blocks and load is atomic (distributed
// shared memory), in no fixed order, and none waits for or counts another.
constexpr std::uint8_t kClusterAddAtomically = 0xFF;
// Most colour groups of one cluster.
constexpr int kClusterMaxColours = 256;
// Most clusters of a group (the portable thread-block cluster size of sm_90).
constexpr int kClusterMaxGroup = 8;

struct ClusterGatherLayout {
  std::vector<std::int32_t> node_of_slot;     // Morton order, as NodeGatherLayout's
  std::vector<std::int64_t> cluster_slots;    // cluster c: slots [slots[c], slots[c+1])
  std::vector<std::int32_t> cluster_blocks;   // accumulator blocks of each cluster
  std::vector<std::uint16_t> slot_blocks;     // per slot: the node's first accumulator block
  std::vector<std::int64_t> slot_rows;        // per slot: CSR position of the node's first row
  std::vector<std::int64_t> cluster_colours;  // cluster c: colour groups [colours[c], [c+1])
  std::vector<std::int64_t> colour_offsets;   // group k: cluster elements [offsets[k], [k+1])
  std::vector<std::int32_t> elements;         // per cluster element: input-order element
  std::vector<std::uint8_t> element_colours;  // per cluster element: its group within the cluster
  // 32 per cluster element, one per lane 4 a + p of the kernel's tensor-core
  // layout: the accumulator blocks of (a, 2 p) (low 16 bits) and (a, 2 p + 1)
  // (high 16 bits) in the accumulator of node a's cluster (node_ranks),
  // kClusterNoBlock where node a is outside the cluster group.
  std::vector<std::uint32_t> lane_blocks;
  // 8 per cluster element: slot of node a in its cluster (counted from the
  // cluster's first slot), kClusterNoSlot outside the cluster group.
  std::vector<std::uint8_t> node_slots;
  // 8 per cluster element: how many of the group's elements of lower colours
  // contain node a (a node's elements have distinct colours), so the element
  // may add node a's blocks once that many have added theirs;
  // kClusterAddAtomically for a node of a group's cluster that an element
  // formed by another cluster of the group adds into.
  std::vector<std::uint8_t> node_waits;
  // 8 per cluster element: the rank in the cluster group (0..cluster_group - 1)
  // of node a's cluster, whose accumulator holds its blocks; the forming
  // cluster's own rank where node a is outside the group.
  std::vector<std::uint8_t> node_ranks;
  int cluster_group = 1;  // ClusterGatherOptions::cluster_group
  int max_blocks = 0;     // accumulator blocks of the largest cluster
  int max_nodes = 0;      // nodes of the largest cluster
  int max_elements = 0;   // elements formed by the busiest cluster
  int max_colours = 0;    // colour groups of the cluster with the most
  std::int64_t num_clusters() const { return std::int64_t(cluster_slots.size()) - 1; }
  std::int64_t num_cluster_elements() const { return std::int64_t(elements.size()); }
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
