// opencl/plain and opencl/float4: host glue of fdtd.step. Both use the same
// buffers (fields with a z pitch pz, packed CPML profiles, psi per axis, see
// fdtd_plain.cl); float4 pads pz to a multiple of 4, reads the narrowest
// material id type, and splits each half step into a CPML-free interior
// (quad-aligned along z, 2D work-groups) and a shell of the remaining nodes.
// Both prepared runs are also StepAppliers (fdtd::Solver steps them in
// chunks); their cl_mem buffers are not addressable, so fields are read and
// written through host arrays only.
#include <algorithm>
#include <map>
#include <cmath>

#include "backends/opencl/core/opencl_context.hpp"
#include "backends/opencl/fdtd/fdtd_opencl_layout.hpp"
#include "backends/opencl/fdtd/phasor_opencl.hpp"
#include "opencl_fdtd_common.hpp"
#include "opencl_fdtd_corrections.hpp"
#include "opencl_fdtd_float4.hpp"
#include "opencl_fdtd_periodic.hpp"
#include "opencl_fdtd_ntff.hpp"
#include "opencl_fdtd_plain.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/step_applier.hpp"
#include "ppkit/fdtd/step_features.hpp"
#include "ppkit/fdtd/yee_split.hpp"

namespace ppkit::fdtd {
namespace {

using opencl::Buffer;

// Work-group shape of opencl/float4: LQ quads (4 z nodes each) x LY rows.
constexpr std::size_t float4_quads = 16, float4_rows = 8;
constexpr std::size_t max_reduction_groups = 1024;

using opencl_layout::device_copy;
using opencl_layout::round_up;

class OpenClStep final : public PreparedRun<FdtdStep::Result>, public StepApplier {
 public:
  OpenClStep(const FdtdStep::Problem& p, bool vectorized)
      : problem_(p), setup_(make_step_setup(p)), vectorized_(vectorized) {
    auto& ctx = opencl::Context::get();
    const YeeGrid& g = p.grid;
    nx_ = g.nx, ny_ = g.ny, nz_ = g.nz;
    pz_ = vectorized ? index_t(round_up(std::size_t(nz_ + 1), 32)) : nz_ + 1;  // 128-byte rows
    layers_ = 2 * setup_.cpml.thickness;
    nodes_ = (nx_ + 1) * (ny_ + 1) * pz_;

    const std::string source =
        std::string(opencl::sources::fdtd_common) + opencl::sources::fdtd_corrections +
        opencl::sources::fdtd_ntff +
        (vectorized ? opencl::sources::fdtd_float4 : opencl::sources::fdtd_plain) +
        opencl::sources::fdtd_periodic;
    // opencl/float4 reads the narrowest id type (none with a single material).
    const std::size_t materials = p.materials.size();
    const char* id_type = materials <= 256 ? "uchar" : materials <= 65536 ? "ushort" : "uint";
    std::string options =
        vectorized
            ? "-DLQ=" + std::to_string(float4_quads) + " -DLY=" + std::to_string(float4_rows) +
                  " -DMATERIAL_T=" + id_type + (materials == 1 ? " -DONE_MATERIAL" : "")
            : std::string();
    if (p.periodic[0]) options += " -DPERIODIC_X=1";
    if (p.periodic[1]) options += " -DPERIODIC_Y=1";
    program_ = ctx.program(source, options);
    update_h_ =
        std::make_unique<opencl::Kernel>(program_, vectorized ? "update_h_shell" : "update_h");
    update_e_ =
        std::make_unique<opencl::Kernel>(program_, vectorized ? "update_e_shell" : "update_e");
    if (vectorized) {
      interior_h_ = std::make_unique<opencl::Kernel>(program_, "update_h_interior");
      interior_e_ = std::make_unique<opencl::Kernel>(program_, "update_e_interior");
    }
    sources_ = std::make_unique<opencl::Kernel>(program_, "apply_sources");
    probes_ = std::make_unique<opencl::Kernel>(program_, "record_probes");
    energy_ = std::make_unique<opencl::Kernel>(program_,
                                               vectorized ? "energy_partial4" : "energy_partial");
    reduce_ = std::make_unique<opencl::Kernel>(program_, "reduce_sum");
    periodic_ = std::make_unique<opencl::Kernel>(program_, "periodic_copy");
    tfsf_ = std::make_unique<opencl::Kernel>(program_, "tfsf_correct");
    ntff_accumulate_ = std::make_unique<opencl::Kernel>(program_, "ntff_accumulate");
    ntff_partial_ = std::make_unique<opencl::Kernel>(program_, "ntff_partial");
    ntff_final_ = std::make_unique<opencl::Kernel>(program_, "ntff_final");

    for (int c = 0; c < 6; ++c) {
      fields_[c] = Buffer<float>(std::size_t(nodes_));
      fields_[c].fill_bytes(0xFF);  // poison
      if (!p.initial[c].empty()) initial_[c] = Buffer<float>(pitched(p.initial[c], 0.0f));
    }
    if (!vectorized || materials > 65536) {
      material_ = Buffer<std::uint32_t>(pitched(setup_.material_id, 0u));
      material_mem_ = material_.mem();
    } else if (materials > 256) {
      material16_ = Buffer<std::uint16_t>(
          pitched(std::vector<std::uint16_t>(setup_.material_id.begin(), setup_.material_id.end()),
                  std::uint16_t(0)));
      material_mem_ = material16_.mem();
    } else {
      material8_ = Buffer<std::uint8_t>(
          pitched(std::vector<std::uint8_t>(setup_.material_id.begin(), setup_.material_id.end()),
                  std::uint8_t(0)));
      material_mem_ = material8_.mem();
    }
    table_ = device_copy(setup_.material_table);
    const index_t n[3] = {nx_, ny_, nz_};
    for (int a = 0; a < 3; ++a) {
      // z profiles of opencl/float4 have pz entries (padding: b = 1, c = 0, slot -1).
      const std::size_t n1 = a == 2 ? std::size_t(pz_) : std::size_t(n[a] + 1);
      opencl_layout::PackedCpmlAxis packed = opencl_layout::pack_cpml_axis(setup_.cpml.axis[a], n1);
      profiles_[a] = std::move(packed.profiles);
      slots_[a] = std::move(packed.slots);
    }
    psi_size_[0] = layers_ * (ny_ + 1) * pz_;
    psi_size_[1] = (nx_ + 1) * layers_ * pz_;
    psi_size_[2] = (nx_ + 1) * (ny_ + 1) * layers_;
    for (int a = 0; a < 3; ++a)
      psi_[a] = Buffer<float>(std::max<std::size_t>(1, 4 * std::size_t(psi_size_[a])));

    // Sources and probes at their pitched node indices.
    auto pitched_index = [&](index_t node) {
      const index_t k = node % (nz_ + 1), row = node / (nz_ + 1);
      return row * pz_ + k;
    };
    std::vector<cl_long> source_index, probe_index;
    for (auto node : setup_.source_index) source_index.push_back(pitched_index(node));
    for (auto node : setup_.probe_index) probe_index.push_back(pitched_index(node));
    source_index_ = device_copy(source_index);
    source_component_ = device_copy(
        std::vector<cl_int>(setup_.source_component.begin(), setup_.source_component.end()));
    source_hard_ =
        device_copy(std::vector<cl_int>(setup_.source_hard.begin(), setup_.source_hard.end()));
    source_values_ = device_copy(setup_.source_values);
    probe_index_ = device_copy(probe_index);
    probe_component_ = device_copy(
        std::vector<cl_int>(setup_.probe_component.begin(), setup_.probe_component.end()));
    probe_values_ = Buffer<float>(std::max<std::size_t>(1, p.probes.size() * std::size_t(p.steps)));
    probe_values_.fill_bytes(0xFF);  // poison

    // Plane wave: corrections per component at pitched nodes, incident table.
    const TfsfCorrections& t = setup_.tfsf;
    incident_ = device_copy(t.incident);
    for (int c = 0; c < 6; ++c) {
      tfsf_count_[c] = cl_long(t.node[std::size_t(c)].size());
      if (tfsf_count_[c] == 0) continue;
      std::vector<cl_long> nodes;
      for (auto node : t.node[std::size_t(c)]) nodes.push_back(pitched_index(node));
      tfsf_node_[c] = device_copy(nodes);
      tfsf_w0_[c] = device_copy(t.weight0[std::size_t(c)]);
      tfsf_w1_[c] = device_copy(t.weight1[std::size_t(c)]);
      tfsf_s0_[c] = device_copy(t.slot0[std::size_t(c)]);
      tfsf_s1_[c] = device_copy(t.slot1[std::size_t(c)]);
    }

    // Near-to-far-field: surface samples at pitched nodes, DFT accumulators,
    // and per (frequency, direction) the 9 direction values.
    const NtffSurface& surface = setup_.ntff;
    ntff_samples_ = cl_long(surface.size());
    if (ntff_samples_ > 0) {
      const auto& far = p.far_field[0];
      ntff_frequencies_ = cl_long(far.frequencies.size());
      std::vector<cl_long> a, b;
      for (auto node : surface.node_a) a.push_back(pitched_index(node));
      for (auto node : surface.node_b) b.push_back(pitched_index(node));
      ntff_node_a_ = device_copy(a);
      ntff_node_b_ = device_copy(b);
      ntff_component_ = device_copy(surface.component);
      ntff_current_ = device_copy(surface.current);
      ntff_magnetic_ = device_copy(surface.magnetic);
      ntff_weight_ = device_copy(surface.weight);
      ntff_x_ = device_copy(surface.x);
      ntff_y_ = device_copy(surface.y);
      ntff_z_ = device_copy(surface.z);
      ntff_factors_ = device_copy(setup_.ntff_factors);
      ntff_re_ = Buffer<double>(std::size_t(ntff_samples_ * ntff_frequencies_));
      ntff_im_ = Buffer<double>(std::size_t(ntff_samples_ * ntff_frequencies_));
      std::vector<double> dirs;
      for (std::size_t f = 0; f < far.frequencies.size(); ++f)
        for (std::size_t d = 0; d < far.directions.size(); ++d) {
          const NtffDirection nd = ntff_direction(far, f, d);
          for (const auto* v : {&nd.k, &nd.theta, &nd.phi})
            dirs.insert(dirs.end(), v->begin(), v->end());
        }
      ntff_directions_ = device_copy(dirs);
      ntff_partials_ = Buffer<double>(8 * max_reduction_groups);
      ntff_sums_ = Buffer<double>(8);
    }

    // Reduction: power-of-two work-groups of up to 256.
    std::size_t max_group = 0;
    PPKIT_CL_CHECK(clGetDeviceInfo(ctx.device(), CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(max_group),
                                   &max_group, nullptr));
    reduction_group_ = 1;
    while (reduction_group_ * 2 <= std::min<std::size_t>(256, max_group)) reduction_group_ *= 2;
    partial_[0] = Buffer<float>(max_reduction_groups);
    partial_[1] = Buffer<float>(max_reduction_groups);

    const cl_long nx = nx_, ny = ny_, nz = nz_, pz = pz_, layers = layers_;
    const cl_long s0 = psi_size_[0], s1 = psi_size_[1], s2 = psi_size_[2];
    if (!vectorized) {
      for (cl_kernel k : {cl_kernel(*update_h_), cl_kernel(*update_e_)})
        opencl::set_args(k, nx, ny, nz, pz, layers, fields_[0].mem(), fields_[1].mem(),
                         fields_[2].mem(), fields_[3].mem(), fields_[4].mem(), fields_[5].mem(),
                         material_mem_, table_.mem(), profiles_[0].mem(), profiles_[1].mem(),
                         profiles_[2].mem(), slots_[0].mem(), slots_[1].mem(), slots_[2].mem(),
                         psi_[0].mem(), psi_[1].mem(), psi_[2].mem(), s0, s1, s2);
    } else {
      prepare_split();
    }
    if (p.phasors.enabled()) {
      phasors_ =
          std::make_unique<OpenClPhasors>(p.phasors, g, 0, setup_.phasor_samples, vectorized);
      phasors_->set_fields({fields_[0].mem(), fields_[1].mem(), fields_[2].mem(), fields_[3].mem(),
                            fields_[4].mem(), fields_[5].mem()},
                           (ny_ + 1) * pz_, pz_);
    }
    ctx.finish();
  }

  void run() override {
    restart();
    steps_until(problem_.steps);
    if (ntff_samples_ > 0) ntff_radiation();
    opencl::Context::get().finish();
  }

  // ---- StepApplier (fdtd::Solver): the same state, stepped in chunks ----------
  void restart() override {
    cl_command_queue queue = opencl::Context::get().queue();
    for (int c = 0; c < 6; ++c) {
      if (problem_.initial[c].empty())
        fields_[c].fill_bytes(0);
      else
        PPKIT_CL_CHECK(clEnqueueCopyBuffer(queue, initial_[c].mem(), fields_[c].mem(), 0, 0,
                                           fields_[c].bytes(), 0, nullptr, nullptr));
    }
    for (auto& b : psi_) b.fill_bytes(0);
    energy_values_.clear();
    frames_.clear();
    radiation_.clear();
    if (ntff_samples_ > 0) {
      ntff_re_.fill_bytes(0);
      ntff_im_.fill_bytes(0);
    }
    next_energy_ = next_frame_ = 0;
    step_ = 0;
    edge_steps_.reset();
    if (phasors_) phasors_->reset(PhasorSet{});
  }
  void advance(std::int64_t n, void* stream) override {
    refuse_stream(stream);
    steps_until(step_ + n);
  }
  std::int64_t step() const override { return step_; }
  index_t pitch() const override { return pz_; }
  void* field_address(int) override { return nullptr; }  // cl_mem, not an address
  // Host arrays only: rectangular reads and writes of the rows of nz + 1 values.
  void copy_field(int c, void* array, bool array_on_host, bool into_field, void* stream) override {
    refuse_stream(stream);
    require(array_on_host, "OpenCL buffers are not addressable device memory",
            "a host array (PPKIT_MEM_HOST) for an opencl/* variant");
    opencl_layout::copy_rows(fields_[c].mem(), problem_.grid, pz_, 0, nx_ + 1, array, into_field);
  }
  // Rectangular reads and writes of the planes' rows (the padding untouched).
  void copy_planes(int c, index_t first, index_t count, float* host, bool into_field,
                   const YeeGrid&) override {
    require(first >= 0 && count >= 0 && first + count <= nx_ + 1,
            "planes " + std::to_string(first) + ".." + std::to_string(first + count) +
                " of a grid with " + std::to_string(nx_ + 1) + " x-planes",
            "planes inside the grid");
    opencl_layout::copy_rows(fields_[c].mem(), problem_.grid, pz_, first, count, host, into_field);
  }
  std::vector<double> probe_record() override {
    const std::vector<float> v = probe_values_.download();
    return std::vector<double>(v.begin(), v.begin() + std::ptrdiff_t(problem_.probes.size() *
                                                                     std::size_t(problem_.steps)));
  }
  PhasorSet phasor_sums() override { return phasors_ ? phasors_->download() : PhasorSet{}; }
  void wait(void* stream) override {
    refuse_stream(stream);
    opencl::Context::get().finish();
  }
  std::optional<DataLocation> memory() const override { return std::nullopt; }

 private:
  static void refuse_stream(void* stream) {
    require(stream == nullptr, "a stream was given to an opencl/* variant",
            "no stream (nullptr): OpenCL variants run on ppkit's own command queue");
  }

  // Steps step_ .. end - 1, as run() does them.
  void steps_until(std::int64_t end) {
    edge_steps_.require_between_steps();
    while (step_ < end) {
      h_half_step();
      e_planes(0, nx_ + 1);
      after_e_update();
    }
  }

  // The first part of a step: H everywhere, then E on the edge planes
  // (step_applier.hpp).
  void begin_step(const std::vector<index_t>& edges) override {
    edge_steps_.begin(edges, nx_ + 1, step_, problem_.steps,
                      setup_.tfsf.row == 0 && ntff_samples_ == 0 &&
                          setup_.snapshot_schedule.empty() && !problem_.periodic[0],
                      "a plane wave, the NTFF, snapshots or periodic x");
    h_half_step();
    for (index_t e : edge_steps_.edges()) e_planes(e, e + 1);
  }

  // The rest: E on the other planes, then what follows the E update.
  void finish_step() override {
    for (const auto& [first, end] : edge_steps_.finish()) e_planes(first, end);
    after_e_update();
  }

  // H^{n+1/2} on every plane, the plane wave's H correction and the periodic H copy.
  void h_half_step() {
    cl_command_queue queue = opencl::Context::get().queue();
    if (vectorized_) {
      if (interior_global_[0][2] > 0)
        PPKIT_CL_CHECK(clEnqueueNDRangeKernel(queue, *interior_h_, 3, nullptr, interior_global_[0],
                                              float4_local, 0, nullptr, nullptr));
      if (shell_global_[0] > 0)
        PPKIT_CL_CHECK(clEnqueueNDRangeKernel(queue, *update_h_, 1, nullptr, &shell_global_[0],
                                              nullptr, 0, nullptr, nullptr));
    } else {
      const std::size_t global[3] = {std::size_t(nz_ + 1), std::size_t(ny_ + 1),
                                     std::size_t(nx_ + 1)};
      PPKIT_CL_CHECK(clEnqueueNDRangeKernel(queue, *update_h_, 3, nullptr, global, nullptr, 0,
                                            nullptr, nullptr));
    }
    if (setup_.tfsf.row > 0) tfsf(3, step_);
    periodic_copy(false);
  }

  // E^{n+1} on the planes [i0, i1), on every plane also the plane wave's E
  // correction, then the sources there and the periodic E copy (of every
  // plane: planes not yet updated already hold equal face values, so copying
  // them again changes nothing).
  void e_planes(index_t i0, index_t i1) {
    if (i1 <= i0) return;
    cl_command_queue queue = opencl::Context::get().queue();
    const bool whole = i0 == 0 && i1 == nx_ + 1;
    if (vectorized_) {
      const index_t lo0 = interior_box_[1].lo[0], hi0 = interior_box_[1].hi[0];
      const index_t first = std::max(i0, lo0), last = std::min(i1, hi0);
      if (interior_global_[1][2] > 0 && last > first) {
        const std::size_t offset[3] = {0, 0, std::size_t(first - lo0)};
        const std::size_t global[3] = {interior_global_[1][0], interior_global_[1][1],
                                       std::size_t(last - first)};
        PPKIT_CL_CHECK(clEnqueueNDRangeKernel(queue, *interior_e_, 3, offset, global, float4_local,
                                              0, nullptr, nullptr));
      }
      const Buffer<cl_long>& shell = whole ? shell_[1] : clipped_shell(i0, i1);
      const std::size_t items = whole ? shell_global_[1] : clipped_shell_items_[{i0, i1}];
      if (items > 0) {
        const cl_mem mem = shell.mem();
        PPKIT_CL_CHECK(clSetKernelArg(*update_e_, 5, sizeof(cl_mem), &mem));
        PPKIT_CL_CHECK(clEnqueueNDRangeKernel(queue, *update_e_, 1, nullptr, &items, nullptr, 0,
                                              nullptr, nullptr));
      }
    } else {
      const std::size_t offset[3] = {0, 0, std::size_t(i0)};
      const std::size_t global[3] = {std::size_t(nz_ + 1), std::size_t(ny_ + 1),
                                     std::size_t(i1 - i0)};
      PPKIT_CL_CHECK(clEnqueueNDRangeKernel(queue, *update_e_, 3, offset, global, nullptr, 0,
                                            nullptr, nullptr));
    }
    if (whole && setup_.tfsf.row > 0) tfsf(0, step_);
    const cl_long n_sources = cl_long(problem_.sources.size());
    if (n_sources > 0) {
      const cl_long plane = (ny_ + 1) * pz_, node_begin = i0 * plane, node_end = i1 * plane;
      opencl::set_args(*sources_, n_sources, cl_long(step_), cl_long(problem_.steps),
                       source_index_.mem(), source_component_.mem(), source_hard_.mem(),
                       source_values_.mem(), fields_[0].mem(), fields_[1].mem(), fields_[2].mem(),
                       node_begin, node_end);
      const std::size_t one = 1;
      PPKIT_CL_CHECK(
          clEnqueueNDRangeKernel(queue, *sources_, 1, nullptr, &one, nullptr, 0, nullptr, nullptr));
    }
    periodic_copy(true);
  }

  // The packed E shell of opencl/float4 clipped to the planes [i0, i1),
  // uploaded once per range (MPI slabs use the same two edges every step).
  const Buffer<cl_long>& clipped_shell(index_t i0, index_t i1) {
    auto found = clipped_shells_.find({i0, i1});
    if (found != clipped_shells_.end()) return found->second;
    const split::Shell shell = split::clip_x(shell_e_, i0, i1);
    clipped_shells_[{i0, i1}] = device_copy(pack_shell(shell));
    clipped_shell_items_[{i0, i1}] = round_up(std::size_t(shell.first[6]), 256);
    return clipped_shells_[{i0, i1}];
  }

  // Probes, phasors, frames, the NTFF and the energy of step_, then step_ + 1.
  void after_e_update() {
    cl_command_queue queue = opencl::Context::get().queue();
    const cl_long step = step_, steps = problem_.steps;
    const cl_long n_probes = cl_long(problem_.probes.size());
    if (n_probes > 0) {
      opencl::set_args(*probes_, n_probes, step, steps, probe_index_.mem(), probe_component_.mem(),
                       fields_[0].mem(), fields_[1].mem(), fields_[2].mem(), fields_[3].mem(),
                       fields_[4].mem(), fields_[5].mem(), probe_values_.mem());
      const std::size_t count = std::size_t(n_probes);
      PPKIT_CL_CHECK(clEnqueueNDRangeKernel(queue, *probes_, 1, nullptr, &count, nullptr, 0,
                                            nullptr, nullptr));
    }
    if (phasors_) phasors_->accumulate(phasor_sample_after(problem_, step));
    for (; next_frame_ < setup_.snapshot_schedule.size() &&
           setup_.snapshot_schedule[next_frame_].first == step;
         ++next_frame_)
      take_frame(setup_.snapshot_schedule[next_frame_].second, step);
    if (ntff_samples_ > 0) ntff_accumulate(step);
    if (next_energy_ < setup_.energy_steps.size() && setup_.energy_steps[next_energy_] == step) {
      energy_values_.push_back(total_energy() * setup_.cell_volume);
      ++next_energy_;
    }
    ++step_;
  }

 public:
  FdtdStep::Result result() override {
    FdtdStep::Result r;
    for (int c = 0; c < 6; ++c) r.fields[c] = unpitched(fields_[c].download());
    r.probe_values = probe_values_.download();
    r.probe_values.resize(problem_.probes.size() * std::size_t(problem_.steps));
    if (phasors_) r.phasors = phasors_->download();
    set_result_records(r, setup_, energy_values_, frames_, radiation_);
    return r;
  }

 private:
  void ntff_accumulate(cl_long step) {
    opencl::set_args(*ntff_accumulate_, ntff_samples_, ntff_frequencies_, ntff_component_.mem(),
                     ntff_node_a_.mem(), ntff_node_b_.mem(), ntff_factors_.mem(),
                     cl_long(step * ntff_frequencies_ * 4), ntff_re_.mem(), ntff_im_.mem(),
                     fields_[0].mem(), fields_[1].mem(), fields_[2].mem(), fields_[3].mem(),
                     fields_[4].mem(), fields_[5].mem());
    const std::size_t global = std::size_t(ntff_samples_);
    PPKIT_CL_CHECK(clEnqueueNDRangeKernel(opencl::Context::get().queue(), *ntff_accumulate_, 1,
                                          nullptr, &global, nullptr, 0, nullptr, nullptr));
  }

  // Radiation vectors: per (frequency, direction) a partial-sum kernel over
  // work-groups and a one-group final kernel, both local-memory tree reductions.
  void ntff_radiation() {
    cl_command_queue queue = opencl::Context::get().queue();
    const std::size_t group = reduction_group_;
    const std::size_t groups =
        std::min(max_reduction_groups, (std::size_t(ntff_samples_) + group - 1) / group);
    const std::size_t directions = problem_.far_field[0].directions.size();
    for (cl_long f = 0; f < ntff_frequencies_; ++f)
      for (std::size_t d = 0; d < directions; ++d) {
        opencl::set_args(*ntff_partial_, ntff_samples_, f, ntff_directions_.mem(),
                         cl_long(std::size_t(f) * directions + d), ntff_current_.mem(),
                         ntff_magnetic_.mem(), ntff_weight_.mem(), ntff_x_.mem(), ntff_y_.mem(),
                         ntff_z_.mem(), ntff_re_.mem(), ntff_im_.mem(), ntff_partials_.mem());
        PPKIT_CL_CHECK(clSetKernelArg(*ntff_partial_, 13, 8 * group * sizeof(double), nullptr));
        std::size_t global = groups * group;
        PPKIT_CL_CHECK(clEnqueueNDRangeKernel(queue, *ntff_partial_, 1, nullptr, &global, &group, 0,
                                              nullptr, nullptr));
        opencl::set_args(*ntff_final_, cl_long(groups), ntff_partials_.mem(), ntff_sums_.mem());
        PPKIT_CL_CHECK(clSetKernelArg(*ntff_final_, 3, 8 * group * sizeof(double), nullptr));
        global = group;
        PPKIT_CL_CHECK(clEnqueueNDRangeKernel(queue, *ntff_final_, 1, nullptr, &global, &group, 0,
                                              nullptr, nullptr));
        double s[8];
        PPKIT_CL_CHECK(clEnqueueReadBuffer(queue, ntff_sums_.mem(), CL_TRUE, 0, sizeof s, s, 0,
                                           nullptr, nullptr));
        radiation_.push_back({std::complex<double>(s[0], s[1]), std::complex<double>(s[2], s[3]),
                              std::complex<double>(s[4], s[5]), std::complex<double>(s[6], s[7])});
      }
  }

  // Plane-wave corrections of the E (first = 0) or H (first = 3) components.
  void tfsf(int first, cl_long step) {
    cl_command_queue queue = opencl::Context::get().queue();
    const cl_long row_offset = step * setup_.tfsf.row;
    for (int c = first; c < first + 3; ++c) {
      if (tfsf_count_[c] == 0) continue;
      // The row of this step as a sub-buffer would need aligned offsets; pass
      // the whole table and shift the slots instead.
      opencl::set_args(*tfsf_, tfsf_count_[c], tfsf_node_[c].mem(), tfsf_w0_[c].mem(),
                       tfsf_w1_[c].mem(), tfsf_s0_[c].mem(), tfsf_s1_[c].mem(), incident_.mem(),
                       fields_[c].mem(), row_offset);
      const std::size_t global = std::size_t(tfsf_count_[c]);
      PPKIT_CL_CHECK(
          clEnqueueNDRangeKernel(queue, *tfsf_, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
    }
  }

  // Copies a snapshot plane back with a rectangular read (the solver runs in
  // chunks between frames); rows of the padded layout, then a transpose.
  void take_frame(int snapshot, cl_long step) {
    const PlaneSnapshot& s = problem_.snapshots[std::size_t(snapshot)];
    const YeeGrid& g = problem_.grid;
    const PlaneCopy c = plane_copy(g, pz_, s.normal, s.index);
    std::vector<float> native(std::size_t(c.rows * c.row_length));
    const std::size_t buffer_origin[3] = {std::size_t(c.offset) * sizeof(float), 0, 0};
    const std::size_t host_origin[3] = {0, 0, 0};
    const std::size_t region[3] = {std::size_t(c.row_length) * sizeof(float), std::size_t(c.rows),
                                   1};
    PPKIT_CL_CHECK(clEnqueueReadBufferRect(
        opencl::Context::get().queue(), fields_[int(s.component)].mem(), CL_TRUE, buffer_origin,
        host_origin, region, std::size_t(c.row_pitch) * sizeof(float), 0,
        std::size_t(c.row_length) * sizeof(float), 0, native.data(), 0, nullptr, nullptr));
    const auto size = plane_size(g, s.normal);
    frames_.push_back({snapshot, std::int64_t(step), frame_from_native(native, size[0], size[1])});
  }

  // Host layout (rows of nz + 1) <-> device layout (rows of pz, zero padding).
  template <class T>
  std::vector<T> pitched(const std::vector<T>& host, T fill) const {
    return opencl_layout::pitched(host, std::size_t((nx_ + 1) * (ny_ + 1)), std::size_t(nz_ + 1),
                                  std::size_t(pz_), fill);
  }
  std::vector<float> unpitched(const std::vector<float>& device) const {
    return opencl_layout::unpitched(device, std::size_t((nx_ + 1) * (ny_ + 1)),
                                    std::size_t(nz_ + 1), std::size_t(pz_));
  }

  // A shell as the update_*_shell kernels read it: 6 slabs x (lo, hi) x 3
  // axes, then the 7 prefix counts.
  static std::vector<cl_long> pack_shell(const split::Shell& shell) {
    std::vector<cl_long> packed(43);
    for (int q = 0; q < 6; ++q)
      for (int d = 0; d < 3; ++d) {
        packed[std::size_t(6 * q + 2 * d)] = shell.slab[q].lo[d];
        packed[std::size_t(6 * q + 2 * d + 1)] = shell.slab[q].hi[d];
      }
    for (int q = 0; q < 7; ++q) packed[std::size_t(36 + q)] = shell.first[q];
    return packed;
  }

  // opencl/float4: interior boxes (quad-aligned along z), shells, kernel arguments.
  void prepare_split() {
    YeeKernelArgs a{};
    a.nx = nx_, a.ny = ny_, a.nz = nz_, a.layers = layers_;
    const cl_long nx = nx_, ny = ny_, nz = nz_, pz = pz_, layers = layers_;
    const cl_long s0 = psi_size_[0], s1 = psi_size_[1], s2 = psi_size_[2];
    for (int half = 0; half < 2; ++half) {
      const bool electric = half == 1;
      split::Box box = split::interior_box(a, electric);
      float inv_d[3];
      for (int d = 0; d < 3; ++d) {
        const CpmlAxis& ax = setup_.cpml.axis[d];
        inv_d[d] = (electric ? ax.e_inv_kd : ax.h_inv_kd)[std::size_t(box.lo[d])];
      }
      // Whole quads only; the nodes cut off join the shell's z slabs.
      // An interior without a whole quad is empty (the shell takes its nodes).
      const index_t lo2 = (box.lo[2] + 3) / 4 * 4, hi2 = box.hi[2] / 4 * 4;
      if (hi2 > lo2) {
        box.lo[2] = lo2;
        box.hi[2] = hi2;
      } else {
        box.hi[2] = box.lo[2];
      }
      const bool empty = split::box_empty(box);
      const split::Shell shell = split::shell_around(a, box);
      interior_box_[half] = box;
      if (electric) shell_e_ = shell;
      shell_[half] = device_copy(pack_shell(shell));
      const std::size_t group = 256;
      shell_global_[half] = round_up(std::size_t(shell.first[6]), group);
      interior_global_[half][0] =
          empty ? 0 : round_up(std::size_t((hi2 - (lo2 & ~index_t(31))) / 4), float4_quads);
      interior_global_[half][1] =
          empty ? 0 : round_up(std::size_t(box.hi[1] - box.lo[1]), float4_rows);
      interior_global_[half][2] = empty ? 0 : std::size_t(box.hi[0] - box.lo[0]);
      const cl_mem f[6] = {fields_[0].mem(), fields_[1].mem(), fields_[2].mem(),
                           fields_[3].mem(), fields_[4].mem(), fields_[5].mem()};
      const cl_mem in0 = electric ? f[3] : f[0], in1 = electric ? f[4] : f[1],
                   in2 = electric ? f[5] : f[2], out0 = electric ? f[0] : f[3],
                   out1 = electric ? f[1] : f[4], out2 = electric ? f[2] : f[5];
      opencl::Kernel& interior = electric ? *interior_e_ : *interior_h_;
      opencl::set_args(interior, ny, pz, cl_long(box.lo[0]), cl_long(box.lo[1]), cl_long(box.hi[1]),
                       cl_long(lo2), cl_long(hi2), inv_d[0], inv_d[1], inv_d[2],
                       electric ? out0 : in0, electric ? out1 : in1, electric ? out2 : in2,
                       electric ? in0 : out0, electric ? in1 : out1, electric ? in2 : out2,
                       material_mem_, table_.mem());
      opencl::set_args(electric ? *update_e_ : *update_h_, nx, ny, nz, pz, layers,
                       shell_[half].mem(), fields_[0].mem(), fields_[1].mem(), fields_[2].mem(),
                       fields_[3].mem(), fields_[4].mem(), fields_[5].mem(), material_mem_,
                       table_.mem(), profiles_[0].mem(), profiles_[1].mem(), profiles_[2].mem(),
                       slots_[0].mem(), slots_[1].mem(), slots_[2].mem(), psi_[0].mem(),
                       psi_[1].mem(), psi_[2].mem(), s0, s1, s2);
    }
  }

  // Periodic faces (yee_kernel_args.hpp): H of face 0 to face n before the E
  // update (electric = false), E of face n to face 0 after the sources.
  void periodic_copy(bool electric) {
    cl_command_queue queue = opencl::Context::get().queue();
    for (cl_int axis : {1, 0}) {
      if (!problem_.periodic[std::size_t(axis)]) continue;
      const cl_long nx = nx_, ny = ny_, nz = nz_, pz = pz_;
      const cl_int e = electric ? 1 : 0;
      opencl::set_args(*periodic_, nx, ny, nz, pz, axis, e, fields_[0].mem(), fields_[1].mem(),
                       fields_[2].mem(), fields_[3].mem(), fields_[4].mem(), fields_[5].mem());
      const std::size_t global[2] = {std::size_t(nz_ + 1),
                                     std::size_t(axis == 1 ? nx_ + 1 : ny_ + 1)};
      PPKIT_CL_CHECK(clEnqueueNDRangeKernel(queue, *periodic_, 2, nullptr, global, nullptr, 0,
                                            nullptr, nullptr));
    }
  }

  // Two-kernel sum: per-group partial energies, then reduce_sum until one value.
  double total_energy() {
    cl_command_queue queue = opencl::Context::get().queue();
    const std::size_t group = reduction_group_;
    const cl_long items = vectorized_ ? nodes_ / 4 : nodes_;
    std::size_t groups = std::min(max_reduction_groups, (std::size_t(items) + group - 1) / group);
    opencl::set_args(*energy_, items, fields_[0].mem(), fields_[1].mem(), fields_[2].mem(),
                     fields_[3].mem(), fields_[4].mem(), fields_[5].mem(), material_mem_,
                     table_.mem(), partial_[0].mem());
    PPKIT_CL_CHECK(clSetKernelArg(*energy_, 10, group * sizeof(float), nullptr));
    std::size_t global = groups * group;
    PPKIT_CL_CHECK(
        clEnqueueNDRangeKernel(queue, *energy_, 1, nullptr, &global, &group, 0, nullptr, nullptr));
    int current = 0;
    while (groups > 1) {
      const cl_long n = cl_long(groups);
      groups = std::min(max_reduction_groups, (groups + group - 1) / group);
      opencl::set_args(*reduce_, n, partial_[current].mem(), partial_[1 - current].mem());
      PPKIT_CL_CHECK(clSetKernelArg(*reduce_, 3, group * sizeof(float), nullptr));
      global = groups * group;
      PPKIT_CL_CHECK(clEnqueueNDRangeKernel(queue, *reduce_, 1, nullptr, &global, &group, 0,
                                            nullptr, nullptr));
      current = 1 - current;
    }
    float sum = 0;
    PPKIT_CL_CHECK(clEnqueueReadBuffer(queue, partial_[current].mem(), CL_TRUE, 0, sizeof(float),
                                       &sum, 0, nullptr, nullptr));
    return double(sum);
  }

  FdtdStep::Problem problem_;
  StepSetup setup_;
  bool vectorized_;
  index_t nx_ = 0, ny_ = 0, nz_ = 0, pz_ = 0, layers_ = 0, nodes_ = 0;
  index_t psi_size_[3] = {0, 0, 0};
  cl_program program_ = nullptr;  // owned by the context's program cache
  std::unique_ptr<opencl::Kernel> update_h_, update_e_, sources_, probes_, energy_, reduce_,
      interior_h_, interior_e_, tfsf_, periodic_;
  Buffer<cl_long> shell_[2];      // opencl/float4: packed shell slabs (H, E)
  split::Box interior_box_[2]{};  // opencl/float4: the interiors (H, E)
  split::Shell shell_e_{};        // opencl/float4: the E shell
  // opencl/float4: the E shell clipped to plane ranges (begin_step/finish_step).
  std::map<std::pair<index_t, index_t>, Buffer<cl_long>> clipped_shells_;
  std::map<std::pair<index_t, index_t>, std::size_t> clipped_shell_items_;
  EdgePlaneSteps edge_steps_;
  static constexpr std::size_t float4_local[3] = {float4_quads, float4_rows, 1};
  std::size_t shell_global_[2] = {0, 0};    // shell work-items, rounded up to 256
  std::size_t interior_global_[2][3] = {};  // interior NDRange (quads, rows, planes)
  std::unique_ptr<OpenClPhasors> phasors_;
  Buffer<float> incident_, tfsf_w0_[6], tfsf_w1_[6];
  Buffer<cl_long> tfsf_node_[6];
  Buffer<std::int32_t> tfsf_s0_[6], tfsf_s1_[6];
  cl_long tfsf_count_[6] = {0, 0, 0, 0, 0, 0};
  std::vector<SnapshotFrame> frames_;
  std::unique_ptr<opencl::Kernel> ntff_accumulate_, ntff_partial_, ntff_final_;
  cl_long ntff_samples_ = 0, ntff_frequencies_ = 0;
  Buffer<cl_long> ntff_node_a_, ntff_node_b_;
  Buffer<std::int32_t> ntff_component_, ntff_current_, ntff_magnetic_;
  Buffer<float> ntff_weight_, ntff_x_, ntff_y_, ntff_z_, ntff_factors_;
  Buffer<double> ntff_re_, ntff_im_, ntff_directions_, ntff_partials_, ntff_sums_;
  std::vector<RadiationVectors> radiation_;
  Buffer<float> fields_[6], initial_[6], table_, profiles_[3], psi_[3], source_values_,
      probe_values_, partial_[2];
  Buffer<std::uint32_t> material_;
  Buffer<std::uint16_t> material16_;
  Buffer<std::uint8_t> material8_;
  cl_mem material_mem_ = nullptr;
  Buffer<std::int32_t> slots_[3], source_component_, source_hard_, probe_component_;
  Buffer<cl_long> source_index_, probe_index_;
  std::size_t reduction_group_ = 1;
  std::vector<double> energy_values_;
  std::int64_t step_ = 0;  // steps done since restart()
  std::size_t next_energy_ = 0, next_frame_ = 0;
};

}  // namespace
}  // namespace ppkit::fdtd

namespace ppkit::registration {
void register_fdtd_opencl_variants() {
  for (bool vectorized : {false, true}) {
    auto v = opencl::opencl_variant<FdtdStep>(vectorized ? "float4" : "plain", vectorized ? 5 : 4);
    v.traits.plane_wave = v.traits.periodic = true;  // fp32 only: require_fp32 below
    v.traits.slab = true;                            // copy_planes above
    v.traits.slab_overlap = true;                    // begin_step/finish_step above
    if (!vectorized) v.role = VariantRole::baseline;
    v.prepare = [vectorized](const FdtdStep::Problem& p) {
      fdtd::require_fp32(p, vectorized ? "opencl/float4" : "opencl/plain");
      return std::make_unique<fdtd::OpenClStep>(p, vectorized);
    };
    Registry<FdtdStep>::add(std::move(v));
  }
}
}  // namespace ppkit::registration
