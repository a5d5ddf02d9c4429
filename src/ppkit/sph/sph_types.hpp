#pragma once
// Host-side data of the weakly compressible SPH workload (docs/sph.md):
// particle arrays (structure of arrays), physical and numerical parameters,
// and the plain constants structs that Kokkos and CUDA kernels receive.
#include <cstdint>
#include <string>
#include <vector>

namespace ppkit::sph {

using Real = float;  // fp32 by default (DESIGN.md)

// What a particle is. Escaped particles left the domain: they are excluded
// from neighbour search, integration and probes, and counted.
enum ParticleKind : std::uint8_t { kFluid = 0, kBoundary = 1, kEscaped = 2 };

// Axis-aligned simulation domain. Along a periodic axis particles wrap around;
// along any other axis a fluid particle that leaves [lo, hi] escapes.
struct Domain {
  double lo[3] = {0, 0, 0};
  double hi[3] = {1, 1, 1};
  bool periodic[3] = {false, false, false};
};

// The domain as the kernels use it (fp32 bounds and lengths, int flags).
struct DomainBox {
  float lo[3], hi[3], length[3];
  int periodic[3];
};
inline DomainBox domain_box(const Domain& d) {
  DomainBox b{};
  for (int a = 0; a < 3; ++a) {
    b.lo[a] = float(d.lo[a]);
    b.hi[a] = float(d.hi[a]);
    b.length[a] = float(d.hi[a] - d.lo[a]);
    b.periodic[a] = d.periodic[a];
  }
  return b;
}

// Physical and numerical parameters (Monaghan 1994/2005 WCSPH, the notation of
// the SPHERIC test-2 literature: Crespo et al. 2015, DualSPHysics).
struct Parameters {
  double dp = 0.02;     // initial particle spacing [m]
  double h = 0.03;      // smoothing length [m]; kernel support 2h
  double mass = 0.008;  // particle mass rho0 dp^3 [kg]
  double rho0 = 1000;   // reference density [kg/m^3]
  double c0 = 20;       // reference speed of sound [m/s]
  double gravity[3] = {0, 0, -9.81};
  double alpha = 0.05;           // Monaghan artificial viscosity coefficient
  double delta = 0.1;            // delta-SPH density diffusion (0 switches it off)
  double cfl = 0.2;              // Courant number of the variable time step
  double rho_blowup_factor = 2;  // rho > f rho0 stops the run; fluid with rho < rho0/f escapes
  Domain domain;

  double tait_b() const { return c0 * c0 * rho0 / 7.0; }  // B = c0^2 rho0 / gamma, gamma = 7
};

// Builds consistent parameters: h = h_over_dp * dp, mass = rho0 dp^3,
// c0 = c0_coefficient * sqrt(|g| * fluid_height) (Monaghan 1994 Section 4).
Parameters make_parameters(double dp, double h_over_dp, double c0_coefficient, double fluid_height,
                           const Domain& domain);

// Throws ppkit::Error naming the first invalid parameter.
void validate(const Parameters& p);

// Particle state as structure of arrays, one entry per particle. `id` is the
// particle's number in the generated case; solvers may renumber particles
// internally but return results in id order.
struct Particles {
  std::vector<Real> x, y, z;
  std::vector<Real> vx, vy, vz;
  std::vector<Real> rho;
  std::vector<std::uint8_t> kind;
  std::vector<std::int32_t> id;

  std::size_t size() const { return x.size(); }
  void resize(std::size_t n);
  void push_back(double px, double py, double pz, double density, ParticleKind k);
  std::size_t count(ParticleKind k) const;
  // Reorders into id order (id[i] == i).
  void sort_by_id();
};

// ---- plain constants for kernels (no Kokkos, no std containers) -------------

// Everything the pair interaction needs, precomputed in fp32.
struct KernelConstants {
  float h, inv_h;
  float support2;  // (2h)^2
  float
      grad_factor;  // -5 aD / h^2 with aD = 21 / (16 pi h^3): grad_i W = grad_factor (1-q/2)^3 r_ij
  float mass, rho0, inv_rho0, tait_b, c0;
  float alpha;
  float delta_term;  // 2 delta h c0 (Molteni & Colagrossi 2009), 0 when off
  float eta2;        // 0.01 h^2 (Monaghan viscosity regulariser)
  float gx, gy, gz;
  float lx, ly, lz;  // domain lengths for the minimum image along periodic axes
  int periodic_x, periodic_y, periodic_z;
};
KernelConstants make_kernel_constants(const Parameters& p);

// Uniform grid of cells of size >= 2h covering the domain. Cell index
// c = (iz * ny + iy) * nx + ix; escaped particles go to cell `cells()` (an
// extra bucket no stencil visits).
struct CellGrid {
  float lo_x, lo_y, lo_z;
  float inv_cell_x, inv_cell_y, inv_cell_z;
  int nx, ny, nz;
  int periodic_x, periodic_y, periodic_z;
  long long cells() const { return static_cast<long long>(nx) * ny * nz; }
};
// Throws when a periodic axis has fewer than 3 cells (the 27-cell stencil
// would visit a cell twice).
CellGrid make_cell_grid(const Parameters& p);

}  // namespace ppkit::sph
