#include "ppkit/fdtd/cpml.hpp"

#include <cmath>

#include "ppkit/core/error.hpp"

namespace ppkit::fdtd {

void validate(const CpmlConfig& c, const YeeGrid& g, std::array<bool, 3> without_layers) {
  require(c.thickness >= 0, "CPML thickness " + std::to_string(c.thickness) + " is negative",
          "0 (no CPML) or a number of cells");
  index_t smallest = g.nz;  // z always has its layers
  if (!without_layers[0]) smallest = std::min(smallest, g.nx);
  if (!without_layers[1]) smallest = std::min(smallest, g.ny);
  require(2 * index_t(c.thickness) + 2 <= smallest,
          "CPML of " + std::to_string(c.thickness) +
              " cells per face leaves no interior in a grid with " + std::to_string(smallest) +
              " cells along its shortest axis",
          "2 * thickness + 2 <= cells on every axis");
  require(c.grading_order >= 0 && c.grading_order <= 10,
          "CPML grading order " + std::to_string(c.grading_order) + " is out of range",
          "0..10 (3 is usual)");
  require(c.reflection > 0 && c.reflection < 1,
          "CPML reflection " + std::to_string(c.reflection) + " is out of range",
          "0 < R0 < 1, e.g. 1e-6");
  require(c.kappa_max >= 1, "CPML kappa_max " + std::to_string(c.kappa_max) + " is below 1",
          ">= 1");
  require(c.alpha_max >= 0 && c.alpha_order >= 0,
          "CPML alpha_max and alpha_order must not be negative", ">= 0");
}

namespace {

struct Coefficients {
  double inv_kappa, b, c;
};

// The CPML coefficients at relative depth rho in [0, 1] (0: inner edge).
Coefficients coefficients(const CpmlConfig& cfg, double rho, double sigma_max, double dt) {
  const double graded = std::pow(rho, cfg.grading_order);
  const double sigma = sigma_max * graded;
  const double kappa = 1 + (cfg.kappa_max - 1) * graded;
  const double alpha = cfg.alpha_max * std::pow(1 - rho, cfg.alpha_order);
  const double b = std::exp(-(sigma / kappa + alpha) * dt / eps0);
  const double denominator = sigma * kappa + kappa * kappa * alpha;
  const double c = denominator > 0 ? sigma * (b - 1) / denominator : 0.0;
  return {1 / kappa, b, c};
}

template <class Real>
CpmlAxisT<Real> make_axis(index_t n, double du, double dt, const CpmlConfig& cfg) {
  const index_t t = cfg.thickness;
  CpmlAxisT<Real> a;
  for (auto* v : {&a.e_inv_kd, &a.e_b, &a.e_c_d, &a.h_inv_kd, &a.h_b, &a.h_c_d})
    v->assign(n + 1, Real(0));
  a.e_slot.assign(n + 1, -1);
  a.h_slot.assign(n + 1, -1);
  const double delta = double(t) * du;
  const double sigma_max =
      t > 0 ? -(cfg.grading_order + 1) * std::log(cfg.reflection) / (2 * eta0 * delta) : 0;
  auto fill = [&](index_t u, double depth_cells, int slot, bool electric) {
    Coefficients c{1, 1, 0};
    if (slot >= 0) c = coefficients(cfg, depth_cells / double(t), sigma_max, dt);
    (electric ? a.e_inv_kd : a.h_inv_kd)[u] = Real(c.inv_kappa / du);
    (electric ? a.e_b : a.h_b)[u] = Real(c.b);
    (electric ? a.e_c_d : a.h_c_d)[u] = Real(c.c / du);
    (electric ? a.e_slot : a.h_slot)[u] = slot;
  };
  for (index_t u = 0; u <= n; ++u) {
    // E nodes sit at u, H nodes at u + 1/2; depth is measured from the inner edge.
    if (u < t)
      fill(u, double(t - u), int(u), true);
    else if (t > 0 && u > n - t)
      fill(u, double(u - (n - t)), int(t + (u - (n - t + 1))), true);
    else
      fill(u, 0, -1, true);
    if (u < n && u < t)
      fill(u, double(t) - double(u) - 0.5, int(u), false);
    else if (u < n && t > 0 && u >= n - t)
      fill(u, double(u) + 0.5 - double(n - t), int(t + (u - (n - t))), false);
    else
      fill(u, 0, -1, false);
  }
  return a;
}

}  // namespace

template <class Real>
CpmlProfilesT<Real> make_cpml_profiles_as(const YeeGrid& g, const CpmlConfig& cfg,
                                          std::array<bool, 3> without_layers) {
  validate(cfg, g, without_layers);
  CpmlProfilesT<Real> p;
  p.thickness = cfg.thickness;
  CpmlConfig none = cfg;
  none.thickness = 0;
  p.axis[0] = make_axis<Real>(g.nx, g.dx, g.dt, without_layers[0] ? none : cfg);
  p.axis[1] = make_axis<Real>(g.ny, g.dy, g.dt, without_layers[1] ? none : cfg);
  p.axis[2] = make_axis<Real>(g.nz, g.dz, g.dt, cfg);
  return p;
}

template CpmlProfilesT<float> make_cpml_profiles_as<float>(const YeeGrid&, const CpmlConfig&,
                                                           std::array<bool, 3>);
template CpmlProfilesT<double> make_cpml_profiles_as<double>(const YeeGrid&, const CpmlConfig&,
                                                             std::array<bool, 3>);

}  // namespace ppkit::fdtd
