// ppkit::fdtd::Solver (solver.hpp): an fdtd.step variant's prepared run,
// driven through its StepApplier side (step_applier.hpp).
#include "ppkit/fdtd/solver.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "ppkit/core/registry.hpp"
#include "ppkit/core/variant_choice.hpp"
#include "ppkit/fdtd/cases.hpp"
#include "ppkit/fdtd/step_applier.hpp"
#include "ppkit/fdtd/step_features.hpp"

namespace ppkit::fdtd {
namespace {

// "auto", a strategy (its preferred available variant) or a name; "auto" and
// strategies only among the variants that run the problem's features.
const Variant<FdtdStep>& choose_variant(const std::string& name, const FdtdStep::Problem& p,
                                        const std::optional<MemoryKind>& memory) {
  if (name.find('/') != std::string::npos) return Registry<FdtdStep>::find_available(name);
  const Variant<FdtdStep>* best = nullptr;
  for (const auto& v : Registry<FdtdStep>::all())
    if ((name == "auto" || v.strategy == name) && runs_problem(v.traits, p) &&
        (!memory || v.memory == memory) && v.availability().available &&
        (!best || best->preference < v.preference))
      best = &v;
  if (!best) {
    std::string what = "no fdtd.step variant that can run here";
    if (name != "auto") what += " has strategy '" + name + "' and";
    if (memory) what += std::string(" keeps its fields in ") + to_string(*memory) + " memory and";
    what += " runs this case's features";
    throw Error(what, "auto, a strategy of " + Registry<FdtdStep>::joined_names(true) +
                          ", or one of those names");
  }
  return *best;
}

void require_solver_case(const FdtdStep::Problem& p) {
  validate(p);
  require(p.snapshots.empty(), fmt::format("the case has {} snapshots", p.snapshots.size()),
          "a case without snapshots: a Solver's caller reads field() or get_field() between "
          "steps (snapshots are written by `ppkit fdtd run`)");
  require(p.far_field.empty(), "the case has a near-to-far-field transform",
          "a case without one: the far field is an output of whole runs (`ppkit fdtd dipole "
          "--far-field`)");
}

}  // namespace

std::vector<VariantStatus> solver_variants() { return variant_statuses<FdtdStep>(); }

struct Solver::State {
  FdtdStep::Problem problem;
  std::string variant;
  std::optional<DataLocation> memory;
  std::unique_ptr<PreparedRun<FdtdStep::Result>> run;  // owns the buffers
  StepApplier* applier = nullptr;                      // the run, stepped in chunks
};

Solver::Solver(const FdtdStep::Problem& problem, const SolverOptions& options)
    : state_(std::make_unique<State>()) {
  require(Kokkos::is_initialized(), "Kokkos is not initialised",
          "create a ppkit::Runtime (or initialise Kokkos) before creating a Solver");
  require_solver_case(problem);
  const auto& variant = choose_variant(options.variant, problem, options.memory);
  State& s = *state_;
  s.problem = problem;
  s.variant = variant.name;
  s.run = variant.prepare(problem);  // refuses features its kernels do not run
  s.applier = dynamic_cast<StepApplier*>(s.run.get());
  require(s.applier != nullptr,
          "variant " + variant.name + " of fdtd.step cannot be stepped by a Solver",
          "a variant whose prepared run implements StepApplier");
  s.memory = s.applier->memory();
  s.applier->restart();
  s.applier->wait(nullptr);
}

Solver Solver::from_json(const std::string& json, const SolverOptions& options) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json);
  } catch (const std::exception& e) {
    throw Error(std::string("the case is not valid JSON: ") + e.what(),
                "a case in the format of `ppkit fdtd run --case` (docs/fdtd.md)");
  }
  return Solver(problem_from_json(j, "the case"), options);
}

Solver::~Solver() = default;
Solver::Solver(Solver&&) noexcept = default;
Solver& Solver::operator=(Solver&&) noexcept = default;

const Solver::State& Solver::state() const {
  require(state_ != nullptr, "this fdtd::Solver was moved from", "a Solver that holds a case");
  return *state_;
}

void Solver::step(std::int64_t n, void* stream) {
  const State& s = state();
  const std::int64_t done = s.applier->step();
  require(n >= 0, fmt::format("n = {} steps", n), "n >= 0");
  require(
      n <= s.problem.steps - done,
      fmt::format("{} steps after the {} done pass the case's {} steps", n, done, s.problem.steps),
      fmt::format("at most {} more steps (the case's `steps` sizes its source waveforms "
                  "and probe record), or restart()",
                  s.problem.steps - done));
  if (n > 0) s.applier->advance(n, stream);
}

void Solver::restart() { state().applier->restart(); }
std::int64_t Solver::steps_done() const { return state().applier->step(); }
std::int64_t Solver::steps_total() const { return state().problem.steps; }
void Solver::wait(void* stream) const { state().applier->wait(stream); }

FieldArray Solver::field(Component c) const {
  const State& s = state();
  require(int(c) >= 0 && int(c) < 6, fmt::format("component {}", int(c)), "ex, ey, ez, hx, hy, hz");
  require(s.memory.has_value(),
          "variant " + s.variant + " keeps its fields in OpenCL buffers, which have no address",
          "get_field/set_field with host arrays, or a kokkos-* or cuda/* variant for addresses");
  const YeeGrid& g = s.problem.grid;
  const index_t pitch = s.applier->pitch();
  FieldArray f;
  f.component = c;
  f.data = s.applier->field_address(int(c));
  f.precision = s.problem.precision;
  f.extent = {g.nx + 1, g.ny + 1, g.nz + 1};
  f.stride = {(g.ny + 1) * pitch, pitch, 1};
  f.size = (g.nx + 1) * (g.ny + 1) * pitch;
  return f;
}

std::array<FieldArray, 6> Solver::fields() const {
  std::array<FieldArray, 6> out;
  for (int c = 0; c < 6; ++c) out[std::size_t(c)] = field(Component(c));
  return out;
}

void Solver::transfer(Component c, void* values, std::size_t value_bytes, ArrayMemory where,
                      bool into, void* stream) const {
  const State& s = state();
  const char* argument = into ? "values (set_field)" : "values (get_field)";
  require(int(c) >= 0 && int(c) < 6, fmt::format("component {}", int(c)), "ex, ey, ez, hx, hy, hz");
  const std::size_t expected =
      s.problem.precision == Precision::fp64 ? sizeof(double) : sizeof(float);
  require(
      value_bytes == expected,
      fmt::format("{}-byte values for a {} solver", value_bytes, to_string(s.problem.precision)),
      s.problem.precision == Precision::fp64 ? "double values" : "float values");
  require(where == ArrayMemory::host || where == ArrayMemory::device,
          fmt::format("array memory {}", int(where)), "ArrayMemory::host or ArrayMemory::device");
  const std::size_t n = std::size_t(s.problem.grid.nodes());
  const bool on_host = where == ArrayMemory::host;
  if (!on_host)
    require(
        s.memory.has_value(),
        "variant " + s.variant +
            " keeps its fields in OpenCL buffers: device arrays cannot be copied to or from them",
        "a host array (ArrayMemory::host, PPKIT_MEM_HOST)");
  check_pointer(values, n, on_host ? DataLocation{MemoryKind::host, -1} : *s.memory, argument);
  s.applier->copy_field(int(c), values, on_host, into, stream);
}

void Solver::set_field(Component c, const float* values, ArrayMemory where, void* stream) {
  transfer(c, const_cast<float*>(values), sizeof(float), where, true, stream);
}
void Solver::set_field(Component c, const double* values, ArrayMemory where, void* stream) {
  transfer(c, const_cast<double*>(values), sizeof(double), where, true, stream);
}
void Solver::get_field(Component c, float* values, ArrayMemory where, void* stream) const {
  transfer(c, values, sizeof(float), where, false, stream);
}
void Solver::get_field(Component c, double* values, ArrayMemory where, void* stream) const {
  transfer(c, values, sizeof(double), where, false, stream);
}

void Solver::check_view_request(std::size_t value_bytes, bool view_on_host) const {
  const State& s = state();
  const std::size_t expected =
      s.problem.precision == Precision::fp64 ? sizeof(double) : sizeof(float);
  require(value_bytes == expected,
          fmt::format("a View of {}-byte values for a {} solver", value_bytes,
                      to_string(s.problem.precision)),
          s.problem.precision == Precision::fp64 ? "Real = double" : "Real = float");
  const bool fields_on_host = s.memory && s.memory->kind == MemoryKind::host;
  const bool fields_managed = s.memory && s.memory->kind == MemoryKind::managed;
  require(fields_managed || view_on_host == fields_on_host,
          std::string("a View in ") + (view_on_host ? "a host" : "a device") +
              " memory space of fields in " + s.memory->describe(),
          "the memory space of the solver's variant");
}

void Solver::check_view_extent(bool contiguous, std::int64_t extent) const {
  require(contiguous, "values is a non-contiguous View", "a contiguous rank-1 View");
  require(extent == field_size(), fmt::format("values has {} entries", extent),
          fmt::format("grid().nodes() = {}", field_size()));
}

std::int64_t Solver::field_size() const { return state().problem.grid.nodes(); }
index_t Solver::pitch() const { return state().applier->pitch(); }

std::vector<double> Solver::probe_values() const {
  const State& s = state();
  const std::size_t probes = s.problem.probes.size();
  const std::size_t steps = std::size_t(s.problem.steps), done = std::size_t(s.applier->step());
  std::vector<double> out(probes * done);
  if (out.empty()) return out;
  const std::vector<double> record = s.applier->probe_record();
  for (std::size_t p = 0; p < probes; ++p)
    std::copy(record.begin() + std::ptrdiff_t(p * steps),
              record.begin() + std::ptrdiff_t(p * steps + done),
              out.begin() + std::ptrdiff_t(p * done));
  return out;
}

std::int64_t Solver::probe_count() const { return std::int64_t(state().problem.probes.size()); }
PhasorSet Solver::phasors() const { return state().applier->phasor_sums(); }
std::optional<DataLocation> Solver::memory() const { return state().memory; }
const std::string& Solver::variant() const { return state().variant; }
Precision Solver::precision() const { return state().problem.precision; }
const YeeGrid& Solver::grid() const { return state().problem.grid; }
const FdtdStep::Problem& Solver::problem() const { return state().problem; }

}  // namespace ppkit::fdtd
