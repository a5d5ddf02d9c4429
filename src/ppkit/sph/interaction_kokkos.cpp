// kokkos-<space>/sorted-cells, kokkos-<space>/team-per-cell and
// kokkos-<space>/linked-list: the sph.interaction operation (neighbour search
// + right-hand side) on any Kokkos execution space.
#include "ppkit/core/kokkos_spaces.hpp"
#include "ppkit/sph/kokkos_sph.hpp"

namespace ppkit::sph {
namespace {
using namespace kokkos_impl;

template <class Space>
class KokkosInteraction final : public PreparedRun<Interaction::Result> {
  using Mem = typename Space::memory_space;

 public:
  KokkosInteraction(const Interaction::Problem& problem, NeighbourMode mode,
                    bool team_per_cell = false)
      : mode_(mode),
        team_per_cell_(team_per_cell),
        constants_((validate(problem.params), make_kernel_constants(problem.params))),
        grid_(make_cell_grid(problem.params)),
        particles_("sph", problem.particles.size()),
        scratch_("sph.scratch", problem.particles.size()),
        lists_(problem.particles.size(), grid_.cells()),
        rhs_(problem.particles.size()) {
    const auto& s = problem.particles;
    upload(particles_.x, s.x);
    upload(particles_.y, s.y);
    upload(particles_.z, s.z);
    upload(particles_.vx, s.vx);
    upload(particles_.vy, s.vy);
    upload(particles_.vz, s.vz);
    upload(particles_.rho, s.rho);
    upload(particles_.kind, s.kind);
    std::vector<int> ids(s.size());
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int>(i);
    upload(particles_.id, ids);
    const float poison = std::nanf("");
    for (auto* v : {&rhs_.drho, &rhs_.ax, &rhs_.ay, &rhs_.az}) Kokkos::deep_copy(*v, poison);
  }

  void run() override {
    if (mode_ == NeighbourMode::sorted)
      renumber_by_cell<Space>(grid_, particles_, scratch_, lists_);
    else
      build_linked_list<Space>(grid_, particles_, lists_);
    if (team_per_cell_)
      compute_interaction_team_per_cell<Space>(constants_, grid_, particles_, lists_, rhs_);
    else
      compute_interaction<Space>(mode_, constants_, grid_, particles_, lists_, rhs_);
    Space().fence();
  }

  Interaction::Result result() override {
    std::vector<int> ids;
    download(particles_.id, ids);
    Interaction::Result out;
    std::vector<Real>* outs[4] = {&out.drho, &out.ax, &out.ay, &out.az};
    const DeviceArray<Mem, float>* device[4] = {&rhs_.drho, &rhs_.ax, &rhs_.ay, &rhs_.az};
    for (int a = 0; a < 4; ++a) {
      std::vector<Real> internal;
      download(*device[a], internal);
      outs[a]->resize(internal.size());
      for (std::size_t k = 0; k < internal.size(); ++k) (*outs[a])[ids[k]] = internal[k];
    }
    return out;
  }

 private:
  NeighbourMode mode_;
  bool team_per_cell_;
  KernelConstants constants_;
  CellGrid grid_;
  ParticleArrays<Mem> particles_, scratch_;
  CellLists<Mem> lists_;
  RhsArrays<Mem> rhs_;
};

}  // namespace
}  // namespace ppkit::sph

namespace ppkit::registration {
void register_sph_interaction_kokkos_variants() {
  using namespace sph;
  for_each_kokkos_space([](auto space) {
    using Exec = typename decltype(space)::execution_space;
    auto sorted = kokkos_variant<Interaction>(space, "sorted-cells", 10);
    sorted.prepare = [](const Interaction::Problem& p) {
      return std::make_unique<KokkosInteraction<Exec>>(p, NeighbourMode::sorted);
    };
    Registry<Interaction>::add(std::move(sorted));
    // team-per-cell: renumbered particles, one team per cell staging the
    // neighbour candidates in team scratch (below sorted-cells until measured
    // on a GPU).
    auto team = kokkos_variant<Interaction>(space, "team-per-cell", 8);
    team.prepare = [](const Interaction::Problem& p) {
      return std::make_unique<KokkosInteraction<Exec>>(p, NeighbourMode::sorted, true);
    };
    Registry<Interaction>::add(std::move(team));
    // linked-list: the baseline of the comparison (the unsorted cell list).
    auto linked = kokkos_variant<Interaction>(space, "linked-list", 5);
    linked.role = VariantRole::baseline;
    linked.prepare = [](const Interaction::Problem& p) {
      return std::make_unique<KokkosInteraction<Exec>>(p, NeighbourMode::linked);
    };
    Registry<Interaction>::add(std::move(linked));
  });
}
}  // namespace ppkit::registration
