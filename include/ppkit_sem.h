/* ppkit SEM C API: the matrix-free spectral-element Helmholtz operator
 * (axhelm) on caller arrays in host memory. Call ppkit_init() first. Every
 * function returns 0 on success and non-zero on failure; ppkit_sem_last_error()
 * then says why.
 *
 * Layouts (Nq = order + 1, Np = Nq^3, local node n = i + Nq (j + Nq k)):
 *   vertices  [E][8][3]  corner v = a + 2b + 4c at (r,s,t) = (2a-1, 2b-1, 2c-1)
 *   factors   [E][7][Np] G00 G01 G02 G11 G12 G22 w|J| (G = w|J| J^-1 J^-T)
 *   x, y      [ncol][E][Np] */
#ifndef PPKIT_SEM_H
#define PPKIT_SEM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ppkit_sem_axhelm_args {
  int order;                      /* N, 1..15 */
  long long elements;             /* E >= 1 */
  int ncol;                       /* 1 or 3 fields */
  int helmholtz;                  /* 0: Poisson; 1: lambda0 A + lambda1 M */
  double lambda0, lambda1;        /* used when helmholtz != 0 */
  const double* vertices;         /* may be NULL if factors are given */
  const double* factors;          /* may be NULL: computed from vertices (trilinear) */
  const unsigned char* trilinear; /* [E] 1 = trilinear element; NULL: all trilinear
                                     when vertices are given, none otherwise */
  const double* x;
  double* y;
  /* "auto", a strategy ("stored", "trilinear", "trilinear-wmma": the most
     preferred available variant of it) or a full variant name
     ("kokkos-openmp/stored", "cuda/trilinear"); NULL means "auto". */
  const char* variant;
} ppkit_sem_axhelm_args;

/* The message of the last failed ppkit_sem_* call on this thread ("" if none). */
const char* ppkit_sem_last_error(void);

/* y = A x on every element (inputs are copied to the device on each call). */
int ppkit_sem_axhelm(const ppkit_sem_axhelm_args* args);

/* GLL nodes [N+1], weights [N+1] and derivative matrix [(N+1)^2] (row-major,
 * D[i][j] = l_j'(x_i)) of order N = 1..15. */
int ppkit_sem_gll(int order, double* nodes, double* weights, double* derivative);

/* Geometric factors [E][7][Np] of trilinear elements given by their vertices. */
int ppkit_sem_trilinear_factors(int order, long long elements, const double* vertices,
                                double* factors);

#ifdef __cplusplus
}
#endif
#endif
