// kokkos-<space>/plain: fdtd.step through the kernels of yee_kokkos_kernels.hpp
// (one Kokkos::parallel_for per half step, Kokkos::parallel_reduce for the
// total field energy) on the whole grid.
#include <Kokkos_Core.hpp>

#include "ppkit/core/kokkos_spaces.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/phasor_kokkos.hpp"
#include "ppkit/fdtd/ntff_kokkos.hpp"
#include "ppkit/fdtd/yee_kernel_args.hpp"
#include "ppkit/fdtd/yee_kokkos_kernels.hpp"

namespace ppkit::fdtd {
namespace {

// Plane-wave consistency corrections of one component (plane_wave.hpp):
// field[node] += w0 row[slot0] + w1 row[slot1], no node twice in a list.
template <class Exec>
void apply_tfsf(float* field, const index_t* node, const float* w0, const float* w1,
                const std::int32_t* s0, const std::int32_t* s1, const float* row, index_t count) {
  Kokkos::parallel_for(
      "fdtd tfsf correction", Kokkos::RangePolicy<Exec>(0, count),
      KOKKOS_LAMBDA(index_t q) { field[node[q]] += w0[q] * row[s0[q]] + w1[q] * row[s1[q]]; });
}

// Copies one plane of a field into plane[ib * na + ia] (snapshots.hpp).
template <class Exec>
void extract_plane(const float* field, float* plane, index_t na, index_t nb, int normal,
                   index_t index, index_t stride_x, index_t stride_y) {
  Kokkos::parallel_for(
      "fdtd snapshot plane", Kokkos::RangePolicy<Exec>(0, na * nb), KOKKOS_LAMBDA(index_t q) {
        const index_t ia = q % na, ib = q / na;
        const index_t i = normal == 0 ? index : ia;
        const index_t j = normal == 1 ? index : normal == 0 ? ia : ib;
        const index_t k = normal == 2 ? index : ib;
        plane[q] = field[i * stride_x + j * stride_y + k];
      });
}

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
    // Plane wave: corrections per component and the incident table.
    const TfsfCorrections& t = setup_.tfsf;
    if (t.row > 0) incident_ = upload("incident", t.incident);
    for (int c = 0; c < 6; ++c) {
      tfsf_count_[c] = index_t(t.node[std::size_t(c)].size());
      if (tfsf_count_[c] == 0) continue;
      tfsf_node_[c] = upload("tfsf node", t.node[std::size_t(c)]);
      tfsf_w0_[c] = upload("tfsf weight", t.weight0[std::size_t(c)]);
      tfsf_w1_[c] = upload("tfsf weight", t.weight1[std::size_t(c)]);
      tfsf_s0_[c] = upload("tfsf slot", t.slot0[std::size_t(c)]);
      tfsf_s1_[c] = upload("tfsf slot", t.slot1[std::size_t(c)]);
    }
    // Near-to-far-field surface samples and DFT accumulators.
    const NtffSurface& surface = setup_.ntff;
    if (surface.size() > 0) {
      for (int c = 0; c < 6; ++c) ntff_.field[c] = fields_[c].data();
      ntff_.component = upload("ntff component", surface.component).data();
      ntff_.current = upload("ntff current", surface.current).data();
      ntff_.magnetic = upload("ntff magnetic", surface.magnetic).data();
      ntff_.node_a = upload("ntff node", surface.node_a).data();
      ntff_.node_b = upload("ntff node", surface.node_b).data();
      ntff_.weight = upload("ntff weight", surface.weight).data();
      ntff_.x = upload("ntff x", surface.x).data();
      ntff_.y = upload("ntff y", surface.y).data();
      ntff_.z = upload("ntff z", surface.z).data();
      ntff_.samples = std::int64_t(surface.size());
      ntff_.frequencies = std::int64_t(p.far_field[0].frequencies.size());
      ntff_dft_ = View<double>("ntff dft", std::size_t(2 * ntff_.samples * ntff_.frequencies));
      ntff_.re = ntff_dft_.data();
      ntff_.im = ntff_dft_.data() + ntff_.samples * ntff_.frequencies;
      ntff_factors_ = upload("ntff factors", setup_.ntff_factors);
    }
    for (const auto& snap : p.snapshots) {
      const auto size = plane_size(g, snap.normal);
      planes_.push_back(View<float>("snapshot plane", std::size_t(size[0] * size[1])));
    }
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
    frames_.clear();
    radiation_.clear();
    if (ntff_.samples > 0) Kokkos::deep_copy(Exec(), ntff_dft_, 0.0);
    std::size_t next_energy = 0, next_frame = 0;
    if (phasors_) phasors_->reset(PhasorSet{});
    float* fields[6] = {args_.ex, args_.ey, args_.ez, args_.hx, args_.hy, args_.hz};
    for (std::int64_t step = 0; step < problem_.steps; ++step) {
      update_h<Exec>(args_, whole_grid(args_));
      if (incident_.size() > 0) tfsf(fields, 3, step);
      periodic_copy<Exec>(args_, whole_grid(args_), false);
      update_e<Exec>(args_, whole_grid(args_));
      if (incident_.size() > 0) tfsf(fields, 0, step);
      apply_sources<Exec>(args_, io_, step);
      periodic_copy<Exec>(args_, whole_grid(args_), true);
      record_probes<Exec>(args_, io_, step);
      if (phasors_) phasors_->accumulate(phasor_sample_after(problem_, step));
      for (; next_frame < setup_.snapshot_schedule.size() &&
             setup_.snapshot_schedule[next_frame].first == step;
           ++next_frame)
        take_frame(fields, setup_.snapshot_schedule[next_frame].second, step);
      if (ntff_.samples > 0)
        ntff_accumulate<Exec>(ntff_, ntff_factors_.data() + step * ntff_.frequencies * 4);
      if (next_energy < setup_.energy_steps.size() && setup_.energy_steps[next_energy] == step) {
        energy_.push_back(field_energy<Exec>(args_, whole_grid(args_)) * setup_.cell_volume);
        ++next_energy;
      }
    }
    // Far field: one parallel_reduce per (frequency, direction).
    if (ntff_.samples > 0)
      for (std::int64_t f = 0; f < ntff_.frequencies; ++f)
        for (std::size_t d = 0; d < problem_.far_field[0].directions.size(); ++d)
          radiation_.push_back(ntff_radiation<Exec>(
              ntff_, f, ntff_direction(problem_.far_field[0], std::size_t(f), d)));
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
    r.frames = frames_;
    r.radiation = radiation_;
    return r;
  }

 private:
  // Corrections of the three E (first = 0) or H (first = 3) components after their update.
  void tfsf(float* const* fields, int first, std::int64_t step) {
    const float* row = incident_.data() + step * setup_.tfsf.row;
    for (int c = first; c < first + 3; ++c)
      if (tfsf_count_[c] > 0)
        apply_tfsf<Exec>(fields[c], tfsf_node_[c].data(), tfsf_w0_[c].data(), tfsf_w1_[c].data(),
                         tfsf_s0_[c].data(), tfsf_s1_[c].data(), row, tfsf_count_[c]);
  }

  // Copies a snapshot plane back (the solver runs in chunks between frames).
  void take_frame(float* const* fields, int snapshot, std::int64_t step) {
    const PlaneSnapshot& s = problem_.snapshots[std::size_t(snapshot)];
    const YeeGrid& g = problem_.grid;
    const auto size = plane_size(g, s.normal);
    View<float>& plane = planes_[std::size_t(snapshot)];
    extract_plane<Exec>(fields[int(s.component)], plane.data(), size[0], size[1], s.normal, s.index,
                        g.stride_x(), g.stride_y());
    frames_.push_back({snapshot, step, download(plane)});
  }

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
  View<float> fields_[6], initial_[6], psi_[12], probe_values_, incident_;
  View<index_t> tfsf_node_[6];
  View<float> tfsf_w0_[6], tfsf_w1_[6];
  View<std::int32_t> tfsf_s0_[6], tfsf_s1_[6];
  index_t tfsf_count_[6] = {0, 0, 0, 0, 0, 0};
  std::vector<View<float>> planes_;
  std::vector<SnapshotFrame> frames_;
  NtffDeviceArgs ntff_{};
  View<double> ntff_dft_;
  View<float> ntff_factors_;
  std::vector<RadiationVectors> radiation_;
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
