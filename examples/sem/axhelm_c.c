/* A host code applying the SEM operator through the C API: two trilinear
 * elements of order 7 side by side, Poisson, u = x (a coordinate), for which
 * u^T A u equals the volume of the two elements (2 here). */
#include <stdio.h>
#include <stdlib.h>

#include "ppkit.h"
#include "ppkit_sem.h"

int main(void) {
  enum { N = 7, NQ = N + 1, NP = NQ * NQ * NQ, E = 2 };
  double vertices[E][8][3];
  for (int e = 0; e < E; ++e)
    for (int v = 0; v < 8; ++v) {
      vertices[e][v][0] = e + (v & 1);
      vertices[e][v][1] = (v >> 1) & 1;
      vertices[e][v][2] = (v >> 2) & 1;
    }
  /* Shift the shared bottom edge x = 1, z = 0 by 0.1 in y: both elements become
   * genuinely trilinear, but x still depends on r alone and z on t alone, so
   * |J| stays 1/8 and the volume stays 2. */
  vertices[0][1][1] += 0.1;
  vertices[0][3][1] += 0.1;
  vertices[1][0][1] += 0.1;
  vertices[1][2][1] += 0.1;
  double nodes[NQ];
  if (ppkit_init() != 0 || ppkit_sem_gll(N, nodes, NULL, NULL) != 0) {
    fprintf(stderr, "setup failed: %s %s\n", ppkit_last_error(), ppkit_sem_last_error());
    return 1;
  }
  double* x = malloc(sizeof(double) * E * NP);
  double* y = malloc(sizeof(double) * E * NP);
  /* u = x: the map's x coordinate at each node, e + (r + 1) / 2 */
  for (int e = 0; e < E; ++e)
    for (int k = 0; k < NQ; ++k)
      for (int j = 0; j < NQ; ++j)
        for (int i = 0; i < NQ; ++i) x[e * NP + i + NQ * (j + NQ * k)] = e + 0.5 * (nodes[i] + 1);
  ppkit_sem_axhelm_args args = {0};
  args.order = N;
  args.elements = E;
  args.ncol = 1;
  args.vertices = &vertices[0][0][0];
  args.x = x;
  args.y = y;
  args.variant = "trilinear";
  if (ppkit_sem_axhelm(&args) != 0) {
    fprintf(stderr, "axhelm failed: %s\n", ppkit_sem_last_error());
    return 1;
  }
  double energy = 0;
  for (int n = 0; n < E * NP; ++n) energy += x[n] * y[n];
  printf("u^T A u for u = x: %.15f (the volume, 2, since grad u = e_x)\n", energy);
  free(x);
  free(y);
  ppkit_finalize();
  return 0;
}
