// kokkos-<space>/plain: fdtd.step with one Kokkos::parallel_for per half step
// (every node updates its three components) and Kokkos::parallel_reduce for the
// total field energy. The kernels see a YeeKernelArgs of raw View pointers.
#include <Kokkos_Core.hpp>

#include "ppkit/core/kokkos_spaces.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/yee_kernel_args.hpp"

namespace ppkit::fdtd {
namespace {

// One CPML-aware derivative term: d / (kappa du) + psi (psi updated first).
KOKKOS_INLINE_FUNCTION float cpml_term(float d, float inv_kd, std::int32_t slot, float b, float c_d,
                                       float* psi, std::int64_t q) {
  if (slot < 0) return d * inv_kd;
  const float updated = b * psi[q] + c_d * d;
  psi[q] = updated;
  return d * inv_kd + updated;
}

template <class Exec>
using NodePolicy = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3, Kokkos::Iterate::Right, Kokkos::Iterate::Right>,
                                         Kokkos::IndexType<std::int64_t>>;

// H^{n+1/2} = H^{n-1/2} - dh curl E^n (Taflove eq. 3.18 with CPML).
template <class Exec>
void update_h(const YeeKernelArgs a) {
  Kokkos::parallel_for(
      "fdtd.update_h", NodePolicy<Exec>({0, 0, 0}, {a.nx + 1, a.ny + 1, a.nz + 1}),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t j, std::int64_t k) {
        const std::int64_t sy = a.nz + 1, sx = (a.ny + 1) * sy, n = i * sx + j * sy + k;
        const float dh = a.material_table[a.material_id[n] * material_stride + coef_dh];
        const CpmlAxisArgs &X = a.axis[0], &Y = a.axis[1], &Z = a.axis[2];
        const std::int64_t qx = (std::int64_t(X.h_slot[i]) * (a.ny + 1) + j) * sy + k;
        const std::int64_t qy = (i * a.layers + Y.h_slot[j]) * sy + k;
        const std::int64_t qz = (i * (a.ny + 1) + j) * a.layers + Z.h_slot[k];
        if (j < a.ny && k < a.nz) {
          const float dez = a.ez[n + sy] - a.ez[n], dey = a.ey[n + 1] - a.ey[n];
          const float curl = cpml_term(dez, Y.h_inv_kd[j], Y.h_slot[j], Y.h_b[j], Y.h_c_d[j], a.psi_hxy, qy) -
                             cpml_term(dey, Z.h_inv_kd[k], Z.h_slot[k], Z.h_b[k], Z.h_c_d[k], a.psi_hxz, qz);
          a.hx[n] -= dh * curl;
        }
        if (i < a.nx && k < a.nz) {
          const float dex = a.ex[n + 1] - a.ex[n], dez = a.ez[n + sx] - a.ez[n];
          const float curl = cpml_term(dex, Z.h_inv_kd[k], Z.h_slot[k], Z.h_b[k], Z.h_c_d[k], a.psi_hyz, qz) -
                             cpml_term(dez, X.h_inv_kd[i], X.h_slot[i], X.h_b[i], X.h_c_d[i], a.psi_hyx, qx);
          a.hy[n] -= dh * curl;
        }
        if (i < a.nx && j < a.ny) {
          const float dey = a.ey[n + sx] - a.ey[n], dex = a.ex[n + sy] - a.ex[n];
          const float curl = cpml_term(dey, X.h_inv_kd[i], X.h_slot[i], X.h_b[i], X.h_c_d[i], a.psi_hzx, qx) -
                             cpml_term(dex, Y.h_inv_kd[j], Y.h_slot[j], Y.h_b[j], Y.h_c_d[j], a.psi_hzy, qy);
          a.hz[n] -= dh * curl;
        }
      });
}

// E^{n+1} = ca E^n + cb curl H^{n+1/2} (Taflove eq. 3.19 with CPML); tangential
// E on the six PEC faces is not updated.
template <class Exec>
void update_e(const YeeKernelArgs a) {
  Kokkos::parallel_for(
      "fdtd.update_e", NodePolicy<Exec>({0, 0, 0}, {a.nx + 1, a.ny + 1, a.nz + 1}),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t j, std::int64_t k) {
        const std::int64_t sy = a.nz + 1, sx = (a.ny + 1) * sy, n = i * sx + j * sy + k;
        const float* coef = a.material_table + a.material_id[n] * material_stride;
        const float ca = coef[coef_ca], cb = coef[coef_cb];
        const CpmlAxisArgs &X = a.axis[0], &Y = a.axis[1], &Z = a.axis[2];
        const std::int64_t qx = (std::int64_t(X.e_slot[i]) * (a.ny + 1) + j) * sy + k;
        const std::int64_t qy = (i * a.layers + Y.e_slot[j]) * sy + k;
        const std::int64_t qz = (i * (a.ny + 1) + j) * a.layers + Z.e_slot[k];
        const bool inner_x = i >= 1 && i < a.nx, inner_y = j >= 1 && j < a.ny, inner_z = k >= 1 && k < a.nz;
        if (i < a.nx && inner_y && inner_z) {
          const float dhz = a.hz[n] - a.hz[n - sy], dhy = a.hy[n] - a.hy[n - 1];
          const float curl = cpml_term(dhz, Y.e_inv_kd[j], Y.e_slot[j], Y.e_b[j], Y.e_c_d[j], a.psi_exy, qy) -
                             cpml_term(dhy, Z.e_inv_kd[k], Z.e_slot[k], Z.e_b[k], Z.e_c_d[k], a.psi_exz, qz);
          a.ex[n] = ca * a.ex[n] + cb * curl;
        }
        if (inner_x && j < a.ny && inner_z) {
          const float dhx = a.hx[n] - a.hx[n - 1], dhz = a.hz[n] - a.hz[n - sx];
          const float curl = cpml_term(dhx, Z.e_inv_kd[k], Z.e_slot[k], Z.e_b[k], Z.e_c_d[k], a.psi_eyz, qz) -
                             cpml_term(dhz, X.e_inv_kd[i], X.e_slot[i], X.e_b[i], X.e_c_d[i], a.psi_eyx, qx);
          a.ey[n] = ca * a.ey[n] + cb * curl;
        }
        if (inner_x && inner_y && k < a.nz) {
          const float dhy = a.hy[n] - a.hy[n - sx], dhx = a.hx[n] - a.hx[n - sy];
          const float curl = cpml_term(dhy, X.e_inv_kd[i], X.e_slot[i], X.e_b[i], X.e_c_d[i], a.psi_ezx, qx) -
                             cpml_term(dhx, Y.e_inv_kd[j], Y.e_slot[j], Y.e_b[j], Y.e_c_d[j], a.psi_ezy, qy);
          a.ez[n] = ca * a.ez[n] + cb * curl;
        }
      });
}

template <class Exec>
void apply_sources_and_probes(const YeeKernelArgs a, const SourceProbeArgs s, std::int64_t step) {
  if (s.n_sources > 0)
    Kokkos::parallel_for(
        "fdtd.sources", Kokkos::RangePolicy<Exec>(0, 1), KOKKOS_LAMBDA(int) {
          // Serial over sources: two sources on one node must both apply.
          for (std::int64_t q = 0; q < s.n_sources; ++q) {
            float* e = s.source_component[q] == 0 ? a.ex : s.source_component[q] == 1 ? a.ey : a.ez;
            const float value = s.source_values[q * s.steps + step];
            e[s.source_index[q]] = s.source_hard[q] ? value : e[s.source_index[q]] + value;
          }
        });
  if (s.n_probes > 0)
    Kokkos::parallel_for(
        "fdtd.probes", Kokkos::RangePolicy<Exec>(0, s.n_probes), KOKKOS_LAMBDA(std::int64_t q) {
          const float* fields[6] = {a.ex, a.ey, a.ez, a.hx, a.hy, a.hz};
          s.probe_values[q * s.steps + step] = fields[s.probe_component[q]][s.probe_index[q]];
        });
}

// 1/2 sum (eps |E|^2 + mu |H|^2) over the nodes (times dV by the caller).
template <class Exec>
double field_energy(const YeeKernelArgs a) {
  double sum = 0;
  const std::int64_t nodes = (a.nx + 1) * (a.ny + 1) * (a.nz + 1);
  Kokkos::parallel_reduce(
      "fdtd.energy", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, nodes),
      KOKKOS_LAMBDA(std::int64_t n, double& acc) {
        const float* coef = a.material_table + a.material_id[n] * material_stride;
        const float e2 = a.ex[n] * a.ex[n] + a.ey[n] * a.ey[n] + a.ez[n] * a.ez[n];
        const float h2 = a.hx[n] * a.hx[n] + a.hy[n] * a.hy[n] + a.hz[n] * a.hz[n];
        acc += 0.5 * (double(coef[coef_eps]) * e2 + double(coef[coef_mu]) * h2);
      },
      sum);
  return sum;
}

template <class Exec>
class KokkosPlainStep final : public PreparedRun<FdtdStep::Result> {
  using Mem = typename Exec::memory_space;
  template <class T>
  using View = Kokkos::View<T*, Mem>;

  template <class T>
  View<T> upload(const std::string& label, const std::vector<T>& host) {
    View<T> v(label, host.size());
    Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(host.data(), host.size());
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
    float** fields[6] = {&args_.ex, &args_.ey, &args_.ez, &args_.hx, &args_.hy, &args_.hz};
    for (int c = 0; c < 6; ++c) {
      fields_[c] = View<float>(std::string("field ") + to_string(Component(c)), nodes);
      *fields[c] = fields_[c].data();
      if (!p.initial[c].empty()) initial_[c] = upload(std::string("initial ") + to_string(Component(c)), p.initial[c]);
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
    std::vector<std::int32_t> component(setup_.source_component.begin(), setup_.source_component.end());
    std::vector<std::int32_t> hard(setup_.source_hard.begin(), setup_.source_hard.end());
    std::vector<std::int32_t> probe_component(setup_.probe_component.begin(), setup_.probe_component.end());
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
    Exec().fence();
  }

  // Starts from the problem's initial state each time, so repeated runs agree.
  void run() override {
    for (int c = 0; c < 6; ++c) {
      if (problem_.initial[c].empty()) Kokkos::deep_copy(Exec(), fields_[c], 0.0f);
      else Kokkos::deep_copy(Exec(), fields_[c], initial_[c]);
    }
    for (auto& v : psi_) Kokkos::deep_copy(Exec(), v, 0.0f);
    energy_.clear();
    std::size_t next_energy = 0;
    for (std::int64_t step = 0; step < problem_.steps; ++step) {
      update_h<Exec>(args_);
      update_e<Exec>(args_);
      apply_sources_and_probes<Exec>(args_, io_, step);
      if (next_energy < setup_.energy_steps.size() && setup_.energy_steps[next_energy] == step) {
        energy_.push_back(field_energy<Exec>(args_) * setup_.cell_volume);
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
    if (r.energy.size() != r.energy_steps.size()) r.energy.assign(r.energy_steps.size(), std::nan(""));
    return r;
  }

 private:
  template <class T>
  static std::vector<T> download(const View<T>& v) {
    std::vector<T> out(v.extent(0));
    Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(out.data(), out.size());
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
