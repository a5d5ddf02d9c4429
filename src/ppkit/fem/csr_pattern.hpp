#pragma once
// The global stiffness matrix's CSR pattern from mesh connectivity, and the
// CSR index array (Kiran et al. 2019, section 3.2): for each element, the
// position in the CSR value array of the first entry of each of its 64
// node-pair 3x3 blocks. DOF numbering: 3 * node + component.
#include <cstdint>
#include <vector>

#include "ppkit/fem/hex_mesh.hpp"

namespace ppkit::fem {

struct CsrPattern {
  std::int64_t num_rows = 0;                 // 3 * nodes
  std::vector<std::int64_t> row_offsets;     // num_rows + 1 (64-bit: nnz can pass 2^31)
  std::vector<std::int32_t> column_indices;  // nnz, ascending within each row
  std::int64_t num_nonzeros() const { return row_offsets.empty() ? 0 : row_offsets.back(); }
};

// Row 3v+i holds columns 3w+j for every node w sharing an element with v
// (including v) and j = 0..2; the three rows of a node share one pattern.
CsrPattern build_csr_pattern(const HexMesh& mesh);

// block_positions[64*e + 8*a + b] = CSR value index of entry (3*node_a, 3*node_b)
// of element e (input order). Entry (3*node_a + i, 3*node_b + j) is at that
// position + i * row_length(node_a) + j with row_length = row_offsets[3v+1] - row_offsets[3v].
std::vector<std::int64_t> build_csr_block_positions(const HexMesh& mesh, const CsrPattern& pattern);

}  // namespace ppkit::fem
