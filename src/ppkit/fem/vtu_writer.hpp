#pragma once
// VTK XML unstructured grid (.vtu, ASCII) for ParaView: hexahedra (VTK cell
// type 12, same node order as Gmsh type 5), point data "displacement",
// cell data "von_mises" (stress at the element centre).
#include <string>
#include <vector>

#include "ppkit/fem/element_reference.hpp"
#include "ppkit/fem/hex_mesh.hpp"

namespace ppkit::fem {

// Von Mises stress at each element's centre for nodal displacements (3 per node).
std::vector<double> element_von_mises(const HexMesh& mesh, const Material& material,
                                      const std::vector<double>& displacement);

void write_vtu(const std::string& path, const HexMesh& mesh,
               const std::vector<double>& displacement, const std::vector<double>& von_mises);

}  // namespace ppkit::fem
