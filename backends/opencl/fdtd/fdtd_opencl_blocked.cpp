// opencl/blocked-k2, opencl/blocked-k4: host glue of the temporally blocked
// OpenCL fdtd.step (fdtd_blocked.cl; scheme in ppkit/fdtd/yee_blocked.hpp):
// k steps per pass over the grid, a work-group per y-z tile with a halo of k
// nodes per side, the tile's field ring in local memory and its psi ring in
// a slice of global memory. Buffers in the layout of opencl/float4
// (fdtd_opencl_layout.hpp: rows padded to 32 values, packed CPML profiles,
// the narrowest material id type); fields and psi are double-buffered, and
// after each Solver chunk the state is back in the first buffers. It runs
// what the Kokkos form runs (materials, PEC, CPML, sources, probes, energy;
// fp32) and refuses the rest in prepare() (step_features.hpp).
#include "backends/opencl/fdtd/fdtd_opencl_blocked.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "backends/opencl/core/opencl_context.hpp"
#include "backends/opencl/fdtd/fdtd_opencl_layout.hpp"
#include "opencl_fdtd_blocked.hpp"
#include "ppkit/fdtd/step_applier.hpp"
#include "ppkit/fdtd/step_features.hpp"
#include "ppkit/fdtd/yee_blocked.hpp"

namespace ppkit::fdtd {
namespace {

using opencl::Buffer;
using opencl_layout::device_copy;

// Work-group shape (work-items along z, each a quad of 4 nodes, x rows) and
// default tiles: on GPUs 8 rows x 32 z (as cuda/blocked-k*; 16 quads cover a
// window row with its halo), on CPUs whole rows and about 32 rows per tile
// (as the Kokkos host form), the tile count a multiple of the compute units,
// and one work-item per group (a CPU runs a group on one core: its loops
// over the window's quads need no barrier between work-items).
struct Shape {
  index_t tile_y, tile_z;
  std::size_t lz, ly;
};

class OpenClBlockedStep final : public PreparedRun<FdtdStep::Result>, public StepApplier {
 public:
  OpenClBlockedStep(const FdtdStep::Problem& p, const std::string& name,
                    const BlockedTiling& tiling, const OpenClGroupShape& group = {})
      : problem_(p), setup_(make_step_setup(p)), steps_per_pass_(tiling.steps_per_pass) {
    require_blocked_run(p, name, tiling);
    auto& ctx = opencl::Context::get();
    const YeeGrid& g = p.grid;
    const index_t ny1 = g.ny + 1, nz1 = g.nz + 1;
    pz_ = index_t(opencl_layout::round_up(std::size_t(nz1), 32));  // 128-byte rows
    nodes_ = (g.nx + 1) * ny1 * pz_;

    cl_ulong local_bytes = 0;
    cl_uint units = 1;
    PPKIT_CL_CHECK(clGetDeviceInfo(ctx.device(), CL_DEVICE_LOCAL_MEM_SIZE, sizeof(local_bytes),
                                   &local_bytes, nullptr));
    PPKIT_CL_CHECK(
        clGetDeviceInfo(ctx.device(), CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(units), &units, nullptr));
    Shape shape{8, 32, 16, 8};
    if (!ctx.is_gpu()) {
      index_t tiles = std::max<index_t>(1, (ny1 + 31) / 32);
      tiles = (tiles + units - 1) / units * units;
      shape = {(ny1 + tiles - 1) / tiles, nz1, 1, 1};
    }
    lz_ = group.z > 0 ? group.z : shape.lz;
    ly_ = group.y > 0 ? group.y : shape.ly;
    const index_t halo = tiling.halo > 0 ? tiling.halo : steps_per_pass_;
    index_t tile_y = tiling.tile_y > 0 ? tiling.tile_y : shape.tile_y;
    index_t tile_z = tiling.tile_z > 0 ? tiling.tile_z : shape.tile_z;
    const auto tiling_of = [&] {
      return blocked::make_tiling(ny1, nz1, tile_y, tile_z, halo, steps_per_pass_);
    };
    // Default extents too large for the local memory: the longer one halved.
    while (local_need(tiling_of()) > local_bytes) {
      const bool z = tiling.tile_z == 0 && tile_z > 1, y = tiling.tile_y == 0 && tile_y > 1;
      if (z && (!y || tile_z >= tile_y))
        tile_z = (tile_z + 1) / 2;
      else if (y)
        tile_y = (tile_y + 1) / 2;
      else
        break;
    }
    t_ = tiling_of();
    require(local_need(t_) <= local_bytes,
            name + " with tiles of " + std::to_string(t_.window_y) + " x " +
                std::to_string(t_.window_z) + " nodes over " + std::to_string(t_.ring) +
                " planes needs " + std::to_string(local_need(t_)) +
                " bytes of local memory per work-group",
            "smaller tiles or fewer steps per pass: at most " + std::to_string(local_bytes) +
                " bytes on " + ctx.description());

    // The window extents and ring are constants of the program; the id type
    // is the narrowest that holds every id (none with a single material).
    const std::size_t materials = p.materials.size();
    const char* id_type = materials <= 256 ? "uchar" : materials <= 65536 ? "ushort" : "uint";
    const std::string options =
        "-DWY=" + std::to_string(t_.window_y) + " -DWZ=" + std::to_string(t_.window_z) +
        " -DRING=" + std::to_string(t_.ring) + " -DLZ=" + std::to_string(lz_) +
        " -DLY=" + std::to_string(ly_) + " -DMATERIAL_T=" + id_type +
        (materials == 1 ? " -DONE_MATERIAL" : "");
    program_ = ctx.program(opencl::sources::fdtd_blocked, options);
    pass_ = std::make_unique<opencl::Kernel>(program_, "blocked_pass");

    const std::size_t rows = std::size_t((g.nx + 1) * ny1);
    for (int b = 0; b < 2; ++b)
      for (int c = 0; c < 6; ++c) fields_[b][c] = Buffer<float>(std::size_t(nodes_));
    for (int c = 0; c < 6; ++c) {
      fields_[0][c].fill_bytes(0xFF);  // poison
      fields_[1][c].fill_bytes(0);     // the padding stays zero
      if (!p.initial[c].empty())
        initial_[c] = Buffer<float>(
            opencl_layout::pitched(p.initial[c], rows, std::size_t(nz1), std::size_t(pz_), 0.0f));
    }
    if (materials > 65536)
      material32_ = device_copy(
          opencl_layout::pitched(setup_.material_id, rows, std::size_t(nz1), std::size_t(pz_), 0u));
    else if (materials > 256)
      material16_ = device_copy(opencl_layout::pitched(
          std::vector<std::uint16_t>(setup_.material_id.begin(), setup_.material_id.end()), rows,
          std::size_t(nz1), std::size_t(pz_), std::uint16_t(0)));
    else
      material8_ = device_copy(opencl_layout::pitched(
          std::vector<std::uint8_t>(setup_.material_id.begin(), setup_.material_id.end()), rows,
          std::size_t(nz1), std::size_t(pz_), std::uint8_t(0)));
    material_mem_ = materials > 65536 ? material32_.mem()
                    : materials > 256 ? material16_.mem()
                                      : material8_.mem();
    table_ = device_copy(setup_.material_table);
    const index_t n1[3] = {g.nx + 1, ny1, pz_};
    for (int a = 0; a < 3; ++a) {
      opencl_layout::PackedCpmlAxis packed =
          opencl_layout::pack_cpml_axis(setup_.cpml.axis[a], std::size_t(n1[a]));
      profiles_[a] = std::move(packed.profiles);
      slots_[a] = std::move(packed.slots);
    }
    layers_ = 2 * setup_.cpml.thickness;
    psi_size_[0] = layers_ * ny1 * pz_;
    psi_size_[1] = (g.nx + 1) * layers_ * pz_;
    psi_size_[2] = (g.nx + 1) * ny1 * layers_;
    for (int b = 0; b < 2; ++b)
      for (int a = 0; a < 3; ++a)
        psi_[b][a] = Buffer<float>(std::max<std::size_t>(1, 4 * std::size_t(psi_size_[a])));
    psi_ring_ = Buffer<float>(std::size_t(t_.tiles() * t_.psi_values()));

    // Sources and probes by node (i, j, k): the tiles test their plane and window.
    std::vector<cl_long> source_node, probe_node;
    for (const index_t n : setup_.source_index)
      for (const index_t u : {n / (ny1 * nz1), n / nz1 % ny1, n % nz1}) source_node.push_back(u);
    for (const index_t n : setup_.probe_index)
      for (const index_t u : {n / (ny1 * nz1), n / nz1 % ny1, n % nz1}) probe_node.push_back(u);
    source_node_ = device_copy(source_node);
    probe_node_ = device_copy(probe_node);
    source_component_ = device_copy(
        std::vector<cl_int>(setup_.source_component.begin(), setup_.source_component.end()));
    source_hard_ =
        device_copy(std::vector<cl_int>(setup_.source_hard.begin(), setup_.source_hard.end()));
    source_values_ = device_copy(setup_.source_values);
    probe_component_ = device_copy(
        std::vector<cl_int>(setup_.probe_component.begin(), setup_.probe_component.end()));
    probe_values_ = Buffer<float>(std::max<std::size_t>(1, p.probes.size() * std::size_t(p.steps)));
    probe_values_.fill_bytes(0xFF);  // poison
    std::vector<cl_int> energy_after(std::size_t(std::max<std::int64_t>(p.steps, 1)), 0);
    for (const std::int64_t s : setup_.energy_steps) energy_after[std::size_t(s)] = 1;
    energy_after_ = device_copy(energy_after);
    energy_partial_ = Buffer<double>(std::size_t(t_.tiles() * t_.ring));
    ctx.finish();
  }

  void run() override {
    restart();
    steps_until(problem_.steps);
    opencl::Context::get().finish();
  }

  // ---- StepApplier (fdtd::Solver) ---------------------------------------------
  void restart() override {
    cl_command_queue queue = opencl::Context::get().queue();
    for (int c = 0; c < 6; ++c) {
      if (problem_.initial[c].empty())
        fields_[0][c].fill_bytes(0);
      else
        PPKIT_CL_CHECK(clEnqueueCopyBuffer(queue, initial_[c].mem(), fields_[0][c].mem(), 0, 0,
                                           fields_[0][c].bytes(), 0, nullptr, nullptr));
    }
    for (auto& b : psi_[0]) b.fill_bytes(0);
    current_ = 0;
    energy_.clear();
    step_ = 0;
  }
  void advance(std::int64_t n, void* stream) override {
    refuse_stream(stream);
    steps_until(step_ + n);
    if (current_ != 0) {  // back into the first buffers
      cl_command_queue queue = opencl::Context::get().queue();
      for (int c = 0; c < 6; ++c)
        PPKIT_CL_CHECK(clEnqueueCopyBuffer(queue, fields_[1][c].mem(), fields_[0][c].mem(), 0, 0,
                                           fields_[0][c].bytes(), 0, nullptr, nullptr));
      for (int a = 0; a < 3; ++a)
        PPKIT_CL_CHECK(clEnqueueCopyBuffer(queue, psi_[1][a].mem(), psi_[0][a].mem(), 0, 0,
                                           psi_[0][a].bytes(), 0, nullptr, nullptr));
      current_ = 0;
    }
  }
  std::int64_t step() const override { return step_; }
  index_t pitch() const override { return pz_; }
  void* field_address(int) override { return nullptr; }  // cl_mem, not an address
  void copy_field(int c, void* array, bool array_on_host, bool into_field, void* stream) override {
    refuse_stream(stream);
    require(array_on_host, "OpenCL buffers are not addressable device memory",
            "a host array (PPKIT_MEM_HOST) for an opencl/* variant");
    opencl_layout::copy_rows(fields_[current_][c].mem(), problem_.grid, pz_, 0,
                             problem_.grid.nx + 1, array, into_field);
  }
  std::vector<double> probe_record() override {
    const std::vector<float> v = probe_values_.download();
    return std::vector<double>(v.begin(), v.begin() + std::ptrdiff_t(problem_.probes.size() *
                                                                     std::size_t(problem_.steps)));
  }
  PhasorSet phasor_sums() override { return PhasorSet{}; }  // refused in the constructor
  void wait(void* stream) override {
    refuse_stream(stream);
    opencl::Context::get().finish();
  }
  std::optional<DataLocation> memory() const override { return std::nullopt; }

  FdtdStep::Result result() override {
    const YeeGrid& g = problem_.grid;
    const std::size_t rows = std::size_t((g.nx + 1) * (g.ny + 1));
    FdtdStep::Result r;
    FieldSet fields;
    for (int c = 0; c < 6; ++c)
      fields[c] = opencl_layout::unpitched(fields_[current_][c].download(), rows,
                                           std::size_t(g.nz + 1), std::size_t(pz_));
    set_result_fields(r, std::move(fields));
    std::vector<float> probes = probe_values_.download();
    probes.resize(problem_.probes.size() * std::size_t(problem_.steps));
    set_result_probes(r, std::move(probes));
    set_result_records(r, setup_, energy_);
    return r;
  }

 private:
  static void refuse_stream(void* stream) {
    require(stream == nullptr, "a stream was given to an opencl/* variant",
            "no stream (nullptr): OpenCL variants run on ppkit's own command queue");
  }
  // Local memory of a work-group: the field ring and each work-item's energy
  // per step of a pass.
  std::size_t local_need(const blocked::Tiling& t) const {
    return std::size_t(t.field_values()) * sizeof(float) +
           std::size_t(t.ring - 2) * lz_ * ly_ * sizeof(double);
  }

  // Passes of steps_per_pass steps (the last one the rest) up to step `end`.
  void steps_until(std::int64_t end) {
    cl_command_queue queue = opencl::Context::get().queue();
    const YeeGrid& g = problem_.grid;
    const std::size_t local[2] = {lz_, ly_}, global[2] = {std::size_t(t_.tiles()) * lz_, ly_};
    while (step_ < end) {
      const cl_long steps = std::min<std::int64_t>(steps_per_pass_, end - step_);
      const int src = current_, dst = 1 - current_;
      const Buffer<float>*sf = fields_[src], *df = fields_[dst], *sp = psi_[src], *dp = psi_[dst];
      opencl::set_args(
          *pass_, cl_long(g.nx), cl_long(g.ny), cl_long(g.nz), cl_long(pz_), cl_long(layers_),
          cl_long(t_.tile_y), cl_long(t_.tile_z), cl_long(t_.halo), cl_long(t_.tiles_z), steps,
          cl_long(step_), cl_long(problem_.steps), sf[0].mem(), sf[1].mem(), sf[2].mem(),
          sf[3].mem(), sf[4].mem(), sf[5].mem(), df[0].mem(), df[1].mem(), df[2].mem(), df[3].mem(),
          df[4].mem(), df[5].mem(), sp[0].mem(), sp[1].mem(), sp[2].mem(), dp[0].mem(), dp[1].mem(),
          dp[2].mem(), cl_long(psi_size_[0]), cl_long(psi_size_[1]), cl_long(psi_size_[2]),
          material_mem_, table_.mem(), profiles_[0].mem(), profiles_[1].mem(), profiles_[2].mem(),
          slots_[0].mem(), slots_[1].mem(), slots_[2].mem(), cl_long(problem_.sources.size()),
          source_node_.mem(), source_component_.mem(), source_hard_.mem(), source_values_.mem(),
          cl_long(problem_.probes.size()), probe_node_.mem(), probe_component_.mem(),
          probe_values_.mem(), energy_after_.mem(), energy_partial_.mem(), psi_ring_.mem());
      PPKIT_CL_CHECK(
          clSetKernelArg(*pass_, 53, std::size_t(t_.field_values()) * sizeof(float), nullptr));
      PPKIT_CL_CHECK(
          clEnqueueNDRangeKernel(queue, *pass_, 2, nullptr, global, local, 0, nullptr, nullptr));
      current_ = dst;
      append_pass_energies(
          setup_.energy_steps, step_, steps, t_, setup_.cell_volume,
          [&] { return energy_partial_.download(); }, energy_);
      step_ += steps;
    }
  }

  FdtdStep::Problem problem_;
  StepSetup setup_;
  int steps_per_pass_ = 1;
  blocked::Tiling t_;
  std::size_t lz_ = 1, ly_ = 1;  // work-group shape
  index_t pz_ = 0, nodes_ = 0, layers_ = 0;
  index_t psi_size_[3] = {0, 0, 0};
  cl_program program_ = nullptr;  // owned by the context's program cache
  std::unique_ptr<opencl::Kernel> pass_;
  Buffer<float> fields_[2][6], psi_[2][3], initial_[6], table_, profiles_[3], psi_ring_,
      source_values_, probe_values_;
  Buffer<std::uint32_t> material32_;
  Buffer<std::uint16_t> material16_;
  Buffer<std::uint8_t> material8_;
  cl_mem material_mem_ = nullptr;
  Buffer<std::int32_t> slots_[3], source_component_, source_hard_, probe_component_, energy_after_;
  Buffer<cl_long> source_node_, probe_node_;
  Buffer<double> energy_partial_;
  std::vector<double> energy_;
  int current_ = 0;  // the buffer set holding the state
  std::int64_t step_ = 0;
};

}  // namespace

FdtdStep::Result run_blocked_on_opencl(const FdtdStep::Problem& problem,
                                       const BlockedTiling& tiling, const OpenClGroupShape& group) {
  validate(problem);
  OpenClBlockedStep run(problem, "blocked (OpenCL)", tiling, group);
  run.run();
  return run.result();
}

}  // namespace ppkit::fdtd

namespace ppkit::registration {
void register_fdtd_opencl_blocked_variants() {
  // Ranks 1 and 0: below the other OpenCL and Kokkos variants of the tier
  // until measured on a GPU; blocked-k2 above blocked-k4 (less redundant halo work).
  for (const auto& [steps, rank] : {std::pair{2, 1}, std::pair{4, 0}}) {
    auto v = opencl::opencl_variant<FdtdStep>("blocked-k" + std::to_string(steps), rank);
    v.traits = fdtd::blocked_traits(steps);
    v.prepare = [full = v.name, steps = steps](
                    const FdtdStep::Problem& p) -> std::unique_ptr<PreparedRun<FdtdStep::Result>> {
      fdtd::BlockedTiling tiling;
      tiling.steps_per_pass = steps;
      return std::make_unique<fdtd::OpenClBlockedStep>(p, full, tiling);
    };
    Registry<FdtdStep>::add(std::move(v));
  }
}
}  // namespace ppkit::registration
