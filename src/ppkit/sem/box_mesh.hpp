#pragma once
// A box of EX x EY x EZ hexahedral spectral elements of order N on [0,1]^3
// (before deformation), its global node numbering and its boundary.
//
// Local node n of element e is (i, j, k) with n = i + Nq (j + Nq k); element
// e = ex + EX (ey + EY ez). Element vertices are stored as
// vertices[(e * 8 + v) * 3 + d] with v = a + 2 b + 4 c for the corner
// (r, s, t) = (+-1, +-1, +-1), a/b/c = 0 at -1 and 1 at +1.
#include <cstdint>
#include <string>
#include <vector>

namespace ppkit::sem {

enum class Deformation {
  none,       // a parallelepiped: the box sheared by a constant map (constant Jacobian)
  trilinear,  // every vertex moved at random: trilinear elements of varying shape
  curved,     // a smooth non-trilinear map of the box: every element curved
  mixed,      // trilinear perturbation plus a curved first half (in x): both kinds
};
Deformation parse_deformation(const std::string& s);  // "none", "trilinear", "curved", "mixed"
const char* to_string(Deformation d);

struct BoxMeshSpec {
  int order = 3;
  int ex = 2, ey = 2, ez = 2;
  Deformation deformation = Deformation::trilinear;
  // Vertex perturbation as a fraction of the element size (trilinear, mixed);
  // values near 0.5 and above can invert elements, which make_box_mesh rejects.
  double perturbation = 0.15;
  // Amplitude of the curved displacement (curved, mixed), in box units.
  double curvature = 0.06;
  unsigned seed = 1;
};

struct BoxMesh {
  int order = 0;
  int ex = 0, ey = 0, ez = 0;
  Deformation deformation = Deformation::none;
  std::vector<double> vertices;          // [E][8][3]
  std::vector<std::uint8_t> trilinear;   // [E]: 1 if the element is exactly trilinear
  std::vector<double> coordinates;       // [3][E * Np]: x, y, z of every local node
  std::vector<std::int64_t> global_ids;  // [E * Np]: global node of every local node
  std::int64_t global_count = 0;         // number of global nodes
  std::vector<std::uint8_t> boundary;    // [E * Np]: 1 on the domain boundary

  int nq() const { return order + 1; }
  int np() const { return nq() * nq() * nq(); }
  std::int64_t elements() const { return std::int64_t(ex) * ey * ez; }
  std::int64_t local_count() const { return elements() * np(); }
};

// Builds the mesh; throws ppkit::Error for an order outside 1..15, zero or
// negative element counts, an unknown deformation or an inverted element.
BoxMesh make_box_mesh(const BoxMeshSpec& spec);

// Trilinear map of an element's 8 vertices at reference point (r, s, t).
void trilinear_point(const double* element_vertices, double r, double s, double t, double x[3]);

}  // namespace ppkit::sem
