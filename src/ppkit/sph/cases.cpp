#include "ppkit/sph/cases.hpp"

#include <cmath>
#include <random>

#include "ppkit/core/error.hpp"

namespace ppkit::sph {
namespace {

struct Box {
  double lo[3], hi[3];
  // Lattice points on a face count as outside (they become wall particles).
  bool contains(const double p[3]) const {
    for (int a = 0; a < 3; ++a)
      if (!(p[a] > lo[a] && p[a] < hi[a])) return false;
    return true;
  }
};

// Hydrostatic density at depth d below the free surface, from the Tait EOS:
// p = rho0 g d  =>  rho = rho0 (1 + rho0 g d / B)^(1/7).
double hydrostatic_density(const Parameters& p, double depth) {
  const double g = std::abs(p.gravity[2]);
  return p.rho0 * std::pow(1.0 + p.rho0 * g * std::max(depth, 0.0) / p.tait_b(), 1.0 / 7.0);
}

void check_options(const CaseOptions& o) {
  require(o.dp > 0, "--dp " + std::to_string(o.dp), "> 0");
  require(o.boundary_layers >= 3, "boundary layers " + std::to_string(o.boundary_layers),
          ">= 3 (the kernel support of a fluid particle at the wall)");
}

// Fills the open-top tank `interior` (walls `layers` thick) on the lattice
// x = interior.lo - layers dp + (i + 1/2) dp: fluid inside `water`, boundary in
// the walls and inside `obstacle` (when given). Water rests at height water.hi[2].
void fill_tank(Case& c, const CaseOptions& o, const Box& interior, const Box& water,
               const Box* obstacle) {
  const double dp = o.dp;
  const double pad = o.boundary_layers * dp;
  long long n[3];
  for (int a = 0; a < 3; ++a) {
    const double top = a == 2 ? interior.hi[2] : interior.hi[a] + pad;
    n[a] = static_cast<long long>(std::ceil((top - (interior.lo[a] - pad)) / dp));
  }
  require(double(n[0]) * n[1] * n[2] < 1.5e9,
          "--dp " + std::to_string(dp) + " gives too many particles",
          "fewer than 1.5e9 lattice points");
  const double surface = water.hi[2];
  for (long long k = 0; k < n[2]; ++k)
    for (long long j = 0; j < n[1]; ++j)
      for (long long i = 0; i < n[0]; ++i) {
        const double p[3] = {interior.lo[0] - pad + (double(i) + 0.5) * dp,
                             interior.lo[1] - pad + (double(j) + 0.5) * dp,
                             interior.lo[2] - pad + (double(k) + 0.5) * dp};
        if (p[2] >= interior.hi[2]) continue;
        const bool in_tank = interior.contains(p);
        const bool in_obstacle = obstacle && obstacle->contains(p);
        // Wall and obstacle particles below the water level carry its hydrostatic density.
        const bool under_water = p[0] > water.lo[0] - pad && p[0] < water.hi[0] + pad &&
                                 p[1] > water.lo[1] - pad && p[1] < water.hi[1] + pad;
        const double rho = hydrostatic_density(c.params, under_water ? surface - p[2] : 0.0);
        if (!in_tank || in_obstacle)
          c.particles.push_back(p[0], p[1], p[2], rho, kBoundary);
        else if (water.contains(p))
          c.particles.push_back(p[0], p[1], p[2], hydrostatic_density(c.params, surface - p[2]),
                                kFluid);
      }
}

void apply_options(Parameters& p, const CaseOptions& o) {
  p.alpha = o.alpha;
  p.delta = o.delta;
  p.cfl = o.cfl;
}

}  // namespace

Case make_spheric_dambreak(const CaseOptions& o) {
  check_options(o);
  const double pad = (o.boundary_layers + 1) * o.dp;
  Domain d;
  d.lo[0] = -pad;
  d.hi[0] = 3.22 + pad;
  d.lo[1] = -pad;
  d.hi[1] = 1.0 + pad;
  d.lo[2] = -pad;
  d.hi[2] = o.tank_height + 0.5;
  Case c;
  c.name = "SPHERIC test 2 dam break, dp " + std::to_string(o.dp) + " m";
  c.params = make_parameters(o.dp, o.h_over_dp, o.c0_coefficient, 0.55, d);
  apply_options(c.params, o);
  require(o.tank_height > 0.6, "tank height " + std::to_string(o.tank_height) + " m",
          "> 0.6 m (above the water column)");
  const Box tank{{0, 0, 0}, {3.22, 1.0, o.tank_height}};
  const Box water{{1.992, 0, 0}, {3.22, 1.0, 0.55}};
  const Box obstacle{{0.6635, 0.2955, -1.0}, {0.8245, 0.6985, 0.161}};
  fill_tank(c, o, tank, water, &obstacle);
  validate(c.params);
  return c;
}

Case make_hydrostatic_tank(const CaseOptions& o, double length, double width, double depth) {
  check_options(o);
  require(length > 0 && width > 0 && depth > 0, "tank dimensions must be positive");
  const double pad = (o.boundary_layers + 1) * o.dp;
  Domain d;
  d.lo[0] = -pad;
  d.hi[0] = length + pad;
  d.lo[1] = -pad;
  d.hi[1] = width + pad;
  d.lo[2] = -pad;
  d.hi[2] = depth + 0.5 * depth + 4 * o.dp;
  Case c;
  c.name = "hydrostatic tank";
  c.params = make_parameters(o.dp, o.h_over_dp, o.c0_coefficient, depth, d);
  apply_options(c.params, o);
  const Box tank{{0, 0, 0}, {length, width, depth + 2 * o.dp}};
  const Box water{{0, 0, 0}, {length, width, depth}};
  fill_tank(c, o, tank, water, nullptr);
  validate(c.params);
  return c;
}

Case make_periodic_box(const CaseOptions& o, int cells, double speed, unsigned seed) {
  check_options(o);
  require(cells >= 4, "periodic box of " + std::to_string(cells) + " particles per side", ">= 4");
  const double length = cells * o.dp;
  Domain d;
  for (int a = 0; a < 3; ++a) {
    d.lo[a] = 0;
    d.hi[a] = length;
    d.periodic[a] = true;
  }
  Case c;
  c.name = "periodic box";
  c.params = make_parameters(o.dp, o.h_over_dp, o.c0_coefficient, length, d);
  apply_options(c.params, o);
  c.params.gravity[0] = c.params.gravity[1] = c.params.gravity[2] = 0;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int k = 0; k < cells; ++k)
    for (int j = 0; j < cells; ++j)
      for (int i = 0; i < cells; ++i) {
        c.particles.push_back((i + 0.5) * o.dp, (j + 0.5) * o.dp, (k + 0.5) * o.dp,
                              c.params.rho0 * (1 + 0.005 * u(rng)), kFluid);
        c.particles.vx.back() = Real(speed * u(rng));
        c.particles.vy.back() = Real(speed * u(rng));
        c.particles.vz.back() = Real(speed * u(rng));
      }
  validate(c.params);
  return c;
}

Case make_random_block(const CaseOptions& o, int nx, int ny, int nz, unsigned seed) {
  check_options(o);
  const double dp = o.dp;
  const Box interior{{0, 0, 0}, {nx * dp, ny * dp, (nz + 2) * dp}};
  const Box water{{0, 0, 0}, {nx * dp, ny * dp, nz * dp}};
  const double pad = (o.boundary_layers + 1) * dp;
  Domain d;
  for (int a = 0; a < 3; ++a) {
    d.lo[a] = interior.lo[a] - pad;
    d.hi[a] = interior.hi[a] + pad;
  }
  Case c;
  c.name = "random block";
  c.params = make_parameters(dp, o.h_over_dp, o.c0_coefficient, nz * dp, d);
  apply_options(c.params, o);
  fill_tank(c, o, interior, water, nullptr);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  auto& s = c.particles;
  for (std::size_t i = 0; i < s.size(); ++i) {
    s.rho[i] = Real(s.rho[i] * (1 + 0.01 * u(rng)));
    if (s.kind[i] != kFluid) continue;
    s.x[i] = Real(s.x[i] + 0.2 * dp * u(rng));
    s.y[i] = Real(s.y[i] + 0.2 * dp * u(rng));
    s.z[i] = Real(s.z[i] + 0.2 * dp * u(rng));
    s.vx[i] = Real(0.5 * u(rng));
    s.vy[i] = Real(0.5 * u(rng));
    s.vz[i] = Real(0.5 * u(rng));
  }
  validate(c.params);
  return c;
}

}  // namespace ppkit::sph

namespace ppkit::sph {

double dambreak_dp_for_particles(double particles, double tank_height) {
  require(particles >= 1000, "target particle count " + std::to_string(particles), ">= 1000");
  auto count = [&](double dp) {
    const double pad = 3 * dp;
    const double fluid = (3.22 - 1.992) * 1.0 * 0.55;
    const double shell =
        (3.22 + 2 * pad) * (1.0 + 2 * pad) * (tank_height + pad) - 3.22 * 1.0 * tank_height;
    const double box = 0.161 * 0.403 * 0.161;
    return (fluid + shell + box) / (dp * dp * dp);
  };
  double lo = 1e-4, hi = 1.0;  // count decreases with dp
  for (int it = 0; it < 100; ++it) {
    const double mid = std::sqrt(lo * hi);
    (count(mid) > particles ? lo : hi) = mid;
  }
  return hi;
}

void perturb(Case& c, double speed, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  auto& s = c.particles;
  for (std::size_t i = 0; i < s.size(); ++i) {
    s.rho[i] = Real(s.rho[i] * (1 + 0.005 * u(rng)));
    if (s.kind[i] != kFluid) continue;
    s.vx[i] = Real(speed * u(rng));
    s.vy[i] = Real(speed * u(rng));
    s.vz[i] = Real(speed * u(rng));
  }
}

}  // namespace ppkit::sph
