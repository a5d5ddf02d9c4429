#pragma once
// The paper's cantilever (Kiran et al. 2019, section 5): a beam of equal-sided
// bricks along x, fixed at x = 0 (all DOFs of the "fixed" nodes), a total
// load P in -z spread over the free end x = L as a uniform traction
// (consistent nodal forces), solved with Jacobi-preconditioned CG. The tip
// deflection is compared with Timoshenko beam theory:
//   delta = P L^3 / (3 E I) + P L / (kappa G A),  I = b h^3 / 12, A = b h,
//   kappa = 10 (1 + nu) / (12 + 11 nu) (Cowper's rectangular section).
// The beam is a structured box, or any hexahedral Gmsh mesh whose physical
// groups "fixed" and "loaded" name the held nodes and the loaded end surface;
// the theory then applies when the mesh fills its bounding box and is held at
// its x-minimum face and loaded at its x-maximum face.
#include <array>
#include <string>
#include <vector>

#include "ppkit/fem/assemble.hpp"
#include "ppkit/fem/cg_solver.hpp"

namespace ppkit::fem {

struct CantileverSpec {
  std::array<int, 3> elements{40, 4, 4};       // along x (length), y (width b), z (height h)
  std::array<double, 3> size{10.0, 1.0, 1.0};  // L, b, h
  // A Gmsh .msh 4.1 file to use instead of the box of `elements` and `size`,
  // with node groups "fixed" and "loaded" (gmsh_reader.hpp).
  std::string mesh_file;
  double youngs_modulus = 2.0e11;  // Pa (steel)
  double poisson_ratio = 0.3;
  double load = 1.0e5;           // N, total, in -z over the loaded end (x = L on the box)
  std::string variant = "auto";  // fem.assemble variant
  CgOptions cg;
};

struct CantileverResult {
  AssemblyProblem problem;
  std::vector<double> displacement;     // 3 per node
  double tip_deflection = 0;            // mean -u_z over the "loaded" nodes
  std::array<double, 3> beam{0, 0, 0};  // L, b, h: the box's size or the mesh's bounding box
  // Timoshenko for `beam`, and |tip - theory| / theory; NaN for a mesh that is
  // not such a beam (see above).
  double theory = 0;
  double relative_error = 0;
  CgResult cg;
  std::string variant;  // the assembly variant used
  double assembly_seconds = 0, solve_seconds = 0;
};

double timoshenko_tip_deflection(const CantileverSpec& spec);  // for spec.size

// Consistent nodal forces (3 per node) of a uniform traction -P / A e_z over
// the boundary faces of `mesh` whose 4 nodes all lie in node group `group`, A
// their total area: f_a = -P / A integral N_a dA over each bilinear face (2 x 2
// Gauss points). Throws ppkit::Error naming the group if the mesh has no such
// group or the group covers no boundary face.
std::vector<double> end_face_load(const HexMesh& mesh, const std::string& group, double total_load);

CantileverResult solve_cantilever(const CantileverSpec& spec);

}  // namespace ppkit::fem
