/* ppkit SEM C API: the matrix-free spectral-element Helmholtz operator
 * (axhelm). A ppkit_sem_axhelm handle holds the geometry on its device and
 * is applied many times to the caller's arrays (ppkit_sem_axhelm_apply);
 * ppkit_sem_axhelm() is the one-shot convenience on host arrays. Call
 * ppkit_init() first. Every function returns 0 on success and non-zero on
 * failure; ppkit_last_error() (or ppkit_sem_last_error(), the same) says why.
 *
 * Layouts (Nq = order + 1, Np = Nq^3, local node n = i + Nq (j + Nq k)):
 *   vertices  [E][8][3]  corner v = a + 2b + 4c at (r,s,t) = (2a-1, 2b-1, 2c-1)
 *   factors   [E][7][Np] G00 G01 G02 G11 G12 G22 w|J| (G = w|J| J^-1 J^-T)
 *   x, y      [ncol][E][Np] */
#ifndef PPKIT_SEM_H
#define PPKIT_SEM_H

#include <stddef.h>

#include "ppkit.h"

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

/* The message of the last failed ppkit call on this thread ("" if none);
 * the same as ppkit_last_error(). */
const char* ppkit_sem_last_error(void);

/* y = A x on every element, on host arrays: creates an operator, copies x to
 * its device and y back, destroys it. For repeated use create a handle. */
int ppkit_sem_axhelm(const ppkit_sem_axhelm_args* args);

/* ---- the operator as a handle ------------------------------------------- */
typedef struct ppkit_sem_axhelm_t* ppkit_sem_axhelm_handle;

typedef struct ppkit_sem_axhelm_mesh {
  int order;                      /* N, 1..15 (native GPU kernels: 1..9) */
  long long elements;             /* E >= 1 */
  int ncol;                       /* 1 or 3 fields per application */
  int helmholtz;                  /* 0: Poisson; 1: lambda0 A + lambda1 M */
  const double* vertices;         /* host memory, copied; may be NULL if factors are given */
  const double* factors;          /* host memory, copied; NULL: from vertices (trilinear) */
  const unsigned char* trilinear; /* [E] or NULL, as in ppkit_sem_axhelm_args */
  const char* variant;            /* as in ppkit_sem_axhelm_args; NULL means "auto" */
} ppkit_sem_axhelm_mesh;

/* Uploads the geometry once; *handle receives the operator. */
int ppkit_sem_axhelm_create(const ppkit_sem_axhelm_mesh* mesh, ppkit_sem_axhelm_handle* handle);
/* y = A x (Poisson; the lambdas are ignored) or y = lambda0 A x + lambda1 M x
 * (Helmholtz), x and y [ncol][E][Np] in `memory` (PPKIT_MEM_DEVICE: the
 * operator's own memory, no copy; PPKIT_MEM_HOST: copied there and back).
 * stream: a cudaStream_t / hipStream_t to queue on, or NULL (default
 * stream); with PPKIT_MEM_DEVICE the call may return before y is written:
 * ppkit_sem_axhelm_wait, or later work on the same stream, sees it. */
int ppkit_sem_axhelm_apply(ppkit_sem_axhelm_handle handle, const double* x, double* y, int memory,
                           double lambda0, double lambda1, void* stream);
/* Waits for the applications queued on stream (NULL: the default stream). */
int ppkit_sem_axhelm_wait(ppkit_sem_axhelm_handle handle, void* stream);
/* The operator's sizes and where its data lives; any pointer may be NULL.
 * *size: values of x and y (ncol E Np); *memory_kind: 0 host, 1 CUDA, 2 HIP;
 * *device: the device ordinal (-1 on the host); variant: its name, NUL-
 * terminated, cut to capacity. */
int ppkit_sem_axhelm_info(ppkit_sem_axhelm_handle handle, long long* size, int* memory_kind,
                          int* device, char* variant, size_t capacity);
/* Frees the operator (NULL accepted; a handle already released by
 * ppkit_finalize is accepted). */
int ppkit_sem_axhelm_destroy(ppkit_sem_axhelm_handle handle);

/* GLL nodes [N+1], weights [N+1] and derivative matrix [(N+1)^2] (row-major,
 * D[i][j] = l_j'(x_i)) of order N = 1..15. */
int ppkit_sem_gll(int order, double* nodes, double* weights, double* derivative);

/* Geometric factors [E][7][Np] of trilinear elements given by their vertices. */
int ppkit_sem_trilinear_factors(int order, long long elements, const double* vertices,
                                double* factors);

/* ---- gather-scatter (direct stiffness summation) ------------------------- */
typedef struct ppkit_sem_gather_scatter_t* ppkit_sem_gather_scatter_handle;

/* u <- Q Q^T u on arrays of E Np local nodes in the memory of the operator
 * `like`: global_ids [E Np] (host memory, copied) give each local node's
 * global node, 0..global_count-1. Needs a Kokkos with the backend of that
 * memory (ppkit_last_error says so otherwise). */
int ppkit_sem_gather_scatter_create(ppkit_sem_axhelm_handle like, const long long* global_ids,
                                    long long global_count,
                                    ppkit_sem_gather_scatter_handle* handle);
int ppkit_sem_dssum(ppkit_sem_gather_scatter_handle handle, double* u, void* stream);
int ppkit_sem_gather_scatter_destroy(ppkit_sem_gather_scatter_handle handle);

#ifdef __cplusplus
}
#endif
#endif
