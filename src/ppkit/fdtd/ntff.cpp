#include "ppkit/fdtd/ntff.hpp"

#include <cmath>
#include <string>

#include "ppkit/core/error.hpp"

namespace ppkit::fdtd {
namespace {
constexpr double pi = 3.14159265358979323846;
}

void validate(const NearToFarField& n, const YeeGrid& g, int cpml_thickness) {
  const index_t cells[3] = {g.nx, g.ny, g.nz};
  for (int a = 0; a < 3; ++a) {
    const index_t lo = n.box_min[std::size_t(a)], hi = n.box_max[std::size_t(a)];
    // H half a cell outside each face must be outside the CPML too.
    require(lo < hi && lo >= cpml_thickness + 1 && hi <= cells[a] - cpml_thickness - 1,
            std::string("near-to-far-field box along ") +
                (a == 0   ? "x"
                 : a == 1 ? "y"
                          : "z") +
                " [" + std::to_string(lo) + ", " + std::to_string(hi) +
                "] is empty or reaches the CPML",
            std::to_string(cpml_thickness + 1) +
                " <= min < max <= " + std::to_string(cells[a] - cpml_thickness - 1));
  }
  require(!n.frequencies.empty(), "near-to-far-field transform without frequencies",
          "at least one frequency > 0 Hz");
  for (double f : n.frequencies)
    require(f > 0 && f < 0.5 / g.dt,
            "near-to-far-field frequency " + std::to_string(f) + " Hz is out of range",
            "0 < f < 1 / (2 dt) = " + std::to_string(0.5 / g.dt) + " Hz");
  require(!n.directions.empty(), "near-to-far-field transform without directions",
          "at least one (theta, phi)");
}

NtffSurface make_ntff_surface(const NearToFarField& n, const YeeGrid& g) {
  NtffSurface s;
  const double d[3] = {g.dx, g.dy, g.dz};
  double centre[3];
  for (int a = 0; a < 3; ++a)
    centre[a] = 0.5 * double(n.box_min[std::size_t(a)] + n.box_max[std::size_t(a)]) * d[a];
  auto add = [&](int component, const std::array<index_t, 3>& a, const std::array<index_t, 3>& b,
                 int current, int magnetic, double weight, const std::array<double, 3>& r) {
    s.component.push_back(component);
    s.node_a.push_back(g.index(a[0], a[1], a[2]));
    s.node_b.push_back(g.index(b[0], b[1], b[2]));
    s.current.push_back(current);
    s.magnetic.push_back(magnetic);
    s.weight.push_back(float(weight));
    s.x.push_back(float(r[0] - centre[0]));
    s.y.push_back(float(r[1] - centre[1]));
    s.z.push_back(float(r[2] - centre[2]));
  };
  for (int u = 0; u < 3; ++u)
    for (int side = 0; side < 2; ++side) {
      const int v = (u + 1) % 3, w = (u + 2) % 3;
      const double sigma = side == 0 ? -1.0 : 1.0;  // outward normal sigma u
      const index_t face = side == 0 ? n.box_min[std::size_t(u)] : n.box_max[std::size_t(u)];
      const index_t v0 = n.box_min[std::size_t(v)], v1 = n.box_max[std::size_t(v)];
      const index_t w0 = n.box_min[std::size_t(w)], w1 = n.box_max[std::size_t(w)];
      const double area = d[v] * d[w];
      // Two sample families: (a) E_v and H_w at (v + 1/2, w), (b) E_w and H_v at (v, w + 1/2);
      // nodes on the face's edges count half (trapezoidal rule across the edge).
      for (int family = 0; family < 2; ++family) {
        const index_t vend = family == 0 ? v1 - 1 : v1, wend = family == 0 ? w1 : w1 - 1;
        for (index_t iv = v0; iv <= vend; ++iv)
          for (index_t iw = w0; iw <= wend; ++iw) {
            double weight = area;
            if (family == 0 && (iw == w0 || iw == w1)) weight *= 0.5;
            if (family == 1 && (iv == v0 || iv == v1)) weight *= 0.5;
            std::array<index_t, 3> on{}, below{};
            on[std::size_t(u)] = face;
            on[std::size_t(v)] = iv;
            on[std::size_t(w)] = iw;
            below = on;
            below[std::size_t(u)] = face - 1;
            std::array<double, 3> r{};
            r[std::size_t(u)] = double(face) * d[u];
            r[std::size_t(v)] = (double(iv) + (family == 0 ? 0.5 : 0.0)) * d[v];
            r[std::size_t(w)] = (double(iw) + (family == 1 ? 0.5 : 0.0)) * d[w];
            if (family == 0) {
              // M = -n x E: E_v v -> -sigma E_v w;  J = n x H: H_w w -> -sigma H_w v.
              add(v, on, on, w, 1, -sigma * weight, r);
              add(3 + w, below, on, v, 0, -sigma * weight, r);
            } else {
              // E_w w -> +sigma E_w v;  H_v v -> +sigma H_v w.
              add(w, on, on, v, 1, sigma * weight, r);
              add(3 + v, below, on, w, 0, sigma * weight, r);
            }
          }
      }
    }
  return s;
}

std::vector<float> ntff_dft_factors(const NearToFarField& n, const YeeGrid& g, std::int64_t steps) {
  const std::size_t F = n.frequencies.size();
  std::vector<float> out(std::size_t(steps) * F * 4);
  for (std::int64_t s = 0; s < steps; ++s)
    for (std::size_t f = 0; f < F; ++f) {
      const double w = 2 * pi * n.frequencies[f];
      const double te = double(s + 1) * g.dt, th = (double(s) + 0.5) * g.dt;
      float* o = &out[(std::size_t(s) * F + f) * 4];
      o[0] = float(g.dt * std::cos(w * te));
      o[1] = float(-g.dt * std::sin(w * te));
      o[2] = float(g.dt * std::cos(w * th));
      o[3] = float(-g.dt * std::sin(w * th));
    }
  return out;
}

NtffDirection ntff_direction(const NearToFarField& n, std::size_t f, std::size_t d) {
  const double theta = n.directions[d][0], phi = n.directions[d][1];
  const double k = 2 * pi * n.frequencies[f] / speed_of_light;
  NtffDirection out;
  const double st = std::sin(theta), ct = std::cos(theta), sp = std::sin(phi), cp = std::cos(phi);
  out.theta = {ct * cp, ct * sp, -st};
  out.phi = {-sp, cp, 0.0};
  out.k = {k * st * cp, k * st * sp, k * ct};
  return out;
}

std::array<double, 2> far_field_at_1m(const RadiationVectors& v, double frequency) {
  const double k = 2 * pi * frequency / speed_of_light;
  return {k / (4 * pi) * std::abs(v[3] + eta0 * v[0]), k / (4 * pi) * std::abs(v[2] - eta0 * v[1])};
}

RadiationVectors radiation_vectors(const NtffSurface& s, const std::vector<double>& re,
                                   const std::vector<double>& im, const NtffDirection& dir) {
  RadiationVectors sum{};
  for (std::size_t q = 0; q < s.size(); ++q) {
    const std::complex<double> value = std::complex<double>(re[q], im[q]) * double(s.weight[q]);
    const double phase = dir.k[0] * s.x[q] + dir.k[1] * s.y[q] + dir.k[2] * s.z[q];
    const std::complex<double> term = value * std::polar(1.0, phase);
    const std::size_t c = std::size_t(s.current[q]);
    const std::size_t first = s.magnetic[q] ? 2 : 0;  // N (from J) or L (from M)
    sum[first] += term * dir.theta[c];
    sum[first + 1] += term * dir.phi[c];
  }
  return sum;
}

}  // namespace ppkit::fdtd
