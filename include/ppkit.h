/* ppkit C API: for host codes in C, Fortran (through ISO_C_BINDING) or C++
 * that do not want C++ types at the boundary. Every function returns 0 on
 * success and non-zero on failure; ppkit_last_error() then says why. */
#ifndef PPKIT_H
#define PPKIT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Initialises ppkit (and Kokkos, unless the host code already did). */
int ppkit_init(void);
/* Finalises what ppkit_init initialised; Kokkos only if ppkit owns it. */
int ppkit_finalize(void);
/* "MAJOR.MINOR.PATCH" */
const char* ppkit_version(void);
/* Writes the JSON of `ppkit info --json` into buffer (NUL-terminated). If
 * capacity is too small, writes nothing, returns 1 and sets *required. */
int ppkit_info_json(char* buffer, size_t capacity, size_t* required);
/* The message of the last failed call on this thread ("" if none). */
const char* ppkit_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
