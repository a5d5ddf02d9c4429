#pragma once
// Near-to-far-field transform (Taflove & Hagness 3rd ed. ch. 8, frequency
// domain, sec. 8.4-8.5): a running DFT of the tangential E and H on a closed
// box surface at chosen frequencies gives the equivalent surface currents
//   J = n x H,   M = -n x E                                   (eq. 8.11)
// and, for each far-field direction r (theta, phi), the radiation vectors
//   N = sum_S J exp(j k r'.r) dS,   L = sum_S M exp(j k r'.r) dS  (eq. 8.21)
// projected on theta and phi; the far field at distance R is
//   E_theta = -j k exp(-j k R) / (4 pi R) (L_phi + eta0 N_theta)
//   E_phi   =  j k exp(-j k R) / (4 pi R) (L_theta - eta0 N_phi)   (eq. 8.26)
// (phasors of exp(+j w t); the DFT uses exp(-j w t_n) dt).
//
// Collocation: on a face of normal u at node index s, the tangential E lies on
// the face; each tangential H is the mean of its two nodes half a cell either
// side, at the same in-face position as its E partner. E samples are E^{n+1}
// at t = (n+1) dt, H samples H^{n+1/2} at (n+1/2) dt: the DFT uses each
// sample's own time, which removes the leapfrog stagger.
#include <array>
#include <complex>
#include <cstdint>
#include <vector>

#include "ppkit/fdtd/yee_grid.hpp"

namespace ppkit::fdtd {

struct NearToFarField {
  // The surface: the box of nodes [box_min, box_max] per axis (inside the CPML,
  // enclosing every source).
  std::array<index_t, 3> box_min{0, 0, 0}, box_max{0, 0, 0};
  std::vector<double> frequencies;  // Hz
  // Directions as (theta, phi) in radians, theta from +z, phi from +x.
  std::vector<std::array<double, 2>> directions;
};

// One surface sample: 0.5 (field[node_a] + field[node_b]) of one component,
// contributing weight x value to component `current` of J (magnetic = 0) or M
// (magnetic = 1) at position r (m). weight = +-dS.
struct NtffSurface {
  std::vector<std::int32_t> component;  // field 0..5
  std::vector<index_t> node_a, node_b;
  std::vector<std::int32_t> current;   // 0..2
  std::vector<std::int32_t> magnetic;  // 1: M (from E), 0: J (from H)
  std::vector<float> weight;
  std::vector<float> x, y, z;
  std::size_t size() const { return component.size(); }
};

// Throws ppkit::Error if the box is not inside the grid and outside the CPML,
// or there are no frequencies or directions.
void validate(const NearToFarField& n, const YeeGrid& grid, int cpml_thickness);
NtffSurface make_ntff_surface(const NearToFarField& n, const YeeGrid& grid);

// Per step s and frequency f, the DFT factors dt exp(-j w t) of E (t = (s+1) dt)
// and H (t = (s+1/2) dt): dft_factors[(s * F + f) * 4 + {0, 1, 2, 3}] =
// {Re E, Im E, Re H, Im H}.
std::vector<float> ntff_dft_factors(const NearToFarField& n, const YeeGrid& grid,
                                    std::int64_t steps);

// For direction d and frequency f: unit vectors theta and phi and the phase
// factor direction vector k r (so exp(j k r'.r) = exp(j (kx x + ky y + kz z))).
struct NtffDirection {
  std::array<double, 3> theta, phi, k;
};
NtffDirection ntff_direction(const NearToFarField& n, std::size_t f, std::size_t d);

// Radiation vectors of one (frequency, direction): {N_theta, N_phi, L_theta, L_phi}.
using RadiationVectors = std::array<std::complex<double>, 4>;
// |E_theta|, |E_phi| at 1 m (V/m) from the radiation vectors (eq. 8.26 with R = 1).
std::array<double, 2> far_field_at_1m(const RadiationVectors& v, double frequency);

// The reduction the variants run in parallel, written plainly: the sums over the
// surface samples of the accumulated DFT (re, im per sample of one frequency).
RadiationVectors radiation_vectors(const NtffSurface& s, const std::vector<double>& dft_re,
                                   const std::vector<double>& dft_im, const NtffDirection& dir);

}  // namespace ppkit::fdtd
