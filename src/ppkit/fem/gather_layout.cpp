#include "ppkit/fem/gather_layout.hpp"

#include <limits>
#include <string>

#include "ppkit/core/error.hpp"
#include "ppkit/fem/factored_layout.hpp"

namespace ppkit::fem {

NodeGatherLayout make_node_gather_layout(const AssemblyProblem& p) {
  const auto& mesh = p.mesh;
  const std::int64_t nodes = mesh.num_nodes(), elements = mesh.num_elements();
  if (elements > std::int64_t(std::numeric_limits<std::int32_t>::max() / 8))
    throw Error("node-gather: " + std::to_string(elements) +
                    " elements do not fit its 32-bit incidences (8 * element + local node)",
                "at most 268,435,455 elements");
  // Incidences of every node in input order (elements ascending).
  std::vector<std::int64_t> first_incidence(nodes + 1, 0);
  for (const std::int32_t v : mesh.elements) ++first_incidence[v + 1];
  for (std::int64_t v = 0; v < nodes; ++v) first_incidence[v + 1] += first_incidence[v];
  std::vector<std::int32_t> incidences_of(mesh.elements.size());
  {
    std::vector<std::int64_t> next(first_incidence.begin(), first_incidence.end() - 1);
    for (std::int64_t e = 0; e < elements; ++e)
      for (int a = 0; a < 8; ++a)
        incidences_of[next[mesh.elements[8 * e + a]]++] = std::int32_t(8 * e + a);
  }
  // Block positions of the input-order elements, recovered from the coloured copy.
  std::vector<std::int64_t> coloured_slot_of(elements);
  for (std::int64_t k = 0; k < elements; ++k) coloured_slot_of[p.colouring.order[k]] = k;

  NodeGatherLayout L;
  L.element_coordinates.resize(24 * std::size_t(elements));
  for (std::size_t m = 0; m < L.element_coordinates.size(); ++m)
    L.element_coordinates[m] = mesh.coordinates[3 * std::size_t(mesh.elements[m / 3]) + m % 3];
  const std::vector<std::int64_t> order = morton_node_order(mesh);
  L.node_of_slot.assign(order.begin(), order.end());
  L.incidence_offsets.reserve(nodes + 1);
  L.incidence_offsets.push_back(0);
  L.incidences.reserve(incidences_of.size());
  L.incidence_blocks.reserve(8 * incidences_of.size());
  for (const std::int64_t v : order) {
    const std::int64_t row_start = p.pattern.row_offsets[3 * v];
    for (std::int64_t k = first_incidence[v]; k < first_incidence[v + 1]; ++k) {
      const std::int32_t incidence = incidences_of[k];
      L.incidences.push_back(incidence);
      const std::int64_t slot = coloured_slot_of[incidence / 8];
      for (int b = 0; b < 8; ++b) {
        const std::int64_t block =
            (p.coloured.block_positions[64 * slot + 8 * (incidence % 8) + b] - row_start) / 3;
        if (block > std::numeric_limits<std::uint16_t>::max())
          throw Error("node " + std::to_string(v) + " has more than 65,535 neighbour nodes",
                      "meshes whose nodes have at most 65,535 neighbours");
        L.incidence_blocks.push_back(std::uint16_t(block));
      }
    }
    L.incidence_offsets.push_back(std::int64_t(L.incidences.size()));
  }
  return L;
}

}  // namespace ppkit::fem
