#pragma once
// Reader for Gmsh .msh version 4.1 ASCII files with 8-node hexahedra (element
// type 5). Physical groups name node sets: every node of an element that lies
// in an entity carrying physical group "fixed" (say) joins node group
// "fixed" (unnamed groups are called "physical <tag>"). Lower-dimensional
// elements (points, lines, triangles, quadrangles, ...) only contribute to
// node groups; volume elements other than type 5 are an error.
//
// Nodes are numbered 0.. in the order they appear in $Nodes (DOF = 3 * node +
// component); elements keep their $Elements order.
// Errors (ppkit::Error) name the file and line: malformed numbers, truncated
// sections, unknown node tags, unsupported element types or file versions.
#include <istream>
#include <string>

#include "ppkit/fem/hex_mesh.hpp"

namespace ppkit::fem {

HexMesh read_gmsh(std::istream& in, const std::string& source_name);
HexMesh read_gmsh_file(const std::string& path);

}  // namespace ppkit::fem
