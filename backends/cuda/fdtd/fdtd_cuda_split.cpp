// cuda/split-x1, cuda/split-x2, cuda/split-x4: host glue of the interior/shell
// split CUDA fdtd.step (fdtd_cuda_split.cu); the suffix is the number of
// x-planes per thread in the interior kernels. cuda/wavefront: the same
// buffers, one fused H+E launch per step (fdtd_cuda_wavefront.cu). Fields
// are stored with the z pitch rounded up to 32 nodes (rows 128-byte aligned,
// padding kept zero), material ids narrowed to 1, 2 or 4 bytes (none for a
// single material).
// Problem features: cuda/split-x* run all of them (plane-wave corrections and
// periodic copies between their H and E launches, phasors, snapshots and the
// far-field DFT after each step, all at pitched node indices). The wavefront
// variants fuse H and E into one launch, so nothing can run between the two
// half steps: they refuse plane waves and periodic boundaries at prepare time.
#include <algorithm>
#include <cmath>
#include <memory>

#include "backends/cuda/core/cuda_device.hpp"
#include "backends/cuda/fdtd/fdtd_cuda_upload.hpp"
#include "backends/cuda/fdtd/fdtd_cuda_corrections.hpp"
#include "backends/cuda/fdtd/fdtd_cuda_kernels.hpp"
#include "backends/cuda/fdtd/fdtd_cuda_split_kernels.hpp"
#include "backends/cuda/fdtd/phasor_cuda.hpp"
#include "backends/cuda/fdtd/phasor_cuda_kernels.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/step_features.hpp"

namespace ppkit::fdtd {
namespace {

using cuda::DeviceBuffer;

using cuda_upload::device_copy;

constexpr index_t row_alignment = 32;  // nodes: 128 bytes of fp32

class CudaSplitStep final : public PreparedRun<FdtdStep::Result> {
 public:
  // planes_per_thread 0: cuda/wavefront, -1: cuda/wavefront-l1.
  CudaSplitStep(const FdtdStep::Problem& p, int planes_per_thread)
      : problem_(p), setup_(make_step_setup(p)), planes_(planes_per_thread) {
    if (planes_per_thread <= 0) {
      const std::string name = planes_per_thread == 0 ? "cuda/wavefront" : "cuda/wavefront-l1";
      require(p.plane_waves.empty() || step_variant_supports(name, StepFeature::plane_wave),
              name +
                  " cannot run a plane wave: its fused H+E launch leaves no point for the "
                  "TF/SF corrections between the half steps",
              variants_with_every_step_feature());
      require(
          (!p.periodic[0] && !p.periodic[1]) || step_variant_supports(name, StepFeature::periodic),
          name +
              " cannot run periodic boundaries: its fused H+E launch leaves no point for "
              "the periodic H copy between the half steps",
          variants_with_every_step_feature());
    }
    const YeeGrid& g = p.grid;
    YeeKernelArgs& a = step_.a;
    a.nx = g.nx;
    a.ny = g.ny;
    a.nz = g.nz;
    a.layers = 2 * setup_.cpml.thickness;
    a.periodic_x = p.periodic[0] ? 1 : 0;
    a.periodic_y = p.periodic[1] ? 1 : 0;
    pz_ = (g.nz + 1 + row_alignment - 1) / row_alignment * row_alignment;
    step_.sy = pz_;
    rows_ = std::size_t((g.nx + 1) * (g.ny + 1));
    const std::size_t nodes = rows_ * std::size_t(pz_);
    float** fields[6] = {&a.ex, &a.ey, &a.ez, &a.hx, &a.hy, &a.hz};
    for (int c = 0; c < 6; ++c) {
      fields_[c] = DeviceBuffer<float>(nodes);
      fields_[c].fill_bytes(0xFF);  // poison
      *fields[c] = fields_[c].data();
      if (!p.initial[c].empty()) initial_[c] = DeviceBuffer<float>(pitched(p.initial[c], 0.0f));
    }
    // Narrowest id type that holds every material; none for one material.
    const std::size_t materials = p.materials.size();
    step_.materials = int(std::min<std::size_t>(materials, 1u << 30));
    if (materials == 1) {
      step_.ids = nullptr;
      step_.id_bytes = 0;
    } else if (materials <= 256) {
      ids8_ = DeviceBuffer<std::uint8_t>(
          pitched(std::vector<std::uint8_t>(setup_.material_id.begin(), setup_.material_id.end()),
                  std::uint8_t(0)));
      step_.ids = ids8_.data();
      step_.id_bytes = 1;
    } else if (materials <= 65536) {
      ids16_ = DeviceBuffer<std::uint16_t>(
          pitched(std::vector<std::uint16_t>(setup_.material_id.begin(), setup_.material_id.end()),
                  std::uint16_t(0)));
      step_.ids = ids16_.data();
      step_.id_bytes = 2;
    } else {
      ids32_ = DeviceBuffer<std::uint32_t>(pitched(setup_.material_id, 0u));
      step_.ids = ids32_.data();
      step_.id_bytes = 4;
    }
    a.material_id = nullptr;  // the kernels read step_.ids
    const float* t0 = setup_.material_table.data();
    step_.ca0 = t0[coef_ca];
    step_.cb0 = t0[coef_cb];
    step_.dh0 = t0[coef_dh];
    step_.eps0 = t0[coef_eps];
    step_.mu0 = t0[coef_mu];
    table_ = device_copy(setup_.material_table);
    a.material_table = table_.data();
    cpml_buffers_.upload(setup_.cpml, a.axis);
    // psi along x and y use the pitched rows, along z (ny + 1) rows of `layers` per plane.
    const std::size_t layers = std::size_t(a.layers);
    const std::size_t sizes[3] = {layers * std::size_t(g.ny + 1) * std::size_t(pz_),
                                  std::size_t(g.nx + 1) * layers * std::size_t(pz_),
                                  rows_ * layers};
    float** psi[12] = {&a.psi_eyx, &a.psi_ezx, &a.psi_hyx, &a.psi_hzx, &a.psi_exy, &a.psi_ezy,
                       &a.psi_hxy, &a.psi_hzy, &a.psi_exz, &a.psi_eyz, &a.psi_hxz, &a.psi_hyz};
    for (int q = 0; q < 12; ++q) {
      psi_[q] = DeviceBuffer<float>(std::max<std::size_t>(1, sizes[q / 4]));
      *psi[q] = psi_[q].data();
    }
    // Interior boxes (CPML-free, 1/du from the profiles outside the layers) and shells.
    cuda_split::HalfStep* halves[2] = {&step_.h, &step_.e};
    for (int half = 0; half < 2; ++half) {
      const bool electric = half == 1;
      split::Interior& in = halves[half]->interior;
      in.box = split::interior_box(a, electric);
      for (int d = 0; d < 3; ++d) {
        const CpmlAxis& ax = setup_.cpml.axis[d];
        in.inv_d[d] = (electric ? ax.e_inv_kd : ax.h_inv_kd)[std::size_t(in.box.lo[d])];
      }
      halves[half]->shell = split::shell_around(a, in.box);
    }

    // Sources and probes at their pitched node indices.
    std::vector<std::int64_t> source_index, probe_index;
    for (auto node : setup_.source_index) source_index.push_back(pitched_index(node));
    for (auto node : setup_.probe_index) probe_index.push_back(pitched_index(node));
    io_.n_sources = std::int64_t(p.sources.size());
    io_.n_probes = std::int64_t(p.probes.size());
    io_.steps = p.steps;
    source_index_ = device_copy(source_index);
    source_component_ = device_copy(
        std::vector<std::int32_t>(setup_.source_component.begin(), setup_.source_component.end()));
    source_hard_ = device_copy(
        std::vector<std::int32_t>(setup_.source_hard.begin(), setup_.source_hard.end()));
    source_values_ = device_copy(setup_.source_values);
    probe_index_ = device_copy(probe_index);
    probe_component_ = device_copy(
        std::vector<std::int32_t>(setup_.probe_component.begin(), setup_.probe_component.end()));
    probe_values_ =
        DeviceBuffer<float>(std::max<std::size_t>(1, p.probes.size() * std::size_t(p.steps)));
    probe_values_.fill_bytes(0xFF);  // poison
    io_.source_index = source_index_.data();
    io_.source_component = source_component_.data();
    io_.source_hard = source_hard_.data();
    io_.source_values = source_values_.data();
    io_.probe_index = probe_index_.data();
    io_.probe_component = probe_component_.data();
    io_.probe_values = probe_values_.data();
    energy_sum_ = DeviceBuffer<double>(1);
    if (planes_ <= 0)
      wave_counters_ = DeviceBuffer<int>(std::size_t(cuda_split::wavefront_counter_ints(step_)));
    // Plane wave: corrections per component (pitched nodes) and the incident table.
    const TfsfCorrections& t = setup_.tfsf;
    incident_ = device_copy(t.incident);
    for (int c = 0; c < 6; ++c) {
      tfsf_count_[c] = std::int64_t(t.node[std::size_t(c)].size());
      if (tfsf_count_[c] == 0) continue;
      std::vector<std::int64_t> pitched_nodes;
      for (auto node : t.node[std::size_t(c)]) pitched_nodes.push_back(pitched_index(node));
      tfsf_node_[c] = device_copy(pitched_nodes);
      tfsf_w0_[c] = device_copy(t.weight0[std::size_t(c)]);
      tfsf_w1_[c] = device_copy(t.weight1[std::size_t(c)]);
      tfsf_s0_[c] = device_copy(t.slot0[std::size_t(c)]);
      tfsf_s1_[c] = device_copy(t.slot1[std::size_t(c)]);
    }
    // Near-to-far-field surface samples (pitched nodes) and DFT accumulators.
    const NtffSurface& surface = setup_.ntff;
    if (surface.size() > 0) {
      for (int c = 0; c < 6; ++c) ntff_.field[c] = fields_[c].data();
      std::vector<std::int64_t> node_a, node_b;
      for (auto node : surface.node_a) node_a.push_back(pitched_index(node));
      for (auto node : surface.node_b) node_b.push_back(pitched_index(node));
      ntff_component_ = device_copy(surface.component);
      ntff_current_ = device_copy(surface.current);
      ntff_magnetic_ = device_copy(surface.magnetic);
      ntff_node_a_ = device_copy(node_a);
      ntff_node_b_ = device_copy(node_b);
      ntff_weight_ = device_copy(surface.weight);
      ntff_x_ = device_copy(surface.x);
      ntff_y_ = device_copy(surface.y);
      ntff_z_ = device_copy(surface.z);
      ntff_factors_ = device_copy(setup_.ntff_factors);
      ntff_.component = ntff_component_.data();
      ntff_.current = ntff_current_.data();
      ntff_.magnetic = ntff_magnetic_.data();
      ntff_.node_a = ntff_node_a_.data();
      ntff_.node_b = ntff_node_b_.data();
      ntff_.weight = ntff_weight_.data();
      ntff_.x = ntff_x_.data();
      ntff_.y = ntff_y_.data();
      ntff_.z = ntff_z_.data();
      ntff_.samples = std::int64_t(surface.size());
      ntff_.frequencies = std::int64_t(p.far_field[0].frequencies.size());
      ntff_dft_ = DeviceBuffer<double>(std::size_t(2 * ntff_.samples * ntff_.frequencies));
      ntff_.re = ntff_dft_.data();
      ntff_.im = ntff_dft_.data() + ntff_.samples * ntff_.frequencies;
      ntff_sums_ = DeviceBuffer<double>(8);
    }
    if (p.phasors.enabled()) {
      phasors_ = std::make_unique<CudaPhasors>(p.phasors, g, 0, setup_.phasor_samples);
      phasors_->set_fields({a.ex, a.ey, a.ez, a.hx, a.hy, a.hz}, pz_);
    }
    PPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }

  void run() override {
    for (int c = 0; c < 6; ++c) {
      if (problem_.initial[c].empty())
        fields_[c].fill_bytes(0);
      else
        PPKIT_CUDA_CHECK(cudaMemcpyAsync(fields_[c].data(), initial_[c].data(),
                                         fields_[c].size() * sizeof(float),
                                         cudaMemcpyDeviceToDevice));
    }
    for (auto& b : psi_) b.fill_bytes(0);
    energy_.clear();
    frames_.clear();
    radiation_.clear();
    if (ntff_.samples > 0) ntff_dft_.fill_bytes(0);
    std::size_t next_energy = 0, next_frame = 0;
    if (phasors_) phasors_->reset(PhasorSet{});
    const bool periodic = step_.a.periodic_x || step_.a.periodic_y;
    SourceProbeArgs sources_only = io_, probes_only = io_;
    sources_only.n_probes = 0;
    probes_only.n_sources = 0;
    for (std::int64_t step = 0; step < problem_.steps; ++step) {
      if (planes_ == 0) {
        cuda_split::wavefront_step(step_, wave_counters_.data());
      } else if (planes_ < 0) {
        cuda_split::wavefront_step_l1(step_, wave_counters_.data());
      } else {
        cuda_split::update_h(step_, planes_);
        if (setup_.tfsf.row > 0) tfsf(3, step);
        if (periodic) cuda_kernels::periodic_copy(step_.a, false, pz_);
        cuda_split::update_e(step_, planes_);
        if (setup_.tfsf.row > 0) tfsf(0, step);
      }
      if (periodic) {  // E of the periodic faces is copied after the sources, before the probes
        cuda_kernels::sources_and_probes(step_.a, sources_only, step);
        cuda_kernels::periodic_copy(step_.a, true, pz_);
        cuda_kernels::sources_and_probes(step_.a, probes_only, step);
      } else {
        cuda_kernels::sources_and_probes(step_.a, io_, step);
      }
      if (phasors_) phasors_->accumulate(phasor_sample_after(problem_, step));
      for (; next_frame < setup_.snapshot_schedule.size() &&
             setup_.snapshot_schedule[next_frame].first == step;
           ++next_frame)
        take_frame(setup_.snapshot_schedule[next_frame].second, step);
      if (ntff_.samples > 0)
        cuda_kernels::ntff_accumulate(ntff_, ntff_factors_.data() + step * ntff_.frequencies * 4);
      if (next_energy < setup_.energy_steps.size() && setup_.energy_steps[next_energy] == step) {
        cuda_split::field_energy(step_, energy_sum_.data());
        double sum = 0;
        PPKIT_CUDA_CHECK(
            cudaMemcpy(&sum, energy_sum_.data(), sizeof(double), cudaMemcpyDeviceToHost));
        energy_.push_back(sum * setup_.cell_volume);
        ++next_energy;
      }
    }
    if (ntff_.samples > 0) {
      const auto& far = problem_.far_field[0];
      for (std::int64_t f = 0; f < ntff_.frequencies; ++f)
        for (std::size_t d = 0; d < far.directions.size(); ++d) {
          const NtffDirection nd = ntff_direction(far, std::size_t(f), d);
          const double dir[9] = {nd.k[0],     nd.k[1],   nd.k[2],   nd.theta[0], nd.theta[1],
                                 nd.theta[2], nd.phi[0], nd.phi[1], nd.phi[2]};
          cuda_kernels::ntff_radiation(ntff_, f, dir, ntff_sums_.data());
          double s[8];
          PPKIT_CUDA_CHECK(cudaMemcpy(s, ntff_sums_.data(), sizeof s, cudaMemcpyDeviceToHost));
          radiation_.push_back({std::complex<double>(s[0], s[1]), std::complex<double>(s[2], s[3]),
                                std::complex<double>(s[4], s[5]),
                                std::complex<double>(s[6], s[7])});
        }
    }
    if (const char* error = cuda_split::last_launch_error())
      throw Error(std::string("CUDA launch of the fdtd.step split kernels failed: ") + error);
    if (const char* error = cuda_kernels::phasor_launch_error())
      throw Error(std::string("CUDA launch of the fdtd.step feature kernels failed: ") + error);
    PPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }

  FdtdStep::Result result() override {
    FdtdStep::Result r;
    for (int c = 0; c < 6; ++c) r.fields[c] = unpitched(fields_[c].download());
    r.probe_values = probe_values_.download();
    r.probe_values.resize(problem_.probes.size() * std::size_t(problem_.steps));
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
  index_t pitched_index(index_t node) const {
    const index_t len = problem_.grid.nz + 1;
    return node / len * pz_ + node % len;
  }

  // Plane-wave corrections of the E (first = 0) or H (first = 3) components.
  void tfsf(int first, std::int64_t step) {
    const YeeKernelArgs& a = step_.a;
    float* fields[6] = {a.ex, a.ey, a.ez, a.hx, a.hy, a.hz};
    const float* row = incident_.data() + step * setup_.tfsf.row;
    for (int c = first; c < first + 3; ++c)
      if (tfsf_count_[c] > 0)
        cuda_kernels::tfsf_correct(fields[c], tfsf_node_[c].data(), tfsf_w0_[c].data(),
                                   tfsf_w1_[c].data(), tfsf_s0_[c].data(), tfsf_s1_[c].data(), row,
                                   tfsf_count_[c]);
  }

  // Copies a snapshot plane of the pitched layout back (a strided 2D copy),
  // then transposes it to the frame layout.
  void take_frame(int snapshot, std::int64_t step) {
    const PlaneSnapshot& s = problem_.snapshots[std::size_t(snapshot)];
    const YeeGrid& g = problem_.grid;
    const PlaneCopy c = plane_copy(g, pz_, s.normal, s.index);
    std::vector<float> native(std::size_t(c.rows * c.row_length));
    PPKIT_CUDA_CHECK(cudaMemcpy2D(
        native.data(), std::size_t(c.row_length) * sizeof(float),
        fields_[int(s.component)].data() + c.offset, std::size_t(c.row_pitch) * sizeof(float),
        std::size_t(c.row_length) * sizeof(float), std::size_t(c.rows), cudaMemcpyDeviceToHost));
    const auto size = plane_size(g, s.normal);
    frames_.push_back({snapshot, step, frame_from_native(native, size[0], size[1])});
  }

  // Host layout (rows of nz + 1) <-> device layout (rows of pz, padding `fill`).
  template <class T>
  std::vector<T> pitched(const std::vector<T>& host, T fill) const {
    const std::size_t len = std::size_t(problem_.grid.nz + 1), pitch = std::size_t(pz_);
    std::vector<T> out(rows_ * pitch, fill);
    for (std::size_t r = 0; r < rows_; ++r)
      std::copy(host.begin() + std::ptrdiff_t(r * len),
                host.begin() + std::ptrdiff_t((r + 1) * len),
                out.begin() + std::ptrdiff_t(r * pitch));
    return out;
  }
  std::vector<float> unpitched(const std::vector<float>& device) const {
    const std::size_t len = std::size_t(problem_.grid.nz + 1), pitch = std::size_t(pz_);
    std::vector<float> out(rows_ * len);
    for (std::size_t r = 0; r < rows_; ++r)
      std::copy(device.begin() + std::ptrdiff_t(r * pitch),
                device.begin() + std::ptrdiff_t(r * pitch + len),
                out.begin() + std::ptrdiff_t(r * len));
    return out;
  }

  FdtdStep::Problem problem_;
  StepSetup setup_;
  int planes_;
  index_t pz_ = 0;
  std::size_t rows_ = 0;
  cuda_split::StepArgs step_{};
  SourceProbeArgs io_{};
  DeviceBuffer<float> fields_[6], initial_[6], table_, psi_[12], source_values_, probe_values_;
  DeviceBuffer<std::uint8_t> ids8_;
  DeviceBuffer<std::uint16_t> ids16_;
  DeviceBuffer<std::uint32_t> ids32_;
  cuda_upload::CpmlBuffers cpml_buffers_;
  DeviceBuffer<std::int32_t> source_component_, source_hard_, probe_component_;
  DeviceBuffer<std::int64_t> source_index_, probe_index_;
  DeviceBuffer<double> energy_sum_;
  DeviceBuffer<int> wave_counters_;
  std::vector<double> energy_;
  DeviceBuffer<float> incident_, tfsf_w0_[6], tfsf_w1_[6];
  DeviceBuffer<std::int64_t> tfsf_node_[6];
  DeviceBuffer<std::int32_t> tfsf_s0_[6], tfsf_s1_[6];
  std::int64_t tfsf_count_[6] = {0, 0, 0, 0, 0, 0};
  std::vector<SnapshotFrame> frames_;
  cuda_kernels::NtffArgs ntff_{};
  DeviceBuffer<std::int32_t> ntff_component_, ntff_current_, ntff_magnetic_;
  DeviceBuffer<std::int64_t> ntff_node_a_, ntff_node_b_;
  DeviceBuffer<float> ntff_weight_, ntff_x_, ntff_y_, ntff_z_, ntff_factors_;
  DeviceBuffer<double> ntff_dft_, ntff_sums_;
  std::vector<RadiationVectors> radiation_;
  std::unique_ptr<CudaPhasors> phasors_;
};

}  // namespace
}  // namespace ppkit::fdtd

namespace ppkit::registration {
void register_fdtd_cuda_split_variants() {
  // x-planes per thread and preference: 2 is the expected best of the split
  // kernels (36-40 registers, 75-87% occupancy), 4 trades occupancy (64
  // registers, 50%) for more loads in flight per thread, 1 maximises occupancy.
  for (const auto& [planes, preference] : {std::pair{2, 14}, std::pair{4, 12}, std::pair{1, 11}}) {
    auto v = cuda::cuda_variant<FdtdStep>("split-x" + std::to_string(planes), preference);
    v.prepare = [planes = planes](const FdtdStep::Problem& p) {
      fdtd::require_fp32(p, "cuda/split-x" + std::to_string(planes));
      return std::make_unique<fdtd::CudaSplitStep>(p, planes);
    };
    Registry<FdtdStep>::add(std::move(v));
  }
  // Fused H+E wavefront: 48 instead of 72 B per node and step when L2 holds
  // two planes; below split-x2 until measured on the GPU.
  auto w = cuda::cuda_variant<FdtdStep>("wavefront", 13);
  w.prepare = [](const FdtdStep::Problem& p) {
    fdtd::require_fp32(p, "cuda/wavefront");
    return std::make_unique<fdtd::CudaSplitStep>(p, 0);
  };
  Registry<FdtdStep>::add(std::move(w));
  auto l1 = cuda::cuda_variant<FdtdStep>("wavefront-l1", 9);
  l1.prepare = [](const FdtdStep::Problem& p) {
    fdtd::require_fp32(p, "cuda/wavefront-l1");
    return std::make_unique<fdtd::CudaSplitStep>(p, -1);
  };
  Registry<FdtdStep>::add(std::move(l1));
}
}  // namespace ppkit::registration
