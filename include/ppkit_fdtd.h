/* ppkit FDTD C API: a 3D Yee FDTD case (materials, CPML, point sources,
 * probes, phasors, plane wave, periodic faces; docs/fdtd.md) as a handle
 * that a host code creates once and steps in chunks, reading and writing the
 * fields in place between them. Call ppkit_init() first. Every function
 * returns 0 on success and non-zero on failure; ppkit_last_error() (or
 * ppkit_fdtd_last_error(), the same) says why.
 *
 * Fields Ex..Hz are stored on (nx+1)(ny+1)(nz+1) nodes each. The handle's
 * own storage has rows of `pitch` values (ppkit_fdtd_solver_field: address
 * and strides, node (i,j,k) at i*stride[0] + j*stride[1] + k); arrays given
 * to _get_field / _set_field use the compact layout, index (i*(ny+1) + j)*(nz+1) + k,
 * of float (PPKIT_FDTD_FP32 cases) or double (PPKIT_FDTD_FP64) values.
 *
 * The opencl/... variants keep the fields in OpenCL buffers, which have no
 * address: ppkit_fdtd_solver_field fails for them, and _get_field /
 * _set_field take PPKIT_MEM_HOST arrays only (copied through the host). */
#ifndef PPKIT_FDTD_H
#define PPKIT_FDTD_H

#include <stddef.h>

#include "ppkit.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  PPKIT_FDTD_EX = 0,
  PPKIT_FDTD_EY = 1,
  PPKIT_FDTD_EZ = 2,
  PPKIT_FDTD_HX = 3,
  PPKIT_FDTD_HY = 4,
  PPKIT_FDTD_HZ = 5
};
/* The element type of field arrays: the case's "precision". */
enum { PPKIT_FDTD_FP32 = 0, PPKIT_FDTD_FP64 = 1 };

typedef struct ppkit_fdtd_solver_t* ppkit_fdtd_solver_handle;

typedef struct ppkit_fdtd_solver_info_t {
  long long cells[3];    /* nx, ny, nz */
  long long nodes;       /* (nx+1)(ny+1)(nz+1): values of each field array */
  long long pitch;       /* z pitch of the handle's stored rows (>= nz + 1) */
  long long steps_done;  /* since creation or the last restart */
  long long steps_total; /* the case's "steps": the most a handle can take */
  long long probes;      /* probes of the case */
  int precision;         /* PPKIT_FDTD_FP32 or PPKIT_FDTD_FP64 */
  int memory_kind;       /* where the fields live: 0 host, 1 CUDA, 2 HIP, 3 managed,
                            -1 OpenCL buffers (no address) */
  int device;            /* device ordinal, -1 on the host */
  double dt;             /* time step [s] */
  double cell[3];        /* dx, dy, dz [m] */
  char variant[64];      /* the variant's name, NUL-terminated */
} ppkit_fdtd_solver_info_t;

/* The message of the last failed ppkit call on this thread ("" if none). */
const char* ppkit_fdtd_last_error(void);

/* Creates a solver from a case in the JSON format of `ppkit fdtd run --case`
 * (its "outputs" are ignored; cases with snapshots are refused). variant:
 * NULL or "auto", a strategy ("split", "plain", "float4", "split-x2") or a
 * variant name ("kokkos-serial/plain", "cuda/split-x2", "opencl/float4"). */
int ppkit_fdtd_solver_create_from_json(const char* json, const char* variant,
                                       ppkit_fdtd_solver_handle* handle);
/* Queues `steps` steps (steps_done + steps <= steps_total) on the solver's
 * device. stream: a cudaStream_t / hipStream_t the steps are ordered with
 * (they follow its earlier work, its later work sees them), or NULL. */
int ppkit_fdtd_solver_step(ppkit_fdtd_solver_handle handle, long long steps, void* stream);
/* Back to the case's initial fields (steps_done = 0, probes and phasors cleared). */
int ppkit_fdtd_solver_restart(ppkit_fdtd_solver_handle handle);
/* Waits for the work queued on the solver (and on stream, if not NULL). */
int ppkit_fdtd_solver_wait(ppkit_fdtd_solver_handle handle, void* stream);
/* The address of a field in the solver's memory (no copy), the number of
 * values its allocation spans (*size, (nx+1)(ny+1) pitch) and its strides
 * in values (stride[2] = 1); size and stride may be NULL. */
int ppkit_fdtd_solver_field(ppkit_fdtd_solver_handle handle, int component, void** data,
                            long long* size, long long stride[3]);
/* Copies count = nodes values of `precision` in the compact layout into
 * (set) or out of (get) a field. memory: PPKIT_MEM_HOST (complete on
 * return) or PPKIT_MEM_DEVICE (the solver's memory; queued, ordered with
 * stream as _step). */
int ppkit_fdtd_solver_set_field(ppkit_fdtd_solver_handle handle, int component, const void* values,
                                long long count, int precision, int memory, void* stream);
int ppkit_fdtd_solver_get_field(ppkit_fdtd_solver_handle handle, int component, void* values,
                                long long count, int precision, int memory, void* stream);
/* Probe p after step s at values[p * steps_done + s] (host memory, double),
 * capacity >= probes * steps_done; *count (may be NULL) receives that
 * number. Copies the probe record only, never the grid. */
int ppkit_fdtd_solver_probe_values(ppkit_fdtd_solver_handle handle, double* values,
                                   long long capacity, long long* count);
/* The solver's sizes, state and memory. */
int ppkit_fdtd_solver_info(ppkit_fdtd_solver_handle handle, ppkit_fdtd_solver_info_t* info);
/* Frees the solver (NULL accepted; a handle already released by
 * ppkit_finalize is accepted). */
int ppkit_fdtd_solver_destroy(ppkit_fdtd_solver_handle handle);

#ifdef __cplusplus
}
#endif
#endif
