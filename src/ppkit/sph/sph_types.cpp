#include "ppkit/sph/sph_types.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "ppkit/core/error.hpp"

namespace ppkit::sph {

Parameters make_parameters(double dp, double h_over_dp, double c0_coefficient, double fluid_height,
                           const Domain& domain) {
  require(dp > 0 && std::isfinite(dp), "particle spacing dp = " + std::to_string(dp) + " m",
          "dp > 0");
  require(h_over_dp >= 1.0 && h_over_dp <= 3.0, "h/dp = " + std::to_string(h_over_dp),
          "1 <= h/dp <= 3");
  require(c0_coefficient >= 1.0, "speed-of-sound coefficient " + std::to_string(c0_coefficient),
          ">= 1 (10 keeps density variations near 1%)");
  require(fluid_height > 0, "fluid height " + std::to_string(fluid_height) + " m", "> 0");
  Parameters p;
  p.dp = dp;
  p.h = h_over_dp * dp;
  p.mass = p.rho0 * dp * dp * dp;
  const double g = std::sqrt(p.gravity[0] * p.gravity[0] + p.gravity[1] * p.gravity[1] +
                             p.gravity[2] * p.gravity[2]);
  p.c0 = c0_coefficient * std::sqrt(g * fluid_height);
  p.domain = domain;
  return p;
}

void validate(const Parameters& p) {
  auto s = [](double v) { return std::to_string(v); };
  require(p.dp > 0, "dp = " + s(p.dp), "dp > 0");
  require(p.h >= p.dp && p.h <= 3 * p.dp, "h = " + s(p.h) + " for dp = " + s(p.dp),
          "dp <= h <= 3 dp");
  require(p.mass > 0, "particle mass " + s(p.mass), "> 0");
  require(p.rho0 > 0, "rho0 = " + s(p.rho0), "> 0");
  require(p.c0 > 0, "c0 = " + s(p.c0), "> 0");
  require(p.alpha >= 0 && p.alpha <= 1, "artificial viscosity alpha = " + s(p.alpha), "0..1");
  require(p.delta >= 0 && p.delta <= 1, "delta-SPH coefficient = " + s(p.delta),
          "0 (off) .. 1, usually 0.1");
  require(p.cfl > 0 && p.cfl <= 1, "CFL number " + s(p.cfl), "0 < CFL <= 1");
  require(p.rho_blowup_factor > 1, "blow-up factor " + s(p.rho_blowup_factor), "> 1");
  for (int a = 0; a < 3; ++a)
    require(p.domain.hi[a] - p.domain.lo[a] >= 2 * p.h,
            "domain extent along axis " + std::to_string(a) + " is " +
                s(p.domain.hi[a] - p.domain.lo[a]) + " m",
            "at least the kernel support 2h = " + s(2 * p.h));
}

void Particles::resize(std::size_t n) {
  for (auto* v : {&x, &y, &z, &vx, &vy, &vz, &rho}) v->resize(n);
  kind.resize(n);
  id.resize(n);
}

void Particles::push_back(double px, double py, double pz, double density, ParticleKind k) {
  id.push_back(static_cast<std::int32_t>(x.size()));
  x.push_back(Real(px));
  y.push_back(Real(py));
  z.push_back(Real(pz));
  vx.push_back(0);
  vy.push_back(0);
  vz.push_back(0);
  rho.push_back(Real(density));
  kind.push_back(k);
}

std::size_t Particles::count(ParticleKind k) const {
  return static_cast<std::size_t>(std::count(kind.begin(), kind.end(), std::uint8_t(k)));
}

void Particles::sort_by_id() {
  const std::size_t n = size();
  Particles out;
  out.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(id[i]);
    require(k < n, "particle id " + std::to_string(id[i]) + " out of range", "0..n-1");
    out.x[k] = x[i];
    out.y[k] = y[i];
    out.z[k] = z[i];
    out.vx[k] = vx[i];
    out.vy[k] = vy[i];
    out.vz[k] = vz[i];
    out.rho[k] = rho[i];
    out.kind[k] = kind[i];
    out.id[k] = id[i];
  }
  *this = std::move(out);
}

KernelConstants make_kernel_constants(const Parameters& p) {
  KernelConstants k{};
  const double pi = 3.14159265358979323846;
  const double a_d = 21.0 / (16.0 * pi * p.h * p.h * p.h);
  k.h = float(p.h);
  k.inv_h = float(1.0 / p.h);
  k.support2 = float(4.0 * p.h * p.h);
  k.grad_factor = float(-5.0 * a_d / (p.h * p.h));
  k.mass = float(p.mass);
  k.rho0 = float(p.rho0);
  k.inv_rho0 = float(1.0 / p.rho0);
  k.tait_b = float(p.tait_b());
  k.c0 = float(p.c0);
  k.alpha = float(p.alpha);
  k.delta_term = float(2.0 * p.delta * p.h * p.c0);
  k.eta2 = float(0.01 * p.h * p.h);
  k.gx = float(p.gravity[0]);
  k.gy = float(p.gravity[1]);
  k.gz = float(p.gravity[2]);
  k.lx = float(p.domain.hi[0] - p.domain.lo[0]);
  k.ly = float(p.domain.hi[1] - p.domain.lo[1]);
  k.lz = float(p.domain.hi[2] - p.domain.lo[2]);
  k.periodic_x = p.domain.periodic[0];
  k.periodic_y = p.domain.periodic[1];
  k.periodic_z = p.domain.periodic[2];
  return k;
}

CellGrid make_cell_grid(const Parameters& p) {
  CellGrid g{};
  int n[3];
  float inv[3];
  for (int a = 0; a < 3; ++a) {
    const double length = p.domain.hi[a] - p.domain.lo[a];
    n[a] = std::max(1, static_cast<int>(std::floor(length / (2 * p.h))));
    inv[a] = float(n[a] / length);
    if (p.domain.periodic[a])
      require(n[a] >= 3,
              "periodic axis " + std::to_string(a) + " has " + std::to_string(n[a]) + " cells",
              "a periodic extent of at least 3 kernel supports (6h)");
  }
  require(double(n[0]) * n[1] * n[2] < 2.0e9, "the cell grid is too large",
          "fewer than 2e9 cells (increase h or shrink the domain)");
  g.lo_x = float(p.domain.lo[0]);
  g.lo_y = float(p.domain.lo[1]);
  g.lo_z = float(p.domain.lo[2]);
  g.inv_cell_x = inv[0];
  g.inv_cell_y = inv[1];
  g.inv_cell_z = inv[2];
  g.nx = n[0];
  g.ny = n[1];
  g.nz = n[2];
  g.periodic_x = p.domain.periodic[0];
  g.periodic_y = p.domain.periodic[1];
  g.periodic_z = p.domain.periodic[2];
  return g;
}

}  // namespace ppkit::sph
