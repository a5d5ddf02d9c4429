#pragma once
// Case generators: particles on a cubic lattice of spacing dp. Solid walls are
// dynamic boundary particles (at least 3 layers), fluid starts at rest with
// hydrostatic density.
#include <string>

#include "ppkit/sph/sph_types.hpp"

namespace ppkit::sph {

struct Case {
  std::string name;
  Parameters params;
  Particles particles;
};

struct CaseOptions {
  double dp = 0.02;
  double h_over_dp = 1.5;      // h = 1.5 dp: about 110 neighbours in the support
  double c0_coefficient = 10;  // c0 = 10 sqrt(g H)
  double alpha = 0.05;
  double delta = 0.1;  // 0 switches density diffusion off
  double cfl = 0.2;
  int boundary_layers = 3;
  double tank_height = 1.0;  // dam break: wall height (lower walls make short runs cheaper)
};

// SPHERIC benchmark test 2 (Kleefsman et al. 2005; geometry in
// data/spheric_test2/README.md): tank 3.22 x 1 x 1 m, water column
// x in [1.992, 3.22] of depth 0.55, box obstacle 0.161 x 0.403 x 0.161.
// The domain extends 0.5 m above the tank; particles leaving it escape.
Case make_spheric_dambreak(const CaseOptions& o);

// A tank length x width with water of the given depth at rest (walls 2 dp
// higher than the water).
Case make_hydrostatic_tank(const CaseOptions& o, double length, double width, double depth);

// A periodic box of `cells` particles per side, fluid only, no gravity,
// seeded random velocities of amplitude `speed` and densities rho0 (1 +- 0.5%).
Case make_periodic_box(const CaseOptions& o, int cells, double speed, unsigned seed);

// A fluid block of nx x ny x nz particles above a floor and between walls,
// positions jittered by 0.2 dp, random velocities (0.5 m/s) and densities
// (rho0 +- 1%): inputs for checking interaction variants.
Case make_random_block(const CaseOptions& o, int nx, int ny, int nz, unsigned seed);

}  // namespace ppkit::sph

namespace ppkit::sph {
// Particle spacing at which the SPHERIC test 2 case holds about `particles`
// particles (fluid + 3 boundary layers + obstacle), from the lattice volumes.
double dambreak_dp_for_particles(double particles, double tank_height = 1.0);
// Seeded perturbation of a state (velocities +- speed, densities +- 0.5%) so
// that checks of the right-hand side never see a field at rest.
void perturb(Case& c, double speed, unsigned seed);
}  // namespace ppkit::sph
