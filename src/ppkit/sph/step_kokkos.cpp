// kokkos-<space>/symplectic: the sph.step operation (and the time-stepping
// Solver of `ppkit sph dambreak`) on any Kokkos execution space.
//
// One step (symplectic position Verlet, DualSPHysics' Symplectic scheme):
//   1. neighbour structure: renumber by cell (when the reorder policy says so,
//      then neighbours are index ranges) or a linked list over the current order;
//   2. right-hand side at t^n; dt = CFL min(sqrt(h/|a|max), h/(c_max + h visc_max))
//      (Monaghan & Kos 1999);
//   3. predictor to t^{n+1/2}: rho, u and r advanced by dt/2;
//   4. right-hand side at t^{n+1/2} (same neighbour structure: particles move
//      far less than a cell in half a step);
//   5. corrector: u^{n+1} = u^n + dt a^{n+1/2}, r^{n+1} = r^n + dt (u^n + u^{n+1})/2,
//      rho^{n+1} = rho^n (2 - eps)/(2 + eps), eps = -dt drho^{n+1/2}/rho^{n+1/2};
//      boundary particles keep r, u and clamp rho >= rho0;
//   6. fluid particles outside the domain (or isolated with rho < rho0/f)
//      become escaped; NaN or density above f rho0 stops the run naming the
//      step and particle.
#include <cmath>
#include <sstream>

#include "ppkit/core/kokkos_instances.hpp"
#include "ppkit/core/kokkos_math.hpp"
#include "ppkit/core/kokkos_spaces.hpp"
#include "ppkit/sph/kokkos_sph.hpp"

namespace ppkit::sph {
namespace {
using namespace kokkos_impl;

// Wraps x into [lo, lo + length) along a periodic axis.
KOKKOS_INLINE_FUNCTION float wrap(float x, float lo, float length, int periodic) {
  if (!periodic) return x;
  if (x < lo) return x + length;
  if (x >= lo + length) return x - length;
  return x;
}

template <class Mem>
struct Predictor {
  float dt;
  float rho0;
  DomainBox d;
  ParticleArrays<Mem> s, start;  // s: current state (overwritten), start: state at t^n
  RhsArrays<Mem> rhs;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    const std::uint8_t kind = s.kind(i);
    start.x(i) = s.x(i);
    start.y(i) = s.y(i);
    start.z(i) = s.z(i);
    start.vx(i) = s.vx(i);
    start.vy(i) = s.vy(i);
    start.vz(i) = s.vz(i);
    start.rho(i) = s.rho(i);
    if (kind == kEscaped) return;
    const float half = 0.5f * dt;
    const float rho = s.rho(i) + half * rhs.drho(i);
    s.rho(i) = (kind == kBoundary && rho < rho0) ? rho0 : rho;
    if (kind != kFluid) return;
    s.x(i) = wrap(s.x(i) + half * s.vx(i), d.lo[0], d.length[0], d.periodic[0]);
    s.y(i) = wrap(s.y(i) + half * s.vy(i), d.lo[1], d.length[1], d.periodic[1]);
    s.z(i) = wrap(s.z(i) + half * s.vz(i), d.lo[2], d.length[2], d.periodic[2]);
    s.vx(i) += half * rhs.ax(i);
    s.vy(i) += half * rhs.ay(i);
    s.vz(i) += half * rhs.az(i);
  }
};

template <class Mem>
struct Corrector {
  float dt;
  float rho0;
  DomainBox d;
  ParticleArrays<Mem> s, start;
  RhsArrays<Mem> rhs;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    const std::uint8_t kind = s.kind(i);
    if (kind == kEscaped) return;
    const float eps = -rhs.drho(i) / s.rho(i) * dt;
    const float rho = start.rho(i) * (2.0f - eps) / (2.0f + eps);
    s.rho(i) = (kind == kBoundary && rho < rho0) ? rho0 : rho;
    if (kind != kFluid) return;
    const float vx = start.vx(i) + dt * rhs.ax(i);
    const float vy = start.vy(i) + dt * rhs.ay(i);
    const float vz = start.vz(i) + dt * rhs.az(i);
    const float x = start.x(i) + 0.5f * dt * (vx + start.vx(i));
    const float y = start.y(i) + 0.5f * dt * (vy + start.vy(i));
    const float z = start.z(i) + 0.5f * dt * (vz + start.vz(i));
    s.x(i) = wrap(x, d.lo[0], d.length[0], d.periodic[0]);
    s.y(i) = wrap(y, d.lo[1], d.length[1], d.periodic[1]);
    s.z(i) = wrap(z, d.lo[2], d.length[2], d.periodic[2]);
    s.vx(i) = vx;
    s.vy(i) = vy;
    s.vz(i) = vz;
  }
};

// Marks fluid particles outside the domain, or isolated ones whose density fell
// below rho0 / f (a splash particle that lost its neighbours; DualSPHysics'
// RhopOut rule), as escaped and counts them.
template <class Mem>
struct MarkEscaped {
  DomainBox d;
  float rho_min;
  ParticleArrays<Mem> s;
  KOKKOS_INLINE_FUNCTION void operator()(int i, long long& escaped) const {
    if (s.kind(i) != kFluid) return;
    const float p[3] = {s.x(i), s.y(i), s.z(i)};
    bool outside = s.rho(i) < rho_min;
    for (int a = 0; a < 3; ++a)
      if (!d.periodic[a] && (p[a] < d.lo[a] || p[a] > d.hi[a])) outside = true;
    if (!outside) return;
    s.kind(i) = kEscaped;
    s.vx(i) = s.vy(i) = s.vz(i) = 0.0f;
    ++escaped;
  }
};

// Maximum over fluid particles of |a|^2 (Field 0), rho (1) or the viscous
// time-step term (2).
template <class Mem, int Field>
struct FluidMaximum {
  ParticleArrays<Mem> s;
  RhsArrays<Mem> r;
  KOKKOS_INLINE_FUNCTION void operator()(int i, float& m) const {
    if (s.kind(i) != kFluid) return;
    float v = 0;
    if (Field == 0) v = r.ax(i) * r.ax(i) + r.ay(i) * r.ay(i) + r.az(i) * r.az(i);
    if (Field == 1) v = s.rho(i);
    if (Field == 2) v = r.visc(i);
    if (v > m) m = v;
  }
};

KOKKOS_INLINE_FUNCTION bool finite(float v) { return (v - v) == 0.0f; }

// Smallest index of a particle with a non-finite state or a density above
// f rho0 (n when none).
template <class Mem>
struct FindBlowUp {
  float rho_max;
  int n;
  ParticleArrays<Mem> s;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int& first) const {
    if (s.kind(i) == kEscaped) return;
    const float rho = s.rho(i);
    const bool bad = !(finite(s.x(i)) && finite(s.y(i)) && finite(s.z(i)) && finite(s.vx(i)) &&
                       finite(s.vy(i)) && finite(s.vz(i)) && finite(rho) && rho <= rho_max);
    if (bad && i < first) first = i;
  }
};

template <class Space>
class KokkosSolver final : public Solver {
  using Mem = typename Space::memory_space;

 public:
  explicit KokkosSolver(const Step::Problem& problem)
      : initial_(problem),
        constants_((validate(problem.params), make_kernel_constants(problem.params))),
        grid_(make_cell_grid(problem.params)),
        state_("sph", problem.particles.size()),
        initial_state_("sph.initial", problem.particles.size()),
        start_("sph.start", problem.particles.size()),
        lists_(problem.particles.size(), grid_.cells()),
        rhs_(problem.particles.size()),
        policy_(problem.reorder) {
    require(problem.steps >= 0, "steps = " + std::to_string(problem.steps), ">= 0");
    require(problem.reorder.every >= 0, "reorder interval " + std::to_string(problem.reorder.every),
            "0 (never) or a positive number of steps");
    domain_ = domain_box(problem.params.domain);
    restore(problem.particles, 0.0, 0);
    copy(initial_state_, state_);
  }

  // Starts again from the initial state (a device-side copy) and takes Problem::steps steps.
  void run() override {
    copy(state_, initial_state_);
    time_ = 0;
    steps_ = 0;
    escaped_ = static_cast<std::int64_t>(initial_.particles.count(kEscaped));
    for (int s = 0; s < initial_.steps; ++s) step();
    Space().fence();
  }

  Particles result() override {
    Particles out = state();
    out.sort_by_id();
    return out;
  }

  StepInfo step() override {
    StepInfo info;
    info.reordered = policy_.reorder_at(steps_);
    NeighbourMode mode = NeighbourMode::linked;
    if (info.reordered) {
      renumber_by_cell<Space>(grid_, state_, start_, lists_);
      mode = NeighbourMode::sorted;
    } else {
      build_linked_list<Space>(grid_, state_, lists_);
    }
    compute_interaction<Space>(mode, constants_, grid_, state_, lists_, rhs_);
    info.dt = time_step();
    const int n = state_.size();
    Kokkos::RangePolicy<Space> all(0, n);
    const float dt = float(info.dt);
    Kokkos::parallel_for("sph.predictor", all,
                         Predictor<Mem>{dt, constants_.rho0, domain_, state_, start_, rhs_});
    compute_interaction<Space>(mode, constants_, grid_, state_, lists_, rhs_);
    Kokkos::parallel_for("sph.corrector", all,
                         Corrector<Mem>{dt, constants_.rho0, domain_, state_, start_, rhs_});
    long long escaped_now = 0;
    Kokkos::parallel_reduce(
        "sph.escape", all,
        MarkEscaped<Mem>{domain_, float(initial_.params.rho0 / initial_.params.rho_blowup_factor),
                         state_},
        escaped_now);
    escaped_ += escaped_now;
    ++steps_;
    time_ += info.dt;
    check_blow_up();
    return info;
  }

  double time() const override { return time_; }
  std::int64_t steps_done() const override { return steps_; }
  std::int64_t escaped() const override { return escaped_; }
  void set_reorder(ReorderPolicy policy) override { policy_ = policy; }

  Particles state() override {
    Particles out;
    download(state_.x, out.x);
    download(state_.y, out.y);
    download(state_.z, out.z);
    download(state_.vx, out.vx);
    download(state_.vy, out.vy);
    download(state_.vz, out.vz);
    download(state_.rho, out.rho);
    download(state_.kind, out.kind);
    download(state_.id, out.id);
    return out;
  }

  // The structure of arrays in place (stride 1).
  DeviceParticles device_particles() override {
    Space().fence();
    DeviceParticles d;
    d.count = state_.size();
    d.x = state_.x.data(), d.y = state_.y.data(), d.z = state_.z.data();
    d.vx = state_.vx.data(), d.vy = state_.vy.data(), d.vz = state_.vz.data();
    d.rho = state_.rho.data();
    d.kind = state_.kind.data();
    d.id = state_.id.data();
    d.memory = kokkos_data_location<Space>();
    return d;
  }

  void restore(const Particles& s, double time, std::int64_t steps) override {
    require(s.size() == std::size_t(state_.size()),
            "restored state has " + std::to_string(s.size()) + " particles",
            std::to_string(state_.size()) + " particles, as in the case");
    upload(state_.x, s.x);
    upload(state_.y, s.y);
    upload(state_.z, s.z);
    upload(state_.vx, s.vx);
    upload(state_.vy, s.vy);
    upload(state_.vz, s.vz);
    upload(state_.rho, s.rho);
    upload(state_.kind, s.kind);
    upload(state_.id, s.id);
    time_ = time;
    steps_ = steps;
    escaped_ = static_cast<std::int64_t>(s.count(kEscaped));
  }

 private:
  // Variable time step from the right-hand side at t^n (fluid particles).
  double time_step() {
    const int n = state_.size();
    float a2_max = 0, rho_max = 0, visc_max = 0;
    Kokkos::RangePolicy<Space> all(0, n);
    Kokkos::parallel_reduce("sph.dt.force", all, FluidMaximum<Mem, 0>{state_, rhs_},
                            Kokkos::Max<float>(a2_max));
    Kokkos::parallel_reduce("sph.dt.sound", all, FluidMaximum<Mem, 1>{state_, rhs_},
                            Kokkos::Max<float>(rho_max));
    Kokkos::parallel_reduce("sph.dt.viscous", all, FluidMaximum<Mem, 2>{state_, rhs_},
                            Kokkos::Max<float>(visc_max));
    const auto& p = initial_.params;
    const double c_max = std::max(p.c0, p.c0 * std::pow(double(rho_max) / p.rho0, 3));
    const double a_max = std::sqrt(double(a2_max));
    const double dt_force = a_max > 0 ? std::sqrt(p.h / a_max) : 1e30;
    const double dt_acoustic = p.h / (c_max + p.h * double(visc_max));
    return p.cfl * std::min(dt_force, dt_acoustic);
  }

  static void copy(ParticleArrays<Mem>& to, const ParticleArrays<Mem>& from) {
    Kokkos::deep_copy(to.x, from.x);
    Kokkos::deep_copy(to.y, from.y);
    Kokkos::deep_copy(to.z, from.z);
    Kokkos::deep_copy(to.vx, from.vx);
    Kokkos::deep_copy(to.vy, from.vy);
    Kokkos::deep_copy(to.vz, from.vz);
    Kokkos::deep_copy(to.rho, from.rho);
    Kokkos::deep_copy(to.kind, from.kind);
    Kokkos::deep_copy(to.id, from.id);
  }

  void check_blow_up() {
    const auto& p = initial_.params;
    const int n = state_.size();
    int first = n;
    Kokkos::parallel_reduce("sph.blowup", Kokkos::RangePolicy<Space>(0, n),
                            FindBlowUp<Mem>{float(p.rho0 * p.rho_blowup_factor), n, state_},
                            Kokkos::Min<int>(first));
    if (first >= n) return;
    const Particles s = state();
    std::ostringstream what;
    what << "SPH blow-up at step " << steps_ << " (t = " << time_ << " s): particle " << s.id[first]
         << " (" << (s.kind[first] == kFluid ? "fluid" : "boundary") << ") has density "
         << s.rho[first] << " kg/m^3, position (" << s.x[first] << ", " << s.y[first] << ", "
         << s.z[first] << ") m, velocity (" << s.vx[first] << ", " << s.vy[first] << ", "
         << s.vz[first] << ") m/s";
    throw Error(what.str(), "a finite state with density below " +
                                std::to_string(p.rho_blowup_factor) +
                                " rho0; try a smaller CFL number or a finer --dp");
  }

  Step::Problem initial_;
  KernelConstants constants_;
  CellGrid grid_;
  DomainBox domain_{};
  ParticleArrays<Mem> state_, initial_state_, start_;
  CellLists<Mem> lists_;
  RhsArrays<Mem> rhs_;
  ReorderPolicy policy_;
  double time_ = 0;
  std::int64_t steps_ = 0, escaped_ = 0;
};

}  // namespace
}  // namespace ppkit::sph

namespace ppkit::registration {
void register_sph_step_kokkos_variants() {
  using namespace sph;
  for_each_kokkos_space([](auto space) {
    using Exec = typename decltype(space)::execution_space;
    auto v = kokkos_variant<Step>(space, "symplectic", 10);
    v.role = VariantRole::baseline;  // the portable solver the float4 ones are compared with
    v.prepare = [](const Step::Problem& p) { return std::make_unique<KokkosSolver<Exec>>(p); };
    Registry<Step>::add(std::move(v));
  });
}
}  // namespace ppkit::registration
