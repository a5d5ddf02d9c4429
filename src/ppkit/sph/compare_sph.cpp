// `ppkit compare --workloads sph`: the interaction and a short run of steps on
// the SPHERIC test 2 dam break, every variant verified against the serial
// double-precision reference.
//
// Models (stated so figures can be checked):
//  - interaction: work = particles; also interactions/s (ordered pairs with
//    r < 2h evaluated, counted by the reference). Bytes = compulsory traffic:
//    each particle's 29 bytes of state read once, 20 bytes of results written,
//    plus for the sorted variants renumbering (cell + count + permutation, and
//    the 33-byte state read and written once). Flops = 60 per interacting pair
//    (counted from sph_pair.hpp: distance, kernel gradient, EOS of j,
//    continuity, delta-SPH, viscosity, accumulation).
//  - step: work = particles x steps (particle-steps/s; ns/particle/step in
//    extra). Two interactions per step.
#include <fmt/format.h>
#include <cmath>

#include "ppkit/core/compare.hpp"
#include "ppkit/sph/cases.hpp"
#include "ppkit/sph/operations.hpp"
#include "ppkit/sph/reference.hpp"

namespace ppkit::sph {
namespace {

struct Sizes {
  double interaction_particles;
  double step_particles;
  int steps;
};

Sizes sizes_for(ProblemSize s) {
  switch (s) {
    case ProblemSize::quick:
      return {20e3, 8e3, 4};
    case ProblemSize::standard:
      return {1e6, 250e3, 4};
    case ProblemSize::large:
      return {4e6, 4e6, 2};
  }
  return {20e3, 8e3, 4};
}

double count_variants(const CompareContext& ctx, const std::vector<std::string>& names) {
  double n = 0;
  for (const auto& name : names)
    if (ctx.variant_selected(name)) ++n;
  return n;
}

std::vector<CompareRow> run_interaction(CompareContext& ctx) {
  const Sizes sz = sizes_for(ctx.options().size);
  CaseOptions o;
  o.dp = dambreak_dp_for_particles(sz.interaction_particles);
  Case c = make_spheric_dambreak(o);
  perturb(c, 0.5, 2024u);
  std::size_t pairs = 0;
  const auto want = reference::interaction(c.params, c.particles, &pairs);
  const double n = double(c.particles.size());
  CaseModel m;
  m.workload = "sph";
  m.case_name = fmt::format("interaction dam break dp {:.4f}", o.dp);
  m.size = fmt::format("{:.0f} particles", n);
  m.work_units = n;
  m.throughput_unit = "particles/s";
  m.bytes = n * (29 + 20);
  m.flops = 60.0 * double(pairs);
  m.tolerance = 2e-4;
  m.baseline_strategy = "linked-list";
  auto error = [want, &c](const Interaction::Result& got) {
    // Largest relative L2 error over drho/dt and the interaction part of the acceleration.
    auto rel = [](const std::vector<Real>& a, const std::vector<Real>& b, double shift,
                  const std::vector<std::uint8_t>& kind) {
      double d = 0, norm = 0;
      for (std::size_t i = 0; i < a.size(); ++i) {
        const double s = kind[i] == kFluid ? shift : 0.0;
        d += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
        norm += (double(b[i]) - s) * (double(b[i]) - s);
      }
      return std::isnan(d) || a.size() != b.size() ? INFINITY : std::sqrt(d / norm);
    };
    const auto& k = c.particles.kind;
    return std::max({rel(got.drho, want.drho, 0, k), rel(got.ax, want.ax, c.params.gravity[0], k),
                     rel(got.ay, want.ay, c.params.gravity[1], k),
                     rel(got.az, want.az, c.params.gravity[2], k)});
  };
  auto rows = compare_variants<Interaction>(ctx, m, {c.params, c.particles}, error);
  for (auto& r : rows) {
    r.extra["interacting_pairs"] = double(pairs);
    if (r.status == "PASS") {
      r.extra["interactions_per_s"] = double(pairs) / r.timing.median_s;
      r.extra["ns_per_particle"] = r.timing.median_s / n * 1e9;
    }
  }
  return rows;
}

std::vector<CompareRow> run_steps(CompareContext& ctx, ReorderPolicy reorder) {
  const Sizes sz = sizes_for(ctx.options().size);
  CaseOptions o;
  o.dp = dambreak_dp_for_particles(sz.step_particles);
  const Case c = make_spheric_dambreak(o);
  Particles want = c.particles;
  for (int s = 0; s < sz.steps; ++s) reference::step(c.params, want);
  const double n = double(c.particles.size());
  CaseModel m;
  m.workload = "sph";
  m.case_name = fmt::format("{} steps dam break dp {:.4f}, reorder {}", sz.steps, o.dp,
                            reorder.every ? "every step" : "never");
  m.size = fmt::format("{:.0f} particles", n);
  m.work_units = n * sz.steps;
  m.throughput_unit = "particle-steps/s";
  m.tolerance = 1e-3;
  m.baseline_strategy = "symplectic";
  const double dp = o.dp;
  // Largest displacement difference in units of dp, or relative velocity error.
  auto error = [want, dp](const Particles& got) {
    if (got.size() != want.size()) return double(INFINITY);
    double dx = 0, dv = 0, v = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      dx = std::max({dx, double(std::abs(got.x[i] - want.x[i])),
                     double(std::abs(got.y[i] - want.y[i])),
                     double(std::abs(got.z[i] - want.z[i]))});
      const double d[3] = {double(got.vx[i]) - want.vx[i], double(got.vy[i]) - want.vy[i],
                           double(got.vz[i]) - want.vz[i]};
      dv += d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      v += double(want.vx[i]) * want.vx[i] + double(want.vy[i]) * want.vy[i] +
           double(want.vz[i]) * want.vz[i];
      if (std::isnan(got.x[i]) || std::isnan(got.vx[i])) return double(INFINITY);
    }
    return std::max(dx / dp, std::sqrt(dv / std::max(v, 1e-30)));
  };
  auto rows = compare_variants<Step>(ctx, m, {c.params, c.particles, sz.steps, reorder}, error);
  for (auto& r : rows)
    if (r.status == "PASS")
      r.extra["ns_per_particle_step"] = r.timing.median_s / (n * sz.steps) * 1e9;
  return rows;
}

}  // namespace
}  // namespace ppkit::sph

namespace ppkit::registration {
void register_sph_compare() {
  register_workload(
      {"sph",
       "WCSPH dam break (SPHERIC test 2): interaction with cell lists, steps with and without "
       "renumbering",
       [](const CompareContext& ctx) {
         return int(sph::count_variants(ctx, Registry<sph::Interaction>::names()) +
                    2 * sph::count_variants(ctx, Registry<sph::Step>::names()));
       },
       [](CompareContext& ctx) {
         auto rows = sph::run_interaction(ctx);
         for (int every : {1, 0}) {
           auto more = sph::run_steps(ctx, sph::ReorderPolicy{every});
           rows.insert(rows.end(), more.begin(), more.end());
         }
         return rows;
       }});
}
}  // namespace ppkit::registration
