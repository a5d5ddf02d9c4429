#include "ppkit/fem/csr_pattern.hpp"

#include <algorithm>

#include "ppkit/core/error.hpp"

namespace ppkit::fem {

CsrPattern build_csr_pattern(const HexMesh& mesh) {
  const std::int64_t num_nodes = mesh.num_nodes(), num_elements = mesh.num_elements();
  // Node -> incident elements, as CSR.
  std::vector<std::int64_t> incident_offsets(num_nodes + 1, 0);
  for (auto v : mesh.elements) ++incident_offsets[v + 1];
  for (std::int64_t v = 0; v < num_nodes; ++v) incident_offsets[v + 1] += incident_offsets[v];
  std::vector<std::int64_t> incident(incident_offsets.back());
  {
    std::vector<std::int64_t> next(incident_offsets.begin(), incident_offsets.end() - 1);
    for (std::int64_t e = 0; e < num_elements; ++e)
      for (int a = 0; a < 8; ++a) incident[next[mesh.elements[8 * e + a]]++] = e;
  }
  CsrPattern p;
  p.num_rows = 3 * num_nodes;
  p.row_offsets.assign(p.num_rows + 1, 0);
  std::vector<std::int32_t> neighbours;
  // Two passes over the nodes: count, then fill.
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      for (std::int64_t r = 0; r < p.num_rows; ++r) p.row_offsets[r + 1] += p.row_offsets[r];
      p.column_indices.resize(p.row_offsets.back());
    }
    for (std::int64_t v = 0; v < num_nodes; ++v) {
      neighbours.clear();
      for (std::int64_t k = incident_offsets[v]; k < incident_offsets[v + 1]; ++k)
        for (int a = 0; a < 8; ++a) neighbours.push_back(mesh.elements[8 * incident[k] + a]);
      std::sort(neighbours.begin(), neighbours.end());
      neighbours.erase(std::unique(neighbours.begin(), neighbours.end()), neighbours.end());
      const std::int64_t row_length = 3 * std::int64_t(neighbours.size());
      for (int i = 0; i < 3; ++i) {
        const std::int64_t row = 3 * v + i;
        if (pass == 0) {
          p.row_offsets[row + 1] = row_length;
          continue;
        }
        std::int64_t pos = p.row_offsets[row];
        for (auto w : neighbours)
          for (int j = 0; j < 3; ++j) p.column_indices[pos++] = 3 * w + j;
      }
    }
  }
  return p;
}

std::vector<std::int64_t> build_csr_block_positions(const HexMesh& mesh,
                                                    const CsrPattern& pattern) {
  std::vector<std::int64_t> positions(64 * mesh.elements.size() / 8);
  for (std::int64_t e = 0; e < mesh.num_elements(); ++e)
    for (int a = 0; a < 8; ++a) {
      const std::int64_t row = 3 * std::int64_t(mesh.elements[8 * e + a]);
      const auto first = pattern.column_indices.begin() + pattern.row_offsets[row];
      const auto last = pattern.column_indices.begin() + pattern.row_offsets[row + 1];
      for (int b = 0; b < 8; ++b) {
        const std::int32_t column = 3 * mesh.elements[8 * e + b];
        const auto it = std::lower_bound(first, last, column);
        require(it != last && *it == column,
                "CSR pattern lacks a node pair of element " + std::to_string(e));
        positions[64 * e + 8 * a + b] = it - pattern.column_indices.begin();
      }
    }
  return positions;
}

}  // namespace ppkit::fem
