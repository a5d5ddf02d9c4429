#include "ppkit/core/runtime.hpp"

#include <Kokkos_Core.hpp>
#include <stdlib.h>  // setenv (POSIX)

#include "ppkit/core/openmp_binding.hpp"

namespace ppkit {

void record_openmp_binding_before_kokkos_initialize() {
#if defined(KOKKOS_ENABLE_OPENMP)
  setenv("OMP_PROC_BIND", "false", /*overwrite=*/0);
#endif
}

Runtime::Runtime() {
  if (!Kokkos::is_initialized()) {
    int argc = 1;
    char name[] = "ppkit";
    char* argv[] = {name, nullptr};
    record_openmp_binding_before_kokkos_initialize();
    Kokkos::initialize(argc, argv);
    owns_kokkos_ = true;
  }
}

Runtime::Runtime(int& argc, char* argv[]) {
  if (!Kokkos::is_initialized()) {
    record_openmp_binding_before_kokkos_initialize();
    Kokkos::initialize(argc, argv);
    owns_kokkos_ = true;
  }
}

Runtime::~Runtime() {
  if (owns_kokkos_ && Kokkos::is_initialized()) Kokkos::finalize();
}

}  // namespace ppkit
