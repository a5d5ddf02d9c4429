// cuda/register-x: host glue of the hand-tuned CUDA fdtd.step
// (fdtd_cuda_kernels.cu). Owns its device buffers (the found Kokkos may have
// no CUDA backend), narrows material ids to 1 or 2 bytes when they fit.
#include <algorithm>
#include <cmath>

#include "backends/cuda/core/cuda_device.hpp"
#include "backends/cuda/fdtd/fdtd_cuda_upload.hpp"
#include "backends/cuda/fdtd/fdtd_cuda_corrections.hpp"
#include "backends/cuda/fdtd/fdtd_cuda_kernels.hpp"
#include "backends/cuda/fdtd/phasor_cuda.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/step_features.hpp"

namespace ppkit::fdtd {
namespace {

using cuda::DeviceBuffer;

using cuda_upload::device_copy;

void check_launch(const char* what) {
  if (const char* error = cuda_kernels::last_launch_error())
    throw Error(std::string("CUDA launch of ") + what + " failed: " + error);
}

class CudaStep final : public PreparedRun<FdtdStep::Result> {
 public:
  explicit CudaStep(const FdtdStep::Problem& p) : problem_(p), setup_(make_step_setup(p)) {
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
      fields_[c] = DeviceBuffer<float>(nodes);
      fields_[c].fill_bytes(0xFF);  // poison
      *fields[c] = fields_[c].data();
      if (!p.initial[c].empty()) initial_[c] = DeviceBuffer<float>(p.initial[c]);
    }
    // Narrowest id type that holds every material.
    const std::size_t materials = p.materials.size();
    if (materials <= 256) {
      ids8_ = DeviceBuffer<std::uint8_t>(
          std::vector<std::uint8_t>(setup_.material_id.begin(), setup_.material_id.end()));
      ids_ = {ids8_.data(), 1};
    } else if (materials <= 65536) {
      ids16_ = DeviceBuffer<std::uint16_t>(
          std::vector<std::uint16_t>(setup_.material_id.begin(), setup_.material_id.end()));
      ids_ = {ids16_.data(), 2};
    } else {
      ids32_ = DeviceBuffer<std::uint32_t>(setup_.material_id);
      ids_ = {ids32_.data(), 4};
    }
    args_.material_id = nullptr;  // the kernels read ids_ instead
    table_ = device_copy(setup_.material_table);
    args_.material_table = table_.data();
    cpml_buffers_.upload(setup_.cpml, args_.axis);
    const std::size_t layers = std::size_t(args_.layers);
    const std::size_t sizes[3] = {layers * std::size_t((g.ny + 1) * (g.nz + 1)),
                                  layers * std::size_t((g.nx + 1) * (g.nz + 1)),
                                  layers * std::size_t((g.nx + 1) * (g.ny + 1))};
    float** psi[12] = {&args_.psi_eyx, &args_.psi_ezx, &args_.psi_hyx, &args_.psi_hzx,
                       &args_.psi_exy, &args_.psi_ezy, &args_.psi_hxy, &args_.psi_hzy,
                       &args_.psi_exz, &args_.psi_eyz, &args_.psi_hxz, &args_.psi_hyz};
    for (int q = 0; q < 12; ++q) {
      psi_[q] = DeviceBuffer<float>(std::max<std::size_t>(1, sizes[q / 4]));
      *psi[q] = psi_[q].data();
    }
    io_.n_sources = std::int64_t(p.sources.size());
    io_.n_probes = std::int64_t(p.probes.size());
    io_.steps = p.steps;
    source_index_ = device_copy(setup_.source_index);
    source_component_ = device_copy(
        std::vector<std::int32_t>(setup_.source_component.begin(), setup_.source_component.end()));
    source_hard_ = device_copy(
        std::vector<std::int32_t>(setup_.source_hard.begin(), setup_.source_hard.end()));
    source_values_ = device_copy(setup_.source_values);
    probe_index_ = device_copy(setup_.probe_index);
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
    // Plane wave: corrections per component and the incident table.
    const TfsfCorrections& t = setup_.tfsf;
    incident_ = device_copy(t.incident);
    for (int c = 0; c < 6; ++c) {
      tfsf_count_[c] = std::int64_t(t.node[std::size_t(c)].size());
      if (tfsf_count_[c] == 0) continue;
      tfsf_node_[c] = device_copy(t.node[std::size_t(c)]);
      tfsf_w0_[c] = device_copy(t.weight0[std::size_t(c)]);
      tfsf_w1_[c] = device_copy(t.weight1[std::size_t(c)]);
      tfsf_s0_[c] = device_copy(t.slot0[std::size_t(c)]);
      tfsf_s1_[c] = device_copy(t.slot1[std::size_t(c)]);
    }
    // Near-to-far-field surface samples and DFT accumulators.
    const NtffSurface& surface = setup_.ntff;
    if (surface.size() > 0) {
      for (int c = 0; c < 6; ++c) ntff_.field[c] = fields_[c].data();
      ntff_component_ = device_copy(surface.component);
      ntff_current_ = device_copy(surface.current);
      ntff_magnetic_ = device_copy(surface.magnetic);
      ntff_node_a_ = device_copy(surface.node_a);
      ntff_node_b_ = device_copy(surface.node_b);
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
      phasors_->set_fields({args_.ex, args_.ey, args_.ez, args_.hx, args_.hy, args_.hz});
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
    const bool periodic = args_.periodic_x || args_.periodic_y;
    SourceProbeArgs sources_only = io_, probes_only = io_;
    sources_only.n_probes = 0;
    probes_only.n_sources = 0;
    for (std::int64_t step = 0; step < problem_.steps; ++step) {
      cuda_kernels::update_h(args_, ids_);
      if (setup_.tfsf.row > 0) tfsf(3, step);
      if (periodic) cuda_kernels::periodic_copy(args_, false);
      cuda_kernels::update_e(args_, ids_);
      if (setup_.tfsf.row > 0) tfsf(0, step);
      if (periodic) {  // E of the periodic faces is copied after the sources, before the probes
        cuda_kernels::sources_and_probes(args_, sources_only, step);
        cuda_kernels::periodic_copy(args_, true);
        cuda_kernels::sources_and_probes(args_, probes_only, step);
      } else {
        cuda_kernels::sources_and_probes(args_, io_, step);
      }
      if (phasors_) phasors_->accumulate(phasor_sample_after(problem_, step));
      for (; next_frame < setup_.snapshot_schedule.size() &&
             setup_.snapshot_schedule[next_frame].first == step;
           ++next_frame)
        take_frame(setup_.snapshot_schedule[next_frame].second, step);
      if (ntff_.samples > 0)
        cuda_kernels::ntff_accumulate(ntff_, ntff_factors_.data() + step * ntff_.frequencies * 4);
      if (next_energy < setup_.energy_steps.size() && setup_.energy_steps[next_energy] == step) {
        cuda_kernels::field_energy(args_, ids_, energy_sum_.data());
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
    check_launch("the fdtd.step kernels");
    PPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }

  FdtdStep::Result result() override {
    FdtdStep::Result r;
    for (int c = 0; c < 6; ++c) r.fields[c] = fields_[c].download();
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
  // Plane-wave corrections of the E (first = 0) or H (first = 3) components.
  void tfsf(int first, std::int64_t step) {
    float* fields[6] = {args_.ex, args_.ey, args_.ez, args_.hx, args_.hy, args_.hz};
    const float* row = incident_.data() + step * setup_.tfsf.row;
    for (int c = first; c < first + 3; ++c)
      cuda_kernels::tfsf_correct(fields[c], tfsf_node_[c].data(), tfsf_w0_[c].data(),
                                 tfsf_w1_[c].data(), tfsf_s0_[c].data(), tfsf_s1_[c].data(), row,
                                 tfsf_count_[c]);
  }

  // Copies a snapshot plane back (a strided 2D copy; the solver runs in chunks
  // between frames), then transposes it to the frame layout.
  void take_frame(int snapshot, std::int64_t step) {
    const PlaneSnapshot& s = problem_.snapshots[std::size_t(snapshot)];
    const YeeGrid& g = problem_.grid;
    const PlaneCopy c = plane_copy(g, g.nz + 1, s.normal, s.index);
    std::vector<float> native(std::size_t(c.rows * c.row_length));
    check_launch("the fdtd.step kernels");
    PPKIT_CUDA_CHECK(cudaMemcpy2D(
        native.data(), std::size_t(c.row_length) * sizeof(float),
        fields_[int(s.component)].data() + c.offset, std::size_t(c.row_pitch) * sizeof(float),
        std::size_t(c.row_length) * sizeof(float), std::size_t(c.rows), cudaMemcpyDeviceToHost));
    const auto size = plane_size(g, s.normal);
    frames_.push_back({snapshot, step, frame_from_native(native, size[0], size[1])});
  }

  FdtdStep::Problem problem_;
  StepSetup setup_;
  YeeKernelArgs args_{};
  SourceProbeArgs io_{};
  cuda_kernels::MaterialIds ids_{nullptr, 4};
  DeviceBuffer<float> fields_[6], initial_[6], table_, psi_[12], source_values_, probe_values_;
  DeviceBuffer<std::uint8_t> ids8_;
  DeviceBuffer<std::uint16_t> ids16_;
  DeviceBuffer<std::uint32_t> ids32_;
  cuda_upload::CpmlBuffers cpml_buffers_;
  DeviceBuffer<std::int32_t> source_component_, source_hard_, probe_component_;
  DeviceBuffer<std::int64_t> source_index_, probe_index_;
  DeviceBuffer<double> energy_sum_;
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
  std::vector<double> energy_;
  std::unique_ptr<CudaPhasors> phasors_;
};

}  // namespace
}  // namespace ppkit::fdtd

namespace ppkit::registration {
void register_fdtd_cuda_variants() {
  auto v = cuda::cuda_variant<FdtdStep>("register-x", 10);
  v.prepare = [](const FdtdStep::Problem& p) {
    fdtd::require_fp32(p, "cuda/register-x");
    return std::make_unique<fdtd::CudaStep>(p);
  };
  Registry<FdtdStep>::add(std::move(v));
}
}  // namespace ppkit::registration
