#include "ppkit/sem/box_mesh.hpp"

#include <cmath>
#include <random>

#include "ppkit/core/error.hpp"
#include "ppkit/sem/geometry.hpp"
#include "ppkit/sem/gll.hpp"

namespace ppkit::sem {

Deformation parse_deformation(const std::string& s) {
  if (s == "none") return Deformation::none;
  if (s == "trilinear") return Deformation::trilinear;
  if (s == "curved") return Deformation::curved;
  if (s == "mixed") return Deformation::mixed;
  throw Error("unknown deformation '" + s + "'", "none, trilinear, curved, mixed");
}

const char* to_string(Deformation d) {
  switch (d) {
    case Deformation::none:
      return "none";
    case Deformation::trilinear:
      return "trilinear";
    case Deformation::curved:
      return "curved";
    case Deformation::mixed:
      return "mixed";
  }
  return "?";
}

void trilinear_point(const double* v, double r, double s, double t, double x[3]) {
  // x = 1/8 sum_{abc} (1 +- r)(1 +- s)(1 +- t) V_abc
  x[0] = x[1] = x[2] = 0.0;
  for (int c = 0; c < 2; ++c)
    for (int b = 0; b < 2; ++b)
      for (int a = 0; a < 2; ++a) {
        const double shape =
            0.125 * (a ? 1 + r : 1 - r) * (b ? 1 + s : 1 - s) * (c ? 1 + t : 1 - t);
        const double* p = v + 3 * (a + 2 * b + 4 * c);
        for (int d = 0; d < 3; ++d) x[d] += shape * p[d];
      }
}

namespace {
constexpr double pi = 3.14159265358979323846;

// The constant shear of the parallelepiped case: x = S X.
void shear(double p[3]) {
  const double x = p[0] + 0.25 * p[1] + 0.1 * p[2];
  const double y = p[1] + 0.2 * p[2];
  p[0] = x;
  p[1] = y;
}
}  // namespace

BoxMesh make_box_mesh(const BoxMeshSpec& spec) {
  require_valid_order(spec.order);
  require(spec.ex > 0 && spec.ey > 0 && spec.ez > 0,
          "the box needs at least one element per direction, got " + std::to_string(spec.ex) + "x" +
              std::to_string(spec.ey) + "x" + std::to_string(spec.ez),
          "EX, EY, EZ >= 1");
  require(spec.perturbation >= 0 && spec.perturbation < 1,
          "vertex perturbation " + std::to_string(spec.perturbation) + " is out of range",
          "0 <= perturbation < 1 (element sizes)");
  BoxMesh m;
  m.order = spec.order;
  m.ex = spec.ex;
  m.ey = spec.ey;
  m.ez = spec.ez;
  m.deformation = spec.deformation;
  const int nq = m.nq(), np = m.np(), n = spec.order;
  const std::int64_t E = m.elements();
  const GllRule gll = make_gll_rule(spec.order);

  // Vertex lattice (EX+1) x (EY+1) x (EZ+1), deformed, then copied per element.
  const int vx = spec.ex + 1, vy = spec.ey + 1, vz = spec.ez + 1;
  std::vector<double> lattice(std::size_t(vx) * vy * vz * 3);
  std::mt19937_64 rng(spec.seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const double h[3] = {1.0 / spec.ex, 1.0 / spec.ey, 1.0 / spec.ez};
  const bool perturb =
      spec.deformation == Deformation::trilinear || spec.deformation == Deformation::mixed;
  for (int c = 0; c < vz; ++c)
    for (int b = 0; b < vy; ++b)
      for (int a = 0; a < vx; ++a) {
        double* p = &lattice[3 * (a + std::size_t(vx) * (b + std::size_t(vy) * c))];
        p[0] = a * h[0];
        p[1] = b * h[1];
        p[2] = c * h[2];
        if (perturb)
          for (int d = 0; d < 3; ++d) p[d] += spec.perturbation * 0.5 * h[d] * uniform(rng);
        if (spec.deformation == Deformation::none) shear(p);
      }

  // Curved displacement delta(X) = amp (1, -0.8, 0.6) sin(pi X / Xc) sin(pi Y) sin(pi Z),
  // applied (as a function of the undeformed box point X) to elements with X < Xc.
  // It vanishes on X = Xc, so curved and trilinear elements stay conforming.
  const bool curved_any =
      spec.deformation == Deformation::curved || spec.deformation == Deformation::mixed;
  const int curved_columns = spec.deformation == Deformation::curved ? spec.ex : (spec.ex + 1) / 2;
  const double xc = double(curved_columns) / spec.ex;

  m.vertices.resize(std::size_t(E) * 24);
  m.trilinear.resize(E);
  m.coordinates.resize(std::size_t(3) * E * np);
  m.global_ids.resize(std::size_t(E) * np);
  m.boundary.resize(std::size_t(E) * np);
  const std::int64_t gx = std::int64_t(spec.ex) * n + 1, gy = std::int64_t(spec.ey) * n + 1,
                     gz = std::int64_t(spec.ez) * n + 1;
  m.global_count = gx * gy * gz;
  const std::size_t stride = std::size_t(E) * np;

  for (int ez = 0; ez < spec.ez; ++ez)
    for (int ey = 0; ey < spec.ey; ++ey)
      for (int ex = 0; ex < spec.ex; ++ex) {
        const std::int64_t e = ex + std::int64_t(spec.ex) * (ey + std::int64_t(spec.ey) * ez);
        double* ev = &m.vertices[std::size_t(e) * 24];
        for (int v = 0; v < 8; ++v) {
          const int a = v & 1, b = (v >> 1) & 1, c = (v >> 2) & 1;
          const double* p =
              &lattice[3 * ((ex + a) + std::size_t(vx) * ((ey + b) + std::size_t(vy) * (ez + c)))];
          for (int d = 0; d < 3; ++d) ev[3 * v + d] = p[d];
        }
        const bool curved = curved_any && ex < curved_columns;
        m.trilinear[e] = curved ? 0 : 1;
        for (int k = 0; k < nq; ++k)
          for (int j = 0; j < nq; ++j)
            for (int i = 0; i < nq; ++i) {
              const int node = i + nq * (j + nq * k);
              const std::size_t l = std::size_t(e) * np + node;
              const double r = gll.nodes[i], s = gll.nodes[j], t = gll.nodes[k];
              double x[3];
              trilinear_point(ev, r, s, t, x);
              if (curved) {
                const double bx = (ex + 0.5 * (r + 1)) * h[0], by = (ey + 0.5 * (s + 1)) * h[1],
                             bz = (ez + 0.5 * (t + 1)) * h[2];
                const double bump =
                    spec.curvature * std::sin(pi * bx / xc) * std::sin(pi * by) * std::sin(pi * bz);
                x[0] += bump;
                x[1] -= 0.8 * bump;
                x[2] += 0.6 * bump;
              }
              for (int d = 0; d < 3; ++d) m.coordinates[d * stride + l] = x[d];
              const std::int64_t ix = std::int64_t(ex) * n + i, iy = std::int64_t(ey) * n + j,
                                 iz = std::int64_t(ez) * n + k;
              m.global_ids[l] = ix + gx * (iy + gy * iz);
              m.boundary[l] =
                  (ix == 0 || iy == 0 || iz == 0 || ix == gx - 1 || iy == gy - 1 || iz == gz - 1)
                      ? 1
                      : 0;
            }
      }
  // Rejects inverted elements with the element and node named.
  check_element_validity(m);
  return m;
}

}  // namespace ppkit::sem
