#pragma once
// The operator side of every fdtd.step variant (fdtd::Solver, solver.hpp):
// each variant's prepared run implements it, so the Solver and the registry's
// run() drive the same buffers through the same kernels. run() is restart()
// followed by advance(problem.steps) plus what only a whole run records
// (far-field radiation vectors).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ppkit/core/data_location.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"

namespace ppkit::fdtd {

class StepApplier {
 public:
  virtual ~StepApplier() = default;
  // Fields back to the problem's initial values, CPML memory, phasor sums,
  // energies and frames cleared, step() = 0.
  virtual void restart() = 0;
  // Queues the steps step() .. step() + n - 1 (step() + n <= problem.steps:
  // the source waveforms and the probe record are sized for the problem's
  // steps), each as run() does it. stream: a native stream (cudaStream_t,
  // hipStream_t) the steps are ordered with: they start after the work
  // queued on it before the call, and work queued on it afterwards sees
  // them; nullptr: the variant's own queue only. Host variants and OpenCL
  // variants refuse a stream.
  virtual void advance(std::int64_t n, void* stream) = 0;
  virtual std::int64_t step() const = 0;
  // The z pitch of the stored fields (values between (i, j, 0) and
  // (i, j + 1, 0)): nz + 1, or more for variants that pad rows (padding
  // holds zeros and is never updated).
  virtual index_t pitch() const = 0;
  // Address of field c (0..5: Ex..Hz) in memory(), rows of pitch() values;
  // nullptr where the buffers are not addressable (OpenCL).
  virtual void* field_address(int c) = 0;
  // Copies field c between its storage and `array`, grid.nodes() values of
  // the problem's precision in the compact layout of yee_grid.hpp.
  // array_on_host: host memory (the copy is complete on return); otherwise
  // memory() (queued, ordered with `stream` as advance()). into_field:
  // array -> field, else field -> array. Padding is left alone.
  virtual void copy_field(int c, void* array, bool array_on_host, bool into_field,
                          void* stream) = 0;
  // The probe record as result() gives it: [probe * problem.steps + s], in
  // double; entries of steps s >= step() are not meaningful. Copies the
  // probe values only, never the grid.
  virtual std::vector<double> probe_record() = 0;
  // Copies the x-planes [first, first + count) of field c of an fp32 run
  // between its storage and `host`, count (ny + 1)(nz + 1) floats in the
  // compact layout of yee_grid.hpp; complete on return (after the queued
  // steps). The halo exchange of MPI slabs (mpi_slabs.hpp) calls it between
  // single steps. This default works through field_address() rows when
  // memory() is host memory, otherwise through a whole-field copy_field()
  // (correct, but it moves the grid): variants with device buffers override it.
  virtual void copy_planes(int c, index_t first, index_t count, float* host, bool into_field,
                           const YeeGrid& grid);
  // One step in two parts around a halo exchange (Traits::slab_overlap; the
  // MPI slabs of mpi_slabs.hpp): begin_step(edges) updates H on every plane,
  // then E on the local x-planes `edges` only (at most two), with their
  // sources and periodic copy; finish_step() updates E on the other planes
  // with their sources and periodic copy, records the probes, phasors and
  // energy of the step and advances step(). Together they leave the fields
  // advance(1) leaves, bit for bit. An fp32 run of a problem without plane
  // waves, snapshots or the NTFF (what MPI slabs run); queued as advance()
  // on the variant's own queue. Variants without the trait refuse both.
  virtual void begin_step(const std::vector<index_t>& edges);
  virtual void finish_step();
  // The running DFT sums so far (empty set without phasors).
  virtual PhasorSet phasor_sums() = 0;
  // Blocks until the work queued on the variant's queue (and on stream) is done.
  virtual void wait(void* stream) = 0;
  // Where field_address() points and device arrays given to copy_field
  // live; std::nullopt: the buffers are not addressable (OpenCL).
  virtual std::optional<DataLocation> memory() const = 0;
};

// The bookkeeping of begin_step / finish_step shared by the variants that
// implement them: the checks, the step's sorted distinct edge planes and the
// ranges of the other planes.
class EdgePlaneSteps {
 public:
  // Checks begin_step(edges) on a grid of `planes` x-planes at step `step`
  // of `steps`; `supported`: the problem has none of the features that only
  // advance() runs (named in `unsupported`).
  void begin(const std::vector<index_t>& edges, index_t planes, std::int64_t step,
             std::int64_t steps, bool supported, const std::string& unsupported);
  const std::vector<index_t>& edges() const { return edges_; }
  // The ranges [first, end) of the planes that are not edges; ends the step.
  std::vector<std::pair<index_t, index_t>> finish();
  // advance() refuses to run between begin and finish.
  void require_between_steps() const;
  void reset() { in_step_ = false; }

 private:
  std::vector<index_t> edges_;
  index_t planes_ = 0;
  bool in_step_ = false;
};

}  // namespace ppkit::fdtd
