// C API of the fem workload (include/ppkit_fem.h): handles over
// ppkit::fem::Assembler.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "ppkit/core/c_api_support.hpp"
#include "ppkit/core/device_memory.hpp"
#include "ppkit/fem/assemble.hpp"
#include "ppkit/fem/assembler.hpp"
#include "ppkit.h"
#include "ppkit_fem.h"

namespace ppkit::fem {
namespace {

constexpr const char* kHandleKind = "ppkit_fem_assembler";

struct AssemblerHandle final : c_api::HandleObject {
  explicit AssemblerHandle(Assembler assembler) : op(std::move(assembler)) {}
  Assembler op;
  // Device arrays for host-tagged outputs (PPKIT_MEM_HOST on a device
  // assembler), allocated at the first such call and kept.
  ArrayIn<double> staged_values, staged_load;
};

HexMesh mesh_from(int64_t num_nodes, const double* coordinates, int64_t num_elements,
                  const int32_t* connectivity) {
  require(num_nodes > 0 && num_elements > 0, "empty mesh", "num_nodes > 0 and num_elements > 0");
  require(connectivity != nullptr, "connectivity is NULL", "8 node indices per element");
  HexMesh mesh;
  if (coordinates)
    mesh.coordinates.assign(coordinates, coordinates + 3 * num_nodes);
  else
    mesh.coordinates.assign(3 * num_nodes, 0.0);
  mesh.elements.assign(connectivity, connectivity + 8 * num_elements);
  return mesh;
}

void require_memory_tag(int memory) {
  require(memory == PPKIT_MEM_HOST || memory == PPKIT_MEM_DEVICE,
          fmt::format("memory = {}", memory), "PPKIT_MEM_HOST (0) or PPKIT_MEM_DEVICE (1)");
}

Assembler make_assembler(const ppkit_fem_mesh& m, const char* variant) {
  AssemblerOptions options;
  options.variant = variant ? variant : "auto";
  return Assembler(AssemblerMesh{m.num_nodes, m.coordinates, m.num_elements, m.connectivity},
                   options);
}

std::array<double, 3> body_of(const double* body_force) {
  if (!body_force) return {0, 0, 0};
  return {body_force[0], body_force[1], body_force[2]};
}

void assemble_tagged(AssemblerHandle& h, double youngs_modulus, double poisson_ratio,
                     const double* body_force, double* values, double* load, int memory,
                     void* stream) {
  require_memory_tag(memory);
  const DataLocation where = h.op.memory();
  if (memory == PPKIT_MEM_DEVICE || where.kind == MemoryKind::host) {
    h.op.assemble(youngs_modulus, poisson_ratio, body_of(body_force), values, load, stream);
    return;
  }
  const std::size_t nonzeros = std::size_t(h.op.num_nonzeros()),
                    rows = std::size_t(h.op.num_rows());
  check_pointer(values, nonzeros, DataLocation{MemoryKind::host, -1}, "values");
  check_pointer(load, rows, DataLocation{MemoryKind::host, -1}, "load");
  if (!h.staged_values.data()) {
    h.staged_values = ArrayIn<double>(where, nonzeros);
    h.staged_load = ArrayIn<double>(where, rows);
  }
  h.op.assemble(youngs_modulus, poisson_ratio, body_of(body_force), h.staged_values.data(),
                h.staged_load.data(), stream);
  h.op.wait(stream);
  copy_from(where, values, h.staged_values.data(), nonzeros * sizeof(double));
  copy_from(where, load, h.staged_load.data(), rows * sizeof(double));
}

void copy_pattern(const Assembler& op, int64_t* row_offsets, int32_t* column_indices, int memory) {
  require_memory_tag(memory);
  const DataLocation where = op.memory();
  const DataLocation target = memory == PPKIT_MEM_HOST ? DataLocation{MemoryKind::host, -1} : where;
  const std::size_t offsets = std::size_t(op.num_rows() + 1),
                    columns = std::size_t(op.num_nonzeros());
  if (row_offsets) check_pointer(row_offsets, offsets, target, "row_offsets");
  if (column_indices) check_pointer(column_indices, columns, target, "column_indices");
  const auto copy = [&](void* dst, const void* src, std::size_t bytes) {
    if (target == where)
      copy_within(where, dst, src, bytes);
    else
      copy_from(where, dst, src, bytes);
  };
  if (row_offsets) copy(row_offsets, op.row_offsets(), offsets * sizeof(int64_t));
  if (column_indices) copy(column_indices, op.column_indices(), columns * sizeof(int32_t));
}

}  // namespace
}  // namespace ppkit::fem

using ppkit::c_api::guarded;

extern "C" {

int ppkit_fem_csr_size(int64_t num_nodes, int64_t num_elements, const int32_t* connectivity,
                       int64_t* num_rows, int64_t* num_nonzeros) {
  return guarded(
      "ppkit_fem_csr_size",
      [&] {
        auto mesh = ppkit::fem::mesh_from(num_nodes, nullptr, num_elements, connectivity);
        for (std::int64_t e = 0; e < num_elements; ++e)
          for (int a = 0; a < 8; ++a) {
            const auto v = mesh.elements[8 * e + a];
            ppkit::require(v >= 0 && v < num_nodes,
                           "element " + std::to_string(e) + " refers to node " + std::to_string(v) +
                               ", which does not exist",
                           "0.." + std::to_string(num_nodes - 1));
          }
        const auto pattern = ppkit::fem::build_csr_pattern(mesh);
        if (num_rows) *num_rows = pattern.num_rows;
        if (num_nonzeros) *num_nonzeros = pattern.num_nonzeros();
      },
      false);
}

int ppkit_fem_assemble(int64_t num_nodes, const double* coordinates, int64_t num_elements,
                       const int32_t* connectivity, double youngs_modulus, double poisson_ratio,
                       const double* body_force, const char* variant, int64_t* row_offsets,
                       int32_t* column_indices, double* values, double* load) {
  using namespace ppkit::fem;
  return guarded("ppkit_fem_assemble", [&] {
    ppkit::require(coordinates != nullptr, "coordinates are NULL", "3 values per node");
    ppkit::require(row_offsets && column_indices && values && load, "an output array is NULL",
                   "caller-owned arrays sized by ppkit_fem_csr_size");
    const ppkit_fem_mesh mesh{num_nodes, coordinates, num_elements, connectivity};
    AssemblerHandle h(make_assembler(mesh, variant));
    copy_pattern(h.op, row_offsets, column_indices, PPKIT_MEM_HOST);
    assemble_tagged(h, youngs_modulus, poisson_ratio, body_force, values, load, PPKIT_MEM_HOST,
                    nullptr);
  });
}

const char* ppkit_fem_last_error(void) { return ppkit_last_error(); }

int ppkit_fem_assembler_create(const ppkit_fem_mesh* mesh, const char* variant,
                               ppkit_fem_assembler_handle* handle) {
  using namespace ppkit::fem;
  return guarded("ppkit_fem_assembler_create", [&] {
    ppkit::require(handle != nullptr, "handle is NULL", "the address of a handle to set");
    *handle = nullptr;
    ppkit::require(mesh != nullptr, "mesh is NULL", "a ppkit_fem_mesh");
    auto object = std::make_unique<AssemblerHandle>(make_assembler(*mesh, variant));
    *handle = static_cast<ppkit_fem_assembler_handle>(ppkit::c_api::add_handle(std::move(object)));
  });
}

int ppkit_fem_assembler_pattern(ppkit_fem_assembler_handle handle, int64_t* num_rows,
                                int64_t* num_nonzeros, const int64_t** row_offsets,
                                const int32_t** column_indices) {
  using namespace ppkit::fem;
  return guarded("ppkit_fem_assembler_pattern", [&] {
    const Assembler& op = ppkit::c_api::lookup<AssemblerHandle>(handle, "handle", kHandleKind).op;
    if (num_rows) *num_rows = op.num_rows();
    if (num_nonzeros) *num_nonzeros = op.num_nonzeros();
    if (row_offsets) *row_offsets = op.row_offsets();
    if (column_indices) *column_indices = op.column_indices();
  });
}

int ppkit_fem_assembler_copy_pattern(ppkit_fem_assembler_handle handle, int64_t* row_offsets,
                                     int32_t* column_indices, int memory) {
  using namespace ppkit::fem;
  return guarded("ppkit_fem_assembler_copy_pattern", [&] {
    copy_pattern(ppkit::c_api::lookup<AssemblerHandle>(handle, "handle", kHandleKind).op,
                 row_offsets, column_indices, memory);
  });
}

int ppkit_fem_assembler_assemble(ppkit_fem_assembler_handle handle, double youngs_modulus,
                                 double poisson_ratio, const double* body_force, double* values,
                                 double* load, int memory, void* stream) {
  using namespace ppkit::fem;
  return guarded("ppkit_fem_assembler_assemble", [&] {
    auto& h = ppkit::c_api::lookup<AssemblerHandle>(handle, "handle", kHandleKind);
    assemble_tagged(h, youngs_modulus, poisson_ratio, body_force, values, load, memory, stream);
  });
}

int ppkit_fem_assembler_update_coordinates(ppkit_fem_assembler_handle handle,
                                           const double* coordinates) {
  using namespace ppkit::fem;
  return guarded("ppkit_fem_assembler_update_coordinates", [&] {
    ppkit::c_api::lookup<AssemblerHandle>(handle, "handle", kHandleKind)
        .op.update_coordinates(coordinates);
  });
}

int ppkit_fem_assembler_wait(ppkit_fem_assembler_handle handle, void* stream) {
  using namespace ppkit::fem;
  return guarded("ppkit_fem_assembler_wait", [&] {
    ppkit::c_api::lookup<AssemblerHandle>(handle, "handle", kHandleKind).op.wait(stream);
  });
}

int ppkit_fem_assembler_info(ppkit_fem_assembler_handle handle, int* memory_kind, int* device,
                             char* variant, size_t capacity) {
  using namespace ppkit::fem;
  return guarded("ppkit_fem_assembler_info", [&] {
    const Assembler& op = ppkit::c_api::lookup<AssemblerHandle>(handle, "handle", kHandleKind).op;
    ppkit::c_api::describe_operator(op.memory(), op.variant(), memory_kind, device, variant,
                                    capacity);
  });
}

int ppkit_fem_assembler_destroy(ppkit_fem_assembler_handle handle) {
  return guarded(
      "ppkit_fem_assembler_destroy",
      [&] { ppkit::c_api::remove_handle(handle, "handle", ppkit::fem::kHandleKind); }, false);
}

}  // extern "C"
