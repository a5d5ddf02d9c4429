#pragma once
// ppkit::fdtd::Solver: an fdtd.step case (fdtd_step.hpp) as an object a host
// code creates once and then steps in chunks of its choosing, reading and
// writing the fields in place between them, with no host transfer per step:
//
//   ppkit::Runtime runtime;                                  // or the host code's Kokkos
//   auto S = ppkit::fdtd::Solver::from_json(case_text);     // buffers set up once
//   S.step(100);                                            // on S's device, queued
//   ppkit::fdtd::FieldArray ez = S.field(Component::ez);    // device address, strides
//   S.set_field(Component::hx, my_hx, ArrayMemory::device); // in place, no host copy
//
// Every registered fdtd.step variant serves (kokkos-*, cuda/*, opencl/*):
// its prepared run is the Solver's state (step_applier.hpp), so the steps
// are the registry's kernels and give the registry's results.
//
// Fields. Ex..Hz live in memory() in rows of pitch() values (field(c):
// extents, strides, address); set_field/get_field take and give the compact
// layout of yee_grid.hpp (grid().nodes() values, z fastest) in the problem's
// precision (float for fp32, double for fp64). Host arrays are copied to and
// from the device; device arrays (in memory()) are copied on the device.
//
// OpenCL variants keep the fields in cl_mem buffers, which are not
// addressable: memory() is std::nullopt, field() and field_view() refuse,
// and set_field/get_field take host arrays only (copied through the host).
//
// Steps. The case's `steps` bound the steps a Solver can take (its source
// waveforms and probe record are sized for them); restart() goes back to the
// case's initial state. Probes record every step as in the registry's runs;
// probe_values() copies the probe record only, phasors() the running DFT
// sums only, never the grid. Cases with snapshots or a far-field transform
// are refused (they are outputs of whole runs: `ppkit fdtd run`).
//
// Streams. The kernels run on the variant's own queue (the default stream or
// Kokkos instance). A stream given to step(), set_field() or get_field()
// (cudaStream_t or hipStream_t as void*) orders the call with it: the call's
// work starts after the work queued on that stream before it, and work queued
// on it afterwards sees the result (CUDA variants through events, without
// blocking; Kokkos variants by waiting). Host and OpenCL variants refuse a
// stream. One Solver may be used by one thread at a time.
#include <Kokkos_Core.hpp>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "ppkit/core/data_location.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/variant_status.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"

namespace ppkit::fdtd {

struct SolverOptions {
  // "auto" (the preferred available variant that runs the case's features
  // and precision), a strategy ("split", "plain", "float4", "split-x2": its
  // preferred available variant) or a variant name ("cuda/split-x2",
  // "kokkos-serial/plain"; solver_variants()).
  std::string variant = "auto";
  // Where the host code wants the fields: "auto" and strategies then choose
  // among the variants that keep them in that memory (for example
  // ppkit::kokkos_data_location<Kokkos::DefaultExecutionSpace>().kind);
  // unset, OpenCL variants (no addresses) may be chosen.
  std::optional<MemoryKind> memory;
};

// Where an array handed to set_field / get_field lives: host memory, or
// the Solver's memory() (for host variants both are host memory).
enum class ArrayMemory { host, device };

// One stored field component: value (i, j, k) at
// data[i * stride[0] + j * stride[1] + k], 0 <= i, j, k < extent.
struct FieldArray {
  Component component = Component::ex;
  void* data = nullptr;  // float* (fp32) or double* (fp64) in memory()
  Precision precision = Precision::fp32;
  std::array<index_t, 3> extent{0, 0, 0};  // nx + 1, ny + 1, nz + 1
  std::array<index_t, 3> stride{0, 0, 1};  // values: (ny + 1) pitch, pitch, 1
  std::int64_t size = 0;                   // values the allocation spans: (nx + 1) (ny + 1) pitch
  index_t at(index_t i, index_t j, index_t k) const { return i * stride[0] + j * stride[1] + k; }
};

// Every registered fdtd.step variant and whether it can run here.
std::vector<VariantStatus> solver_variants();

class Solver {
 public:
  // Validates the case (ppkit::Error naming what is wrong), chooses the
  // variant, sets up its buffers and puts the fields to the case's initial
  // values. Throws before Kokkos is initialised, for an unknown or
  // unavailable variant, a variant that does not run the case (fp64 on
  // float-only kernels, plane waves on cuda/wavefront), and for snapshots or
  // a far-field transform.
  explicit Solver(const FdtdStep::Problem& problem, const SolverOptions& options = {});
  // From the JSON case format of `ppkit fdtd run --case` (docs/fdtd.md,
  // "Case files"); its "outputs" are ignored.
  static Solver from_json(const std::string& json, const SolverOptions& options = {});
  ~Solver();
  Solver(Solver&&) noexcept;
  Solver& operator=(Solver&&) noexcept;
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  // Queues n >= 0 steps (steps_done() + n <= steps_total()); returns before
  // the device is done (wait(), or later work on the same stream, sees them).
  void step(std::int64_t n, void* stream = nullptr);
  // Back to the case's initial fields; CPML memory, probes and phasors cleared.
  void restart();
  std::int64_t steps_done() const;
  std::int64_t steps_total() const;  // the case's steps
  void wait(void* stream = nullptr) const;

  // Field c in memory() (no copy); refuses for OpenCL variants.
  FieldArray field(Component c) const;
  std::array<FieldArray, 6> fields() const;
  // The same as an unmanaged Kokkos View (i, j, k) in memory space Mem, which
  // must be where memory() says; Real must be the precision's type.
  template <class Real, class Mem = Kokkos::DefaultExecutionSpace::memory_space>
  Kokkos::View<Real***, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
  field_view(Component c) const {
    const FieldArray f = field(c);
    check_view_request(sizeof(Real), host_accessible<Mem>());
    const Kokkos::LayoutStride layout(std::size_t(f.extent[0]), std::size_t(f.stride[0]),
                                      std::size_t(f.extent[1]), std::size_t(f.stride[1]),
                                      std::size_t(f.extent[2]), 1);
    return Kokkos::View<Real***, Kokkos::LayoutStride, Mem,
                        Kokkos::MemoryTraits<Kokkos::Unmanaged>>(static_cast<Real*>(f.data),
                                                                 layout);
  }

  // Copies field_size() values in the compact layout into field c (set) or
  // out of it (get). Host arrays: complete on return. Device arrays (in
  // memory()): queued on the device, ordered with `stream` as step().
  // The element type must match precision().
  void set_field(Component c, const float* values, ArrayMemory where, void* stream = nullptr);
  void set_field(Component c, const double* values, ArrayMemory where, void* stream = nullptr);
  void get_field(Component c, float* values, ArrayMemory where, void* stream = nullptr) const;
  void get_field(Component c, double* values, ArrayMemory where, void* stream = nullptr) const;
  // The same with rank-1 contiguous Kokkos Views of field_size() values: a
  // View the host can read is a host array unless memory() is host memory.
  template <class View, class = std::enable_if_t<Kokkos::is_view<View>::value>>
  void set_field(Component c, const View& values) {
    set_field(c, values.data(), view_memory<View>(values), nullptr);
  }
  template <class View, class = std::enable_if_t<Kokkos::is_view<View>::value>>
  void get_field(Component c, const View& values) const {
    get_field(c, values.data(), view_memory<View>(values), nullptr);
  }

  std::int64_t field_size() const;  // grid().nodes()
  index_t pitch() const;            // z pitch of the stored rows (>= nz + 1)

  // Probe p after step s at [p * steps_done() + s] (E probes at (s + 1) dt,
  // H probes at (s + 1/2) dt), for the steps since the last restart; fp32
  // solvers' values widened to double. Copies the probe record only.
  std::vector<double> probe_values() const;
  std::int64_t probe_count() const;
  // The running DFT sums of the case's phasors so far (an empty set without
  // phasors; phasors.hpp). Copies the sums only.
  PhasorSet phasors() const;

  // Where the fields live; std::nullopt for OpenCL variants (cl_mem buffers).
  std::optional<DataLocation> memory() const;
  const std::string& variant() const;
  Precision precision() const;
  const YeeGrid& grid() const;
  const FdtdStep::Problem& problem() const;

 private:
  struct State;
  const State& state() const;
  void transfer(Component c, void* values, std::size_t value_bytes, ArrayMemory where, bool into,
                void* stream) const;
  void check_view_request(std::size_t value_bytes, bool view_on_host) const;
  void check_view_extent(bool contiguous, std::int64_t extent) const;
  template <class Mem>
  static constexpr bool host_accessible() {
    return Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;
  }
  template <class View>
  ArrayMemory view_memory(const View& v) const {
    static_assert(View::rank == 1, "set_field/get_field take rank-1 Views");
    check_view_extent(v.span_is_contiguous(), std::int64_t(v.extent(0)));
    const bool on_host = host_accessible<typename View::memory_space>();
    const auto where = memory();
    return on_host && (!where || where->kind != MemoryKind::host) ? ArrayMemory::host
                                                                  : ArrayMemory::device;
  }
  std::unique_ptr<State> state_;
};

}  // namespace ppkit::fdtd
