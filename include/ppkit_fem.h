/* ppkit FEM C API: assemble the hex8 linear-elasticity stiffness matrix and
 * body-force vector of a mesh into caller-owned CSR arrays.
 *
 * DOF numbering: 3 * node + component (0-based), nodes as the caller numbers
 * them; connectivity holds 8 node indices per element in Gmsh hexahedron
 * order (bottom face counter-clockwise seen from the top, then the top face).
 * Call ppkit_init() first. Every function returns 0 on success and non-zero
 * on failure; ppkit_fem_last_error() then says why (bad elements are named). */
#ifndef PPKIT_FEM_H
#define PPKIT_FEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sizes of the CSR matrix of a mesh: *num_rows = 3 * num_nodes and
 * *num_nonzeros (entries of all node pairs sharing an element, 3x3 each). */
int ppkit_fem_csr_size(int64_t num_nodes, int64_t num_elements, const int32_t* connectivity,
                       int64_t* num_rows, int64_t* num_nonzeros);

/* Assembles K and f. Arrays owned by the caller: row_offsets[num_rows + 1],
 * column_indices[num_nonzeros] (ascending in each row), values[num_nonzeros],
 * load[num_rows]. coordinates: 3 per node. body_force: 3 values (force per
 * volume) or NULL for none. variant: NULL or "auto" for the preferred
 * available fem.assemble variant, else a name such as
 * "kokkos-cuda/team-8tpr". */
int ppkit_fem_assemble(int64_t num_nodes, const double* coordinates, int64_t num_elements,
                       const int32_t* connectivity, double youngs_modulus, double poisson_ratio,
                       const double* body_force, const char* variant, int64_t* row_offsets,
                       int32_t* column_indices, double* values, double* load);

/* Why the last ppkit_fem_* call on this thread failed ("" if it did not). */
const char* ppkit_fem_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* PPKIT_FEM_H */
