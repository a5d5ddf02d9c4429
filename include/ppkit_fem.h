/* ppkit FEM C API: assemble the hex8 linear-elasticity stiffness matrix and
 * body-force vector of a mesh into caller-owned CSR arrays.
 *
 * A ppkit_fem_assembler handle builds the CSR pattern and its variant's
 * set-up once and then assembles many times (new material, body force or
 * node positions) into the caller's arrays on its device
 * (ppkit_fem_assembler_assemble); ppkit_fem_assemble() is the one-shot
 * convenience on host arrays.
 *
 * DOF numbering: 3 * node + component (0-based), nodes as the caller numbers
 * them; connectivity holds 8 node indices per element in Gmsh hexahedron
 * order (bottom face counter-clockwise seen from the top, then the top face).
 * CSR: 64-bit row offsets [num_rows + 1], 32-bit column indices
 * [num_nonzeros] ascending in each row, values in their order.
 * Call ppkit_init() first. Every function returns 0 on success and non-zero
 * on failure; ppkit_last_error() (or ppkit_fem_last_error(), the same) then
 * says why (bad elements are named). */
#ifndef PPKIT_FEM_H
#define PPKIT_FEM_H

#include <stddef.h>
#include <stdint.h>

#include "ppkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sizes of the CSR matrix of a mesh: *num_rows = 3 * num_nodes and
 * *num_nonzeros (entries of all node pairs sharing an element, 3x3 each). */
int ppkit_fem_csr_size(int64_t num_nodes, int64_t num_elements, const int32_t* connectivity,
                       int64_t* num_rows, int64_t* num_nonzeros);

/* Assembles K and f once, on host arrays (creates an assembler, assembles,
 * copies the pattern and the results back, destroys it; for repeated
 * assembly create a handle). Arrays owned by the caller: row_offsets[num_rows + 1],
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

/* ---- the assembler as a handle ------------------------------------------ */
typedef struct ppkit_fem_assembler_t* ppkit_fem_assembler_handle;

typedef struct ppkit_fem_mesh {
  int64_t num_nodes;
  const double* coordinates; /* [num_nodes][3], host memory, copied */
  int64_t num_elements;
  const int32_t* connectivity; /* [num_elements][8], host memory, copied */
} ppkit_fem_mesh;

/* Validates the mesh, builds the CSR pattern and the variant's set-up on its
 * device; *handle receives the assembler. variant: NULL or "auto", a
 * strategy ("node-gather": its preferred available variant) or a name
 * ("cuda/node-gather"). */
int ppkit_fem_assembler_create(const ppkit_fem_mesh* mesh, const char* variant,
                               ppkit_fem_assembler_handle* handle);
/* The CSR sizes and the assembler's own pattern arrays, in its memory (the
 * device for GPU variants), valid until the handle is destroyed; any pointer
 * may be NULL. */
int ppkit_fem_assembler_pattern(ppkit_fem_assembler_handle handle, int64_t* num_rows,
                                int64_t* num_nonzeros, const int64_t** row_offsets,
                                const int32_t** column_indices);
/* Copies the pattern into caller arrays [num_rows + 1] and [num_nonzeros] in
 * `memory` (PPKIT_MEM_HOST or PPKIT_MEM_DEVICE); either may be NULL. */
int ppkit_fem_assembler_copy_pattern(ppkit_fem_assembler_handle handle, int64_t* row_offsets,
                                     int32_t* column_indices, int memory);
/* Writes K's values [num_nonzeros] and the load vector [num_rows] for Young's
 * modulus E > 0, Poisson ratio -1 < nu < 0.5 and body_force (3 values, force
 * per volume, host memory; NULL for none) into arrays in `memory`
 * (PPKIT_MEM_DEVICE: the assembler's own memory, no copy; PPKIT_MEM_HOST:
 * assembled on the device and copied back). stream: a cudaStream_t /
 * hipStream_t to queue on, or NULL (default stream); with PPKIT_MEM_DEVICE
 * the call may return before the values are written:
 * ppkit_fem_assembler_wait, or later work on the same stream, sees them. */
int ppkit_fem_assembler_assemble(ppkit_fem_assembler_handle handle, double youngs_modulus,
                                 double poisson_ratio, const double* body_force, double* values,
                                 double* load, int memory, void* stream);
/* Moves the nodes (coordinates [num_nodes][3], host memory; connectivity
 * unchanged): the pattern and the variant's layouts are kept, its element
 * coordinates gathered again. Waits for the assemblies queued before. */
int ppkit_fem_assembler_update_coordinates(ppkit_fem_assembler_handle handle,
                                           const double* coordinates);
/* Waits for the assemblies queued on stream (NULL: the default stream). */
int ppkit_fem_assembler_wait(ppkit_fem_assembler_handle handle, void* stream);
/* Where the assembler's data lives and its variant; any pointer may be NULL.
 * *memory_kind: 0 host, 1 CUDA, 2 HIP; *device: the device ordinal (-1 on
 * the host); variant: its name, NUL-terminated, cut to capacity. */
int ppkit_fem_assembler_info(ppkit_fem_assembler_handle handle, int* memory_kind, int* device,
                             char* variant, size_t capacity);
/* Frees the assembler (NULL accepted; a handle already released by
 * ppkit_finalize is accepted). */
int ppkit_fem_assembler_destroy(ppkit_fem_assembler_handle handle);

#ifdef __cplusplus
}
#endif

#endif /* PPKIT_FEM_H */
