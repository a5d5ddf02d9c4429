// The checkpointable fdtd.step run on a Kokkos execution space: the kernels of
// yee_kokkos_kernels.hpp (the same as kokkos-<space>/plain, so a run with
// checkpoints gives the plain variant's results bit for bit), advanced in
// chunks, with the whole state downloadable and restorable, and a device-side
// health check (first non-finite or blown-up field value) after every chunk.
#include <Kokkos_Core.hpp>
#include <cmath>

#include "ppkit/core/error.hpp"
#include "ppkit/core/kokkos_spaces.hpp"
#include "ppkit/core/memory_check.hpp"
#include "ppkit/fdtd/fdtd_run.hpp"
#include "ppkit/fdtd/yee_kernel_args.hpp"
#include "ppkit/fdtd/yee_kokkos_kernels.hpp"

namespace ppkit::fdtd {
namespace {

// Smallest 6 * node + component whose value is non-finite or above the bound;
// -1 when every value is healthy.
template <class Exec>
std::int64_t first_faulty_value(const YeeKernelArgs a, float bound) {
  const std::int64_t nodes = (a.nx + 1) * (a.ny + 1) * (a.nz + 1);
  std::int64_t first = 0;
  const std::int64_t none = 6 * nodes;
  Kokkos::parallel_reduce(
      "fdtd.health", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, nodes),
      KOKKOS_LAMBDA(std::int64_t n, std::int64_t & acc) {
        const float* fields[6] = {a.ex, a.ey, a.ez, a.hx, a.hy, a.hz};
        for (int c = 0; c < 6; ++c) {
          const float v = fields[c][n];
          // NaN fails every comparison, so !(|v| <= bound) catches NaN, inf and blow-up.
          if (!(v <= bound && v >= -bound)) {
            if (6 * n + c < acc) acc = 6 * n + c;
            break;
          }
        }
      },
      Kokkos::Min<std::int64_t>(first));
  // Kokkos::Min starts from the largest int64; nothing found leaves it there.
  return first >= none ? -1 : first;
}

template <class Exec>
class KokkosStepper final : public Stepper {
  using Mem = typename Exec::memory_space;
  using View = Kokkos::View<float*, Mem>;

  template <class T>
  T* upload(const std::vector<T>& host) {
    Kokkos::View<T*, Mem> v("fdtd run input", host.size());
    Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(
        host.data(), host.size());
    Kokkos::deep_copy(v, h);
    keepalive_.push_back(std::make_shared<Kokkos::View<T*, Mem>>(v));
    return v.data();
  }
  static std::vector<float> download(const View& v) {
    std::vector<float> out(v.extent(0));
    Kokkos::View<float*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(out.data(),
                                                                                       out.size());
    Kokkos::deep_copy(h, v);
    return out;
  }
  static void upload_into(const View& v, const std::vector<float>& host, const char* what) {
    require(host.size() == v.extent(0),
            std::string("state array ") + what + " has " + std::to_string(host.size()) + " entries",
            std::to_string(v.extent(0)) + " for this problem");
    Kokkos::View<const float*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(
        host.data(), host.size());
    Kokkos::deep_copy(v, h);
  }

 public:
  explicit KokkosStepper(const FdtdStep::Problem& p) : problem_(p), setup_(make_step_setup(p)) {
    const YeeGrid& g = p.grid;
    const std::size_t nodes = std::size_t(g.nodes());
    args_.nx = g.nx;
    args_.ny = g.ny;
    args_.nz = g.nz;
    args_.layers = 2 * setup_.cpml.thickness;
    float** fields[6] = {&args_.ex, &args_.ey, &args_.ez, &args_.hx, &args_.hy, &args_.hz};
    for (int c = 0; c < 6; ++c) {
      fields_[c] = View(std::string("field ") + to_string(Component(c)), nodes);
      *fields[c] = fields_[c].data();
      if (!p.initial[c].empty()) upload_into(fields_[c], p.initial[c], to_string(Component(c)));
    }
    args_.material_id = upload(setup_.material_id);
    args_.material_table = upload(setup_.material_table);
    for (int d = 0; d < 3; ++d) {
      const CpmlAxis& ax = setup_.cpml.axis[d];
      CpmlAxisArgs& aa = args_.axis[d];
      aa.e_inv_kd = upload(ax.e_inv_kd);
      aa.e_b = upload(ax.e_b);
      aa.e_c_d = upload(ax.e_c_d);
      aa.h_inv_kd = upload(ax.h_inv_kd);
      aa.h_b = upload(ax.h_b);
      aa.h_c_d = upload(ax.h_c_d);
      aa.e_slot = upload(ax.e_slot);
      aa.h_slot = upload(ax.h_slot);
    }
    const std::size_t layers = std::size_t(args_.layers);
    const std::size_t px = layers * std::size_t((g.ny + 1) * (g.nz + 1));
    const std::size_t py = layers * std::size_t((g.nx + 1) * (g.nz + 1));
    const std::size_t pz = layers * std::size_t((g.nx + 1) * (g.ny + 1));
    float** psi[12] = {&args_.psi_eyx, &args_.psi_ezx, &args_.psi_hyx, &args_.psi_hzx,
                       &args_.psi_exy, &args_.psi_ezy, &args_.psi_hxy, &args_.psi_hzy,
                       &args_.psi_exz, &args_.psi_eyz, &args_.psi_hxz, &args_.psi_hyz};
    for (int q = 0; q < 12; ++q) {
      psi_[q] = View(std::string(psi_name(q)), q < 4 ? px : q < 8 ? py : pz);  // zero-initialised
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
    io_.source_index = upload(setup_.source_index);
    io_.source_component = upload(component);
    io_.source_hard = upload(hard);
    io_.source_values = upload(setup_.source_values);
    io_.probe_index = upload(setup_.probe_index);
    io_.probe_component = upload(probe_component);
    probe_values_ = View("probe values", std::size_t(io_.n_probes * p.steps));
    io_.probe_values = probe_values_.data();
    Exec().fence();
  }

  void advance(std::int64_t steps) override {
    const std::int64_t end = std::min(problem_.steps, step_ + std::max<std::int64_t>(0, steps));
    for (; step_ < end; ++step_) {
      update_h<Exec>(args_, whole_grid(args_));
      update_e<Exec>(args_, whole_grid(args_));
      apply_sources_and_probes<Exec>(args_, io_, step_);
      if (energy_.size() < setup_.energy_steps.size() &&
          setup_.energy_steps[energy_.size()] == step_)
        energy_.push_back(field_energy<Exec>(args_, whole_grid(args_)) * setup_.cell_volume);
    }
    Exec().fence();
    const std::int64_t bad = first_faulty_value<Exec>(args_, blow_up_bound);
    if (bad >= 0) {
      FieldFault f;
      f.found = true;
      f.component = Component(int(bad % 6));
      f.node = bad / 6;
      auto one = Kokkos::subview(fields_[bad % 6], std::make_pair(f.node, f.node + 1));
      auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), one);
      f.value = host(0);
      throw_if_faulty(problem_, step_, f);
    }
  }

  std::int64_t step() const override { return step_; }

  RunState state() override {
    RunState s;
    s.step = step_;
    for (int c = 0; c < 6; ++c) s.fields[c] = download(fields_[c]);
    for (int q = 0; q < 12; ++q) s.psi[q] = download(psi_[q]);
    s.probe_values = download(probe_values_);
    s.energy = energy_;
    return s;
  }

  void restore(const RunState& s) override {
    require(s.step >= 0 && s.step <= problem_.steps,
            "restart step " + std::to_string(s.step) + " is outside this run",
            "0.." + std::to_string(problem_.steps));
    require(s.energy.size() <= setup_.energy_steps.size(),
            "restart state has " + std::to_string(s.energy.size()) + " energies",
            "at most " + std::to_string(setup_.energy_steps.size()));
    for (int c = 0; c < 6; ++c) upload_into(fields_[c], s.fields[c], to_string(Component(c)));
    for (int q = 0; q < 12; ++q) upload_into(psi_[q], s.psi[q], psi_name(q));
    upload_into(probe_values_, s.probe_values, "probe_values");
    energy_ = s.energy;
    step_ = s.step;
    Exec().fence();
  }

  FdtdStep::Result result() override {
    FdtdStep::Result r;
    for (int c = 0; c < 6; ++c) r.fields[c] = download(fields_[c]);
    r.probe_values = download(probe_values_);
    set_result_records(r, setup_, energy_);
    return r;
  }

 private:
  FdtdStep::Problem problem_;
  StepSetup setup_;
  YeeKernelArgs args_{};
  SourceProbeArgs io_{};
  View fields_[6], psi_[12], probe_values_;
  std::vector<std::shared_ptr<void>> keepalive_;
  std::vector<double> energy_;
  std::int64_t step_ = 0;
};

}  // namespace

std::string stepper_variant_name(const std::string& variant) {
  if (variant != "auto") {
    const auto& v = Registry<FdtdStep>::find(variant);
    require(v.model == ProgrammingModel::kokkos,
            "variant '" + v.name + "' cannot checkpoint or restart",
            "a kokkos-* variant of fdtd.step (their kernels run the checkpointed steps)");
    return v.name;
  }
  // auto: the preferred available Kokkos variant.
  const Variant<FdtdStep>* best = nullptr;
  for (const auto& name : Registry<FdtdStep>::names()) {
    const auto& c = Registry<FdtdStep>::find(name);
    if (c.model == ProgrammingModel::kokkos && c.availability().available &&
        (!best || best->preference < c.preference))
      best = &c;
  }
  require(best != nullptr, "no kokkos-* variant of fdtd.step is available", "a build with Kokkos");
  return best->name;
}

std::unique_ptr<Stepper> make_stepper(const std::string& variant,
                                      const FdtdStep::Problem& problem) {
  require(problem.precision == Precision::fp32,
          "checkpointed runs (--checkpoint, --restart) are fp32 only",
          "precision fp32, or fp64 without --checkpoint/--restart");
  const auto& v = Registry<FdtdStep>::find_available(stepper_variant_name(variant));
  memory::check_fits<FdtdStep>(v.name, v.backend, v.memory, problem);
  std::unique_ptr<Stepper> stepper;
  for_each_kokkos_space([&](auto space) {
    using Exec = typename decltype(space)::execution_space;
    if (!stepper && v.backend == space.backend)
      stepper = std::make_unique<KokkosStepper<Exec>>(problem);
  });
  require(stepper != nullptr, "no Kokkos space for variant '" + v.name + "'");
  return stepper;
}

}  // namespace ppkit::fdtd
