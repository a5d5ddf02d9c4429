#pragma once
// The uniform Yee grid (Yee 1966; Taflove & Hagness, "Computational
// Electrodynamics", 3rd ed., ch. 3). nx x ny x nz cells; every field component
// is stored on (nx+1) x (ny+1) x (nz+1) nodes with z fastest and x slowest, so
// an x-plane is contiguous (MPI slabs along x exchange whole planes):
//   index(i, j, k) = (i * (ny + 1) + j) * (nz + 1) + k      (64-bit)
// Component positions (in cells): Ex (i+1/2, j, k), Ey (i, j+1/2, k),
// Ez (i, j, k+1/2), Hx (i, j+1/2, k+1/2), Hy (i+1/2, j, k+1/2),
// Hz (i+1/2, j+1/2, k). Entries beyond a component's extent (Ex at i = nx, ...)
// are never updated. The outer boundary is a perfect electric conductor:
// tangential E on the six faces is never updated.
#include <cmath>
#include <cstdint>
#include <string>

namespace ppkit::fdtd {

using index_t = std::int64_t;

// SI constants (CODATA 2018).
constexpr double speed_of_light = 299792458.0;
constexpr double mu0 = 1.25663706212e-6;
constexpr double eps0 = 1.0 / (mu0 * speed_of_light * speed_of_light);
constexpr double eta0 = mu0 * speed_of_light;  // free-space impedance

enum class Component : int { ex = 0, ey = 1, ez = 2, hx = 3, hy = 4, hz = 5 };
const char* to_string(Component c);
Component parse_component(const std::string& s);  // "ex".."hz" (case-insensitive)
inline bool is_electric(Component c) { return int(c) < 3; }

struct YeeGrid {
  index_t nx = 0, ny = 0, nz = 0;  // cells per axis
  double dx = 0, dy = 0, dz = 0;   // cell size (m)
  double dt = 0;                   // time step (s)

  index_t stride_x() const { return (ny + 1) * (nz + 1); }
  index_t stride_y() const { return nz + 1; }
  index_t nodes() const { return (nx + 1) * (ny + 1) * (nz + 1); }
  index_t cells() const { return nx * ny * nz; }
  index_t index(index_t i, index_t j, index_t k) const { return (i * (ny + 1) + j) * (nz + 1) + k; }
  // Largest stable dt in 3D: dt <= 1 / (c sqrt(1/dx^2 + 1/dy^2 + 1/dz^2)) (Taflove eq. 4.75).
  double courant_limit() const {
    return 1.0 / (speed_of_light * std::sqrt(1 / (dx * dx) + 1 / (dy * dy) + 1 / (dz * dz)));
  }
  double courant_number() const { return dt / courant_limit(); }
  // Whether the node (i, j, k) carries component c inside the grid (on or
  // inside the boundary), i.e. is a place a probe or source may sit.
  bool holds(Component c, index_t i, index_t j, index_t k) const;
};

// A grid of nx x ny x nz cells over lx x ly x lz metres with dt = courant x limit.
YeeGrid make_grid(index_t nx, index_t ny, index_t nz, double lx, double ly, double lz,
                  double courant = 0.99);

}  // namespace ppkit::fdtd
