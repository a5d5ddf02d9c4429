#pragma once
// Greedy element colouring (Kiran et al. 2019, section 3.3): no two elements
// of one colour share a node, so one kernel launch per colour can add element
// matrices into the global matrix without atomics.
#include <cstdint>
#include <vector>

#include "ppkit/fem/hex_mesh.hpp"

namespace ppkit::fem {

struct ElementColouring {
  std::vector<std::int32_t> colour;  // colour of each element (input order)
  // Elements reordered colour by colour: order[colour_offsets[c] .. colour_offsets[c+1])
  // are the input-order indices of the elements of colour c, ascending.
  std::vector<std::int64_t> order;
  std::vector<std::int64_t> colour_offsets;  // num_colours + 1
  int num_colours() const { return int(colour_offsets.size()) - 1; }
};

// First-fit greedy colouring in element order (8 colours on a structured box).
// Throws ppkit::Error if more than 64 colours would be needed.
ElementColouring colour_elements(const HexMesh& mesh);

// True if no two elements of one colour share a node and `order` is a
// permutation consistent with `colour` and `colour_offsets`.
bool colouring_is_valid(const HexMesh& mesh, const ElementColouring& colouring);

}  // namespace ppkit::fem
