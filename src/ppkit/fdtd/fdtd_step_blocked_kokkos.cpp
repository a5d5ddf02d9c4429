// kokkos-<space>/blocked-k2 and -k4: fdtd.step advancing 2 or 4 steps per
// pass over the grid (yee_kokkos_blocked_kernels.hpp). Fields and psi are
// double-buffered: a pass reads one set and writes the other. The prepared
// run is also a StepApplier (fdtd::Solver steps it in chunks; after each
// chunk the state is back in the first buffer, so field addresses stay put).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>

#include "ppkit/core/kokkos_instances.hpp"
#include "ppkit/core/kokkos_spaces.hpp"
#include "ppkit/fdtd/blocked_step.hpp"
#include "ppkit/fdtd/step_applier.hpp"
#include "ppkit/fdtd/step_features.hpp"
#include "ppkit/fdtd/yee_kokkos_blocked_kernels.hpp"

namespace ppkit::fdtd {
namespace {

template <class Exec>
class BlockedStep final : public PreparedRun<FdtdStep::Result>, public StepApplier {
  using Real = float;
  using Mem = typename Exec::memory_space;
  template <class T>
  using View = Kokkos::View<T*, Mem>;

  template <class T>
  View<T> upload(const std::string& label, const std::vector<T>& host) {
    View<T> v(label, host.size());
    Kokkos::deep_copy(v, unmanaged_host(host));
    return v;
  }

 public:
  BlockedStep(const FdtdStep::Problem& p, const std::string& name, const BlockedTiling& tiling)
      : problem_(p), setup_(make_step_setup_as<Real>(p)), steps_per_pass_(tiling.steps_per_pass) {
    require_blocked_run(p, name, tiling);
    const YeeGrid& g = p.grid;
    const index_t ny1 = g.ny + 1, nz1 = g.nz + 1;
    constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;
    index_t tile_y = tiling.tile_y, tile_z = tiling.tile_z;
    if (tile_y == 0) {
      if (host) {
        // About 32 rows per tile (a halo of k rows on each side is computed again
        // by the neighbours), the tile count a multiple of the threads.
        const index_t threads = index_t(Exec().concurrency());
        index_t tiles = std::max<index_t>(1, (ny1 + 31) / 32);
        tiles = (tiles + threads - 1) / threads * threads;
        tile_y = (ny1 + tiles - 1) / tiles;
      } else {
        tile_y = 8;
      }
    }
    const index_t halo = tiling.halo > 0 ? tiling.halo : steps_per_pass_;
    if (tiling.tile_z == 0) {
      // Host: whole rows (no halo along z) while the rings fit the team scratch,
      // else halved; device: a warp of z.
      tile_z = host ? nz1 : 32;
      while (tile_z > 32 &&
             !scratch_fits(blocked::make_tiling(ny1, nz1, tile_y, tile_z, halo, steps_per_pass_)))
        tile_z = (tile_z + 1) / 2;
    }
    // Device defaults: fewer rows, then narrower z, until the field ring fits
    // the per-team scratch (level 0 is at most about 40 KiB on CUDA GPUs).
    if (!host && tiling.tile_y == 0 && tiling.tile_z == 0)
      while (!scratch_fits(blocked::make_tiling(ny1, nz1, tile_y, tile_z, halo, steps_per_pass_))) {
        if (tile_y > 2)
          --tile_y;
        else if (tile_z > 8)
          tile_z /= 2;
        else
          break;  // require_scratch_fits() says what would fit
      }
    tiling_ = blocked::make_tiling(ny1, nz1, tile_y, tile_z, halo, steps_per_pass_);
    const std::size_t nodes = std::size_t(g.nodes());
    YeeKernelArgsT<Real>& a = args_.g;
    a.nx = g.nx;
    a.ny = g.ny;
    a.nz = g.nz;
    a.layers = 2 * setup_.cpml.thickness;
    a.periodic_x = a.periodic_y = 0;
    a.material_table = keep(upload("material table", setup_.material_table)).data();
    a.material_id = keep(upload("material id", setup_.material_id)).data();
    for (int d = 0; d < 3; ++d) {
      const CpmlAxisT<Real>& ax = setup_.cpml.axis[d];
      CpmlAxisArgsT<Real>& aa = a.axis[d];
      aa.e_inv_kd = keep(upload("cpml", ax.e_inv_kd)).data();
      aa.e_b = keep(upload("cpml", ax.e_b)).data();
      aa.e_c_d = keep(upload("cpml", ax.e_c_d)).data();
      aa.h_inv_kd = keep(upload("cpml", ax.h_inv_kd)).data();
      aa.h_b = keep(upload("cpml", ax.h_b)).data();
      aa.h_c_d = keep(upload("cpml", ax.h_c_d)).data();
      aa.e_slot = keep(upload("cpml", ax.e_slot)).data();
      aa.h_slot = keep(upload("cpml", ax.h_slot)).data();
    }
    const std::size_t layers = std::size_t(a.layers);
    const std::size_t psi_size[3] = {layers * std::size_t(ny1 * nz1),
                                     layers * std::size_t((g.nx + 1) * nz1),
                                     layers * std::size_t((g.nx + 1) * ny1)};
    for (int b = 0; b < 2; ++b) {
      for (int c = 0; c < 6; ++c)
        fields_[b][c] = View<Real>(std::string("field ") + to_string(Component(c)), nodes);
      for (int q = 0; q < blocked::psi_arrays; ++q)
        psi_[b][q] = View<Real>("psi", psi_size[blocked::psi_axis(q)]);
    }
    for (int c = 0; c < 6; ++c)
      if (!p.initial[c].empty())
        initial_[c] = upload(std::string("initial ") + to_string(Component(c)), p.initial[c]);
    // Sources and probes by node (i, j, k): the tiles test their plane and window.
    std::vector<std::int64_t> source_node, probe_node;
    for (const index_t n : setup_.source_index)
      for (const index_t u : {n / (ny1 * nz1), n / nz1 % ny1, n % nz1}) source_node.push_back(u);
    for (const index_t n : setup_.probe_index)
      for (const index_t u : {n / (ny1 * nz1), n / nz1 % ny1, n % nz1}) probe_node.push_back(u);
    args_.n_sources = std::int64_t(p.sources.size());
    args_.n_probes = std::int64_t(p.probes.size());
    args_.steps_total = p.steps;
    args_.source_node = keep(upload("source node", source_node)).data();
    args_.source_component =
        keep(upload("source component", std::vector<std::int32_t>(setup_.source_component.begin(),
                                                                  setup_.source_component.end())))
            .data();
    args_.source_hard =
        keep(upload("source hard", std::vector<std::int32_t>(setup_.source_hard.begin(),
                                                             setup_.source_hard.end())))
            .data();
    args_.source_values = keep(upload("source values", setup_.source_values)).data();
    args_.probe_node = keep(upload("probe node", probe_node)).data();
    args_.probe_component =
        keep(upload("probe component", std::vector<std::int32_t>(setup_.probe_component.begin(),
                                                                 setup_.probe_component.end())))
            .data();
    probe_values_ = View<Real>("probe values", std::size_t(args_.n_probes * p.steps));
    args_.probe_values = probe_values_.data();
    std::vector<std::int32_t> energy_after(std::size_t(std::max<std::int64_t>(p.steps, 1)), 0);
    for (const std::int64_t s : setup_.energy_steps) energy_after[std::size_t(s)] = 1;
    args_.energy_after = keep(upload("energy steps", energy_after)).data();
    energy_partial_ = View<double>("energy partial", std::size_t(tiling_.tiles() * tiling_.ring));
    args_.energy_partial = energy_partial_.data();
    require_scratch_fits();
    // Poison the outputs: a run must write every value it returns.
    Kokkos::deep_copy(probe_values_, Real(std::nan("")));
    for (int c = 0; c < 6; ++c) Kokkos::deep_copy(fields_[0][c], Real(std::nan("")));
    Exec().fence();
  }

  void run() override {
    restart();
    steps_until(problem_.steps);
    Exec().fence();
  }

  // ---- StepApplier (fdtd::Solver) ---------------------------------------------
  void restart() override {
    for (int c = 0; c < 6; ++c) {
      if (initial_[c].size() == 0)
        Kokkos::deep_copy(Exec(), fields_[0][c], Real(0));
      else
        Kokkos::deep_copy(Exec(), fields_[0][c], initial_[c]);
    }
    for (auto& v : psi_[0]) Kokkos::deep_copy(Exec(), v, Real(0));
    current_ = 0;
    energy_.clear();
    step_ = 0;
  }

  void advance(std::int64_t n, void* stream) override {
    if (stream) streams_.on(stream).fence();
    steps_until(step_ + n);
    if (current_ != 0) {  // back into the first buffers: field_address() stays valid
      for (int c = 0; c < 6; ++c) Kokkos::deep_copy(Exec(), fields_[0][c], fields_[1][c]);
      for (int q = 0; q < blocked::psi_arrays; ++q)
        Kokkos::deep_copy(Exec(), psi_[0][q], psi_[1][q]);
      current_ = 0;
    }
    if (stream) Exec().fence();
  }
  std::int64_t step() const override { return step_; }
  index_t pitch() const override { return problem_.grid.nz + 1; }
  void* field_address(int c) override { return fields_[current_][c].data(); }

  void copy_field(int c, void* array, bool array_on_host, bool into_field, void* stream) override {
    const std::size_t n = std::size_t(problem_.grid.nodes());
    Real* values = static_cast<Real*>(array);
    View<Real>& field = fields_[current_][c];
    if (array_on_host) {
      Exec().fence();
      Kokkos::View<Real*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(values, n);
      if (into_field)
        Kokkos::deep_copy(field, h);
      else
        Kokkos::deep_copy(h, field);
      return;
    }
    if (stream) streams_.on(stream).fence();
    Kokkos::View<Real*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> user(values, n);
    if (into_field)
      Kokkos::deep_copy(Exec(), field, user);
    else
      Kokkos::deep_copy(Exec(), user, field);
    if (stream) Exec().fence();
  }

  std::vector<double> probe_record() override {
    Exec().fence();
    const std::vector<Real> values = download(probe_values_);
    return std::vector<double>(values.begin(), values.end());
  }
  PhasorSet phasor_sums() override { return PhasorSet{}; }  // refused in the constructor
  void wait(void* stream) override {
    if (stream) streams_.on(stream).fence();
    Exec().fence();
  }
  std::optional<DataLocation> memory() const override { return kokkos_data_location<Exec>(); }

  FdtdStep::Result result() override {
    FdtdStep::Result r;
    FieldSet fields;
    for (int c = 0; c < 6; ++c) fields[c] = download(fields_[current_][c]);
    set_result_fields(r, std::move(fields));
    set_result_probes(r, download(probe_values_));
    set_result_records(r, setup_, energy_);
    return r;
  }

 private:
  // Team scratch of a pass with tiling t per level (0, 1), and the space's limits.
  static std::array<std::size_t, 4> scratch_need_and_max(const blocked::Tiling& t) {
    using Pass = blocked::BlockedPass<Exec, Real>;
    const bool split = Pass::field_level == 0;
    return {split ? Pass::field_scratch(t) : 0,
            Pass::psi_scratch(t) + (split ? 0 : Pass::field_scratch(t)),
            std::size_t(Kokkos::TeamPolicy<Exec>::scratch_size_max(0)),
            std::size_t(Kokkos::TeamPolicy<Exec>::scratch_size_max(1))};
  }
  static bool scratch_fits(const blocked::Tiling& t) {
    const auto s = scratch_need_and_max(t);
    return s[0] <= s[2] && s[1] <= s[3];
  }
  // The pass's scratch must fit the space's per-team limits.
  void require_scratch_fits() const {
    const auto [need0, need1, max0, max1] = scratch_need_and_max(tiling_);
    require(need0 <= max0 && need1 <= max1,
            "blocked tiles of " + std::to_string(tiling_.window_y) + " x " +
                std::to_string(tiling_.window_z) + " nodes over " + std::to_string(tiling_.ring) +
                " planes need " + std::to_string(need0) + " + " + std::to_string(need1) +
                " bytes of team scratch (levels 0, 1)",
            "smaller tiles or fewer steps per pass: at most " + std::to_string(max0) + " and " +
                std::to_string(max1) + " bytes on this space");
  }

  // Passes of steps_per_pass steps (the last one the rest) up to step `end`.
  void steps_until(std::int64_t end) {
    while (step_ < end) {
      const std::int64_t steps = std::min<std::int64_t>(steps_per_pass_, end - step_);
      blocked::PassArgs<Real> a = args_;
      const int src = current_, dst = 1 - current_;
      for (int c = 0; c < 6; ++c) {
        a.src_field[c] = fields_[src][c].data();
        a.dst_field[c] = fields_[dst][c].data();
      }
      for (int q = 0; q < blocked::psi_arrays; ++q) {
        a.src_psi[q] = psi_[src][q].data();
        a.dst_psi[q] = psi_[dst][q].data();
      }
      a.first_step = step_;
      a.steps = steps;
      blocked::BlockedPass<Exec, Real>{blocked::Pass<Real>{a, tiling_}}.run(Exec());
      current_ = dst;
      append_pass_energies(
          setup_.energy_steps, step_, steps, tiling_, setup_.cell_volume,
          [&] { return download(energy_partial_); }, energy_);
      step_ += steps;
    }
  }

  template <class T>
  View<T> keep(View<T> v) {
    keepalive_.push_back(std::make_shared<View<T>>(v));
    return v;
  }
  template <class T>
  static Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
  unmanaged_host(const std::vector<T>& host) {
    return Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
        host.data(), host.size());
  }
  template <class T>
  static std::vector<T> download(const View<T>& v) {
    Exec().fence();
    std::vector<T> out(v.extent(0));
    Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(out.data(),
                                                                                   out.size());
    Kokkos::deep_copy(h, v);
    return out;
  }

  FdtdStep::Problem problem_;
  StepSetupT<Real> setup_;
  int steps_per_pass_ = 1;
  blocked::Tiling tiling_;
  blocked::PassArgs<Real> args_{};  // psi_ring stays nullptr: the psi ring is team scratch
  View<Real> fields_[2][6], psi_[2][blocked::psi_arrays], initial_[6], probe_values_;
  View<double> energy_partial_;
  std::vector<std::shared_ptr<void>> keepalive_;
  std::vector<double> energy_;
  int current_ = 0;  // the buffer set holding the state
  std::int64_t step_ = 0;
  StreamInstance<Exec> streams_;
};

}  // namespace

FdtdStep::Result run_blocked_on_host(const FdtdStep::Problem& problem,
                                     const BlockedTiling& tiling) {
  validate(problem);
  BlockedStep<Kokkos::DefaultHostExecutionSpace> run(problem, "blocked (host)", tiling);
  run.run();
  return run.result();
}

}  // namespace ppkit::fdtd

namespace ppkit::registration {
void register_fdtd_kokkos_blocked_variants() {
  for_each_kokkos_space([](auto space) {
    using Exec = typename decltype(space)::execution_space;
    // Ranks 2 and 3: below every other Kokkos and OpenCL variant of the tier
    // (not measured on a GPU yet); blocked-k2 above blocked-k4 (less redundant halo work).
    for (const auto& [strategy, steps, rank] :
         {std::tuple{"blocked-k2", 2, 3}, std::tuple{"blocked-k4", 4, 2}}) {
      auto v = kokkos_variant<FdtdStep>(space, strategy, rank);
      v.traits = fdtd::blocked_traits(steps);
      v.prepare =
          [name = v.name, steps = steps](
              const FdtdStep::Problem& p) -> std::unique_ptr<PreparedRun<FdtdStep::Result>> {
        fdtd::BlockedTiling tiling;
        tiling.steps_per_pass = steps;
        return std::make_unique<fdtd::BlockedStep<Exec>>(p, name, tiling);
      };
      Registry<FdtdStep>::add(std::move(v));
    }
  });
}
}  // namespace ppkit::registration
