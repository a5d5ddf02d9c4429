// C API of the fem workload (include/ppkit_fem.h).
#include <algorithm>
#include <string>

#include "ppkit/core/c_api_support.hpp"
#include "ppkit/fem/assemble.hpp"
#include "ppkit.h"
#include "ppkit_fem.h"

namespace {

ppkit::fem::HexMesh mesh_from(int64_t num_nodes, const double* coordinates, int64_t num_elements,
                              const int32_t* connectivity) {
  ppkit::require(num_nodes > 0 && num_elements > 0, "empty mesh",
                 "num_nodes > 0 and num_elements > 0");
  ppkit::require(connectivity != nullptr, "connectivity is NULL", "8 node indices per element");
  ppkit::fem::HexMesh mesh;
  if (coordinates)
    mesh.coordinates.assign(coordinates, coordinates + 3 * num_nodes);
  else
    mesh.coordinates.assign(3 * num_nodes, 0.0);
  mesh.elements.assign(connectivity, connectivity + 8 * num_elements);
  return mesh;
}
}  // namespace

using ppkit::c_api::guarded;

extern "C" {

int ppkit_fem_csr_size(int64_t num_nodes, int64_t num_elements, const int32_t* connectivity,
                       int64_t* num_rows, int64_t* num_nonzeros) {
  return guarded(
      "ppkit_fem_csr_size",
      [&] {
        auto mesh = mesh_from(num_nodes, nullptr, num_elements, connectivity);
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
  return guarded("ppkit_fem_assemble", [&] {
    ppkit::require(coordinates != nullptr, "coordinates are NULL", "3 values per node");
    ppkit::require(row_offsets && column_indices && values && load, "an output array is NULL",
                   "caller-owned arrays sized by ppkit_fem_csr_size");
    ppkit::fem::Material material;
    material.youngs_modulus = youngs_modulus;
    material.poisson_ratio = poisson_ratio;
    if (body_force) material.body_force = {body_force[0], body_force[1], body_force[2]};
    const auto problem = ppkit::fem::make_assembly_problem(
        mesh_from(num_nodes, coordinates, num_elements, connectivity), material);
    const auto& v = ppkit::Registry<ppkit::fem::FemAssemble>::find(variant ? variant : "auto");
    const auto availability = v.availability();
    ppkit::require(
        availability.available, "variant '" + v.name + "' cannot run: " + availability.reason,
        "an available variant: " + ppkit::Registry<ppkit::fem::FemAssemble>::joined_names(true));
    auto run = v.prepare(problem);
    run->run();
    const auto result = run->result();
    std::copy(problem.pattern.row_offsets.begin(), problem.pattern.row_offsets.end(), row_offsets);
    std::copy(problem.pattern.column_indices.begin(), problem.pattern.column_indices.end(),
              column_indices);
    std::copy(result.values.begin(), result.values.end(), values);
    std::copy(result.load.begin(), result.load.end(), load);
  });
}

const char* ppkit_fem_last_error(void) { return ppkit_last_error(); }

}  // extern "C"
