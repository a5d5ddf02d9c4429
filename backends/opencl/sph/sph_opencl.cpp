// opencl/sorted-float4, opencl/group-per-cell-float4, opencl/unsorted-float4
// (sph.interaction) and opencl/symplectic-float4 (sph.step): host glue of the kernels in
// sph_float4.cl, the same steps as the CUDA and HIP glue
// (backends/cuda_hip/sph/sph_gpu_glue.hpp) over OpenCL 1.2 buffers.
//
// The solver's particle arrays in place (Solver::device_particles) are its
// float4 buffers mapped into host memory (clEnqueueMapBuffer): zero-copy on a
// CPU device, a copy each way on a discrete GPU. They stay mapped until the
// solver next touches them (a step, state(), restore()), which unmaps them
// first, so a host write there is what the next step starts from.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "backends/opencl/core/opencl_context.hpp"
#include "opencl_sph_float4.hpp"
#include "ppkit/sph/operations.hpp"

namespace ppkit::sph {
namespace {

using opencl::Buffer;

// The kernels receive these host structs by value (sph_float4.cl declares
// the same members in the same order: 4-byte fields, no padding).
static_assert(sizeof(KernelConstants) == 21 * 4, "KernelConstants layout of sph_float4.cl");
static_assert(sizeof(CellGrid) == 12 * 4, "CellGrid layout of sph_float4.cl");
static_assert(sizeof(DomainBox) == 12 * 4, "DomainBox layout of sph_float4.cl");

// Work-group sizes; the program is built with them (-D options), so the
// kernels' reqd_work_group_size and local arrays match these launches.
constexpr std::size_t kGroup = 64;       // the per-particle kernels
constexpr std::size_t kScanBlock = 256;  // SCAN_BLOCK, SCAN_ITEMS = 8 counts each
constexpr std::size_t kScanTile = kScanBlock * 8;
constexpr std::size_t kReduceBlock = 256;  // REDUCE_BLOCK
constexpr std::size_t kCellGroup = 32;     // CELL_GROUP (CELL_CHUNK records staged)

std::string build_options() {
  return "-DSCAN_BLOCK=" + std::to_string(kScanBlock) +
         " -DREDUCE_BLOCK=" + std::to_string(kReduceBlock) +
         " -DCELL_GROUP=" + std::to_string(kCellGroup) + " -DCELL_CHUNK=128";
}

std::size_t round_up(std::size_t n, std::size_t m) {
  return (std::max<std::size_t>(n, 1) + m - 1) / m * m;
}

// Enqueues a 1D kernel over `items` work-items in groups of `group`.
void launch(cl_kernel kernel, std::size_t items, std::size_t group = kGroup) {
  const std::size_t global = round_up(items, group);
  PPKIT_CL_CHECK(clEnqueueNDRangeKernel(opencl::Context::get().queue(), kernel, 1, nullptr, &global,
                                        &group, 0, nullptr, nullptr));
}

// The built program and one kernel object per entry point (each prepared run
// owns its kernels: their arguments are per-run state).
struct Kernels {
  cl_program program;
  opencl::Kernel count_cells, scan_sum_tiles, scan_tile_offsets, scan_within_tiles, scatter,
      sort_cells, gather, interaction_sorted, interaction_indirect, list_cells, interaction_cells,
      time_step_maxima, predictor, corrector, check_state;
  Kernels()
      : program(opencl::Context::get().program(opencl::sources::sph_float4, build_options())),
        count_cells(program, "count_cells"),
        scan_sum_tiles(program, "scan_sum_tiles"),
        scan_tile_offsets(program, "scan_tile_offsets"),
        scan_within_tiles(program, "scan_within_tiles"),
        scatter(program, "scatter"),
        sort_cells(program, "sort_cells"),
        gather(program, "gather"),
        interaction_sorted(program, "interaction_sorted"),
        interaction_indirect(program, "interaction_indirect"),
        list_cells(program, "list_cells"),
        interaction_cells(program, "interaction_cells"),
        time_step_maxima(program, "time_step_maxima"),
        predictor(program, "predictor"),
        corrector(program, "corrector"),
        check_state(program, "check_state") {}
};

// A float4 record on the host: four floats with cl_float4's size and
// alignment. std::vector<cl_float4> does not compile as CUDA in nvcc_wrapper
// builds (cl_float4 holds an SSE vector, which nvcc refuses in device code).
struct alignas(16) Float4 {
  cl_float s[4];
};
static_assert(sizeof(Float4) == sizeof(cl_float4) && alignof(Float4) == alignof(cl_float4),
              "Float4 must have the layout of OpenCL's float4");

// (x, y, z, kind) and (vx, vy, vz, rho) records and the case ids.
struct ParticleBuffers {
  Buffer<Float4> pos_kind, vel_rho;
  Buffer<cl_int> id;
  explicit ParticleBuffers(std::size_t n) : pos_kind(n), vel_rho(n), id(n) {}
  cl_int size() const { return static_cast<cl_int>(pos_kind.size()); }
  void upload(const Particles& s) {
    std::vector<Float4> p(s.size()), v(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
      p[i] = Float4{{s.x[i], s.y[i], s.z[i], float(s.kind[i])}};
      v[i] = Float4{{s.vx[i], s.vy[i], s.vz[i], s.rho[i]}};
    }
    pos_kind.upload(p);
    vel_rho.upload(v);
    id.upload(std::vector<cl_int>(s.id.begin(), s.id.end()));
  }
  Particles download() const {
    const auto p = pos_kind.download();
    const auto v = vel_rho.download();
    const auto ids = id.download();
    Particles s;
    s.resize(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) {
      s.x[i] = p[i].s[0];
      s.y[i] = p[i].s[1];
      s.z[i] = p[i].s[2];
      s.kind[i] = static_cast<std::uint8_t>(p[i].s[3]);
      s.vx[i] = v[i].s[0];
      s.vy[i] = v[i].s[1];
      s.vz[i] = v[i].s[2];
      s.rho[i] = v[i].s[3];
      s.id[i] = ids[i];
    }
    return s;
  }
  void copy_from(const ParticleBuffers& from) {
    const cl_command_queue q = opencl::Context::get().queue();
    PPKIT_CL_CHECK(clEnqueueCopyBuffer(q, from.pos_kind.mem(), pos_kind.mem(), 0, 0,
                                       pos_kind.bytes(), 0, nullptr, nullptr));
    PPKIT_CL_CHECK(clEnqueueCopyBuffer(q, from.vel_rho.mem(), vel_rho.mem(), 0, 0, vel_rho.bytes(),
                                       0, nullptr, nullptr));
    PPKIT_CL_CHECK(
        clEnqueueCopyBuffer(q, from.id.mem(), id.mem(), 0, 0, id.bytes(), 0, nullptr, nullptr));
  }
};

// The cell lists: cell of each particle, count / start per cell (cells() + 2,
// the last bucket holds escaped particles), fluid count per cell, the
// permutation (slot -> particle) and the scan's tile sums.
struct CellBuffers {
  cl_int cells;
  Buffer<cl_int> cell, cell_count, cell_start, cell_fluid, permutation, tile_sums;
  CellBuffers(std::size_t n, long long cell_total)
      : cells(static_cast<cl_int>(cell_total)),
        cell(n),
        cell_count(std::size_t(cell_total + 2)),
        cell_start(std::size_t(cell_total + 2)),
        cell_fluid(std::size_t(cell_total + 1)),
        permutation(n),
        tile_sums((std::size_t(cell_total + 2) + kScanTile - 1) / kScanTile) {}
};

struct RhsBuffers {
  Buffer<Float4> acc_drho;  // (ax, ay, az, drho/dt)
  Buffer<cl_float> visc;    // the viscous time-step term per particle
  explicit RhsBuffers(std::size_t n) : acc_drho(n), visc(n) {}
};

// Counting sort by cell: count, exclusive scan of the counts (three passes
// over tiles), scatter with the counts reused as running fill, sort each cell.
void bin(Kernels& k, const CellGrid& g, const ParticleBuffers& p, CellBuffers& c) {
  const cl_int n = p.size();
  c.cell_count.fill_bytes(0);
  c.cell_fluid.fill_bytes(0);
  opencl::set_args(k.count_cells, g, n, p.pos_kind.mem(), c.cell.mem(), c.cell_count.mem(),
                   c.cell_fluid.mem());
  launch(k.count_cells, std::size_t(n));
  const cl_int count = c.cells + 2;
  const cl_int tiles = static_cast<cl_int>(c.tile_sums.size());
  opencl::set_args(k.scan_sum_tiles, c.cell_count.mem(), count, c.tile_sums.mem());
  launch(k.scan_sum_tiles, std::size_t(tiles) * kScanBlock, kScanBlock);
  opencl::set_args(k.scan_tile_offsets, c.tile_sums.mem(), tiles);
  launch(k.scan_tile_offsets, kScanBlock, kScanBlock);
  opencl::set_args(k.scan_within_tiles, c.cell_count.mem(), count, c.tile_sums.mem(),
                   c.cell_start.mem());
  launch(k.scan_within_tiles, std::size_t(tiles) * kScanBlock, kScanBlock);
  c.cell_count.fill_bytes(0);
  opencl::set_args(k.scatter, n, c.cell.mem(), c.cell_start.mem(), c.cell_count.mem(),
                   c.permutation.mem());
  launch(k.scatter, std::size_t(n));
  opencl::set_args(k.sort_cells, c.cells, c.cell_start.mem(), c.permutation.mem());
  launch(k.sort_cells, std::size_t(c.cells) + 1);
}

// Bins, then gathers the particles into `scratch` in cell order (the caller swaps).
void renumber(Kernels& k, const CellGrid& g, const ParticleBuffers& p, ParticleBuffers& scratch,
              CellBuffers& c) {
  bin(k, g, p, c);
  const cl_int n = p.size();
  opencl::set_args(k.gather, n, c.permutation.mem(), p.pos_kind.mem(), p.vel_rho.mem(), p.id.mem(),
                   scratch.pos_kind.mem(), scratch.vel_rho.mem(), scratch.id.mem());
  launch(k.gather, std::size_t(n));
}

void interaction(Kernels& k, const KernelConstants& kc, const CellGrid& g, const ParticleBuffers& p,
                 const CellBuffers& c, RhsBuffers& r, bool sorted) {
  cl_kernel kernel = sorted ? k.interaction_sorted : k.interaction_indirect;
  opencl::set_args(kernel, kc, g, p.size(), p.pos_kind.mem(), p.vel_rho.mem(), c.cell_start.mem(),
                   c.cell_fluid.mem(), c.permutation.mem(), r.acc_drho.mem(), r.visc.mem());
  launch(kernel, std::size_t(p.size()));
}

Particles with_index_ids(Particles s) {
  for (std::size_t i = 0; i < s.size(); ++i) s.id[i] = static_cast<std::int32_t>(i);
  return s;
}

// How an interaction finds neighbours: renumbered particles walked by one
// work-item each (sorted) or staged per cell by a work-group
// (group_per_cell), or particles binned in place (indirect).
enum class Walk { sorted, group_per_cell, indirect };

class OpenClInteraction final : public PreparedRun<Interaction::Result> {
 public:
  OpenClInteraction(const Interaction::Problem& problem, Walk walk)
      : walk_(walk),
        constants_((validate(problem.params), make_kernel_constants(problem.params))),
        grid_(make_cell_grid(problem.params)),
        particles_(problem.particles.size()),
        scratch_(problem.particles.size()),
        cells_(problem.particles.size(), grid_.cells()),
        rhs_(problem.particles.size()),
        cell_list_(problem.particles.size()),
        listed_(1) {
    particles_.upload(with_index_ids(problem.particles));
    rhs_.acc_drho.fill_bytes(0xFF);  // poison (NaN)
  }
  void run() override {
    if (walk_ == Walk::indirect) {
      bin(kernels_, grid_, particles_, cells_);
    } else {
      renumber(kernels_, grid_, particles_, scratch_, cells_);
      std::swap(particles_, scratch_);
    }
    if (walk_ == Walk::group_per_cell)
      interaction_per_cell();
    else
      interaction(kernels_, constants_, grid_, particles_, cells_, rhs_, walk_ == Walk::sorted);
    opencl::Context::get().finish();
  }
  Interaction::Result result() override {
    const auto ids = particles_.id.download();
    const auto acc = rhs_.acc_drho.download();
    Interaction::Result out;
    out.drho.resize(acc.size());
    out.ax.resize(acc.size());
    out.ay.resize(acc.size());
    out.az.resize(acc.size());
    for (std::size_t k = 0; k < acc.size(); ++k) {
      const auto i = static_cast<std::size_t>(ids[k]);
      out.ax[i] = acc[k].s[0];
      out.ay[i] = acc[k].s[1];
      out.az[i] = acc[k].s[2];
      out.drho[i] = acc[k].s[3];
    }
    return out;
  }

 private:
  // Lists the occupied cells, then one work-group of kCellGroup per listed cell.
  void interaction_per_cell() {
    const cl_int n = particles_.size();
    listed_.fill_bytes(0);
    opencl::set_args(kernels_.list_cells, grid_, n, particles_.pos_kind.mem(),
                     cells_.cell_start.mem(), cell_list_.mem(), listed_.mem());
    launch(kernels_.list_cells, std::size_t(n));
    const auto listed = listed_.download();  // blocking: the launch size
    opencl::set_args(kernels_.interaction_cells, constants_, grid_, cell_list_.mem(),
                     particles_.pos_kind.mem(), particles_.vel_rho.mem(), cells_.cell_start.mem(),
                     cells_.cell_fluid.mem(), rhs_.acc_drho.mem(), rhs_.visc.mem());
    if (listed[0] > 0)
      launch(kernels_.interaction_cells, std::size_t(listed[0]) * kCellGroup, kCellGroup);
  }

  Walk walk_;
  KernelConstants constants_;
  CellGrid grid_;
  Kernels kernels_;
  ParticleBuffers particles_, scratch_;
  CellBuffers cells_;
  RhsBuffers rhs_;
  Buffer<cl_int> cell_list_, listed_;  // occupied cells (at most one per particle), their count
};

// The symplectic step of step_kokkos.cpp with the OpenCL kernels; steps
// without renumbering bin particle indices and read particles indirectly.
class OpenClSolver final : public Solver {
 public:
  explicit OpenClSolver(const Step::Problem& problem)
      : problem_(problem),
        constants_((validate(problem.params), make_kernel_constants(problem.params))),
        grid_(make_cell_grid(problem.params)),
        state_(problem.particles.size()),
        initial_(problem.particles.size()),
        start_(problem.particles.size()),
        cells_(problem.particles.size(), grid_.cells()),
        rhs_(problem.particles.size()),
        maxima_(3),
        flags_(2),
        policy_(problem.reorder) {
    require(problem.steps >= 0, "steps = " + std::to_string(problem.steps), ">= 0");
    require(problem.reorder.every >= 0, "reorder interval " + std::to_string(problem.reorder.every),
            "0 (never) or a positive number of steps");
    domain_ = domain_box(problem.params.domain);
    restore(problem.particles, 0, 0);
    initial_.copy_from(state_);
  }
  ~OpenClSolver() override {
    try {
      unmap();
      opencl::Context::get().finish();
    } catch (...) {
    }
  }

  void run() override {
    unmap();
    state_.copy_from(initial_);
    time_ = 0;
    steps_ = 0;
    escaped_ = static_cast<std::int64_t>(problem_.particles.count(kEscaped));
    for (int s = 0; s < problem_.steps; ++s) step();
    opencl::Context::get().finish();
  }
  Particles result() override {
    Particles s = state();
    s.sort_by_id();
    return s;
  }

  StepInfo step() override {
    unmap();
    StepInfo info;
    info.reordered = policy_.reorder_at(steps_);
    if (info.reordered) {
      renumber(kernels_, grid_, state_, start_, cells_);
      std::swap(state_, start_);
    } else {
      bin(kernels_, grid_, state_, cells_);
    }
    interaction(kernels_, constants_, grid_, state_, cells_, rhs_, info.reordered);
    const cl_int n = state_.size();
    maxima_.fill_bytes(0);
    opencl::set_args(kernels_.time_step_maxima, n, state_.pos_kind.mem(), state_.vel_rho.mem(),
                     rhs_.acc_drho.mem(), rhs_.visc.mem(), maxima_.mem());
    launch(kernels_.time_step_maxima, std::size_t(n), kReduceBlock);
    const auto bits = maxima_.download();  // blocking: waits for the kernels above
    float m[3];
    for (int a = 0; a < 3; ++a) std::memcpy(&m[a], &bits[std::size_t(a)], sizeof(float));
    const auto& p = problem_.params;
    const double c_max = std::max(p.c0, p.c0 * std::pow(double(m[1]) / p.rho0, 3));
    const double a_max = std::sqrt(double(m[0]));
    const double dt_force = a_max > 0 ? std::sqrt(p.h / a_max) : 1e30;
    info.dt = p.cfl * std::min(dt_force, p.h / (c_max + p.h * double(m[2])));
    const cl_float dt = float(info.dt);
    opencl::set_args(kernels_.predictor, dt, constants_.rho0, domain_, n, state_.pos_kind.mem(),
                     state_.vel_rho.mem(), start_.pos_kind.mem(), start_.vel_rho.mem(),
                     rhs_.acc_drho.mem());
    launch(kernels_.predictor, std::size_t(n));
    interaction(kernels_, constants_, grid_, state_, cells_, rhs_, info.reordered);
    opencl::set_args(kernels_.corrector, dt, constants_.rho0, domain_, n, state_.pos_kind.mem(),
                     state_.vel_rho.mem(), start_.pos_kind.mem(), start_.vel_rho.mem(),
                     rhs_.acc_drho.mem());
    launch(kernels_.corrector, std::size_t(n));
    flags_.upload({0, n});
    const cl_float rho_min = float(p.rho0 / p.rho_blowup_factor);
    const cl_float rho_max = float(p.rho0 * p.rho_blowup_factor);
    opencl::set_args(kernels_.check_state, domain_, rho_min, rho_max, n, state_.pos_kind.mem(),
                     state_.vel_rho.mem(), flags_.mem());
    launch(kernels_.check_state, std::size_t(n));
    const auto flags = flags_.download();
    escaped_ += flags[0];
    ++steps_;
    time_ += info.dt;
    if (flags[1] < n) blow_up(flags[1]);
    return info;
  }

  double time() const override { return time_; }
  std::int64_t steps_done() const override { return steps_; }
  std::int64_t escaped() const override { return escaped_; }
  void set_reorder(ReorderPolicy policy) override { policy_ = policy; }
  Particles state() override {
    unmap();
    return state_.download();
  }

  // The float4 records mapped into host memory: x y z kind and vx vy vz rho
  // (stride 4), valid until the next step, state() or restore().
  ppkit::sph::DeviceParticles device_particles() override {
    if (!mapped_) {
      const cl_command_queue q = opencl::Context::get().queue();
      auto map = [&](cl_mem mem, std::size_t bytes) {
        cl_int status = CL_SUCCESS;
        void* p = clEnqueueMapBuffer(q, mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                     nullptr, nullptr, &status);
        PPKIT_CL_CHECK(status);
        maps_.emplace_back(mem, p);
        return p;
      };
      pos_ = static_cast<float*>(map(state_.pos_kind.mem(), state_.pos_kind.bytes()));
      vel_ = static_cast<float*>(map(state_.vel_rho.mem(), state_.vel_rho.bytes()));
      id_ = static_cast<std::int32_t*>(map(state_.id.mem(), state_.id.bytes()));
      mapped_ = true;
    }
    ppkit::sph::DeviceParticles d;
    d.count = state_.size();
    d.stride = 4;
    d.x = pos_, d.y = pos_ + 1, d.z = pos_ + 2, d.kind_as_float = pos_ + 3;
    d.vx = vel_, d.vy = vel_ + 1, d.vz = vel_ + 2, d.rho = vel_ + 3;
    d.id = id_;
    d.memory = DataLocation{MemoryKind::host, -1};
    return d;
  }

  void restore(const Particles& s, double time, std::int64_t steps) override {
    require(s.size() == problem_.particles.size(),
            "restored state has " + std::to_string(s.size()) + " particles",
            std::to_string(problem_.particles.size()) + " particles, as in the case");
    unmap();
    state_.upload(s);
    time_ = time;
    steps_ = steps;
    escaped_ = static_cast<std::int64_t>(s.count(kEscaped));
  }

 private:
  // Ends the mapping of device_particles(): host writes become the buffers'
  // contents before any command enqueued after this one.
  void unmap() {
    if (!mapped_) return;
    const cl_command_queue q = opencl::Context::get().queue();
    for (const auto& [mem, p] : maps_)
      PPKIT_CL_CHECK(clEnqueueUnmapMemObject(q, mem, p, 0, nullptr, nullptr));
    maps_.clear();
    mapped_ = false;
  }

  [[noreturn]] void blow_up(int index) {
    const Particles s = state();
    const auto k = static_cast<std::size_t>(index);
    std::ostringstream what;
    what << "SPH blow-up at step " << steps_ << " (t = " << time_ << " s): particle " << s.id[k]
         << " (" << (s.kind[k] == kFluid ? "fluid" : "boundary") << ") has density " << s.rho[k]
         << " kg/m^3, position (" << s.x[k] << ", " << s.y[k] << ", " << s.z[k] << ") m, velocity ("
         << s.vx[k] << ", " << s.vy[k] << ", " << s.vz[k] << ") m/s";
    throw Error(what.str(), "a finite state with density below " +
                                std::to_string(problem_.params.rho_blowup_factor) +
                                " rho0; try a smaller CFL number or a finer --dp");
  }

  Step::Problem problem_;
  KernelConstants constants_;
  CellGrid grid_;
  DomainBox domain_{};
  Kernels kernels_;
  ParticleBuffers state_, initial_, start_;
  CellBuffers cells_;
  RhsBuffers rhs_;
  Buffer<cl_int> maxima_, flags_;
  ReorderPolicy policy_;
  double time_ = 0;
  std::int64_t steps_ = 0, escaped_ = 0;
  bool mapped_ = false;
  std::vector<std::pair<cl_mem, void*>> maps_;
  float *pos_ = nullptr, *vel_ = nullptr;
  std::int32_t* id_ = nullptr;
};

}  // namespace
}  // namespace ppkit::sph

namespace ppkit::registration {
// The ranks of the CUDA originals: sorted before unsorted.
void register_sph_opencl_variants() {
  using namespace sph;
  auto sorted = opencl::opencl_variant<Interaction>("sorted-float4", 20);
  sorted.prepare = [](const Interaction::Problem& p) {
    return std::make_unique<OpenClInteraction>(p, Walk::sorted);
  };
  Registry<Interaction>::add(std::move(sorted));
  // group-per-cell-float4: below sorted-float4 until measured on a GPU.
  auto per_cell = opencl::opencl_variant<Interaction>("group-per-cell-float4", 18);
  per_cell.prepare = [](const Interaction::Problem& p) {
    return std::make_unique<OpenClInteraction>(p, Walk::group_per_cell);
  };
  Registry<Interaction>::add(std::move(per_cell));
  auto unsorted = opencl::opencl_variant<Interaction>("unsorted-float4", 15);
  unsorted.prepare = [](const Interaction::Problem& p) {
    return std::make_unique<OpenClInteraction>(p, Walk::indirect);
  };
  Registry<Interaction>::add(std::move(unsorted));
  auto step = opencl::opencl_variant<Step>("symplectic-float4", 20);
  step.prepare = [](const Step::Problem& p) { return std::make_unique<OpenClSolver>(p); };
  Registry<Step>::add(std::move(step));
}
}  // namespace ppkit::registration
