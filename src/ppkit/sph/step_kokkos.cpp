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
#include "ppkit/sph/kokkos_step.hpp"

namespace ppkit::sph {
namespace {
using namespace kokkos_impl;

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
    float a2_max = 0, rho_max = 0, visc_max = 0;
    fluid_maxima<Space>(state_, rhs_, state_.size(), a2_max, rho_max, visc_max);
    return time_step_from_maxima(initial_.params, a2_max, rho_max, visc_max);
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
