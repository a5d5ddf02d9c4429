#include "ppkit/core/runtime.hpp"

#include <Kokkos_Core.hpp>

namespace ppkit {

Runtime::Runtime() {
  if (!Kokkos::is_initialized()) {
    int argc = 1;
    char name[] = "ppkit";
    char* argv[] = {name, nullptr};
    Kokkos::initialize(argc, argv);
    owns_kokkos_ = true;
  }
}

Runtime::Runtime(int& argc, char* argv[]) {
  if (!Kokkos::is_initialized()) {
    Kokkos::initialize(argc, argv);
    owns_kokkos_ = true;
  }
}

Runtime::~Runtime() {
  if (owns_kokkos_ && Kokkos::is_initialized()) Kokkos::finalize();
}

}  // namespace ppkit
