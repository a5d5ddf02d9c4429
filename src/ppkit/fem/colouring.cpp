#include "ppkit/fem/colouring.hpp"

#include <string>

#include "ppkit/core/error.hpp"

namespace ppkit::fem {

ElementColouring colour_elements(const HexMesh& mesh) {
  const std::int64_t num_elements = mesh.num_elements();
  // Bit c of used_at_node[v] is set when an element of colour c touches node v.
  std::vector<std::uint64_t> used_at_node(mesh.num_nodes(), 0);
  ElementColouring result;
  result.colour.resize(num_elements);
  int num_colours = 0;
  for (std::int64_t e = 0; e < num_elements; ++e) {
    std::uint64_t forbidden = 0;
    for (int a = 0; a < 8; ++a) forbidden |= used_at_node[mesh.elements[8 * e + a]];
    int c = 0;
    while (c < 64 && (forbidden >> c & 1u)) ++c;
    if (c == 64)
      throw Error("element " + std::to_string(e) + " needs a 65th colour",
                  "meshes whose elements can be coloured greedily with at most 64 colours");
    result.colour[e] = c;
    num_colours = std::max(num_colours, c + 1);
    for (int a = 0; a < 8; ++a) used_at_node[mesh.elements[8 * e + a]] |= std::uint64_t(1) << c;
  }
  // Counting sort by colour, stable, so elements keep their input order within a colour.
  result.colour_offsets.assign(num_colours + 1, 0);
  for (auto c : result.colour) ++result.colour_offsets[c + 1];
  for (int c = 0; c < num_colours; ++c) result.colour_offsets[c + 1] += result.colour_offsets[c];
  std::vector<std::int64_t> next(result.colour_offsets.begin(), result.colour_offsets.end() - 1);
  result.order.resize(num_elements);
  for (std::int64_t e = 0; e < num_elements; ++e) result.order[next[result.colour[e]]++] = e;
  return result;
}

bool colouring_is_valid(const HexMesh& mesh, const ElementColouring& colouring) {
  const std::int64_t num_elements = mesh.num_elements();
  if (std::int64_t(colouring.order.size()) != num_elements) return false;
  if (colouring.colour_offsets.empty() || colouring.colour_offsets.back() != num_elements)
    return false;
  std::vector<char> seen(num_elements, 0);
  std::vector<std::int64_t> last_colour_at_node(mesh.num_nodes(), -1);
  for (int c = 0; c < colouring.num_colours(); ++c)
    for (std::int64_t k = colouring.colour_offsets[c]; k < colouring.colour_offsets[c + 1]; ++k) {
      const std::int64_t e = colouring.order[k];
      if (e < 0 || e >= num_elements || seen[e] || colouring.colour[e] != c) return false;
      seen[e] = 1;
      for (int a = 0; a < 8; ++a) {
        auto& last = last_colour_at_node[mesh.elements[8 * e + a]];
        if (last == c) return false;  // another element of colour c touched this node
        last = c;
      }
    }
  return true;
}

}  // namespace ppkit::fem
