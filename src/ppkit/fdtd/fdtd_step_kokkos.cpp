// kokkos-<space>/plain: fdtd.step through the kernels of yee_kokkos_kernels.hpp
// (one Kokkos::parallel_for per half step, Kokkos::parallel_reduce for the
// total field energy) on the whole grid.
#include <Kokkos_Core.hpp>

#include "ppkit/core/kokkos_spaces.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/phasor_kokkos.hpp"
#include "ppkit/fdtd/yee_kernel_args.hpp"
#include "ppkit/fdtd/yee_kokkos_kernels.hpp"

namespace ppkit::fdtd {
namespace {

template <class Exec>
class KokkosPlainStep final : public PreparedRun<FdtdStep::Result> {
  using Mem = typename Exec::memory_space;
  template <class T>
  using View = Kokkos::View<T*, Mem>;

  template <class T>
  View<T> upload(const std::string& label, const std::vector<T>& host) {
    View<T> v(label, host.size());
    Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(
        host.data(), host.size());
    Kokkos::deep_copy(v, h);
    views_keepalive_.push_back(std::make_shared<View<T>>(v));
    return v;
  }

 public:
  explicit KokkosPlainStep(const FdtdStep::Problem& p) : problem_(p), setup_(make_step_setup(p)) {
    const YeeGrid& g = p.grid;
    const std::size_t nodes = std::size_t(g.nodes());
    args_.nx = g.nx;
    args_.ny = g.ny;
    args_.nz = g.nz;
    args_.layers = 2 * setup_.cpml.thickness;
    args_.periodic_x = p.periodic[0] ? 1 : 0;
    args_.periodic_y = p.periodic[1] ? 1 : 0;
    float** fields[6] = {&args_.ex, &args_.ey, &args_.ez, &args_.hx, &args_.hy, &args_.hz};
    for (int c = 0; c < 6; ++c) {
      fields_[c] = View<float>(std::string("field ") + to_string(Component(c)), nodes);
      *fields[c] = fields_[c].data();
      if (!p.initial[c].empty())
        initial_[c] = upload(std::string("initial ") + to_string(Component(c)), p.initial[c]);
    }
    args_.material_id = upload("material id", setup_.material_id).data();
    args_.material_table = upload("material table", setup_.material_table).data();
    for (int d = 0; d < 3; ++d) {
      const CpmlAxis& ax = setup_.cpml.axis[d];
      CpmlAxisArgs& aa = args_.axis[d];
      aa.e_inv_kd = upload("cpml", ax.e_inv_kd).data();
      aa.e_b = upload("cpml", ax.e_b).data();
      aa.e_c_d = upload("cpml", ax.e_c_d).data();
      aa.h_inv_kd = upload("cpml", ax.h_inv_kd).data();
      aa.h_b = upload("cpml", ax.h_b).data();
      aa.h_c_d = upload("cpml", ax.h_c_d).data();
      aa.e_slot = upload("cpml", ax.e_slot).data();
      aa.h_slot = upload("cpml", ax.h_slot).data();
    }
    const std::size_t layers = std::size_t(args_.layers);
    const std::size_t px = layers * std::size_t((g.ny + 1) * (g.nz + 1));
    const std::size_t py = layers * std::size_t((g.nx + 1) * (g.nz + 1));
    const std::size_t pz = layers * std::size_t((g.nx + 1) * (g.ny + 1));
    float** psi[12] = {&args_.psi_eyx, &args_.psi_ezx, &args_.psi_hyx, &args_.psi_hzx,
                       &args_.psi_exy, &args_.psi_ezy, &args_.psi_hxy, &args_.psi_hzy,
                       &args_.psi_exz, &args_.psi_eyz, &args_.psi_hxz, &args_.psi_hyz};
    for (int q = 0; q < 12; ++q) {
      psi_[q] = View<float>("psi", q < 4 ? px : q < 8 ? py : pz);
      *psi[q] = psi_[q].data();
    }
    std::vector<std::int32_t> component(setup_.source_component.begin(),
                                        setup_.source_component.end());
    std::vector<std::int32_t> hard(setup_.source_hard.begin(), setup_.source_hard.end());
    std::vector<std::int32_t> probe_component(setup_.probe_component.begin(),
                                              setup_.probe_component.end());
    io_.n_sources = std::int64_t(p.sources.size());
    io_.n_probes = std::int64_t(p.probes.size());
    io_.steps = p.steps;
    io_.source_index = upload("source index", setup_.source_index).data();
    io_.source_component = upload("source component", component).data();
    io_.source_hard = upload("source hard", hard).data();
    io_.source_values = upload("source values", setup_.source_values).data();
    io_.probe_index = upload("probe index", setup_.probe_index).data();
    io_.probe_component = upload("probe component", probe_component).data();
    probe_values_ = View<float>("probe values", std::size_t(io_.n_probes * p.steps));
    io_.probe_values = probe_values_.data();
    Kokkos::deep_copy(probe_values_, std::nanf(""));  // poison
    for (int c = 0; c < 6; ++c) Kokkos::deep_copy(fields_[c], std::nanf(""));
    if (p.phasors.enabled()) {
      phasors_ = std::make_unique<KokkosPhasors<Exec>>(p.phasors, g, 0, setup_.phasor_samples);
      phasors_->set_fields({args_.ex, args_.ey, args_.ez, args_.hx, args_.hy, args_.hz});
    }
    Exec().fence();
  }

  // Starts from the problem's initial state each time, so repeated runs agree.
  void run() override {
    for (int c = 0; c < 6; ++c) {
      if (problem_.initial[c].empty())
        Kokkos::deep_copy(Exec(), fields_[c], 0.0f);
      else
        Kokkos::deep_copy(Exec(), fields_[c], initial_[c]);
    }
    for (auto& v : psi_) Kokkos::deep_copy(Exec(), v, 0.0f);
    energy_.clear();
    std::size_t next_energy = 0;
    if (phasors_) phasors_->reset(PhasorSet{});
    for (std::int64_t step = 0; step < problem_.steps; ++step) {
      update_h<Exec>(args_, whole_grid(args_));
      periodic_copy<Exec>(args_, whole_grid(args_), false);
      update_e<Exec>(args_, whole_grid(args_));
      apply_sources<Exec>(args_, io_, step);
      periodic_copy<Exec>(args_, whole_grid(args_), true);
      record_probes<Exec>(args_, io_, step);
      if (phasors_) phasors_->accumulate(phasor_sample_after(problem_, step));
      if (next_energy < setup_.energy_steps.size() && setup_.energy_steps[next_energy] == step) {
        energy_.push_back(field_energy<Exec>(args_, whole_grid(args_)) * setup_.cell_volume);
        ++next_energy;
      }
    }
    Exec().fence();
  }

  FdtdStep::Result result() override {
    FdtdStep::Result r;
    for (int c = 0; c < 6; ++c) r.fields[c] = download(fields_[c]);
    r.probe_values = download(probe_values_);
    r.energy_steps = setup_.energy_steps;
    r.energy = energy_;
    if (phasors_) r.phasors = phasors_->download();
    if (r.energy.size() != r.energy_steps.size())
      r.energy.assign(r.energy_steps.size(), std::nan(""));
    return r;
  }

 private:
  template <class T>
  static std::vector<T> download(const View<T>& v) {
    std::vector<T> out(v.extent(0));
    Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(out.data(),
                                                                                   out.size());
    Kokkos::deep_copy(h, v);
    return out;
  }

  FdtdStep::Problem problem_;
  StepSetup setup_;
  YeeKernelArgs args_{};
  SourceProbeArgs io_{};
  View<float> fields_[6], initial_[6], psi_[12], probe_values_;
  std::vector<std::shared_ptr<void>> views_keepalive_;
  std::vector<double> energy_;
  std::unique_ptr<KokkosPhasors<Exec>> phasors_;
};

}  // namespace
}  // namespace ppkit::fdtd

namespace ppkit::registration {
void register_fdtd_kokkos_variants() {
  for_each_kokkos_space([](auto space) {
    using Exec = typename decltype(space)::execution_space;
    const std::string backend = space.backend;
    const int preference = backend == "kokkos-serial" ? 1 : backend == "kokkos-openmp" ? 3 : 6;
    auto v = kokkos_variant<FdtdStep>(space, "plain", preference);
    v.prepare = [](const FdtdStep::Problem& p) {
      return std::make_unique<fdtd::KokkosPlainStep<Exec>>(p);
    };
    Registry<FdtdStep>::add(std::move(v));
  });
}
}  // namespace ppkit::registration
