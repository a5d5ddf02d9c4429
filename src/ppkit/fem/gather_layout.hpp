#pragma once
// Kernel inputs of the node-gather strategy (h) of fem.assemble (docs/fem.md,
// "Strategy (h): node gather"). One warp (a 32-lane team) per mesh node
// computes that node's three CSR rows whole, gathering the contributions of
// every element around the node: assembly by rows, the family Cecka, Lew &
// Darve call assembly by non-zero (IJNME 85 (2011) 640-669, section 4). Every
// CSR value is written exactly once, so there are no atomics, no colours and
// no zeroing pass; the price is that each element's geometry is used by its 8
// nodes' warps (a first kernel stores it per Gauss point, strategy (e)'s).
//
// The warp takes the node's elements (its incidences) 4 at a time; the lanes
// of element g form the blocks K_(node, b) for the element's 8 nodes b and add
// them, one element after the other, into an accumulator of the node's column
// blocks in shared memory; the accumulator is then written to the node's rows
// contiguously. incidence_blocks says where each block goes: the column block
// of node b in the node's rows (CSR columns 3 w .. 3 w + 2 of node w sit at
// offsets 3 s .. 3 s + 2 of every row of the node, s the block).
#include <cstdint>
#include <vector>

#include "ppkit/fem/assemble.hpp"
#include "ppkit/fem/assembly_device_arrays.hpp"  // kGatherWindowBlocks

namespace ppkit::fem {

struct NodeGatherLayout {
  std::vector<double> element_coordinates;      // 24 per element, input order (Kokkos kernel 1)
  std::vector<std::int32_t> node_of_slot;       // node of each warp slot (Morton order of nodes)
  std::vector<std::int64_t> incidence_offsets;  // slot k: incidences [offsets[k], offsets[k+1])
  std::vector<std::int32_t> incidences;         // 8 * element + the node's local index in it
  std::vector<std::uint16_t> incidence_blocks;  // 8 per incidence: column block of local node b
  std::int64_t num_nodes() const { return std::int64_t(node_of_slot.size()); }
};

// Builds the layout from the problem's mesh, CSR pattern and block positions;
// throws ppkit::Error if a node has more than 65,535 column blocks or the mesh
// more than 2^31 / 8 elements.
NodeGatherLayout make_node_gather_layout(const AssemblyProblem& problem);

}  // namespace ppkit::fem
