/* A C host code that creates ppkit's SEM operator once and applies it to
 * arrays in the operator's own memory many times (include/ppkit.h,
 * include/ppkit_sem.h). Where the operator lives on a CUDA device and this
 * program was built with the CUDA runtime, the arrays come from cudaMalloc,
 * as a CUDA host code's would; otherwise from ppkit_malloc.
 *
 * Check: u = a x + c (x a coordinate) has grad u = a e_x, so
 * u^T A u = a^2 * volume (Poisson) on every application. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ppkit.h"
#include "ppkit_sem.h"
#ifdef PPKIT_EXAMPLE_CUDART
#include <cuda_runtime_api.h>
#endif

#define CHECK(call)                                                  \
  do {                                                               \
    if ((call) != 0) {                                               \
      fprintf(stderr, "%s failed: %s\n", #call, ppkit_last_error()); \
      return 1;                                                      \
    }                                                                \
  } while (0)

enum { N = 5, NQ = N + 1, NP = NQ * NQ * NQ, E = 4 };

int main(void) {
  CHECK(ppkit_init());
  printf("ppkit %s\n", ppkit_version());
  /* Four unit cubes in a row, the shared faces sheared in y: trilinear
   * elements whose x depends on r alone, so the volume stays 4. */
  static double vertices[E][8][3];
  for (int e = 0; e < E; ++e)
    for (int v = 0; v < 8; ++v) {
      vertices[e][v][0] = e + (v & 1);
      vertices[e][v][1] = ((v >> 1) & 1) + 0.1 * (e + (v & 1)) * (v >> 2);
      vertices[e][v][2] = (v >> 2) & 1;
    }
  ppkit_sem_axhelm_mesh mesh = {N, E, 1, 0, &vertices[0][0][0], NULL, NULL, "auto"};
  ppkit_sem_axhelm_handle A = NULL;
  CHECK(ppkit_sem_axhelm_create(&mesh, &A));
  long long n = 0;
  int kind = 0, device = -1;
  char variant[64];
  CHECK(ppkit_sem_axhelm_info(A, &n, &kind, &device, variant, sizeof variant));
  printf("operator: %s, %lld values, memory kind %d, device %d\n", variant, n, kind, device);

  /* x (the coordinate) of every local node, on the host. */
  double nodes[NQ];
  CHECK(ppkit_sem_gll(N, nodes, NULL, NULL));
  double* host_u = malloc(sizeof(double) * n);
  double* host_y = malloc(sizeof(double) * n);
  double* coordinate = malloc(sizeof(double) * n);
  for (int e = 0; e < E; ++e)
    for (int l = 0; l < NP; ++l) coordinate[e * NP + l] = e + 0.5 * (1 + nodes[l % NQ]);

  /* The operator's memory: device arrays, no copy per call. */
  const int device_memory = kind != 0;
  double *u = NULL, *y = NULL;
  int from_cudart = 0;
#ifdef PPKIT_EXAMPLE_CUDART
  if (kind == 1 && cudaMalloc((void**)&u, sizeof(double) * n) == cudaSuccess &&
      cudaMalloc((void**)&y, sizeof(double) * n) == cudaSuccess)
    from_cudart = 1;
#endif
  if (!from_cudart) {
    CHECK(ppkit_malloc(sizeof(double) * n, device_memory, (void**)&u));
    CHECK(ppkit_malloc(sizeof(double) * n, device_memory, (void**)&y));
  }
  int failures = 0;
  for (int k = 0; k < 100; ++k) {
    const double a = 0.5 + 0.01 * k, c = 1.0 - 0.02 * k;
    for (long long i = 0; i < n; ++i) host_u[i] = a * coordinate[i] + c;
    CHECK(ppkit_memcpy(u, device_memory, host_u, PPKIT_MEM_HOST, sizeof(double) * n));
    CHECK(ppkit_sem_axhelm_apply(A, u, y, PPKIT_MEM_DEVICE, 1.0, 0.0, NULL));
    double energy = 0;
    CHECK(ppkit_dot((size_t)n, u, y, NULL, &energy)); /* waits for y */
    const double expected = a * a * E;
    if (fabs(energy - expected) > 1e-10 * expected) {
      fprintf(stderr, "application %d: u^T A u = %.15g, expected %.15g\n", k, energy, expected);
      ++failures;
    }
  }
  CHECK(ppkit_memcpy(host_y, PPKIT_MEM_HOST, y, device_memory, sizeof(double) * n));
  printf("100 applications, u^T A u = a^2 * volume on each: %s\n", failures ? "FAILED" : "ok");

  /* Errors name the argument: a NULL array, a destroyed handle. */
  if (ppkit_sem_axhelm_apply(A, NULL, y, PPKIT_MEM_DEVICE, 1, 0, NULL) == 0) ++failures;
  printf("NULL x: %s\n", ppkit_last_error());
#ifdef PPKIT_EXAMPLE_CUDART
  if (from_cudart) {
    cudaFree(u);
    cudaFree(y);
  }
#endif
  if (!from_cudart) {
    CHECK(ppkit_free(u));
    CHECK(ppkit_free(y));
  }
  CHECK(ppkit_sem_axhelm_destroy(A));
  if (ppkit_sem_axhelm_apply(A, host_u, host_y, PPKIT_MEM_HOST, 1, 0, NULL) == 0) ++failures;
  printf("destroyed handle: %s\n", ppkit_last_error());
  free(host_u);
  free(host_y);
  free(coordinate);
  CHECK(ppkit_finalize());
  return failures ? 1 : 0;
}
