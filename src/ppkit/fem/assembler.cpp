// ppkit::fem::Assembler (assembler.hpp): a fem.assemble variant prepared on a
// problem without outputs (AssemblerApplier), assembling into the caller's
// arrays.
#include "ppkit/fem/assembler.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "ppkit/core/device_memory.hpp"
#include "ppkit/core/registry.hpp"
#include "ppkit/core/variant_choice.hpp"
#include "ppkit/fem/assemble.hpp"

namespace ppkit::fem {
namespace {

// Throws unless every coordinate is finite.
void require_finite_coordinates(const double* coordinates, std::int64_t nodes) {
  require(coordinates != nullptr, "coordinates is NULL", "3 * num_nodes values in host memory");
  for (std::int64_t m = 0; m < 3 * nodes; ++m)
    require(std::isfinite(coordinates[m]),
            fmt::format("coordinate {} of node {} is {}", "xyz"[m % 3], m / 3, coordinates[m]),
            "finite coordinates");
}

HexMesh mesh_of(const AssemblerMesh& m) {
  require(m.num_nodes > 0, fmt::format("the mesh has {} nodes", m.num_nodes), "num_nodes >= 1");
  require(m.num_elements > 0, fmt::format("the mesh has {} elements", m.num_elements),
          "num_elements >= 1");
  require(m.num_nodes <= std::int64_t(INT32_MAX), fmt::format("the mesh has {} nodes", m.num_nodes),
          "at most 2^31 - 1 nodes (int32 ids)");
  require(m.connectivity != nullptr, "connectivity is NULL", "8 node indices per element");
  require_finite_coordinates(m.coordinates, m.num_nodes);
  HexMesh mesh;
  mesh.coordinates.assign(m.coordinates, m.coordinates + 3 * m.num_nodes);
  mesh.elements.assign(m.connectivity, m.connectivity + 8 * m.num_elements);
  return mesh;  // validate_mesh (make_assembly_problem) checks indices and Jacobians
}

}  // namespace

struct Assembler::State {
  std::string variant;
  std::int64_t nodes = 0, elements = 0, rows = 0, nonzeros = 0;
  DataLocation memory;
  ArrayIn<std::int64_t> row_offsets;  // in memory
  ArrayIn<std::int32_t> column_indices;
  HexMesh mesh;  // the host copy update_coordinates validates against
  std::unique_ptr<PreparedRun<FemAssemble::Result>> run;  // owns the operator
  AssemblerApplier* applier = nullptr;                    // the run, as an operator
};

std::vector<VariantStatus> assembler_variants() { return variant_statuses<FemAssemble>(); }

Assembler::Assembler(const AssemblerMesh& mesh, const AssemblerOptions& options)
    : state_(std::make_unique<State>()) {
  require(Kokkos::is_initialized(), "Kokkos is not initialised",
          "create a ppkit::Runtime (or initialise Kokkos) before creating an Assembler");
  const auto& variant = choose_variant<FemAssemble>(options.variant);
  // The material is a placeholder: each assemble() gives its own.
  AssemblyProblem p = make_assembly_problem(mesh_of(mesh), Material{});
  p.own_outputs = false;
  State& s = *state_;
  s.variant = variant.name;
  s.nodes = p.mesh.num_nodes();
  s.elements = p.mesh.num_elements();
  s.rows = p.pattern.num_rows;
  s.nonzeros = p.pattern.num_nonzeros();
  s.run = variant.prepare(p);
  s.applier = dynamic_cast<AssemblerApplier*>(s.run.get());
  require(s.applier != nullptr,
          "variant " + variant.name + " of fem.assemble cannot be used as an operator",
          "a variant whose prepared run implements AssemblerApplier");
  s.memory = s.applier->memory();
  s.row_offsets = ArrayIn<std::int64_t>(s.memory, p.pattern.row_offsets.size());
  s.column_indices = ArrayIn<std::int32_t>(s.memory, p.pattern.column_indices.size());
  copy_to(s.memory, s.row_offsets.data(), p.pattern.row_offsets.data(),
          p.pattern.row_offsets.size() * sizeof(std::int64_t));
  copy_to(s.memory, s.column_indices.data(), p.pattern.column_indices.data(),
          p.pattern.column_indices.size() * sizeof(std::int32_t));
  s.mesh.coordinates = std::move(p.mesh.coordinates);
  s.mesh.elements = std::move(p.mesh.elements);
}

Assembler::~Assembler() = default;
Assembler::Assembler(Assembler&&) noexcept = default;
Assembler& Assembler::operator=(Assembler&&) noexcept = default;

const Assembler::State& Assembler::state() const {
  require(state_ != nullptr, "this fem::Assembler was moved from",
          "an Assembler that holds a mesh");
  return *state_;
}

void Assembler::assemble(double youngs_modulus, double poisson_ratio,
                         const std::array<double, 3>& body_force, double* values, double* load,
                         void* stream) const {
  const State& s = state();
  // Messages are formatted only on failure (this runs on every assembly).
  if (!std::isfinite(youngs_modulus) || !std::isfinite(poisson_ratio))
    throw Error(fmt::format("E = {}, nu = {}", youngs_modulus, poisson_ratio),
                "finite E > 0 and -1 < nu < 0.5");
  if (!std::isfinite(body_force[0]) || !std::isfinite(body_force[1]) ||
      !std::isfinite(body_force[2]))
    throw Error(fmt::format("body force ({}, {}, {})", body_force[0], body_force[1], body_force[2]),
                "a finite force per volume");
  Material material;
  material.youngs_modulus = youngs_modulus;
  material.poisson_ratio = poisson_ratio;
  material.body_force = body_force;
  validate_material(material);
  check_pointer(values, std::size_t(s.nonzeros), s.memory, "values");
  check_pointer(load, std::size_t(s.rows), s.memory, "load");
  if (static_cast<const void*>(values) == static_cast<const void*>(load))
    throw Error("values and load are the same array", "distinct arrays for K's values and f");
  s.applier->assemble(material, values, load, stream);
}

void Assembler::update_coordinates(const double* coordinates) {
  require(state_ != nullptr, "this fem::Assembler was moved from",
          "an Assembler that holds a mesh");
  State& s = *state_;
  require_finite_coordinates(coordinates, s.nodes);
  HexMesh moved;
  moved.coordinates.assign(coordinates, coordinates + 3 * s.nodes);
  moved.elements = s.mesh.elements;
  validate_mesh(moved);  // an inverted element is refused before anything changes
  s.applier->update_coordinates(moved.coordinates);
  s.mesh.coordinates = std::move(moved.coordinates);
}

void Assembler::wait(void* stream) const { state().applier->wait(stream); }

void Assembler::check_view(bool contiguous, std::int64_t extent, std::int64_t size,
                           const char* name) const {
  require(contiguous, fmt::format("{} is a non-contiguous View", name),
          "a contiguous rank-1 View (LayoutLeft or LayoutRight, no stride)");
  require(extent == size, fmt::format("{} has {} values", name, extent),
          fmt::format("{} values", size));
}

const std::int64_t* Assembler::row_offsets() const { return state().row_offsets.data(); }
const std::int32_t* Assembler::column_indices() const { return state().column_indices.data(); }
std::int64_t Assembler::num_rows() const { return state().rows; }
std::int64_t Assembler::num_nonzeros() const { return state().nonzeros; }
std::int64_t Assembler::num_nodes() const { return state().nodes; }
std::int64_t Assembler::num_elements() const { return state().elements; }
DataLocation Assembler::memory() const { return state().memory; }
const std::string& Assembler::variant() const { return state().variant; }

}  // namespace ppkit::fem
