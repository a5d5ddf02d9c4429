#include "ppkit/sph/reference.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>

#include "ppkit/core/error.hpp"

namespace ppkit::sph::reference {
namespace {

constexpr double kPi = 3.14159265358979323846;

double tait(const Parameters& p, double rho) {
  return p.tait_b() * (std::pow(rho / p.rho0, 7) - 1);
}
double sound(const Parameters& p, double rho) { return p.c0 * std::pow(rho / p.rho0, 3); }

// Separation r_i - r_j with the minimum image along periodic axes.
std::array<double, 3> separation(const Parameters& p, const Particles& s, std::size_t i,
                                 std::size_t j) {
  std::array<double, 3> d = {double(s.x[i]) - s.x[j], double(s.y[i]) - s.y[j],
                             double(s.z[i]) - s.z[j]};
  for (int a = 0; a < 3; ++a) {
    if (!p.domain.periodic[a]) continue;
    const double length = p.domain.hi[a] - p.domain.lo[a];
    if (d[a] > 0.5 * length) d[a] -= length;
    if (d[a] < -0.5 * length) d[a] += length;
  }
  return d;
}

struct Rhs {
  Interaction::Result result;
  double visc_max = 0;
  std::size_t pairs = 0;
};

// Adds neighbour j's contribution to particle i (equations in sph_pair.hpp).
void add_neighbour(const Parameters& p, const Particles& s, std::size_t i, std::size_t j,
                   double out[4], double& visc_max, std::size_t& pairs) {
  if (i == j || s.kind[j] == kEscaped) return;
  const bool i_fluid = s.kind[i] == kFluid, j_fluid = s.kind[j] == kFluid;
  if (!i_fluid && !j_fluid) return;
  const auto r = separation(p, s, i, j);
  const double dist = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
  if (dist >= 2 * p.h) return;
  ++pairs;
  const double rho_i = s.rho[i], rho_j = s.rho[j];
  const double u[3] = {double(s.vx[i]) - s.vx[j], double(s.vy[i]) - s.vy[j],
                       double(s.vz[i]) - s.vz[j]};
  // grad_i W_ij = dW/dr * r_ij / |r_ij|
  const double dwdr = wendland_derivative(dist, p.h);
  double grad[3];
  for (int a = 0; a < 3; ++a) grad[a] = dist > 0 ? dwdr * r[a] / dist : 0.0;
  const double volume_j = p.mass / rho_j;
  const double u_dot_grad = u[0] * grad[0] + u[1] * grad[1] + u[2] * grad[2];
  out[0] += rho_i * volume_j * u_dot_grad;
  const double r2 = dist * dist, eta2 = 0.01 * p.h * p.h;
  if (i_fluid && j_fluid && p.delta > 0) {
    // psi_ij = 2 (rho_j - rho_i) r_ji / (r^2 + eta^2), r_ji = -r_ij
    const double r_ji_dot_grad = -(r[0] * grad[0] + r[1] * grad[1] + r[2] * grad[2]);
    out[0] += p.delta * p.h * p.c0 * 2 * (rho_j - rho_i) * r_ji_dot_grad / (r2 + eta2) * volume_j;
  }
  if (!i_fluid) return;
  const double u_dot_r = u[0] * r[0] + u[1] * r[1] + u[2] * r[2];
  double viscosity = 0;
  if (u_dot_r < 0) {
    const double mu = p.h * u_dot_r / (r2 + eta2);
    const double c_mean = 0.5 * (sound(p, rho_i) + sound(p, rho_j));
    viscosity = -p.alpha * c_mean * mu / (0.5 * (rho_i + rho_j));
  }
  visc_max = std::max(visc_max, std::abs(u_dot_r) / (r2 + eta2));
  const double coefficient = (tait(p, rho_i) + tait(p, rho_j)) / (rho_i * rho_j) + viscosity;
  for (int a = 0; a < 3; ++a) out[1 + a] -= p.mass * coefficient * grad[a];
}

template <class ForEachNeighbour>
Rhs evaluate(const Parameters& p, const Particles& s, ForEachNeighbour&& neighbours) {
  const std::size_t n = s.size();
  Rhs rhs;
  auto& res = rhs.result;
  res.drho.assign(n, 0);
  res.ax.assign(n, 0);
  res.ay.assign(n, 0);
  res.az.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (s.kind[i] == kEscaped) continue;
    double sums[4] = {0, 0, 0, 0};
    neighbours(i, [&](std::size_t j) { add_neighbour(p, s, i, j, sums, rhs.visc_max, rhs.pairs); });
    res.drho[i] = Real(sums[0]);
    if (s.kind[i] == kFluid) {
      res.ax[i] = Real(sums[1] + p.gravity[0]);
      res.ay[i] = Real(sums[2] + p.gravity[1]);
      res.az[i] = Real(sums[3] + p.gravity[2]);
    }
  }
  return rhs;
}

// Buckets of particle indices on cells of size >= 2h.
struct Buckets {
  int n[3];
  double cell[3];
  std::vector<std::vector<std::size_t>> members;
  int coordinate(const Parameters& p, double x, int a) const {
    const int c = static_cast<int>(std::floor((x - p.domain.lo[a]) / cell[a]));
    return std::clamp(c, 0, n[a] - 1);
  }
};

Buckets make_buckets(const Parameters& p, const Particles& s) {
  Buckets b;
  for (int a = 0; a < 3; ++a) {
    const double length = p.domain.hi[a] - p.domain.lo[a];
    b.n[a] = std::max(1, static_cast<int>(std::floor(length / (2 * p.h))));
    b.cell[a] = length / b.n[a];
    require(!p.domain.periodic[a] || b.n[a] >= 3, "periodic axis with fewer than 3 cells",
            "a periodic extent of at least 6h");
  }
  b.members.resize(std::size_t(b.n[0]) * b.n[1] * b.n[2]);
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] == kEscaped) continue;
    const int cx = b.coordinate(p, s.x[i], 0), cy = b.coordinate(p, s.y[i], 1),
              cz = b.coordinate(p, s.z[i], 2);
    b.members[(std::size_t(cz) * b.n[1] + cy) * b.n[0] + cx].push_back(i);
  }
  return b;
}

// Visits every particle in the 27 buckets around particle i.
template <class Visit>
void for_each_bucket_neighbour(const Buckets& b, const Parameters& p, const Particles& s,
                               std::size_t i, Visit&& visit) {
  const int c[3] = {b.coordinate(p, s.x[i], 0), b.coordinate(p, s.y[i], 1),
                    b.coordinate(p, s.z[i], 2)};
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        int m[3] = {c[0] + dx, c[1] + dy, c[2] + dz};
        bool inside = true;
        for (int a = 0; a < 3; ++a) {
          if (m[a] >= 0 && m[a] < b.n[a]) continue;
          if (!p.domain.periodic[a]) inside = false;
          m[a] = (m[a] + b.n[a]) % b.n[a];
        }
        if (!inside) continue;
        for (std::size_t j : b.members[(std::size_t(m[2]) * b.n[1] + m[1]) * b.n[0] + m[0]])
          visit(j);
      }
}

Rhs evaluate_with_buckets(const Parameters& p, const Particles& s) {
  const Buckets b = make_buckets(p, s);
  return evaluate(
      p, s, [&](std::size_t i, auto&& visit) { for_each_bucket_neighbour(b, p, s, i, visit); });
}

}  // namespace

double wendland(double r, double h) {
  const double q = r / h;
  if (q >= 2) return 0;
  const double a_d = 21.0 / (16.0 * kPi * h * h * h);
  return a_d * std::pow(1 - 0.5 * q, 4) * (2 * q + 1);
}

double wendland_derivative(double r, double h) {
  const double q = r / h;
  if (q >= 2) return 0;
  const double a_d = 21.0 / (16.0 * kPi * h * h * h);
  return a_d / h * (-5 * q) * std::pow(1 - 0.5 * q, 3);
}

Interaction::Result interaction(const Parameters& p, const Particles& particles,
                                std::size_t* pairs) {
  Rhs rhs = evaluate_with_buckets(p, particles);
  if (pairs) *pairs = rhs.pairs;
  return std::move(rhs.result);
}

Interaction::Result interaction_all_pairs(const Parameters& p, const Particles& particles) {
  return evaluate(p, particles,
                  [&](std::size_t, auto&& visit) {
                    for (std::size_t j = 0; j < particles.size(); ++j) visit(j);
                  })
      .result;
}

Interaction::Result interaction_at(const Parameters& p, const Particles& s,
                                   const std::vector<std::size_t>& indices) {
  const Buckets b = make_buckets(p, s);
  Interaction::Result res;
  res.drho.assign(indices.size(), 0);
  res.ax.assign(indices.size(), 0);
  res.ay.assign(indices.size(), 0);
  res.az.assign(indices.size(), 0);
  double visc_max = 0;
  std::size_t pairs = 0;
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const std::size_t i = indices[k];
    require(i < s.size(), "particle index " + std::to_string(i), "< " + std::to_string(s.size()));
    if (s.kind[i] == kEscaped) continue;
    double sums[4] = {0, 0, 0, 0};
    for_each_bucket_neighbour(
        b, p, s, i, [&](std::size_t j) { add_neighbour(p, s, i, j, sums, visc_max, pairs); });
    res.drho[k] = Real(sums[0]);
    if (s.kind[i] == kFluid) {
      res.ax[k] = Real(sums[1] + p.gravity[0]);
      res.ay[k] = Real(sums[2] + p.gravity[1]);
      res.az[k] = Real(sums[3] + p.gravity[2]);
    }
  }
  return res;
}

double estimate_interacting_pairs(const Parameters& p, const Particles& s, int samples,
                                  unsigned seed) {
  require(samples > 0 && !s.x.empty(), "pair estimate needs particles and samples > 0");
  const Buckets b = make_buckets(p, s);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, s.size() - 1);
  double pairs = 0;
  int counted = 0;
  for (int k = 0; k < samples; ++k) {
    const std::size_t i = pick(rng);
    if (s.kind[i] == kEscaped) continue;
    ++counted;
    for_each_bucket_neighbour(b, p, s, i, [&](std::size_t j) {
      if (j == i || (s.kind[i] != kFluid && s.kind[j] != kFluid)) return;
      const auto r = separation(p, s, i, j);
      if (r[0] * r[0] + r[1] * r[1] + r[2] * r[2] < 4 * p.h * p.h) pairs += 1;
    });
  }
  return counted ? pairs / counted * double(s.size()) : 0.0;
}

double time_step(const Parameters& p, const Particles& s, const Interaction::Result& rhs,
                 double visc_max) {
  double a_max = 0, c_max = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != kFluid) continue;
    a_max =
        std::max(a_max, std::sqrt(double(rhs.ax[i]) * rhs.ax[i] + double(rhs.ay[i]) * rhs.ay[i] +
                                  double(rhs.az[i]) * rhs.az[i]));
    c_max = std::max(c_max, sound(p, s.rho[i]));
  }
  const double dt_force = a_max > 0 ? std::sqrt(p.h / a_max) : std::numeric_limits<double>::max();
  const double dt_acoustic = p.h / (std::max(c_max, p.c0) + p.h * visc_max);
  return p.cfl * std::min(dt_force, dt_acoustic);
}

double step(const Parameters& p, Particles& s) {
  const std::size_t n = s.size();
  // Predictor: half step with the right-hand side at t^n.
  const Rhs start = evaluate_with_buckets(p, s);
  const double dt = time_step(p, s, start.result, start.visc_max);
  const Particles old = s;
  for (std::size_t i = 0; i < n; ++i) {
    if (s.kind[i] == kEscaped) continue;
    const double rho = old.rho[i] + 0.5 * dt * start.result.drho[i];
    s.rho[i] = Real(s.kind[i] == kBoundary ? std::max(rho, p.rho0) : rho);
    if (s.kind[i] != kFluid) continue;
    s.x[i] = Real(old.x[i] + 0.5 * dt * old.vx[i]);
    s.y[i] = Real(old.y[i] + 0.5 * dt * old.vy[i]);
    s.z[i] = Real(old.z[i] + 0.5 * dt * old.vz[i]);
    s.vx[i] = Real(old.vx[i] + 0.5 * dt * start.result.ax[i]);
    s.vy[i] = Real(old.vy[i] + 0.5 * dt * start.result.ay[i]);
    s.vz[i] = Real(old.vz[i] + 0.5 * dt * start.result.az[i]);
  }
  // Corrector with the right-hand side at t^{n+1/2}.
  const Rhs half = evaluate_with_buckets(p, s);
  for (std::size_t i = 0; i < n; ++i) {
    if (s.kind[i] == kEscaped) continue;
    const double eps = -half.result.drho[i] / s.rho[i] * dt;
    const double rho = old.rho[i] * (2 - eps) / (2 + eps);
    s.rho[i] = Real(s.kind[i] == kBoundary ? std::max(rho, p.rho0) : rho);
    if (s.kind[i] != kFluid) continue;
    const double v[3] = {old.vx[i] + dt * half.result.ax[i], old.vy[i] + dt * half.result.ay[i],
                         old.vz[i] + dt * half.result.az[i]};
    double x[3] = {old.x[i] + 0.5 * dt * (v[0] + old.vx[i]),
                   old.y[i] + 0.5 * dt * (v[1] + old.vy[i]),
                   old.z[i] + 0.5 * dt * (v[2] + old.vz[i])};
    bool outside = s.rho[i] < p.rho0 / p.rho_blowup_factor;
    for (int a = 0; a < 3; ++a) {
      const double lo = p.domain.lo[a], hi = p.domain.hi[a];
      if (p.domain.periodic[a])
        x[a] -= (hi - lo) * std::floor((x[a] - lo) / (hi - lo));
      else if (x[a] < lo || x[a] > hi)
        outside = true;
    }
    s.vx[i] = Real(v[0]);
    s.vy[i] = Real(v[1]);
    s.vz[i] = Real(v[2]);
    s.x[i] = Real(x[0]);
    s.y[i] = Real(x[1]);
    s.z[i] = Real(x[2]);
    if (outside) {
      s.kind[i] = kEscaped;
      s.vx[i] = s.vy[i] = s.vz[i] = 0;
    }
  }
  return dt;
}

}  // namespace ppkit::sph::reference
