#pragma once
// Kernel inputs of the factored strategy (f) of fem.assemble, the variant
// designed for the memory floor worked out in docs/fem.md ("Where the time
// goes"). Against the paper's layout (ColouredElements) it
//  - stores each element's 64 CSR block positions as 16-bit offsets within
//    the block's row (128 B instead of 512 B per element; the row start comes
//    from the CSR row offsets, which all elements of a node share in cache);
//  - orders elements for locality: along a Morton (Z-order) curve of the
//    element centroids for atomic assembly (elements that share CSR entries
//    run close in time, so the L2 merges their updates), or colour by colour
//    for atomic-free assembly;
//  - for the coloured order, marks per element the blocks it is the first
//    to touch (bit 8a + b), so that element stores instead of adding and the
//    CSR values need no zeroing pass.
#include <cstdint>
#include <vector>

#include "ppkit/fem/assemble.hpp"

namespace ppkit::fem {

enum class FactoredOrder {
  morton_atomic,        // one launch, Z-order, atomic adds into zeroed values
  colour_first_writer,  // one launch per colour, first toucher stores, later ones add
};

struct FactoredLayout {
  std::vector<std::int64_t> element_of_slot;  // input-order element processed in each slot
  std::vector<double> coordinates;            // 24 per slot: node a, component i at 3a+i
  std::vector<std::int32_t> nodes;            // 8 per slot
  std::vector<std::uint16_t> column_offsets;  // 64 per slot: [8a+b] = block position - row start
  std::vector<std::uint64_t> first_writer;    // per slot, bit 8a+b (colour order only, else empty)
  std::vector<std::int64_t> launch_offsets;   // launch k covers slots [offsets[k], offsets[k+1])
  std::int64_t num_elements() const { return std::int64_t(nodes.size() / 8); }
};

// Morton (Z-order) rank of every element's centroid on a 2^10 grid per axis
// over the mesh's bounding box: result[k] = input index of the k-th element.
std::vector<std::int64_t> morton_element_order(const HexMesh& mesh);
// The same for the nodes' positions: result[k] = index of the k-th node.
std::vector<std::int64_t> morton_node_order(const HexMesh& mesh);
// Morton order of the nodes on the mesh's own lattice: each coordinate is
// rounded to a multiple of the mesh's typical edge along that axis (the
// median extent along it of the element edges that run mostly along it), so
// a box whose nodes are moved by less than half an edge keeps its lattice's
// order (its runs of 64 nodes are 4 x 4 x 4 bricks), which morton_node_order
// of the moved positions does not; nodes of one cell keep their input order.
std::vector<std::int64_t> lattice_morton_node_order(const HexMesh& mesh);

// Builds the layout; throws ppkit::Error if an offset within a row does not
// fit 16 bits (a node with more than 21,845 neighbours).
FactoredLayout make_factored_layout(const AssemblyProblem& problem, FactoredOrder order);

}  // namespace ppkit::fem
