#pragma once
// Long fdtd.step runs that survive being killed (docs/reliability.md): a
// stepper that advances a problem in chunks and can hand out or take back its
// whole state (fields, CPML psi, step counter, probe and energy history), a
// numerical health check between chunks, and the checkpointed run driver used
// by `ppkit fdtd ... --checkpoint FILE --checkpoint-every N --restart FILE`.
#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ppkit/fdtd/fdtd_step.hpp"

namespace ppkit::fdtd {

// Everything a run needs to continue exactly where it stopped.
struct RunState {
  std::int64_t step = 0;  // steps done
  FieldSet fields;        // E^step and H^{step-1/2}
  // CPML memory in the layer layout of yee_kernel_args.hpp, in the order
  // eyx ezx hyx hzx (x layers), exy ezy hxy hzy (y), exz eyz hxz hyz (z).
  std::array<std::vector<float>, 12> psi;
  std::vector<float> probe_values;  // [probe * steps + s], valid for s < step
  std::vector<double> energy;       // energies of the energy steps already passed
};

const char* psi_name(int q);  // "psi_eyx", ...

// Where a field first went wrong: the component, node and what was seen.
struct FieldFault {
  bool found = false;
  Component component = Component::ex;
  index_t node = 0;
  float value = 0;
};

// Throws ppkit::Error "fdtd step S: <component> is <nan|inf|value above
// bound> at node (i,j,k), position (x, y, z) m" when the fault was found.
void throw_if_faulty(const FdtdStep::Problem& problem, std::int64_t step, const FieldFault& f);
// The host scan behind the same check (reference runs, tests, results).
FieldFault find_field_fault(const FieldSet& fields, float bound);
// |E| or |H| above this is a blow-up even though it is finite (float overflows at 3.4e38).
constexpr float blow_up_bound = 1e30f;

class Stepper {
 public:
  virtual ~Stepper() = default;
  // Advances by min(steps, remaining) steps; throws ppkit::Error naming the
  // step and node when a field is NaN, infinite or above blow_up_bound after them.
  virtual void advance(std::int64_t steps) = 0;
  virtual std::int64_t step() const = 0;
  virtual RunState state() = 0;
  virtual void restore(const RunState& state) = 0;
  virtual FdtdStep::Result result() = 0;  // as fdtd.step returns after all steps
};

// A stepper on the Kokkos execution space of the named fdtd.step variant
// ("auto": the preferred available kokkos-* one). Other backends are refused
// with a ppkit::Error listing the ones that can checkpoint.
std::unique_ptr<Stepper> make_stepper(const std::string& variant, const FdtdStep::Problem& problem);
std::string stepper_variant_name(const std::string& variant);

// Lower bound of the device bytes of a problem (the memory check before allocation).
double device_bytes(const FdtdStep::Problem& problem);

struct CheckpointOptions {
  std::string checkpoint_file;        // empty: none
  std::int64_t checkpoint_every = 0;  // steps between checkpoints (> 0 with a file)
  std::string restart_file;           // empty: start from the problem's initial state
  std::int64_t health_every = 100;    // steps between health checks without checkpoints
  // Called after every chunk with the steps done (a progress line).
  std::function<void(std::int64_t)> on_chunk;
};

// Runs the problem to its last step on the stepper, checkpointing every N
// steps and once at the end, optionally starting from a checkpoint of the
// same problem. Throws ppkit::Error for a checkpoint of another problem.
FdtdStep::Result run_with_checkpoints(Stepper& stepper, const FdtdStep::Problem& problem,
                                      const CheckpointOptions& options);

void write_run_checkpoint(const std::string& path, const FdtdStep::Problem& problem,
                          const RunState& state);
RunState read_run_checkpoint(const std::string& path, const FdtdStep::Problem& problem);
// The energy interval of the run that wrote a checkpoint (a run continuing it
// keeps that schedule, whatever its own --steps would give), or `fallback`
// for a checkpoint that does not record it.
std::int64_t checkpoint_energy_interval(const std::string& path, std::int64_t fallback);

}  // namespace ppkit::fdtd
