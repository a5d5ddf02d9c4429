#include "ppkit/fem/factored_layout.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "ppkit/core/error.hpp"

namespace ppkit::fem {
namespace {

// Interleaves the low 21 bits of v with two zero bits between each.
std::uint64_t spread_bits(std::uint64_t v) {
  v &= 0x1fffffull;
  v = (v | (v << 32)) & 0x1f00000000ffffull;
  v = (v | (v << 16)) & 0x1f0000ff0000ffull;
  v = (v | (v << 8)) & 0x100f00f00f00f00full;
  v = (v | (v << 4)) & 0x10c30c30c30c30c3ull;
  v = (v | (v << 2)) & 0x1249249249249249ull;
  return v;
}

// The indices 0 .. code.size() - 1 sorted by code (ties in index order).
std::vector<std::int64_t> order_by_code(const std::vector<std::uint64_t>& code) {
  std::vector<std::int64_t> order(code.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::int64_t a, std::int64_t b) { return code[a] < code[b]; });
  return order;
}

// Morton rank of every point (3 coordinates each) on a 2^10 grid per axis
// over the mesh's bounding box: result[k] = index of the k-th point.
std::vector<std::int64_t> morton_order_of_points(const HexMesh& mesh,
                                                 const std::vector<double>& points) {
  const auto [lo, hi] = mesh_bounds(mesh);
  const std::int64_t count = std::int64_t(points.size() / 3);
  std::vector<std::uint64_t> code(count);
  for (std::int64_t p = 0; p < count; ++p) {
    std::uint64_t c = 0;
    for (int i = 0; i < 3; ++i) {
      const double extent = hi[i] > lo[i] ? hi[i] - lo[i] : 1.0;
      const auto cell =
          std::uint64_t(std::clamp((points[3 * p + i] - lo[i]) / extent * 1024.0, 0.0, 1023.0));
      c |= spread_bits(cell) << i;
    }
    code[p] = c;
  }
  return order_by_code(code);
}

}  // namespace

std::vector<std::int64_t> morton_element_order(const HexMesh& mesh) {
  const std::int64_t elements = mesh.num_elements();
  std::vector<double> centroids(3 * elements, 0.0);
  for (std::int64_t e = 0; e < elements; ++e)
    for (int i = 0; i < 3; ++i) {
      double sum = 0;
      for (int a = 0; a < 8; ++a)
        sum += mesh.coordinates[3 * std::int64_t(mesh.elements[8 * e + a]) + i];
      centroids[3 * e + i] = sum / 8;
    }
  return morton_order_of_points(mesh, centroids);
}

std::vector<std::int64_t> morton_node_order(const HexMesh& mesh) {
  return morton_order_of_points(mesh, mesh.coordinates);
}

std::vector<std::int64_t> lattice_morton_node_order(const HexMesh& mesh) {
  // hex8 edges (Gmsh node order): the bottom and top faces' rings, then the verticals.
  constexpr int kEdges[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                 {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  std::vector<double> extents[3];
  for (std::int64_t e = 0; e < mesh.num_elements(); ++e)
    for (const auto& edge : kEdges) {
      const double* x = &mesh.coordinates[3 * std::int64_t(mesh.elements[8 * e + edge[0]])];
      const double* y = &mesh.coordinates[3 * std::int64_t(mesh.elements[8 * e + edge[1]])];
      int axis = 0;
      for (int i = 1; i < 3; ++i)
        if (std::abs(y[i] - x[i]) > std::abs(y[axis] - x[axis])) axis = i;
      extents[axis].push_back(std::abs(y[axis] - x[axis]));
    }
  const std::array<double, 3> lo = mesh_bounds(mesh).low;
  double spacing[3];
  for (int i = 0; i < 3; ++i) {
    auto& list = extents[i];
    spacing[i] = 0;
    if (!list.empty()) {
      std::nth_element(list.begin(), list.begin() + list.size() / 2, list.end());
      spacing[i] = list[list.size() / 2];
    }
  }
  // An axis no edge runs along (a mesh one element thick along it, or none):
  // the largest of the others, or 1.
  const double fallback = std::max({spacing[0], spacing[1], spacing[2], 0.0});
  for (double& h : spacing)
    if (!(h > 0)) h = fallback > 0 ? fallback : 1.0;
  std::vector<std::uint64_t> code(mesh.num_nodes());
  for (std::int64_t v = 0; v < mesh.num_nodes(); ++v) {
    std::uint64_t c = 0;
    for (int i = 0; i < 3; ++i) {
      const double cell = std::round((mesh.coordinates[3 * v + i] - lo[i]) / spacing[i]);
      c |= spread_bits(std::uint64_t(std::clamp(cell, 0.0, double((1 << 21) - 1)))) << i;
    }
    code[v] = c;
  }
  return order_by_code(code);
}

FactoredLayout make_factored_layout(const AssemblyProblem& p, FactoredOrder order) {
  const auto& mesh = p.mesh;
  const std::int64_t elements = mesh.num_elements();
  FactoredLayout L;
  if (order == FactoredOrder::morton_atomic) {
    L.element_of_slot = morton_element_order(mesh);
    L.launch_offsets = {0, elements};
  } else {
    L.element_of_slot = p.colouring.order;
    L.launch_offsets = p.colouring.colour_offsets;
  }
  // Block positions of the input-order elements, recovered from the coloured copy.
  std::vector<std::int64_t> coloured_slot_of(elements);
  for (std::int64_t k = 0; k < elements; ++k) coloured_slot_of[p.colouring.order[k]] = k;
  L.coordinates.resize(24 * elements);
  L.nodes.resize(8 * elements);
  L.column_offsets.resize(64 * elements);
  const bool first_writer = order == FactoredOrder::colour_first_writer;
  if (first_writer) L.first_writer.assign(elements, 0);
  // touched[position] marks CSR block starts an earlier slot already wrote.
  std::vector<bool> touched(first_writer ? std::size_t(p.pattern.num_nonzeros()) : 0, false);
  for (std::int64_t k = 0; k < elements; ++k) {
    const std::int64_t e = L.element_of_slot[k], c = coloured_slot_of[e];
    for (int a = 0; a < 8; ++a) {
      const std::int32_t v = mesh.elements[8 * e + a];
      L.nodes[8 * k + a] = v;
      for (int i = 0; i < 3; ++i)
        L.coordinates[24 * k + 3 * a + i] = mesh.coordinates[3 * std::int64_t(v) + i];
      const std::int64_t row_start = p.pattern.row_offsets[3 * std::int64_t(v)];
      for (int b = 0; b < 8; ++b) {
        const std::int64_t position = p.coloured.block_positions[64 * c + 8 * a + b];
        const std::int64_t offset = position - row_start;
        if (offset < 0 || offset > std::numeric_limits<std::uint16_t>::max() - 2)
          throw Error("CSR offset " + std::to_string(offset) + " of element " + std::to_string(e) +
                          " does not fit 16 bits",
                      "meshes whose nodes have at most 21,845 neighbours");
        L.column_offsets[64 * k + 8 * a + b] = std::uint16_t(offset);
        if (first_writer && !touched[position]) {
          touched[position] = true;
          L.first_writer[k] |= std::uint64_t(1) << (8 * a + b);
        }
      }
    }
  }
  return L;
}

}  // namespace ppkit::fem
