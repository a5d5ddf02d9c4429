/* ppkit C API: for host codes in C, Fortran (through ISO_C_BINDING, module
 * `ppkit`) or C++ that do not want C++ types at the boundary.
 *
 * Every function returns 0 on success and non-zero on failure;
 * ppkit_last_error() then says why, for every function of every workload
 * (ppkit_fem_last_error and the others return the same message). Call
 * ppkit_init() first: functions that need the runtime refuse before it and
 * after ppkit_finalize().
 *
 * Operators are opaque handles (ppkit_sem_axhelm, ...): created once from a
 * problem, applied many times to the caller's arrays, destroyed. A handle is
 * a number, never reused: a call on a destroyed handle, or on one released by
 * ppkit_finalize, fails with a message instead of touching freed memory.
 * Arrays passed to an operator are tagged PPKIT_MEM_HOST or PPKIT_MEM_DEVICE
 * (docs/embedding.md). */
#ifndef PPKIT_H
#define PPKIT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where an array lives. PPKIT_MEM_DEVICE is the memory of the operator's
 * device (CUDA or HIP device memory for GPU variants, host memory for CPU
 * variants): no copy is made. PPKIT_MEM_HOST arrays given to a device
 * operator are copied to the device and back on each call. */
enum { PPKIT_MEM_HOST = 0, PPKIT_MEM_DEVICE = 1 };

/* Initialises ppkit (and Kokkos, unless the host code already did). */
int ppkit_init(void);
/* Releases every live handle's device data, then finalises what ppkit_init
 * initialised (Kokkos only if ppkit owns it). Handles stay invalid after it. */
int ppkit_finalize(void);
/* "MAJOR.MINOR.PATCH" */
const char* ppkit_version(void);
/* Writes the JSON of `ppkit info --json` into buffer (NUL-terminated). If
 * capacity is too small, writes nothing, returns 1 and sets *required. */
int ppkit_info_json(char* buffer, size_t capacity, size_t* required);
/* The message of the last failed call on this thread ("" if none). */
const char* ppkit_last_error(void);

/* Memory helpers for host codes without a GPU runtime of their own (Fortran):
 * bytes in `memory` (PPKIT_MEM_DEVICE: the current CUDA/HIP device), freed by
 * ppkit_free; copies between any two of them. */
int ppkit_malloc(size_t bytes, int memory, void** pointer);
int ppkit_free(void* pointer);
int ppkit_memcpy(void* destination, int destination_memory, const void* source, int source_memory,
                 size_t bytes);

/* The vector operations of a host code's own Krylov solver on arrays in an
 * operator's memory: *result = sum x_i y_i w_i (w NULL: 1; with w = 1 /
 * multiplicity, the inner product of continuous SEM fields, Nek's glsc3),
 * and y <- alpha x + beta y, over n doubles that live where the runtime says
 * x lives (host memory where it cannot tell). Both wait for completion. */
int ppkit_dot(size_t n, const double* x, const double* y, const double* w, double* result);
int ppkit_axpby(size_t n, double alpha, const double* x, double beta, double* y);

#ifdef __cplusplus
}
#endif
#endif
