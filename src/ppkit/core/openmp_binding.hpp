#pragma once
// Kokkos's OpenMP backend prints advice about thread binding when
// OMP_PROC_BIND is unset (on stdout in Kokkos 3.4, where it would corrupt
// `--json` output). The OpenMP runtime has read its environment by then
// (libgomp when it is loaded): unset means unbound threads, which this makes
// explicit before ppkit initialises Kokkos. Binding for benchmarks stays the
// user's choice (OMP_PROC_BIND=spread OMP_PLACES=threads).
namespace ppkit {

void record_openmp_binding_before_kokkos_initialize();

}  // namespace ppkit
