// `ppkit compare --workloads sph`: the interaction and a short run of steps on
// the SPHERIC test 2 dam break for every variant; a validation run against the
// MARIN measurements and the step time against step number with and without
// renumbering (Guan et al.'s figure) for the preferred variant.
//
// Verification:
//  - quick, default: every variant against the serial double-precision
//    reference (interaction: the whole right-hand side; steps: the reference
//    integrator over the same steps);
//  - large (4 M particles, where the serial reference is minutes of host time):
//    against the most preferred available Kokkos variant on the same device
//    (KokkosBaseline), plus independent checks: the serial reference at 4096
//    random particles (interaction); particle conservation (ids, kinds),
//    boundary particles unmoved and finite state (steps); and a closed periodic
//    box of 1 M particles where total momentum is conserved (every step variant).
//  - validation and step-history rows: the run completes (a NaN or density
//    blow-up stops it with an error), no more than 1% of the fluid escapes; the
//    heights against the measurements are figures (RMS, H2 arrival), not a gate.
//
// Models (stated so figures can be checked):
//  - interaction: work = particles; also interactions/s (ordered pairs with
//    r < 2h evaluated, counted by the reference, estimated from 20000 samples
//    at --large). Bytes = compulsory traffic (interaction_bytes): each
//    particle's 29 bytes of state read once, its 16 bytes of results written
//    once. Flops = 60 per interacting pair
//    (counted from sph_pair.hpp: distance, kernel gradient, EOS of j,
//    continuity, delta-SPH, viscosity, accumulation).
//  - step: work = particles x steps (particle-steps/s; ns/particle/step in
//    extra). Two interactions per step.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <numeric>
#include <random>

#include "ppkit/core/compare.hpp"
#include "ppkit/sph/cases.hpp"
#include "ppkit/sph/operations.hpp"
#include "ppkit/sph/probes.hpp"
#include "ppkit/sph/reference.hpp"
#include "ppkit/sph/simulation.hpp"
#include "ppkit/sph/sph_verification.hpp"

namespace ppkit::sph {
namespace {

struct Sizes {
  double interaction_particles;
  double step_particles;
  int steps;
  // Validation run against the measurements: spacing, end time, wall height.
  double validation_dp, validation_t_end, validation_tank_height;
  // Step time against step number.
  double history_dp;
  int history_steps;
};

Sizes sizes_for(ProblemSize s) {
  switch (s) {
    case ProblemSize::quick:
      return {20e3, 8e3, 4, 0.1, 0.6, 0.7, 0.08, 40};
    case ProblemSize::standard:
      return {1e6, 250e3, 4, 0.02, 1.5, 1.0, dambreak_dp_for_particles(1e6), 3000};
    case ProblemSize::large:
      return {4e6, 4e6, 2, 0.02, 1.5, 1.0, dambreak_dp_for_particles(1e6), 3000};
  }
  return sizes_for(ProblemSize::quick);
}

constexpr int kSampledParticles = 4096;
constexpr int kMomentumBoxCells = 100;  // 1 M particles
constexpr int kMomentumSteps = 4;

double count_variants(const CompareContext& ctx, const std::vector<std::string>& names) {
  double n = 0;
  for (const auto& name : names)
    if (ctx.variant_selected(name)) ++n;
  return n;
}

// Relative L2 error of a component over the particles, the gravity shift
// removed from fluid accelerations (the part the interaction computes).
double component_error(const std::vector<Real>& got, const std::vector<Real>& want, double shift,
                       const std::vector<std::uint8_t>& kind) {
  if (got.size() != want.size()) return INFINITY;
  double d = 0, norm = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double s = kind[i] == kFluid ? shift : 0.0;
    d += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
    norm += (double(want[i]) - s) * (double(want[i]) - s);
  }
  return std::isnan(d) ? INFINITY : std::sqrt(d / std::max(norm, 1e-300));
}

// Largest relative L2 error over drho/dt and the interaction part of a.
double rhs_error(const Interaction::Result& got, const Interaction::Result& want,
                 const Parameters& p, const std::vector<std::uint8_t>& kind) {
  return std::max({component_error(got.drho, want.drho, 0, kind),
                   component_error(got.ax, want.ax, p.gravity[0], kind),
                   component_error(got.ay, want.ay, p.gravity[1], kind),
                   component_error(got.az, want.az, p.gravity[2], kind)});
}

// Largest displacement difference in units of dp, or relative velocity error.
double state_error(const Particles& got, const Particles& want, double dp) {
  if (got.size() != want.size()) return INFINITY;
  double dx = 0, dv = 0, v = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got.x[i]) || std::isnan(got.vx[i])) return INFINITY;
    dx = std::max({dx, double(std::abs(got.x[i] - want.x[i])),
                   double(std::abs(got.y[i] - want.y[i])), double(std::abs(got.z[i] - want.z[i]))});
    const double d[3] = {double(got.vx[i]) - want.vx[i], double(got.vy[i]) - want.vy[i],
                         double(got.vz[i]) - want.vz[i]};
    dv += d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    v += double(want.vx[i]) * want.vx[i] + double(want.vy[i]) * want.vy[i] +
         double(want.vz[i]) * want.vz[i];
  }
  return std::max(dx / dp, std::sqrt(dv / std::max(v, 1e-30)));
}

// Particle conservation and fixed walls after steps from `initial` (both in id
// order): every id present once, boundary particles neither created, lost nor
// moved, fluid particles only turned escaped, every value finite. Returns a
// description of the first violation, or "".
std::string conservation_violation(const Particles& initial, const Particles& got,
                                   std::int64_t* escaped) {
  if (got.size() != initial.size())
    return fmt::format("{} particles instead of {}", got.size(), initial.size());
  *escaped = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got.id[i] != std::int32_t(i)) return fmt::format("id {} at position {}", got.id[i], i);
    const bool finite = std::isfinite(got.x[i]) && std::isfinite(got.y[i]) &&
                        std::isfinite(got.z[i]) && std::isfinite(got.vx[i]) &&
                        std::isfinite(got.vy[i]) && std::isfinite(got.vz[i]) &&
                        std::isfinite(got.rho[i]);
    if (!finite) return fmt::format("particle {} is not finite", i);
    if (initial.kind[i] == kBoundary) {
      if (got.kind[i] != kBoundary) return fmt::format("boundary particle {} changed kind", i);
      if (got.x[i] != initial.x[i] || got.y[i] != initial.y[i] || got.z[i] != initial.z[i])
        return fmt::format("boundary particle {} moved", i);
    } else if (got.kind[i] == kEscaped) {
      ++*escaped;
    } else if (got.kind[i] != kFluid) {
      return fmt::format("fluid particle {} became kind {}", i, int(got.kind[i]));
    }
  }
  return "";
}

}  // namespace

CaseVerification<Interaction> interaction_verification(const Interaction::Problem& problem,
                                                       bool full_reference,
                                                       std::size_t* counted_pairs) {
  const Parameters& params = problem.params;
  const Particles& particles = problem.particles;
  CaseVerification<Interaction> v;
  v.tolerance = 2e-4;
  if (full_reference) {
    std::size_t pairs = 0;
    auto want = std::make_shared<const Interaction::Result>(
        reference::interaction(params, particles, &pairs));
    if (counted_pairs) *counted_pairs = pairs;
    v.check = [&problem, want](const Variant<Interaction>&, const Interaction::Result& got,
                               CompareRow& row) {
      row.extra["verified_against"] = "serial reference (all particles)";
      return rhs_error(got, *want, problem.params, problem.particles.kind);
    };
    return v;
  }
  struct Sampled {
    std::vector<std::size_t> sample;
    Interaction::Result want;
    std::vector<std::uint8_t> kind;
    KokkosBaseline<Interaction> baseline;
  };
  auto s = std::make_shared<Sampled>(Sampled{{}, {}, {}, KokkosBaseline<Interaction>(problem)});
  std::mt19937_64 rng(2024u);
  std::uniform_int_distribution<std::size_t> pick(0, particles.size() - 1);
  for (int k = 0; k < kSampledParticles; ++k) s->sample.push_back(pick(rng));
  s->want = reference::interaction_at(params, particles, s->sample);
  for (std::size_t i : s->sample) s->kind.push_back(particles.kind[i]);
  v.check = [&problem, s](const Variant<Interaction>& variant, const Interaction::Result& got,
                          CompareRow& row) {
    Interaction::Result at;
    for (std::size_t i : s->sample) {
      if (i >= got.drho.size()) return double(INFINITY);
      at.drho.push_back(got.drho[i]);
      at.ax.push_back(got.ax[i]);
      at.ay.push_back(got.ay[i]);
      at.az.push_back(got.az[i]);
    }
    const double sampled = rhs_error(at, s->want, problem.params, s->kind);
    const auto* base = s->baseline.for_variant(variant);
    const double vs_base =
        base ? rhs_error(got, base->result, problem.params, problem.particles.kind) : 0.0;
    row.extra["error_vs_sampled_reference"] = sampled;
    if (base) row.extra["error_vs_baseline"] = vs_base;
    row.extra["verified_against"] = fmt::format(
        "{}serial reference at {} random particles",
        base ? (base->variant == variant.name ? "itself (baseline); " : base->variant + "; ") : "",
        s->sample.size());
    return std::max(sampled, vs_base);
  };
  return v;
}

CaseVerification<Step> step_verification(const Step::Problem& problem, bool full_reference) {
  CaseVerification<Step> v;
  v.tolerance = 1e-3;
  const double dp = problem.params.dp;
  if (full_reference) {
    auto want = std::make_shared<Particles>(problem.particles);
    for (int s = 0; s < problem.steps; ++s) reference::step(problem.params, *want);
    v.check = [want, dp](const Variant<Step>&, const Particles& got, CompareRow& row) {
      row.extra["verified_against"] = "serial reference integrator";
      return state_error(got, *want, dp);
    };
    return v;
  }
  auto baseline = std::make_shared<KokkosBaseline<Step>>(problem);
  v.check = [&problem, baseline, dp](const Variant<Step>& variant, const Particles& got,
                                     CompareRow& row) {
    std::int64_t escaped = 0;
    const std::string violation = conservation_violation(problem.particles, got, &escaped);
    row.extra["fluid_escaped"] = escaped;
    const auto* base = baseline->for_variant(variant);
    const double vs_base = base ? state_error(got, base->result, dp) : 0.0;
    if (base) row.extra["error_vs_baseline"] = vs_base;
    row.extra["verified_against"] = fmt::format(
        "{}particle conservation, fixed walls, finite state",
        base ? (base->variant == variant.name ? "itself (baseline); " : base->variant + "; ") : "");
    if (!violation.empty()) {
      row.extra["conservation_violation"] = violation;
      return double(INFINITY);
    }
    return vs_base;
  };
  return v;
}

double interaction_bytes(const Interaction::Problem& problem) {
  // Read once: x, y, z, vx, vy, vz, rho (Real) and kind (1 B) per particle;
  // written once: drho, ax, ay, az (Real).
  const double n = double(problem.particles.size());
  return n * (7.0 * sizeof(Real) + sizeof(std::uint8_t)) + n * 4.0 * sizeof(Real);
}

namespace {

std::vector<CompareRow> run_interaction(CompareContext& ctx) {
  const Sizes sz = sizes_for(ctx.options().size);
  const bool large = ctx.options().size == ProblemSize::large;
  CaseOptions o;
  o.dp = dambreak_dp_for_particles(sz.interaction_particles);
  Case c = make_spheric_dambreak(o);
  perturb(c, 0.5, 2024u);
  const Interaction::Problem problem{c.params, c.particles};
  const double n = double(c.particles.size());
  std::size_t counted_pairs = 0;
  const auto verification = interaction_verification(problem, !large, &counted_pairs);
  const double pairs =
      large ? reference::estimate_interacting_pairs(c.params, c.particles, 20000, 2024u)
            : double(counted_pairs);
  CaseModel m;
  m.workload = "sph";
  m.case_name = fmt::format("interaction dam break dp {:.4f}", o.dp);
  m.size = fmt::format("{:.0f} particles", n);
  m.work_units = n;
  m.throughput_unit = "particles/s";
  m.bytes = interaction_bytes(problem);
  m.flops = 60.0 * pairs;
  m.tolerance = verification.tolerance;
  auto rows = compare_variants_checked<Interaction>(ctx, m, problem, verification.check);
  for (auto& r : rows) {
    r.extra["interacting_pairs"] = pairs;
    if (large) r.extra["interacting_pairs_estimated"] = true;
    if (r.status == "PASS") {
      r.extra["interactions_per_s"] = pairs / r.timing.median_s;
      r.extra["ns_per_particle"] = r.timing.median_s / n * 1e9;
    }
  }
  return rows;
}

std::vector<CompareRow> run_steps(CompareContext& ctx, ReorderPolicy reorder) {
  const Sizes sz = sizes_for(ctx.options().size);
  const bool large = ctx.options().size == ProblemSize::large;
  CaseOptions o;
  o.dp = dambreak_dp_for_particles(sz.step_particles);
  const Case c = make_spheric_dambreak(o);
  const double n = double(c.particles.size());
  CaseModel m;
  m.workload = "sph";
  m.case_name = fmt::format("{} steps dam break dp {:.4f}, reorder {}", sz.steps, o.dp,
                            reorder.every ? "every step" : "never");
  m.size = fmt::format("{:.0f} particles", n);
  m.work_units = n * sz.steps;
  m.throughput_unit = "particle-steps/s";
  const Step::Problem problem{c.params, c.particles, sz.steps, reorder};
  const auto verification = step_verification(problem, !large);
  m.tolerance = verification.tolerance;
  auto rows = compare_variants_checked<Step>(ctx, m, problem, verification.check);
  for (auto& r : rows)
    if (r.status == "PASS")
      r.extra["ns_per_particle_step"] = r.timing.median_s / (n * sz.steps) * 1e9;
  return rows;
}

// --large: a closed periodic box without gravity, random velocities: the
// pairwise forces cancel, so total momentum must stay what it was.
std::vector<CompareRow> run_momentum(CompareContext& ctx) {
  CaseOptions o;
  const Case c = make_periodic_box(o, kMomentumBoxCells, 1.0, 2024u);
  const double n = double(c.particles.size());
  auto momentum = [&](const Particles& s) {
    std::array<double, 4> out{0, 0, 0, 0};  // x, y, z, sum of m |u|
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s.kind[i] != kFluid) continue;
      out[0] += c.params.mass * s.vx[i];
      out[1] += c.params.mass * s.vy[i];
      out[2] += c.params.mass * s.vz[i];
      out[3] += c.params.mass * std::sqrt(double(s.vx[i]) * s.vx[i] + double(s.vy[i]) * s.vy[i] +
                                          double(s.vz[i]) * s.vz[i]);
    }
    return out;
  };
  const auto before = momentum(c.particles);
  CaseModel m;
  m.workload = "sph";
  m.case_name =
      fmt::format("{} steps periodic box {}^3 (momentum)", kMomentumSteps, kMomentumBoxCells);
  m.size = fmt::format("{:.0f} particles", n);
  m.work_units = n * kMomentumSteps;
  m.throughput_unit = "particle-steps/s";
  m.tolerance = 1e-4;
  const Step::Problem problem{c.params, c.particles, kMomentumSteps, ReorderPolicy{1}};
  VariantCheck<Step> check = [&](const Variant<Step>&, const Particles& got, CompareRow& row) {
    std::int64_t escaped = 0;
    const std::string violation = conservation_violation(c.particles, got, &escaped);
    const auto after = momentum(got);
    const double drift = std::sqrt((after[0] - before[0]) * (after[0] - before[0]) +
                                   (after[1] - before[1]) * (after[1] - before[1]) +
                                   (after[2] - before[2]) * (after[2] - before[2])) /
                         before[3];
    row.extra["momentum_drift"] = drift;  // |P_end - P_0| / sum m |u_0|
    row.extra["verified_against"] =
        "total momentum conserved (closed periodic box), particle conservation";
    if (!violation.empty() || escaped > 0) {
      row.extra["conservation_violation"] =
          violation.empty() ? fmt::format("{} particles escaped", escaped) : violation;
      return double(INFINITY);
    }
    return std::isnan(drift) ? double(INFINITY) : drift;
  };
  return compare_variants_checked<Step>(ctx, m, problem, check);
}

// The preferred available selected sph.step variant, and the Kokkos variant
// on the same device when that one is not Kokkos (for the step history).
std::vector<const Variant<Step>*> history_variants(const CompareContext& ctx) {
  // "auto"'s order (variant_traits.hpp): Kokkos spaces share a rank, and the
  // accelerator's tier comes first, then host threads.
  const Variant<Step>* best = nullptr;
  for (const auto& v : Registry<Step>::all())
    if (ctx.variant_selected(v.name) && v.availability().available &&
        (!best || best->preference < v.preference))
      best = &v;
  std::vector<const Variant<Step>*> out;
  if (!best) return out;
  out.push_back(best);
  if (best->model != ProgrammingModel::kokkos)
    for (const auto& v : Registry<Step>::all())
      if (kokkos_on_same_device(v, *best) && ctx.variant_selected(v.name) &&
          v.availability().available) {
        out.push_back(&v);
        break;
      }
  return out;
}

CompareRow solver_row(const Variant<Step>& v, const std::string& case_name, double particles) {
  CompareRow row;
  row.workload = "sph";
  row.case_name = case_name;
  row.size = fmt::format("{:.0f} particles", particles);
  describe_variant(row, v);
  row.throughput_unit = "particle-steps/s";
  return row;
}

// Measured series resampled at `interval` up to t_end, in probe order.
nlohmann::json measured_curve(const MeasuredSeries& m, int probe, double t_end, double interval) {
  std::vector<double> t, h;
  double next = 0;
  for (std::size_t k = 0; k < m.time.size() && m.time[k] <= t_end; ++k)
    if (m.time[k] >= next) {
      t.push_back(m.time[k]);
      h.push_back(m.height[k][probe]);
      next = m.time[k] + interval;
    }
  return {{"x", t},
          {"y", h},
          {"label", "experiment (MARIN)"},
          {"style", {{"color", "0.55"}, {"lw", 0.9}}}};
}

double interpolate(const std::vector<double>& t, const std::vector<double>& v, double at) {
  const auto it = std::lower_bound(t.begin(), t.end(), at);
  if (it == t.begin()) return v.front();
  if (it == t.end()) return v.back();
  const std::size_t k = std::size_t(it - t.begin());
  const double w = (at - t[k - 1]) / (t[k] - t[k - 1]);
  return v[k - 1] + w * (v[k] - v[k - 1]);
}

// The dam break to t_end with the preferred variant: heights H1..H4 against
// the MARIN measurements (RMS over the run, H2 front arrival) and the plot.
std::vector<CompareRow> run_validation(CompareContext& ctx) {
  const Sizes sz = sizes_for(ctx.options().size);
  const auto variants = history_variants(ctx);
  if (variants.empty()) return {};
  const Variant<Step>& v = *variants.front();
  CaseOptions o;
  o.dp = sz.validation_dp;
  o.tank_height = sz.validation_tank_height;
  const Case c = make_spheric_dambreak(o);
  CompareRow row =
      solver_row(v, fmt::format("dam break dp {} to t = {} s vs MARIN", o.dp, sz.validation_t_end),
                 double(c.particles.size()));
  ctx.on_progress("sph " + row.case_name + " " + v.name);
  try {
    row.device = v.device();
    auto solver = make_solver(v.name, c, ReorderPolicy{1});
    RunOptions run;
    run.t_end = sz.validation_t_end;
    run.probe_interval = 0.01;
    const RunSummary s = run_simulation(*solver, c, spheric_test2_probes(c.params), run);
    row.timing.median_s = row.timing.min_s = row.timing.max_s = s.wall_seconds;
    row.timing.samples_s = {s.wall_seconds};
    row.throughput = double(s.steps) * double(c.particles.size()) / s.wall_seconds;
    const double fluid = double(c.particles.count(kFluid));
    row.extra["steps"] = s.steps;
    row.extra["fluid_escaped"] = s.escaped;
    row.extra["ns_per_particle_step"] =
        s.wall_seconds / (s.steps * double(c.particles.size())) * 1e9;
    row.extra["timing"] = "one run, wall time including probe sampling";
    std::vector<double> t;
    std::array<std::vector<double>, 4> h;
    for (const auto& p : s.probes) {
      t.push_back(p.time);
      for (int k = 0; k < 4; ++k) h[k].push_back(p.height[k]);
    }
    row.status = s.escaped <= 0.01 * fluid ? "PASS" : "FAIL";
    if (row.status == "FAIL") row.message = fmt::format("{} fluid particles escaped", s.escaped);
    std::string why_not;
    const std::string data = find_spheric_test2_data(&why_not);
    nlohmann::json figure = {
        {"name", "sph_heights_vs_experiment"},
        {"title", fmt::format("SPHERIC test 2 water heights: {}, dp {} m", v.name, o.dp)},
        {"xlabel", "time [s]"},
        {"panels", nlohmann::json::array()}};
    const double xs[4] = {0.496, 0.992, 1.488, 2.638};
    if (data.empty()) {
      row.extra["verified_against"] =
          "run completed, <= 1% escaped; heights not compared: " + why_not;
      row.extra["heights_plot_skipped"] = why_not;
    } else {
      const MeasuredSeries measured = load_spheric_test2(data);
      nlohmann::json rms = nlohmann::json::object();
      std::vector<double> mt;
      std::array<std::vector<double>, 4> mh;
      for (std::size_t k = 0; k < measured.time.size(); ++k) {
        mt.push_back(measured.time[k]);
        for (int q = 0; q < 4; ++q) mh[q].push_back(measured.height[k][q]);
      }
      for (int q = 0; q < 4; ++q) {
        double sum = 0;
        for (std::size_t k = 0; k < t.size(); ++k) {
          const double d = h[q][k] - interpolate(mt, mh[q], t[k]);
          sum += d * d;
        }
        rms[fmt::format("H{}", q + 1)] = std::sqrt(sum / double(t.size()));
        figure["panels"].push_back(
            {{"ylabel", fmt::format("H{} (x = {} m) [m]", q + 1, xs[q])},
             {"curves",
              {measured_curve(measured, q, sz.validation_t_end, 0.005),
               {{"x", t}, {"y", h[q]}, {"label", "ppkit " + v.name}, {"style", {{"lw", 1.4}}}}}}});
      }
      // Front arrival at H2: first time the depth exceeds dp/2 (docs/sph.md).
      const double threshold = 0.5 * o.dp;
      const double t_sim = arrival_time(t, h[1], threshold);
      const double t_exp = arrival_time(mt, mh[1], threshold);
      row.extra["heights_rms_m"] = rms;
      row.extra["H2_arrival_simulated_s"] = t_sim;
      row.extra["H2_arrival_measured_s"] = t_exp;
      if (std::isfinite(t_sim) && std::isfinite(t_exp))
        row.extra["H2_arrival_error_percent"] = 100 * (t_sim - t_exp) / t_exp;
      row.extra["verified_against"] = fmt::format(
          "run completed, <= 1% escaped; MARIN: RMS H2 {:.3f} m, H4 {:.3f} m, H2 arrival {}",
          rms["H2"].get<double>(), rms["H4"].get<double>(),
          std::isfinite(t_sim) && std::isfinite(t_exp)
              ? fmt::format("{:+.1f}%", 100 * (t_sim - t_exp) / t_exp)
              : std::string("not reached"));
      row.extra["figure"] = figure;
    }
  } catch (const std::exception& e) {
    row.status = "ERROR";
    row.message = e.what();
  }
  return {row};
}

// Wall time of every step (Guan et al.: with and without renumbering).
std::vector<CompareRow> run_history(CompareContext& ctx) {
  const Sizes sz = sizes_for(ctx.options().size);
  CaseOptions o;
  o.dp = sz.history_dp;
  const Case c = make_spheric_dambreak(o);
  const double n = double(c.particles.size());
  std::vector<CompareRow> rows;
  for (const auto* v : history_variants(ctx))
    for (int every : {1, 0}) {
      const std::string policy = every ? "every step" : "never";
      CompareRow row = solver_row(*v,
                                  fmt::format("step time over {} steps dp {:.4f}, renumber {}",
                                              sz.history_steps, o.dp, policy),
                                  n);
      ctx.on_progress("sph " + row.case_name + " " + v->name);
      try {
        row.device = v->device();
        auto solver = make_solver(v->name, c, ReorderPolicy{every});
        std::vector<double> seconds;
        for (int s = 0; s < sz.history_steps; ++s) {
          const auto start = std::chrono::steady_clock::now();
          solver->step();
          seconds.push_back(seconds_since(start));
        }
        std::vector<double> sorted = seconds;
        std::sort(sorted.begin(), sorted.end());
        row.timing.median_s = sorted[sorted.size() / 2];
        row.timing.min_s = sorted.front();
        row.timing.max_s = sorted.back();
        row.throughput = n / row.timing.median_s;
        const std::size_t tenth = std::max<std::size_t>(1, seconds.size() / 10);
        auto mean = [&](std::size_t from) {
          return std::accumulate(seconds.begin() + from, seconds.begin() + from + tenth, 0.0) /
                 double(tenth);
        };
        // The first step pays one-time set-up: the first tenth starts at step 2.
        const double first = mean(std::min<std::size_t>(1, seconds.size() - tenth));
        const double last = mean(seconds.size() - tenth);
        row.extra["first_tenth_ms"] = first * 1e3;
        row.extra["last_tenth_ms"] = last * 1e3;
        row.extra["change_percent"] = (last / first - 1) * 100;
        row.extra["ns_per_particle_step"] = row.timing.median_s / n * 1e9;
        row.extra["simulated_time_s"] = solver->time();
        row.extra["fluid_escaped"] = solver->escaped();
        row.extra["verified_against"] = "run completed, <= 1% escaped (timing case)";
        // Block means (at most 200 points) for the plot.
        const std::size_t block = std::max<std::size_t>(1, seconds.size() / 200);
        std::vector<double> x, y;
        for (std::size_t b = 0; b + block <= seconds.size(); b += block) {
          x.push_back(double(b + block / 2 + 1));
          y.push_back(std::accumulate(seconds.begin() + b, seconds.begin() + b + block, 0.0) /
                      double(block) * 1e3);
        }
        row.extra["series"] = nlohmann::json::array(
            {{{"name", "sph_step_time_vs_step"},
              {"title", fmt::format("SPH dam break, {:.0f} particles: step time with and without "
                                    "renumbering",
                                    n)},
              {"xlabel", "step"},
              {"ylabel", fmt::format("step time [ms] (mean of {} steps)", block)},
              {"label", v->name + ", renumber " + policy},
              {"x", x},
              {"y", y},
              {"style", {{"ls", every ? "-" : "--"}}}}});
        const bool ok = solver->escaped() <= 0.01 * double(c.particles.count(kFluid));
        row.status = ok ? "PASS" : "FAIL";
        if (!ok) row.message = fmt::format("{} fluid particles escaped", solver->escaped());
      } catch (const std::exception& e) {
        row.status = "ERROR";
        row.message = e.what();
      }
      rows.push_back(row);
    }
  return rows;
}

int count_rows(const CompareContext& ctx) {
  const int steps = int(count_variants(ctx, Registry<Step>::names()));
  int n = int(count_variants(ctx, Registry<Interaction>::names())) + 2 * steps;
  if (ctx.options().size == ProblemSize::large) n += steps;  // momentum box
  // Validation with the preferred variant; two step histories per history variant.
  const auto history = history_variants(ctx);
  if (!history.empty()) n += 1 + 2 * int(history.size());
  return n;
}

}  // namespace
}  // namespace ppkit::sph

namespace ppkit::registration {
void register_sph_compare() {
  register_workload(
      {"sph",
       "WCSPH dam break (SPHERIC test 2): interaction with cell lists, steps with and without "
       "renumbering, validation against the MARIN measurements, step time against step",
       sph::count_rows, [](CompareContext& ctx) {
         auto rows = sph::run_interaction(ctx);
         for (int every : {1, 0}) {
           auto more = sph::run_steps(ctx, sph::ReorderPolicy{every});
           rows.insert(rows.end(), more.begin(), more.end());
         }
         if (ctx.options().size == ProblemSize::large) {
           auto more = sph::run_momentum(ctx);
           rows.insert(rows.end(), more.begin(), more.end());
         }
         for (auto* part : {&sph::run_validation, &sph::run_history}) {
           auto more = (*part)(ctx);
           rows.insert(rows.end(), more.begin(), more.end());
         }
         return rows;
       }});
}
}  // namespace ppkit::registration
