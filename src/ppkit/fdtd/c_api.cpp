// The FDTD C API (include/ppkit_fdtd.h): handles over ppkit::fdtd::Solver.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "ppkit/core/c_api_support.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/fdtd/solver.hpp"
#include "ppkit_fdtd.h"

namespace ppkit::fdtd {
namespace {

constexpr const char* kHandleKind = "ppkit_fdtd_solver";

struct SolverHandle final : c_api::HandleObject {
  explicit SolverHandle(Solver s) : solver(std::move(s)) {}
  Solver solver;
};

Solver& solver_of(ppkit_fdtd_solver_handle h) {
  return c_api::lookup<SolverHandle>(h, "handle", kHandleKind).solver;
}

Component component_of(int component) {
  require(component >= PPKIT_FDTD_EX && component <= PPKIT_FDTD_HZ,
          fmt::format("component = {}", component),
          "PPKIT_FDTD_EX (0), _EY, _EZ, _HX, _HY or PPKIT_FDTD_HZ (5)");
  return Component(component);
}

ArrayMemory memory_of(int memory) {
  require(memory == PPKIT_MEM_HOST || memory == PPKIT_MEM_DEVICE,
          fmt::format("memory = {}", memory), "PPKIT_MEM_HOST (0) or PPKIT_MEM_DEVICE (1)");
  return memory == PPKIT_MEM_HOST ? ArrayMemory::host : ArrayMemory::device;
}

// Checks count and precision against the solver (the array's type and size).
void check_array(const Solver& s, long long count, int precision) {
  require(precision == PPKIT_FDTD_FP32 || precision == PPKIT_FDTD_FP64,
          fmt::format("precision = {}", precision), "PPKIT_FDTD_FP32 (0) or PPKIT_FDTD_FP64 (1)");
  const int expected = s.precision() == Precision::fp64 ? PPKIT_FDTD_FP64 : PPKIT_FDTD_FP32;
  require(precision == expected,
          fmt::format("{} values for a {} case", precision == PPKIT_FDTD_FP64 ? "double" : "float",
                      to_string(s.precision())),
          expected == PPKIT_FDTD_FP64 ? "PPKIT_FDTD_FP64 (double) arrays"
                                      : "PPKIT_FDTD_FP32 (float) arrays");
  require(count == s.field_size(), fmt::format("count = {}", count),
          fmt::format("the case's nodes, (nx+1)(ny+1)(nz+1) = {}", s.field_size()));
}

}  // namespace
}  // namespace ppkit::fdtd

using ppkit::c_api::guarded;

extern "C" {

const char* ppkit_fdtd_last_error(void) { return ppkit_last_error(); }

int ppkit_fdtd_solver_create_from_json(const char* json, const char* variant,
                                       ppkit_fdtd_solver_handle* handle) {
  using namespace ppkit::fdtd;
  return guarded("ppkit_fdtd_solver_create_from_json", [&] {
    ppkit::require(handle != nullptr, "handle is NULL", "the address of a handle to set");
    *handle = nullptr;
    ppkit::require(json != nullptr, "json is NULL", "a NUL-terminated JSON case");
    SolverOptions options;
    options.variant = variant ? variant : "auto";
    auto object = std::make_unique<SolverHandle>(Solver::from_json(json, options));
    *handle = static_cast<ppkit_fdtd_solver_handle>(ppkit::c_api::add_handle(std::move(object)));
  });
}

int ppkit_fdtd_solver_step(ppkit_fdtd_solver_handle handle, long long steps, void* stream) {
  using namespace ppkit::fdtd;
  return guarded("ppkit_fdtd_solver_step", [&] { solver_of(handle).step(steps, stream); });
}

int ppkit_fdtd_solver_restart(ppkit_fdtd_solver_handle handle) {
  using namespace ppkit::fdtd;
  return guarded("ppkit_fdtd_solver_restart", [&] { solver_of(handle).restart(); });
}

int ppkit_fdtd_solver_wait(ppkit_fdtd_solver_handle handle, void* stream) {
  using namespace ppkit::fdtd;
  return guarded("ppkit_fdtd_solver_wait", [&] { solver_of(handle).wait(stream); });
}

int ppkit_fdtd_solver_field(ppkit_fdtd_solver_handle handle, int component, void** data,
                            long long* size, long long stride[3]) {
  using namespace ppkit::fdtd;
  return guarded("ppkit_fdtd_solver_field", [&] {
    ppkit::require(data != nullptr, "data is NULL", "the address of a pointer to set");
    *data = nullptr;
    const FieldArray f = solver_of(handle).field(component_of(component));
    *data = f.data;
    if (size) *size = f.size;
    if (stride)
      for (int d = 0; d < 3; ++d) stride[d] = f.stride[std::size_t(d)];
  });
}

int ppkit_fdtd_solver_set_field(ppkit_fdtd_solver_handle handle, int component, const void* values,
                                long long count, int precision, int memory, void* stream) {
  using namespace ppkit::fdtd;
  return guarded("ppkit_fdtd_solver_set_field", [&] {
    Solver& s = solver_of(handle);
    const Component c = component_of(component);
    check_array(s, count, precision);
    if (precision == PPKIT_FDTD_FP64)
      s.set_field(c, static_cast<const double*>(values), memory_of(memory), stream);
    else
      s.set_field(c, static_cast<const float*>(values), memory_of(memory), stream);
  });
}

int ppkit_fdtd_solver_get_field(ppkit_fdtd_solver_handle handle, int component, void* values,
                                long long count, int precision, int memory, void* stream) {
  using namespace ppkit::fdtd;
  return guarded("ppkit_fdtd_solver_get_field", [&] {
    const Solver& s = solver_of(handle);
    const Component c = component_of(component);
    check_array(s, count, precision);
    if (precision == PPKIT_FDTD_FP64)
      s.get_field(c, static_cast<double*>(values), memory_of(memory), stream);
    else
      s.get_field(c, static_cast<float*>(values), memory_of(memory), stream);
  });
}

int ppkit_fdtd_solver_probe_values(ppkit_fdtd_solver_handle handle, double* values,
                                   long long capacity, long long* count) {
  using namespace ppkit::fdtd;
  return guarded("ppkit_fdtd_solver_probe_values", [&] {
    const Solver& s = solver_of(handle);
    const long long needed = s.probe_count() * s.steps_done();
    if (count) *count = needed;
    ppkit::require(capacity >= needed, fmt::format("capacity = {}", capacity),
                   fmt::format("probes * steps_done = {} values", needed));
    ppkit::require(values != nullptr || needed == 0, "values is NULL",
                   "a host array of probes * steps_done doubles");
    const std::vector<double> v = s.probe_values();
    std::copy(v.begin(), v.end(), values);
  });
}

int ppkit_fdtd_solver_info(ppkit_fdtd_solver_handle handle, ppkit_fdtd_solver_info_t* info) {
  using namespace ppkit::fdtd;
  return guarded("ppkit_fdtd_solver_info", [&] {
    ppkit::require(info != nullptr, "info is NULL", "a ppkit_fdtd_solver_info_t to fill");
    const Solver& s = solver_of(handle);
    const YeeGrid& g = s.grid();
    *info = ppkit_fdtd_solver_info_t{};
    info->cells[0] = g.nx;
    info->cells[1] = g.ny;
    info->cells[2] = g.nz;
    info->nodes = s.field_size();
    info->pitch = s.pitch();
    info->steps_done = s.steps_done();
    info->steps_total = s.steps_total();
    info->probes = s.probe_count();
    info->precision = s.precision() == Precision::fp64 ? PPKIT_FDTD_FP64 : PPKIT_FDTD_FP32;
    const auto where = s.memory();
    info->memory_kind = where ? int(where->kind) : -1;
    info->device = where ? where->device : -1;
    info->dt = g.dt;
    info->cell[0] = g.dx;
    info->cell[1] = g.dy;
    info->cell[2] = g.dz;
    const std::size_t n = std::min(sizeof(info->variant) - 1, s.variant().size());
    std::memcpy(info->variant, s.variant().data(), n);
    info->variant[n] = '\0';
  });
}

int ppkit_fdtd_solver_destroy(ppkit_fdtd_solver_handle handle) {
  return guarded(
      "ppkit_fdtd_solver_destroy",
      [&] { ppkit::c_api::remove_handle(handle, "handle", ppkit::fdtd::kHandleKind); }, false);
}

}  // extern "C"
