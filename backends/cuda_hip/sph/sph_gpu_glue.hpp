#pragma once
// Host glue of the hand-tuned GPU SPH kernels (sph_gpu_kernels.hpp), shared by
// the CUDA variants (backends/cuda/sph/sph_cuda.cpp) and the HIP variants
// (backends/hip/sph/sph_hip.cpp): <backend>/sorted-float4,
// <backend>/warp-per-cell-float4, <backend>/unsorted-float4 (sph.interaction)
// and <backend>/symplectic-float4
// (sph.step). Everything is a template over a Backend struct of the vendor's
// runtime calls:
//
//   struct Backend {
//     using Vendor = gpu_kernels::Cuda;  // which kernel launchers
//     template <class T> using Buffer = ppkit::DeviceBuffer<T, RuntimeCalls>;
//     static void check_launch();        // launch errors -> ppkit::Error
//     static void synchronize();         // waits for the device
//     static void copy_on_device(void* to, const void* from, std::size_t bytes);
//     template <class Op>                // "<backend>/<strategy>", availability
//     static Variant<Op> variant(const std::string& strategy, int preference);
//   };
//
// Include the vendor's runtime header (float4, make_float4) before this one.
#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "backends/cuda_hip/sph/sph_gpu_kernels.hpp"
#include "ppkit/core/registry.hpp"
#include "ppkit/sph/operations.hpp"

namespace ppkit::sph::gpu_glue {
using namespace gpu_kernels;

template <class Backend>
struct DeviceParticles {
  template <class T>
  using DeviceBuffer = typename Backend::template Buffer<T>;
  DeviceBuffer<float4> pos_rho, vel_kind;
  DeviceBuffer<int> id;
  explicit DeviceParticles(std::size_t n) : pos_rho(n), vel_kind(n), id(n) {}
  ParticleBuffers view() {
    return {pos_rho.data(), vel_kind.data(), id.data(), static_cast<int>(pos_rho.size())};
  }
  void upload(const Particles& s) {
    std::vector<float4> p(s.size()), v(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
      p[i] = make_float4(s.x[i], s.y[i], s.z[i], s.rho[i]);
      v[i] = make_float4(s.vx[i], s.vy[i], s.vz[i], float(s.kind[i]));
    }
    pos_rho.upload(p);
    vel_kind.upload(v);
    id.upload(std::vector<int>(s.id.begin(), s.id.end()));
  }
  Particles download() const {
    const auto p = pos_rho.download();
    const auto v = vel_kind.download();
    const auto ids = id.download();
    Particles s;
    s.resize(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) {
      s.x[i] = p[i].x;
      s.y[i] = p[i].y;
      s.z[i] = p[i].z;
      s.rho[i] = p[i].w;
      s.vx[i] = v[i].x;
      s.vy[i] = v[i].y;
      s.vz[i] = v[i].z;
      s.kind[i] = static_cast<std::uint8_t>(v[i].w);
      s.id[i] = ids[i];
    }
    return s;
  }
};

template <class Backend>
struct DeviceCells {
  template <class T>
  using DeviceBuffer = typename Backend::template Buffer<T>;
  DeviceBuffer<int> cell, cell_count, cell_start, cell_fluid, permutation;
  DeviceBuffer<char> scan_temp;
  DeviceCells(std::size_t n, long long cells)
      : cell(n),
        cell_count(std::size_t(cells + 2)),
        cell_start(std::size_t(cells + 2)),
        cell_fluid(std::size_t(cells + 1)),
        permutation(n),
        scan_temp(std::max<std::size_t>(1, scan_temp_bytes<typename Backend::Vendor>(cells))) {}
  CellBuffers view() {
    return {cell.data(),        cell_count.data(), cell_start.data(), cell_fluid.data(),
            permutation.data(), scan_temp.data(),  scan_temp.size()};
  }
};

template <class Backend>
struct DeviceRhs {
  template <class T>
  using DeviceBuffer = typename Backend::template Buffer<T>;
  DeviceBuffer<float4> acc_drho;
  DeviceBuffer<float> visc;
  explicit DeviceRhs(std::size_t n) : acc_drho(n), visc(n) {}
  RhsBuffers view() { return {acc_drho.data(), visc.data()}; }
};

inline Particles with_index_ids(Particles s) {
  for (std::size_t i = 0; i < s.size(); ++i) s.id[i] = static_cast<std::int32_t>(i);
  return s;
}

// How an interaction finds neighbours: renumbered particles walked by one
// thread each (sorted) or staged per cell by a warp (per_cell), or particles
// binned in place (indirect).
enum class Walk { sorted, per_cell, indirect };

template <class Backend>
class GpuInteraction final : public PreparedRun<Interaction::Result> {
  using Vendor = typename Backend::Vendor;

 public:
  GpuInteraction(const Interaction::Problem& problem, Walk walk)
      : walk_(walk),
        constants_((validate(problem.params), make_kernel_constants(problem.params))),
        grid_(make_cell_grid(problem.params)),
        particles_(problem.particles.size()),
        scratch_(problem.particles.size()),
        cells_(problem.particles.size(), grid_.cells()),
        rhs_(problem.particles.size()),
        cell_list_(std::max<std::size_t>(1, problem.particles.size())),
        listed_(1) {
    particles_.upload(with_index_ids(problem.particles));
    rhs_.acc_drho.fill_bytes(0xFF);  // poison (NaN)
  }
  void run() override {
    if (walk_ == Walk::indirect) {
      bin<Vendor>(grid_, particles_.view(), cells_.view());
    } else {
      renumber<Vendor>(grid_, particles_.view(), scratch_.view(), cells_.view());
      std::swap(particles_, scratch_);
    }
    if (walk_ == Walk::per_cell)
      interaction_per_cell<Vendor>(constants_, grid_, particles_.view(), cells_.view(), rhs_.view(),
                                   cell_list_.data(), listed_.data());
    else
      interaction<Vendor>(constants_, grid_, particles_.view(), cells_.view(), rhs_.view(),
                          walk_ == Walk::sorted);
    Backend::check_launch();
    Backend::synchronize();
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
      out.ax[i] = acc[k].x;
      out.ay[i] = acc[k].y;
      out.az[i] = acc[k].z;
      out.drho[i] = acc[k].w;
    }
    return out;
  }

 private:
  Walk walk_;
  KernelConstants constants_;
  CellGrid grid_;
  DeviceParticles<Backend> particles_, scratch_;
  DeviceCells<Backend> cells_;
  DeviceRhs<Backend> rhs_;
  // Occupied cells (at most one per particle) and their count (warp per cell).
  typename Backend::template Buffer<int> cell_list_, listed_;
};

// The symplectic step of step_kokkos.cpp with the GPU kernels; steps without
// renumbering bin particle indices and read particles indirectly.
template <class Backend>
class GpuSolver final : public Solver {
  using Vendor = typename Backend::Vendor;

 public:
  explicit GpuSolver(const Step::Problem& problem)
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
    domain_ = domain_box(problem.params.domain);
    restore(problem.particles, 0, 0);
    copy(initial_, state_);
  }

  void run() override {
    copy(state_, initial_);
    time_ = 0;
    steps_ = 0;
    escaped_ = static_cast<std::int64_t>(problem_.particles.count(kEscaped));
    for (int s = 0; s < problem_.steps; ++s) step();
    Backend::synchronize();
  }
  Particles result() override {
    Particles s = state();
    s.sort_by_id();
    return s;
  }

  StepInfo step() override {
    StepInfo info;
    info.reordered = policy_.reorder_at(steps_);
    if (info.reordered) {
      renumber<Vendor>(grid_, state_.view(), start_.view(), cells_.view());
      std::swap(state_, start_);
    } else {
      bin<Vendor>(grid_, state_.view(), cells_.view());
    }
    interaction<Vendor>(constants_, grid_, state_.view(), cells_.view(), rhs_.view(),
                        info.reordered);
    time_step_maxima<Vendor>(state_.view(), rhs_.view(), maxima_.data());
    Backend::check_launch();
    const auto m = maxima_.download();  // synchronises
    const auto& p = problem_.params;
    const double c_max = std::max(p.c0, p.c0 * std::pow(double(m[1]) / p.rho0, 3));
    const double a_max = std::sqrt(double(m[0]));
    const double dt_force = a_max > 0 ? std::sqrt(p.h / a_max) : 1e30;
    info.dt = p.cfl * std::min(dt_force, p.h / (c_max + p.h * double(m[2])));
    const float dt = float(info.dt);
    predictor<Vendor>(dt, constants_.rho0, domain_, state_.view(), start_.view(), rhs_.view());
    interaction<Vendor>(constants_, grid_, state_.view(), cells_.view(), rhs_.view(),
                        info.reordered);
    corrector<Vendor>(dt, constants_.rho0, domain_, state_.view(), start_.view(), rhs_.view());
    check_state<Vendor>(domain_, float(p.rho0 / p.rho_blowup_factor),
                        float(p.rho0 * p.rho_blowup_factor), state_.view(), flags_.data());
    Backend::check_launch();
    const auto flags = flags_.download();
    escaped_ += flags[0];
    ++steps_;
    time_ += info.dt;
    if (flags[1] < state_.view().n) blow_up(flags[1]);
    return info;
  }

  double time() const override { return time_; }
  std::int64_t steps_done() const override { return steps_; }
  std::int64_t escaped() const override { return escaped_; }
  void set_reorder(ReorderPolicy policy) override { policy_ = policy; }
  Particles state() override { return state_.download(); }
  // The float4 records in place: x y z rho and vx vy vz kind (stride 4).
  ppkit::sph::DeviceParticles device_particles() override {
    Backend::synchronize();
    const ParticleBuffers b = state_.view();
    float* p = reinterpret_cast<float*>(b.pos_rho);
    float* v = reinterpret_cast<float*>(b.vel_kind);
    ppkit::sph::DeviceParticles d;
    d.count = b.n;
    d.stride = 4;
    d.x = p, d.y = p + 1, d.z = p + 2, d.rho = p + 3;
    d.vx = v, d.vy = v + 1, d.vz = v + 2, d.kind_as_float = v + 3;
    d.id = b.id;
    d.memory = Backend::memory();
    return d;
  }
  void restore(const Particles& s, double time, std::int64_t steps) override {
    require(s.size() == problem_.particles.size(),
            "restored state has " + std::to_string(s.size()) + " particles",
            std::to_string(problem_.particles.size()) + " particles, as in the case");
    state_.upload(s);
    time_ = time;
    steps_ = steps;
    escaped_ = static_cast<std::int64_t>(s.count(kEscaped));
  }

 private:
  static void copy(DeviceParticles<Backend>& to, const DeviceParticles<Backend>& from) {
    const std::size_t n = from.pos_rho.size();
    Backend::copy_on_device(to.pos_rho.data(), from.pos_rho.data(), n * sizeof(float4));
    Backend::copy_on_device(to.vel_kind.data(), from.vel_kind.data(), n * sizeof(float4));
    Backend::copy_on_device(to.id.data(), from.id.data(), n * sizeof(int));
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
  DeviceParticles<Backend> state_, initial_, start_;
  DeviceCells<Backend> cells_;
  DeviceRhs<Backend> rhs_;
  typename Backend::template Buffer<float> maxima_;
  typename Backend::template Buffer<int> flags_;
  ReorderPolicy policy_;
  double time_ = 0;
  std::int64_t steps_ = 0, escaped_ = 0;
};

// Registers <backend>/sorted-float4, <backend>/warp-per-cell-float4,
// <backend>/unsorted-float4 and <backend>/symplectic-float4 with the preferences of the CUDA
// originals.
template <class Backend>
void register_variants() {
  auto sorted = Backend::template variant<Interaction>("sorted-float4", 20);
  sorted.prepare = [](const Interaction::Problem& p) {
    return std::make_unique<GpuInteraction<Backend>>(p, Walk::sorted);
  };
  Registry<Interaction>::add(std::move(sorted));
  // warp-per-cell-float4: below sorted-float4 until measured on a GPU.
  auto per_cell = Backend::template variant<Interaction>("warp-per-cell-float4", 18);
  per_cell.prepare = [](const Interaction::Problem& p) {
    return std::make_unique<GpuInteraction<Backend>>(p, Walk::per_cell);
  };
  Registry<Interaction>::add(std::move(per_cell));
  auto unsorted = Backend::template variant<Interaction>("unsorted-float4", 15);
  unsorted.prepare = [](const Interaction::Problem& p) {
    return std::make_unique<GpuInteraction<Backend>>(p, Walk::indirect);
  };
  Registry<Interaction>::add(std::move(unsorted));
  auto step = Backend::template variant<Step>("symplectic-float4", 20);
  step.prepare = [](const Step::Problem& p) { return std::make_unique<GpuSolver<Backend>>(p); };
  Registry<Step>::add(std::move(step));
}

}  // namespace ppkit::sph::gpu_glue
