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
#include "backends/cuda/fdtd/fdtd_cuda_problem_buffers.hpp"
#include "backends/cuda/fdtd/fdtd_cuda_kernels.hpp"
#include "backends/cuda/fdtd/fdtd_cuda_split_kernels.hpp"
#include "backends/cuda/fdtd/phasor_cuda.hpp"
#include "backends/cuda/fdtd/phasor_cuda_kernels.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/step_applier.hpp"
#include "ppkit/fdtd/step_features.hpp"

namespace ppkit::fdtd {
namespace {

using cuda::DeviceBuffer;

using cuda_buffers::device_copy;

constexpr index_t row_alignment = 32;  // nodes: 128 bytes of fp32

class CudaSplitStep final : public PreparedRun<FdtdStep::Result>, public StepApplier {
 public:
  // planes_per_thread 0: cuda/wavefront, -1: cuda/wavefront-l1.
  CudaSplitStep(const FdtdStep::Problem& p, int planes_per_thread)
      : problem_(p), setup_(make_step_setup(p)), planes_(planes_per_thread) {
    if (planes_per_thread <= 0) {
      const std::string name = planes_per_thread == 0 ? "cuda/wavefront" : "cuda/wavefront-l1";
      require(p.plane_waves.empty(),
              name +
                  " cannot run a plane wave: its fused H+E launch leaves no point for the "
                  "TF/SF corrections between the half steps",
              variants_supporting(StepFeature::plane_wave));
      require((!p.periodic[0] && !p.periodic[1]),
              name +
                  " cannot run periodic boundaries: its fused H+E launch leaves no point for "
                  "the periodic H copy between the half steps",
              variants_supporting(StepFeature::periodic));
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

    // Sources, probes, plane-wave corrections and the far-field surface at pitched node indices.
    const auto pitched_node = [this](index_t node) { return pitched_index(node); };
    io_ = sources_probes_.upload(p, setup_, pitched_node);
    energy_sum_ = DeviceBuffer<double>(1);
    if (planes_ <= 0)
      wave_counters_ = DeviceBuffer<int>(std::size_t(cuda_split::wavefront_counter_ints(step_)));
    tfsf_.upload(setup_.tfsf, pitched_node);
    ntff_.upload(p, setup_, a, pitched_node);
    if (p.phasors.enabled()) {
      phasors_ = std::make_unique<CudaPhasors>(p.phasors, g, 0, setup_.phasor_samples);
      phasors_->set_fields({a.ex, a.ey, a.ez, a.hx, a.hy, a.hz}, pz_);
    }
    PPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }

  void run() override {
    restart();
    steps_until(problem_.steps);
    if (ntff_.active()) radiation_ = ntff_.radiation(problem_.far_field[0]);
    check_launches();
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
    edge_steps_.reset();
    next_energy_ = next_frame_ = 0;
    steps_done_ = 0;
    if (phasors_) phasors_->reset(PhasorSet{});
  }
  void advance(std::int64_t n, void* stream) override {
    order_.before(stream);
    steps_until(steps_done_ + n);
    check_launches();
    order_.after(stream);
  }
  std::int64_t step() const override { return steps_done_; }
  index_t pitch() const override { return pz_; }
  void* field_address(int c) override { return fields_[c].data(); }
  void copy_field(int c, void* array, bool array_on_host, bool into_field, void* stream) override {
    order_.before(stream);
    cuda_buffers::copy_field_rows(fields_[c].data(), pz_, problem_.grid, array, array_on_host,
                                  into_field);
    order_.after(stream);
  }
  // The planes' rows, a 2D copy at the first plane's offset (padding untouched).
  void copy_planes(int c, index_t first, index_t count, float* host, bool into_field,
                   const YeeGrid& g) override {
    require(first >= 0 && count >= 0 && first + count <= g.nx + 1,
            "planes " + std::to_string(first) + ".." + std::to_string(first + count) +
                " of a grid with " + std::to_string(g.nx + 1) + " x-planes",
            "planes inside the grid");
    YeeGrid planes = g;
    planes.nx = count - 1;  // copy_field_rows copies (nx + 1)(ny + 1) rows
    if (count > 0)
      cuda_buffers::copy_field_rows(fields_[c].data() + first * (g.ny + 1) * pz_, pz_, planes, host,
                                    true, into_field);
  }
  // One step around a halo exchange (split-x* only; the wavefront variants'
  // fused launch has no point between the H and the E update): H everywhere
  // and E on the edge planes, then E on the other planes and the rest.
  void begin_step(const std::vector<index_t>& edges) override {
    if (planes_ <= 0) StepApplier::begin_step(edges);  // refuses
    edge_steps_.begin(edges, problem_.grid.nx + 1, steps_done_, problem_.steps,
                      problem_.plane_waves.empty() && !ntff_.active() &&
                          setup_.snapshot_schedule.empty() && !problem_.periodic[0],
                      "a plane wave, the NTFF, snapshots or periodic x");
    h_half_step();
    for (index_t e : edge_steps_.edges()) e_planes(e, e + 1);
    check_launches();
  }
  void finish_step() override {
    for (const auto& [first, end] : edge_steps_.finish()) e_planes(first, end);
    after_e_update();
    check_launches();
  }
  std::vector<double> probe_record() override { return sources_probes_.probe_record(problem_); }
  PhasorSet phasor_sums() override { return phasors_ ? phasors_->download() : PhasorSet{}; }
  void wait(void* stream) override { cuda_buffers::StreamOrder::wait(stream); }
  std::optional<DataLocation> memory() const override {
    return cuda_buffers::current_device_memory();
  }

 private:
  static void check_launches() {
    if (const char* error = cuda_split::last_launch_error())
      throw Error(std::string("CUDA launch of the fdtd.step split kernels failed: ") + error);
    if (const char* error = cuda_kernels::phasor_launch_error())
      throw Error(std::string("CUDA launch of the fdtd.step feature kernels failed: ") + error);
  }

  // Steps steps_done_ .. end - 1, as run() does them.
  void steps_until(std::int64_t end) {
    edge_steps_.require_between_steps();
    while (steps_done_ < end) {
      if (planes_ <= 0) {
        planes_ == 0 ? cuda_split::wavefront_step(step_, wave_counters_.data())
                     : cuda_split::wavefront_step_l1(step_, wave_counters_.data());
        sources_and_e_copy(0, problem_.grid.nx + 1);
      } else {
        h_half_step();
        e_planes(0, problem_.grid.nx + 1);
      }
      after_e_update();
    }
  }

  // H^{n+1/2} on every plane, the plane wave's H correction and the periodic H copy.
  void h_half_step() {
    cuda_split::update_h(step_, planes_);
    tfsf_.correct(step_.a, 3, steps_done_);
    if (step_.a.periodic_x || step_.a.periodic_y) cuda_kernels::periodic_copy(step_.a, false, pz_);
  }

  // E^{n+1} on the planes [i0, i1) (the interior box and the shell clipped to
  // them), then on every plane the plane wave's E correction (a whole step
  // only), and the sources of [i0, i1) with the periodic E copy.
  void e_planes(std::int64_t i0, std::int64_t i1) {
    if (i1 <= i0) return;
    if (i0 == 0 && i1 == problem_.grid.nx + 1) {
      cuda_split::update_e(step_, planes_);
      tfsf_.correct(step_.a, 0, steps_done_);
    } else {
      cuda_split::StepArgs part = step_;
      part.e.interior.box = split::clip_x(step_.e.interior.box, i0, i1);
      part.e.shell = split::clip_x(step_.e.shell, i0, i1);
      cuda_split::update_e(part, planes_);
    }
    sources_and_e_copy(i0, i1);
  }

  // The sources at the nodes of planes [i0, i1), then the periodic E copy. The
  // copy runs over the whole grid: each plane's copy reads only its own nodes,
  // so a plane copied before its E update is copied again after it.
  void sources_and_e_copy(std::int64_t i0, std::int64_t i1) {
    const std::int64_t plane = (problem_.grid.ny + 1) * pz_;
    cuda_kernels::sources(step_.a, io_, steps_done_, i0 * plane, i1 * plane);
    if (step_.a.periodic_x || step_.a.periodic_y) cuda_kernels::periodic_copy(step_.a, true, pz_);
  }

  // The probes, phasors, frames, far-field sums and energy of the step, then the next step.
  void after_e_update() {
    const std::int64_t step = steps_done_;
    cuda_kernels::probes(step_.a, io_, step);
    if (phasors_) phasors_->accumulate(phasor_sample_after(problem_, step));
    for (; next_frame_ < setup_.snapshot_schedule.size() &&
           setup_.snapshot_schedule[next_frame_].first == step;
         ++next_frame_)
      frames_.push_back(cuda_buffers::download_frame(
          problem_, pz_, fields_, setup_.snapshot_schedule[next_frame_].second, step));
    ntff_.accumulate(step);
    if (next_energy_ < setup_.energy_steps.size() && setup_.energy_steps[next_energy_] == step) {
      cuda_split::field_energy(step_, energy_sum_.data());
      energy_.push_back(cuda_buffers::download_sum(energy_sum_) * setup_.cell_volume);
      ++next_energy_;
    }
    ++steps_done_;
  }

 public:
  FdtdStep::Result result() override {
    FdtdStep::Result r;
    for (int c = 0; c < 6; ++c) r.fields[c] = unpitched(fields_[c].download());
    r.probe_values = sources_probes_.probe_values.download();
    r.probe_values.resize(problem_.probes.size() * std::size_t(problem_.steps));
    if (phasors_) r.phasors = phasors_->download();
    set_result_records(r, setup_, energy_, frames_, radiation_);
    return r;
  }

 private:
  index_t pitched_index(index_t node) const {
    const index_t len = problem_.grid.nz + 1;
    return node / len * pz_ + node % len;
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
  DeviceBuffer<float> fields_[6], initial_[6], table_, psi_[12];
  DeviceBuffer<std::uint8_t> ids8_;
  DeviceBuffer<std::uint16_t> ids16_;
  DeviceBuffer<std::uint32_t> ids32_;
  cuda_buffers::CpmlBuffers cpml_buffers_;
  cuda_buffers::SourceProbeBuffers sources_probes_;
  DeviceBuffer<double> energy_sum_;
  DeviceBuffer<int> wave_counters_;
  std::vector<double> energy_;
  cuda_buffers::TfsfBuffers tfsf_;
  std::vector<SnapshotFrame> frames_;
  cuda_buffers::NtffBuffers ntff_;
  std::vector<RadiationVectors> radiation_;
  std::unique_ptr<CudaPhasors> phasors_;
  std::int64_t steps_done_ = 0;  // since restart()
  EdgePlaneSteps edge_steps_;
  std::size_t next_energy_ = 0, next_frame_ = 0;
  cuda_buffers::StreamOrder order_;
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
    v.traits.plane_wave = v.traits.periodic = true;  // fp32 only: require_fp32 below
    v.traits.slab = true;                            // copy_planes above
    v.traits.slab_overlap = true;                    // begin_step/finish_step above
    v.prepare = [planes = planes](const FdtdStep::Problem& p) {
      fdtd::require_fp32(p, "cuda/split-x" + std::to_string(planes));
      return std::make_unique<fdtd::CudaSplitStep>(p, planes);
    };
    Registry<FdtdStep>::add(std::move(v));
  }
  // Fused H+E wavefront: 48 instead of 72 B per node and step when L2 holds
  // two planes; below split-x2 until measured on the GPU. The fused launch
  // leaves no point between the H and the E update for the plane wave or the
  // periodic copy: no feature beyond the fp32 core (default traits).
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
