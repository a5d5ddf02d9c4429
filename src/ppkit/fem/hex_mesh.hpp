#pragma once
// Hexahedral meshes: structured boxes (optionally with seeded random node
// perturbation) and meshes read from Gmsh files; node groups name the fixed
// and loaded boundaries.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ppkit::fem {

struct HexMesh {
  std::vector<double> coordinates;     // 3 per node: x, y, z
  std::vector<std::int32_t> elements;  // 8 node indices per element (Gmsh hexahedron order)
  // Named node sets (0-based node indices, sorted, unique): "fixed", "loaded", ...
  std::map<std::string, std::vector<std::int32_t>> node_groups;
  // Where each element came from, for error messages (empty for generated
  // meshes): the element's tag and line in its source file.
  std::string source;
  std::vector<std::int64_t> element_tags, element_lines;
  std::int64_t num_nodes() const { return std::int64_t(coordinates.size() / 3); }
  std::int64_t num_elements() const { return std::int64_t(elements.size() / 8); }
  std::int64_t num_dofs() const { return 3 * num_nodes(); }
};

struct BoxMeshSpec {
  std::array<int, 3> elements{4, 4, 4};       // NX, NY, NZ
  std::array<double, 3> size{1.0, 1.0, 1.0};  // LX, LY, LZ; the box is [0,LX]x[0,LY]x[0,LZ]
  // Random node displacement as a fraction of the element edge, uniform in
  // [-perturbation, +perturbation] per coordinate; boundary nodes move only
  // within their boundary face. Valid: 0 <= perturbation <= 0.15: below 1/6
  // every Jacobian (scaled by the edge lengths) is strictly diagonally
  // dominant with a positive diagonal, so det J > 0 everywhere (at 0.25
  // about 4% of 6^3 boxes get an inverted corner).
  double perturbation = 0.0;
  unsigned seed = 1;
};

// Node (i,j,k) has index i + (NX+1)*(j + (NY+1)*k); element (i,j,k) has index
// i + NX*(j + NY*k). Node groups: "fixed" (x = 0) and "loaded" (x = LX).
HexMesh make_box_mesh(const BoxMeshSpec& spec);

// A mesh with a box's topology and none of its lattice, for measuring the
// strategies on general meshes (`ppkit compare`'s "scrambled box" cases,
// docs/fem.md): make_box_mesh(spec), then
//  - its coordinates mapped smoothly: each axis graded (element sizes change
//    by a factor e^0.8, e^0.5 and e^0.6 across the box along x, y, z) and the
//    box twisted about its vertical axis by 0.25 rad from bottom to top, so
//    the nodes lie on no lattice of equal cells and the edges are not
//    aligned with the axes;
//  - its nodes and its elements renumbered by seeded random permutations;
//  - each element's local node order turned by a seeded random one of the 24
//    rotations of the cube (a proper rotation of the natural coordinates, so
//    det J keeps its sign at every corner and Gauss point).
// Node groups are the box's, renumbered. The same spec gives the same mesh.
HexMesh make_scrambled_box_mesh(const BoxMeshSpec& spec);

// "element 7" or "element 7 (Gmsh element tag 12, mesh.msh line 40)".
std::string element_label(const HexMesh& mesh, std::int64_t element);

// The smallest and largest coordinates of the mesh's nodes along x, y, z
// (infinities for a mesh without nodes).
struct MeshBounds {
  std::array<double, 3> low, high;
};
MeshBounds mesh_bounds(const HexMesh& mesh);

// Determinant of the Jacobian of element e at natural point xi.
double jacobian_determinant(const HexMesh& mesh, std::int64_t element,
                            const std::array<double, 3>& xi);

// Throws ppkit::Error naming the first bad element: a node index out of range,
// a repeated node, or det J <= 0 at a corner or a Gauss point (inverted or
// degenerate element, or nodes not in Gmsh hexahedron order).
void validate_mesh(const HexMesh& mesh);

}  // namespace ppkit::fem
