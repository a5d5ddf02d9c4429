// cuda/register-x: host glue of the hand-tuned CUDA fdtd.step
// (fdtd_cuda_kernels.cu). Owns its device buffers (the found Kokkos may have
// no CUDA backend), narrows material ids to 1 or 2 bytes when they fit. The
// prepared run is also a StepApplier (fdtd::Solver steps it in chunks).
#include <algorithm>
#include <cmath>

#include "backends/cuda/core/cuda_device.hpp"
#include "backends/cuda/fdtd/fdtd_cuda_problem_buffers.hpp"
#include "backends/cuda/fdtd/fdtd_cuda_kernels.hpp"
#include "backends/cuda/fdtd/phasor_cuda.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/step_applier.hpp"
#include "ppkit/fdtd/step_features.hpp"

namespace ppkit::fdtd {
namespace {

using cuda::DeviceBuffer;

using cuda_buffers::device_copy;

void check_launch(const char* what) {
  if (const char* error = cuda_kernels::last_launch_error())
    throw Error(std::string("CUDA launch of ") + what + " failed: " + error);
}

class CudaStep final : public PreparedRun<FdtdStep::Result>, public StepApplier {
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
    const auto same_node = [](index_t node) { return node; };
    io_ = sources_probes_.upload(p, setup_, same_node);
    energy_sum_ = DeviceBuffer<double>(1);
    tfsf_.upload(setup_.tfsf, same_node);
    ntff_.upload(p, setup_, args_, same_node);
    if (p.phasors.enabled()) {
      phasors_ = std::make_unique<CudaPhasors>(p.phasors, g, 0, setup_.phasor_samples);
      phasors_->set_fields({args_.ex, args_.ey, args_.ez, args_.hx, args_.hy, args_.hz});
    }
    PPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }

  void run() override {
    restart();
    steps_until(problem_.steps);
    if (ntff_.active()) radiation_ = ntff_.radiation(problem_.far_field[0]);
    check_launch("the fdtd.step kernels");
    PPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }

  // ---- StepApplier (fdtd::Solver): the same state, stepped in chunks ----------
  void restart() override {
    cuda_buffers::reset_fields(problem_, fields_, initial_);
    for (auto& b : psi_) b.fill_bytes(0);
    energy_.clear();
    frames_.clear();
    radiation_.clear();
    ntff_.reset();
    next_energy_ = next_frame_ = 0;
    step_ = 0;
    if (phasors_) phasors_->reset(PhasorSet{});
  }
  void advance(std::int64_t n, void* stream) override {
    order_.before(stream);
    steps_until(step_ + n);
    check_launch("the fdtd.step kernels");
    order_.after(stream);
  }
  std::int64_t step() const override { return step_; }
  index_t pitch() const override { return problem_.grid.nz + 1; }
  void* field_address(int c) override { return fields_[c].data(); }
  void copy_field(int c, void* array, bool array_on_host, bool into_field, void* stream) override {
    order_.before(stream);
    cuda_buffers::copy_field_rows(fields_[c].data(), pitch(), problem_.grid, array, array_on_host,
                                  into_field);
    order_.after(stream);
  }
  std::vector<double> probe_record() override { return sources_probes_.probe_record(problem_); }
  PhasorSet phasor_sums() override { return phasors_ ? phasors_->download() : PhasorSet{}; }
  void wait(void* stream) override { cuda_buffers::StreamOrder::wait(stream); }
  std::optional<DataLocation> memory() const override {
    return cuda_buffers::current_device_memory();
  }

 private:
  // Steps step_ .. end - 1, as run() does them.
  void steps_until(std::int64_t end) {
    const bool periodic = args_.periodic_x || args_.periodic_y;
    SourceProbeArgs sources_only = io_, probes_only = io_;
    sources_only.n_probes = 0;
    probes_only.n_sources = 0;
    for (; step_ < end; ++step_) {
      const std::int64_t step = step_;
      cuda_kernels::update_h(args_, ids_);
      tfsf_.correct(args_, 3, step);
      if (periodic) cuda_kernels::periodic_copy(args_, false);
      cuda_kernels::update_e(args_, ids_);
      tfsf_.correct(args_, 0, step);
      if (periodic) {  // E of the periodic faces is copied after the sources, before the probes
        cuda_kernels::sources_and_probes(args_, sources_only, step);
        cuda_kernels::periodic_copy(args_, true);
        cuda_kernels::sources_and_probes(args_, probes_only, step);
      } else {
        cuda_kernels::sources_and_probes(args_, io_, step);
      }
      if (phasors_) phasors_->accumulate(phasor_sample_after(problem_, step));
      for (; next_frame_ < setup_.snapshot_schedule.size() &&
             setup_.snapshot_schedule[next_frame_].first == step;
           ++next_frame_) {
        check_launch("the fdtd.step kernels");
        frames_.push_back(cuda_buffers::download_frame(problem_, problem_.grid.nz + 1, fields_,
                                                       setup_.snapshot_schedule[next_frame_].second,
                                                       step));
      }
      ntff_.accumulate(step);
      if (next_energy_ < setup_.energy_steps.size() && setup_.energy_steps[next_energy_] == step) {
        cuda_kernels::field_energy(args_, ids_, energy_sum_.data());
        energy_.push_back(cuda_buffers::download_sum(energy_sum_) * setup_.cell_volume);
        ++next_energy_;
      }
    }
  }

 public:
  FdtdStep::Result result() override {
    FdtdStep::Result r;
    for (int c = 0; c < 6; ++c) r.fields[c] = fields_[c].download();
    r.probe_values = sources_probes_.probe_values.download();
    r.probe_values.resize(problem_.probes.size() * std::size_t(problem_.steps));
    if (phasors_) r.phasors = phasors_->download();
    set_result_records(r, setup_, energy_, frames_, radiation_);
    return r;
  }

 private:
  FdtdStep::Problem problem_;
  StepSetup setup_;
  YeeKernelArgs args_{};
  SourceProbeArgs io_{};
  cuda_kernels::MaterialIds ids_{nullptr, 4};
  DeviceBuffer<float> fields_[6], initial_[6], table_, psi_[12];
  DeviceBuffer<std::uint8_t> ids8_;
  DeviceBuffer<std::uint16_t> ids16_;
  DeviceBuffer<std::uint32_t> ids32_;
  cuda_buffers::CpmlBuffers cpml_buffers_;
  cuda_buffers::SourceProbeBuffers sources_probes_;
  DeviceBuffer<double> energy_sum_;
  std::vector<double> energy_;
  cuda_buffers::TfsfBuffers tfsf_;
  std::vector<SnapshotFrame> frames_;
  cuda_buffers::NtffBuffers ntff_;
  std::vector<RadiationVectors> radiation_;
  std::unique_ptr<CudaPhasors> phasors_;
  std::int64_t step_ = 0;  // steps done since restart()
  std::size_t next_energy_ = 0, next_frame_ = 0;
  cuda_buffers::StreamOrder order_;
};

}  // namespace
}  // namespace ppkit::fdtd

namespace ppkit::registration {
void register_fdtd_cuda_variants() {
  auto v = cuda::cuda_variant<FdtdStep>("register-x", 10);
  v.traits.plane_wave = v.traits.periodic = true;  // fp32 only: require_fp32 below
  v.prepare = [](const FdtdStep::Problem& p) {
    fdtd::require_fp32(p, "cuda/register-x");
    return std::make_unique<fdtd::CudaStep>(p);
  };
  Registry<FdtdStep>::add(std::move(v));
}
}  // namespace ppkit::registration
