// cuda/blocked-k2, cuda/blocked-k4: host glue of the temporally blocked CUDA
// fdtd.step (fdtd_cuda_blocked.cu; scheme in ppkit/fdtd/yee_blocked.hpp): k
// steps per pass over the grid, tiles of 8 y x 32 z nodes plus a halo of k
// per side, the tile's field ring in shared memory. Fields (rows of nz + 1,
// not padded) and psi are double-buffered; after each Solver chunk the state
// is back in the first buffers, so field addresses stay put. It runs what the
// Kokkos form runs (materials, PEC, CPML, sources, probes, energy; fp32) and
// refuses the rest in prepare() (step_features.hpp).
#include <algorithm>
#include <memory>
#include <tuple>

#include "backends/cuda/core/cuda_device.hpp"
#include "backends/cuda/fdtd/fdtd_cuda_blocked_kernels.hpp"
#include "backends/cuda/fdtd/fdtd_cuda_problem_buffers.hpp"
#include "ppkit/fdtd/blocked_step.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/step_applier.hpp"
#include "ppkit/fdtd/step_features.hpp"

namespace ppkit::fdtd {
namespace {

using cuda::DeviceBuffer;
using cuda_buffers::device_copy;
using cuda_buffers::device_copy_as;

constexpr index_t tile_y = 8, tile_z = 32;  // a warp along z, 8 rows

class CudaBlockedStep final : public PreparedRun<FdtdStep::Result>, public StepApplier {
 public:
  CudaBlockedStep(const FdtdStep::Problem& p, const std::string& name, int steps_per_pass)
      : problem_(p), setup_(make_step_setup(p)), steps_per_pass_(steps_per_pass) {
    require_features(p, blocked_traits(steps_per_pass), name, blocked_refusal_reason);
    const YeeGrid& g = p.grid;
    const index_t ny1 = g.ny + 1, nz1 = g.nz + 1;
    const blocked::Tiling t =
        blocked::make_tiling(ny1, nz1, tile_y, tile_z, steps_per_pass, steps_per_pass);
    require(cuda_blocked::shared_bytes(t) <= cuda_blocked::shared_bytes_max(),
            name + " needs " + std::to_string(cuda_blocked::shared_bytes(t)) +
                " bytes of shared memory per block",
            "a device with at least that much per block, or cuda/blocked-k2");
    pass_.t = t;
    blocked::PassArgs<float>& a = pass_.a;
    a.g.nx = g.nx;
    a.g.ny = g.ny;
    a.g.nz = g.nz;
    a.g.layers = 2 * setup_.cpml.thickness;
    a.g.periodic_x = a.g.periodic_y = 0;
    table_ = device_copy(setup_.material_table);
    ids_ = device_copy(setup_.material_id);
    a.g.material_table = table_.data();
    a.g.material_id = ids_.data();
    cpml_.upload(setup_.cpml, a.g.axis);
    const std::size_t nodes = std::size_t(g.nodes()), layers = std::size_t(a.g.layers);
    const std::size_t psi_size[3] = {layers * std::size_t(ny1 * nz1),
                                     layers * std::size_t((g.nx + 1) * nz1),
                                     layers * std::size_t((g.nx + 1) * ny1)};
    for (int b = 0; b < 2; ++b) {
      for (int c = 0; c < 6; ++c) fields_[b][c] = DeviceBuffer<float>(nodes);
      for (int q = 0; q < blocked::psi_arrays; ++q)
        psi_[b][q] = DeviceBuffer<float>(std::max<std::size_t>(1, psi_size[q / 4]));
    }
    for (int c = 0; c < 6; ++c) {
      fields_[0][c].fill_bytes(0xFF);  // poison
      if (!p.initial[c].empty()) initial_[c] = DeviceBuffer<float>(p.initial[c]);
    }
    psi_ring_ = DeviceBuffer<float>(std::size_t(t.tiles() * t.psi_values()));
    a.psi_ring = psi_ring_.data();
    std::vector<std::int64_t> source_node, probe_node;
    for (const index_t n : setup_.source_index)
      for (const index_t u : {n / (ny1 * nz1), n / nz1 % ny1, n % nz1}) source_node.push_back(u);
    for (const index_t n : setup_.probe_index)
      for (const index_t u : {n / (ny1 * nz1), n / nz1 % ny1, n % nz1}) probe_node.push_back(u);
    source_node_ = device_copy(source_node);
    probe_node_ = device_copy(probe_node);
    source_component_ = device_copy_as<std::int32_t>(setup_.source_component);
    source_hard_ = device_copy_as<std::int32_t>(setup_.source_hard);
    source_values_ = device_copy(setup_.source_values);
    probe_component_ = device_copy_as<std::int32_t>(setup_.probe_component);
    probe_values_ =
        DeviceBuffer<float>(std::max<std::size_t>(1, p.probes.size() * std::size_t(p.steps)));
    probe_values_.fill_bytes(0xFF);  // poison
    std::vector<std::int32_t> energy_after(std::size_t(std::max<std::int64_t>(p.steps, 1)), 0);
    for (const std::int64_t s : setup_.energy_steps) energy_after[std::size_t(s)] = 1;
    energy_after_ = device_copy(energy_after);
    energy_partial_ = DeviceBuffer<double>(std::size_t(t.tiles() * t.ring));
    a.n_sources = std::int64_t(p.sources.size());
    a.n_probes = std::int64_t(p.probes.size());
    a.steps_total = p.steps;
    a.source_node = source_node_.data();
    a.source_component = source_component_.data();
    a.source_hard = source_hard_.data();
    a.source_values = source_values_.data();
    a.probe_node = probe_node_.data();
    a.probe_component = probe_component_.data();
    a.probe_values = probe_values_.data();
    a.energy_after = energy_after_.data();
    a.energy_partial = energy_partial_.data();
    PPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }

  void run() override {
    restart();
    steps_until(problem_.steps);
    check_launches();
    PPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }

  // ---- StepApplier (fdtd::Solver) ---------------------------------------------
  void restart() override {
    cuda_buffers::reset_fields(problem_, fields_[0], initial_);
    for (auto& b : psi_[0]) b.fill_bytes(0);
    current_ = 0;
    energy_.clear();
    steps_done_ = 0;
  }
  void advance(std::int64_t n, void* stream) override {
    order_.before(stream);
    steps_until(steps_done_ + n);
    if (current_ != 0) {  // back into the first buffers: field_address() stays valid
      for (int c = 0; c < 6; ++c) copy_buffer(fields_[0][c], fields_[1][c]);
      for (int q = 0; q < blocked::psi_arrays; ++q) copy_buffer(psi_[0][q], psi_[1][q]);
      current_ = 0;
    }
    check_launches();
    order_.after(stream);
  }
  std::int64_t step() const override { return steps_done_; }
  index_t pitch() const override { return problem_.grid.nz + 1; }
  void* field_address(int c) override { return fields_[current_][c].data(); }
  void copy_field(int c, void* array, bool array_on_host, bool into_field, void* stream) override {
    order_.before(stream);
    cuda_buffers::copy_field_rows(fields_[current_][c].data(), problem_.grid.nz + 1, problem_.grid,
                                  array, array_on_host, into_field);
    order_.after(stream);
  }
  std::vector<double> probe_record() override {
    const std::vector<float> v = probe_values_.download();
    return std::vector<double>(v.begin(), v.begin() + std::ptrdiff_t(problem_.probes.size() *
                                                                     std::size_t(problem_.steps)));
  }
  PhasorSet phasor_sums() override { return PhasorSet{}; }  // refused in the constructor
  void wait(void* stream) override { cuda_buffers::StreamOrder::wait(stream); }
  std::optional<DataLocation> memory() const override {
    return cuda_buffers::current_device_memory();
  }

  FdtdStep::Result result() override {
    FdtdStep::Result r;
    for (int c = 0; c < 6; ++c) r.fields[c] = fields_[current_][c].download();
    std::vector<float> probes = probe_values_.download();
    probes.resize(problem_.probes.size() * std::size_t(problem_.steps));
    set_result_probes(r, std::move(probes));
    set_result_records(r, setup_, energy_);
    return r;
  }

 private:
  static void copy_buffer(DeviceBuffer<float>& to, const DeviceBuffer<float>& from) {
    PPKIT_CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), to.size() * sizeof(float),
                                     cudaMemcpyDeviceToDevice));
  }
  static void check_launches() {
    if (const char* error = cuda_blocked::last_launch_error())
      throw Error(std::string("CUDA launch of the fdtd.step blocked pass failed: ") + error);
  }

  // Passes of steps_per_pass steps (the last one the rest) up to step `end`.
  void steps_until(std::int64_t end) {
    const blocked::Tiling& t = pass_.t;
    while (steps_done_ < end) {
      const std::int64_t steps = std::min<std::int64_t>(steps_per_pass_, end - steps_done_);
      blocked::Pass<float> p = pass_;
      const int src = current_, dst = 1 - current_;
      for (int c = 0; c < 6; ++c) {
        p.a.src_field[c] = fields_[src][c].data();
        p.a.dst_field[c] = fields_[dst][c].data();
      }
      for (int q = 0; q < blocked::psi_arrays; ++q) {
        p.a.src_psi[q] = psi_[src][q].data();
        p.a.dst_psi[q] = psi_[dst][q].data();
      }
      p.a.first_step = steps_done_;
      p.a.steps = steps;
      cuda_blocked::pass(p);
      current_ = dst;
      append_pass_energies(
          setup_.energy_steps, steps_done_, steps, t, setup_.cell_volume,
          [&] { return energy_partial_.download(); }, energy_);
      steps_done_ += steps;
    }
  }

  FdtdStep::Problem problem_;
  StepSetup setup_;
  int steps_per_pass_ = 1;
  blocked::Pass<float> pass_{};
  DeviceBuffer<float> fields_[2][6], psi_[2][blocked::psi_arrays], initial_[6], table_, psi_ring_,
      source_values_, probe_values_;
  DeviceBuffer<std::uint32_t> ids_;
  DeviceBuffer<std::int64_t> source_node_, probe_node_;
  DeviceBuffer<std::int32_t> source_component_, source_hard_, probe_component_, energy_after_;
  DeviceBuffer<double> energy_partial_;
  cuda_buffers::CpmlBuffers cpml_;
  std::vector<double> energy_;
  int current_ = 0;  // the buffer set holding the state
  std::int64_t steps_done_ = 0;
  cuda_buffers::StreamOrder order_;
};

}  // namespace
}  // namespace ppkit::fdtd

namespace ppkit::registration {
void register_fdtd_cuda_blocked_variants() {
  // Ranks 4 and 3: below the other CUDA variants until measured on a GPU.
  for (const auto& [steps, rank] : {std::pair{2, 4}, std::pair{4, 3}}) {
    const std::string name = "blocked-k" + std::to_string(steps);
    auto v = cuda::cuda_variant<FdtdStep>(name, rank);
    v.traits = fdtd::blocked_traits(steps);
    v.prepare = [full = v.name, steps = steps](
                    const FdtdStep::Problem& p) -> std::unique_ptr<PreparedRun<FdtdStep::Result>> {
      return std::make_unique<fdtd::CudaBlockedStep>(p, full, steps);
    };
    Registry<FdtdStep>::add(std::move(v));
  }
}
}  // namespace ppkit::registration
