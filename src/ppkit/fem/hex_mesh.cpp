#include "ppkit/fem/hex_mesh.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>

#include "ppkit/core/error.hpp"
#include "ppkit/fem/hex8_shape.hpp"

namespace ppkit::fem {

HexMesh make_box_mesh(const BoxMeshSpec& spec) {
  const int nx = spec.elements[0], ny = spec.elements[1], nz = spec.elements[2];
  require(nx >= 1 && ny >= 1 && nz >= 1,
          "box mesh needs at least one element per direction, got " + std::to_string(nx) + "," +
              std::to_string(ny) + "," + std::to_string(nz),
          "NX,NY,NZ >= 1");
  const std::int64_t nodes = std::int64_t(nx + 1) * (ny + 1) * (nz + 1);
  require(nodes < (std::int64_t(1) << 31) / 3,
          "box mesh too large: " + std::to_string(nodes) + " nodes",
          "fewer than 715 million nodes (DOF indices are 32-bit)");
  for (double l : spec.size) require(l > 0, "box size must be positive", "LX,LY,LZ > 0");
  require(spec.perturbation >= 0 && spec.perturbation <= 0.15,
          "perturbation " + std::to_string(spec.perturbation) + " is out of range",
          "0 <= F <= 0.15 (keeps every element valid)");

  HexMesh mesh;
  const double h[3] = {spec.size[0] / nx, spec.size[1] / ny, spec.size[2] / nz};
  const int n[3] = {nx, ny, nz};
  mesh.coordinates.resize(3 * nodes);
  std::mt19937_64 rng(spec.seed);
  std::uniform_real_distribution<double> uniform(-spec.perturbation, spec.perturbation);
  auto node = [&](int i, int j, int k) {
    return std::int32_t(i + (nx + 1) * (j + (ny + 1) * std::int64_t(k)));
  };
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i) {
        const int ijk[3] = {i, j, k};
        double* x = &mesh.coordinates[3 * std::int64_t(node(i, j, k))];
        for (int d = 0; d < 3; ++d) {
          const double shift = uniform(rng);  // drawn for every node: the seed fixes the mesh
          const bool on_boundary = ijk[d] == 0 || ijk[d] == n[d];
          x[d] = h[d] * (ijk[d] + (on_boundary ? 0.0 : shift));
        }
      }
  mesh.elements.reserve(8 * std::int64_t(nx) * ny * nz);
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i)
        for (int a = 0; a < 8; ++a)
          mesh.elements.push_back(node(i + (kNodeSigns[a][0] > 0), j + (kNodeSigns[a][1] > 0),
                                       k + (kNodeSigns[a][2] > 0)));
  auto& fixed = mesh.node_groups["fixed"];
  auto& loaded = mesh.node_groups["loaded"];
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j) {
      fixed.push_back(node(0, j, k));
      loaded.push_back(node(nx, j, k));
    }
  std::sort(fixed.begin(), fixed.end());
  std::sort(loaded.begin(), loaded.end());
  return mesh;
}

namespace {

// The 24 rotations of the cube [-1, 1]^3 as permutations of the hex8 nodes:
// rotation R takes node a to node perm[a], the node at R (kNodeSigns[a]).
// Generated from quarter turns about the zeta and xi axes.
std::vector<std::array<int, 8>> cube_rotations() {
  auto node_at = [](const std::array<int, 3>& s) {
    for (int b = 0; b < 8; ++b)
      if (kNodeSigns[b][0] == s[0] && kNodeSigns[b][1] == s[1] && kNodeSigns[b][2] == s[2])
        return b;
    return -1;
  };
  auto turn = [&](int axis) {  // quarter turn about `axis`
    std::array<int, 8> perm{};
    for (int a = 0; a < 8; ++a) {
      std::array<int, 3> s = {kNodeSigns[a][0], kNodeSigns[a][1], kNodeSigns[a][2]};
      const int u = (axis + 1) % 3, w = (axis + 2) % 3;
      const int su = s[u];
      s[u] = -s[w];
      s[w] = su;
      perm[a] = node_at(s);
    }
    return perm;
  };
  const std::array<std::array<int, 8>, 2> generators = {turn(2), turn(0)};
  std::array<int, 8> identity{};
  std::iota(identity.begin(), identity.end(), 0);
  std::vector<std::array<int, 8>> group = {identity};
  for (std::size_t k = 0; k < group.size(); ++k)
    for (const auto& g : generators) {
      std::array<int, 8> composed{};
      for (int a = 0; a < 8; ++a) composed[a] = g[group[k][a]];
      if (std::find(group.begin(), group.end(), composed) == group.end()) group.push_back(composed);
    }
  return group;  // 24 permutations
}

}  // namespace

HexMesh make_scrambled_box_mesh(const BoxMeshSpec& spec) {
  const HexMesh box = make_box_mesh(spec);
  const std::int64_t nodes = box.num_nodes(), elements = box.num_elements();
  std::mt19937_64 rng(spec.seed ^ 0x5eedf00dull);

  // Smooth map of the box: u -> (e^(g u) - 1) / (e^g - 1) per axis on the
  // normalised coordinate u in [0, 1], then a twist about the vertical axis
  // through the box's centre by 0.25 (w - 1/2) rad at height fraction w.
  constexpr double grading[3] = {0.8, 0.5, -0.6}, twist = 0.25;
  HexMesh mesh;
  std::vector<std::int32_t> new_node(nodes);
  std::iota(new_node.begin(), new_node.end(), 0);
  std::shuffle(new_node.begin(), new_node.end(), rng);
  mesh.coordinates.resize(box.coordinates.size());
  for (std::int64_t v = 0; v < nodes; ++v) {
    double x[3];
    for (int i = 0; i < 3; ++i) {
      const double u = box.coordinates[3 * v + i] / spec.size[i];
      x[i] = spec.size[i] * std::expm1(grading[i] * u) / std::expm1(grading[i]);
    }
    const double angle = twist * (x[2] / spec.size[2] - 0.5);
    const double dx = x[0] - 0.5 * spec.size[0], dy = x[1] - 0.5 * spec.size[1];
    double* out = &mesh.coordinates[3 * std::int64_t(new_node[v])];
    out[0] = 0.5 * spec.size[0] + std::cos(angle) * dx - std::sin(angle) * dy;
    out[1] = 0.5 * spec.size[1] + std::sin(angle) * dx + std::cos(angle) * dy;
    out[2] = x[2];
  }

  std::vector<std::int64_t> old_element(elements);
  std::iota(old_element.begin(), old_element.end(), 0);
  std::shuffle(old_element.begin(), old_element.end(), rng);
  const auto rotations = cube_rotations();
  std::uniform_int_distribution<int> pick(0, int(rotations.size()) - 1);
  mesh.elements.resize(box.elements.size());
  for (std::int64_t e = 0; e < elements; ++e) {
    const auto& perm = rotations[pick(rng)];
    for (int a = 0; a < 8; ++a)
      mesh.elements[8 * e + a] = new_node[box.elements[8 * old_element[e] + perm[a]]];
  }
  for (const auto& [name, group] : box.node_groups) {
    auto& renumbered = mesh.node_groups[name];
    for (const std::int32_t v : group) renumbered.push_back(new_node[v]);
    std::sort(renumbered.begin(), renumbered.end());
  }
  return mesh;
}

MeshBounds mesh_bounds(const HexMesh& mesh) {
  MeshBounds b;
  b.low.fill(std::numeric_limits<double>::infinity());
  b.high.fill(-std::numeric_limits<double>::infinity());
  for (std::int64_t v = 0; v < mesh.num_nodes(); ++v)
    for (int i = 0; i < 3; ++i) {
      b.low[i] = std::min(b.low[i], mesh.coordinates[3 * v + i]);
      b.high[i] = std::max(b.high[i], mesh.coordinates[3 * v + i]);
    }
  return b;
}

double jacobian_determinant(const HexMesh& mesh, std::int64_t element,
                            const std::array<double, 3>& xi) {
  double J[3][3] = {};  // J[k][i] = dx_i / dxi_k
  for (int a = 0; a < 8; ++a) {
    const double* x = &mesh.coordinates[3 * std::int64_t(mesh.elements[8 * element + a])];
    for (int k = 0; k < 3; ++k) {
      const double dN = shape_natural_derivative(a, k, xi);
      for (int i = 0; i < 3; ++i) J[k][i] += dN * x[i];
    }
  }
  return J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
         J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
         J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
}

std::string element_label(const HexMesh& mesh, std::int64_t element) {
  std::string label = "element " + std::to_string(element);
  if (element < std::int64_t(mesh.element_tags.size()) &&
      element < std::int64_t(mesh.element_lines.size()))
    label += " (Gmsh element tag " + std::to_string(mesh.element_tags[element]) + ", " +
             mesh.source + " line " + std::to_string(mesh.element_lines[element]) + ")";
  return label;
}

void validate_mesh(const HexMesh& mesh) {
  require(mesh.coordinates.size() % 3 == 0, "mesh coordinates are not 3 per node");
  require(mesh.elements.size() % 8 == 0, "mesh connectivity is not 8 nodes per element");
  require(mesh.num_elements() > 0, "mesh has no hexahedra", "at least one 8-node hexahedron");
  const std::int64_t nodes = mesh.num_nodes();
  for (std::int64_t e = 0; e < mesh.num_elements(); ++e) {
    for (int a = 0; a < 8; ++a) {
      const std::int64_t v = mesh.elements[8 * e + a];
      if (v < 0 || v >= nodes)
        throw Error(element_label(mesh, e) + " refers to node " + std::to_string(v) +
                        ", which does not exist",
                    "node indices 0.." + std::to_string(nodes - 1));
      for (int b = 0; b < a; ++b)
        if (mesh.elements[8 * e + b] == v)
          throw Error(element_label(mesh, e) + " uses node " + std::to_string(v) + " twice",
                      "8 distinct nodes per hexahedron");
    }
    for (int p = 0; p < 16; ++p) {
      const bool corner = p < 8;
      std::array<double, 3> xi =
          corner ? std::array<double, 3>{double(kNodeSigns[p][0]), double(kNodeSigns[p][1]),
                                         double(kNodeSigns[p][2])}
                 : gauss_point(p - 8);
      const double det = jacobian_determinant(mesh, e, xi);
      if (!(det > 0)) {
        std::ostringstream what;
        what << element_label(mesh, e) << " has det J = " << det << " <= 0 at "
             << (corner ? "corner " : "Gauss point ") << (corner ? p : p - 8) << " (nodes";
        for (int a = 0; a < 8; ++a) what << ' ' << mesh.elements[8 * e + a];
        what << "): inverted or degenerate";
        throw Error(what.str(),
                    "det J > 0: nodes in Gmsh hexahedron order (bottom face counter-clockwise "
                    "seen from the top face, then the top face)");
      }
    }
  }
}

}  // namespace ppkit::fem
