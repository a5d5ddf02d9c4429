// The SEM C API (include/ppkit_sem.h): handles over ppkit::sem::Axhelm.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "ppkit/core/c_api_support.hpp"
#include "ppkit/core/device_memory.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/sem/axhelm_operator.hpp"
#include "ppkit/sem/gll.hpp"
#include "ppkit_sem.h"

namespace ppkit::sem {
namespace {

constexpr const char* kHandleKind = "ppkit_sem_axhelm";

struct AxhelmHandle final : c_api::HandleObject {
  explicit AxhelmHandle(Axhelm axhelm) : op(std::move(axhelm)) {}
  Axhelm op;
  // Device copies of host-tagged arrays (PPKIT_MEM_HOST on a device
  // operator), allocated at the first such call and kept.
  ArrayIn<double> staged_x, staged_y;
};

Axhelm make_operator(const ppkit_sem_axhelm_mesh& m) {
  AxhelmMesh mesh;
  mesh.order = m.order;
  mesh.elements = m.elements;
  mesh.vertices = m.vertices;
  mesh.factors = m.factors;
  mesh.trilinear = m.trilinear;
  AxhelmOptions options;
  options.ncol = m.ncol;
  options.equation = m.helmholtz ? Equation::helmholtz : Equation::poisson;
  options.variant = m.variant ? m.variant : "auto";
  return Axhelm(mesh, options);
}

constexpr const char* kGatherScatterKind = "ppkit_sem_gather_scatter";

struct GatherScatterHandle final : c_api::HandleObject {
  explicit GatherScatterHandle(GatherScatter plan) : gs(std::move(plan)) {}
  GatherScatter gs;
};

void apply_tagged(AxhelmHandle& h, const double* x, double* y, int memory, double lambda0,
                  double lambda1, void* stream) {
  require(memory == PPKIT_MEM_HOST || memory == PPKIT_MEM_DEVICE,
          fmt::format("memory = {}", memory), "PPKIT_MEM_HOST (0) or PPKIT_MEM_DEVICE (1)");
  const DataLocation where = h.op.memory();
  const std::size_t n = std::size_t(h.op.size()), bytes = n * sizeof(double);
  if (memory == PPKIT_MEM_DEVICE || where.kind == MemoryKind::host) {
    h.op.apply(x, y, lambda0, lambda1, stream);
    return;
  }
  check_pointer(x, n, DataLocation{MemoryKind::host, -1}, "x");
  check_pointer(y, n, DataLocation{MemoryKind::host, -1}, "y");
  if (!h.staged_x.data()) {
    h.staged_x = ArrayIn<double>(where, n);
    h.staged_y = ArrayIn<double>(where, n);
  }
  copy_to(where, h.staged_x.data(), x, bytes);
  h.op.apply(h.staged_x.data(), h.staged_y.data(), lambda0, lambda1, stream);
  h.op.wait(stream);
  copy_from(where, y, h.staged_y.data(), bytes);
}

}  // namespace
}  // namespace ppkit::sem

using ppkit::c_api::guarded;

extern "C" {

const char* ppkit_sem_last_error(void) { return ppkit_last_error(); }

int ppkit_sem_gll(int order, double* nodes, double* weights, double* derivative) {
  using namespace ppkit::sem;
  return guarded(
      "ppkit_sem_gll",
      [&] {
        const GllRule rule = make_gll_rule(order);
        if (nodes) std::copy(rule.nodes.begin(), rule.nodes.end(), nodes);
        if (weights) std::copy(rule.weights.begin(), rule.weights.end(), weights);
        if (derivative) std::copy(rule.derivative.begin(), rule.derivative.end(), derivative);
      },
      false);
}

int ppkit_sem_trilinear_factors(int order, long long elements, const double* vertices,
                                double* factors) {
  using namespace ppkit::sem;
  return guarded(
      "ppkit_sem_trilinear_factors",
      [&] {
        ppkit::require(elements > 0, fmt::format("elements = {}", elements), "E >= 1");
        ppkit::require(vertices && factors, "vertices or factors is NULL",
                       "host arrays of E * 24 and E * 7 * (N+1)^3 values");
        const auto f = trilinear_geometric_factors(order, elements, vertices);
        std::copy(f.begin(), f.end(), factors);
      },
      false);
}

int ppkit_sem_axhelm_create(const ppkit_sem_axhelm_mesh* mesh, ppkit_sem_axhelm_handle* handle) {
  using namespace ppkit::sem;
  return guarded("ppkit_sem_axhelm_create", [&] {
    ppkit::require(handle != nullptr, "handle is NULL", "the address of a handle to set");
    *handle = nullptr;
    ppkit::require(mesh != nullptr, "mesh is NULL", "a ppkit_sem_axhelm_mesh");
    auto object = std::make_unique<AxhelmHandle>(make_operator(*mesh));
    *handle = static_cast<ppkit_sem_axhelm_handle>(ppkit::c_api::add_handle(std::move(object)));
  });
}

int ppkit_sem_axhelm_apply(ppkit_sem_axhelm_handle handle, const double* x, double* y, int memory,
                           double lambda0, double lambda1, void* stream) {
  using namespace ppkit::sem;
  return guarded("ppkit_sem_axhelm_apply", [&] {
    auto& h = ppkit::c_api::lookup<AxhelmHandle>(handle, "handle", kHandleKind);
    apply_tagged(h, x, y, memory, lambda0, lambda1, stream);
  });
}

int ppkit_sem_axhelm_wait(ppkit_sem_axhelm_handle handle, void* stream) {
  using namespace ppkit::sem;
  return guarded("ppkit_sem_axhelm_wait", [&] {
    ppkit::c_api::lookup<AxhelmHandle>(handle, "handle", kHandleKind).op.wait(stream);
  });
}

int ppkit_sem_axhelm_info(ppkit_sem_axhelm_handle handle, long long* size, int* memory_kind,
                          int* device, char* variant, size_t capacity) {
  using namespace ppkit::sem;
  return guarded("ppkit_sem_axhelm_info", [&] {
    const Axhelm& op = ppkit::c_api::lookup<AxhelmHandle>(handle, "handle", kHandleKind).op;
    if (size) *size = op.size();
    ppkit::c_api::describe_operator(op.memory(), op.variant(), memory_kind, device, variant,
                                    capacity);
  });
}

int ppkit_sem_axhelm_destroy(ppkit_sem_axhelm_handle handle) {
  return guarded(
      "ppkit_sem_axhelm_destroy",
      [&] { ppkit::c_api::remove_handle(handle, "handle", ppkit::sem::kHandleKind); }, false);
}

int ppkit_sem_gather_scatter_create(ppkit_sem_axhelm_handle like, const long long* global_ids,
                                    long long global_count,
                                    ppkit_sem_gather_scatter_handle* handle) {
  using namespace ppkit::sem;
  return guarded("ppkit_sem_gather_scatter_create", [&] {
    ppkit::require(handle != nullptr, "handle is NULL", "the address of a handle to set");
    *handle = nullptr;
    const Axhelm& op = ppkit::c_api::lookup<AxhelmHandle>(like, "like", kHandleKind).op;
    static_assert(sizeof(long long) == sizeof(std::int64_t), "global ids are 64-bit");
    GatherScatter gs(reinterpret_cast<const std::int64_t*>(global_ids), op.size() / op.ncol(),
                     global_count, op.memory());
    *handle = static_cast<ppkit_sem_gather_scatter_handle>(
        ppkit::c_api::add_handle(std::make_unique<GatherScatterHandle>(std::move(gs))));
  });
}

int ppkit_sem_dssum(ppkit_sem_gather_scatter_handle handle, double* u, void* stream) {
  using namespace ppkit::sem;
  return guarded("ppkit_sem_dssum", [&] {
    ppkit::c_api::lookup<GatherScatterHandle>(handle, "handle", kGatherScatterKind)
        .gs.dssum(u, stream);
  });
}

int ppkit_sem_gather_scatter_destroy(ppkit_sem_gather_scatter_handle handle) {
  return guarded(
      "ppkit_sem_gather_scatter_destroy",
      [&] { ppkit::c_api::remove_handle(handle, "handle", ppkit::sem::kGatherScatterKind); },
      false);
}

int ppkit_sem_axhelm(const ppkit_sem_axhelm_args* a) {
  using namespace ppkit::sem;
  return guarded("ppkit_sem_axhelm", [&] {
    ppkit::require(a != nullptr, "args is NULL", "a ppkit_sem_axhelm_args");
    ppkit_sem_axhelm_mesh mesh{a->order,    a->elements, a->ncol,      a->helmholtz,
                               a->vertices, a->factors,  a->trilinear, a->variant};
    AxhelmHandle h(make_operator(mesh));
    apply_tagged(h, a->x, a->y, PPKIT_MEM_HOST, a->lambda0, a->lambda1, nullptr);
  });
}

}  // extern "C"
