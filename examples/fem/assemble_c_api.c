/* Assembles the stiffness matrix of a small hexahedral box through the C API
 * (include/ppkit_fem.h) into arrays owned by this program, then prints the
 * matrix size and its trace. */
#include <stdio.h>
#include <stdlib.h>

#include "ppkit.h"
#include "ppkit_fem.h"

int main(void) {
  enum { NX = 4, NY = 2, NZ = 2 };
  const int64_t num_nodes = (NX + 1) * (NY + 1) * (NZ + 1), num_elements = NX * NY * NZ;
  double* coordinates = malloc(sizeof(double) * 3 * num_nodes);
  int32_t* connectivity = malloc(sizeof(int32_t) * 8 * num_elements);
  for (int k = 0; k <= NZ; ++k)
    for (int j = 0; j <= NY; ++j)
      for (int i = 0; i <= NX; ++i) {
        const int n = i + (NX + 1) * (j + (NY + 1) * k);
        coordinates[3 * n] = 0.25 * i;
        coordinates[3 * n + 1] = 0.25 * j;
        coordinates[3 * n + 2] = 0.25 * k;
      }
  /* Gmsh hexahedron order: bottom face counter-clockwise, then the top face. */
  const int di[8] = {0, 1, 1, 0, 0, 1, 1, 0}, dj[8] = {0, 0, 1, 1, 0, 0, 1, 1},
            dk[8] = {0, 0, 0, 0, 1, 1, 1, 1};
  int64_t e = 0;
  for (int k = 0; k < NZ; ++k)
    for (int j = 0; j < NY; ++j)
      for (int i = 0; i < NX; ++i, ++e)
        for (int a = 0; a < 8; ++a)
          connectivity[8 * e + a] = (i + di[a]) + (NX + 1) * ((j + dj[a]) + (NY + 1) * (k + dk[a]));

  if (ppkit_init() != 0) {
    fprintf(stderr, "ppkit_init: %s\n", ppkit_last_error());
    return 1;
  }
  int64_t rows = 0, nnz = 0;
  if (ppkit_fem_csr_size(num_nodes, num_elements, connectivity, &rows, &nnz) != 0) {
    fprintf(stderr, "ppkit_fem_csr_size: %s\n", ppkit_fem_last_error());
    return 1;
  }
  int64_t* row_offsets = malloc(sizeof(int64_t) * (rows + 1));
  int32_t* columns = malloc(sizeof(int32_t) * nnz);
  double* values = malloc(sizeof(double) * nnz);
  double* load = malloc(sizeof(double) * rows);
  const double gravity[3] = {0.0, 0.0, -7850.0 * 9.81};
  if (ppkit_fem_assemble(num_nodes, coordinates, num_elements, connectivity, 2.0e11, 0.3, gravity,
                         "auto", row_offsets, columns, values, load) != 0) {
    fprintf(stderr, "ppkit_fem_assemble: %s\n", ppkit_fem_last_error());
    return 1;
  }
  double trace = 0, weight = 0;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = row_offsets[r]; k < row_offsets[r + 1]; ++k)
      if (columns[k] == r) trace += values[k];
    weight += load[r];
  }
  printf("K: %lld x %lld, %lld nonzeros, trace %.6e; total load %.6e N\n", (long long)rows,
         (long long)rows, (long long)nnz, trace, weight);
  free(coordinates);
  free(connectivity);
  free(row_offsets);
  free(columns);
  free(values);
  free(load);
  ppkit_finalize();
  return 0;
}
