// A host code that owns Kokkos and calls ppkit: ppkit::Runtime sees Kokkos is
// already initialised and leaves finalisation to the host.
#include <Kokkos_Core.hpp>
#include <cstdio>

#include "ppkit/core/info.hpp"
#include "ppkit/core/registry.hpp"
#include "ppkit/core/runtime.hpp"
#include "ppkit/core/stream_copy.hpp"

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);  // the host code's own Kokkos
  {
    ppkit::Runtime runtime;  // does not re-initialise, does not finalise
    std::printf("ppkit %s, owns Kokkos: %s\n", ppkit::version_string(),
                runtime.owns_kokkos() ? "yes" : "no");
    const auto& copy = ppkit::Registry<ppkit::StreamCopy>::find("auto");
    const double bw = ppkit::measure_copy_bandwidth(copy, std::size_t(1) << 22, 3);
    std::printf("copy bandwidth with %s: %.1f GB/s\n", copy.name.c_str(), bw * 1e-9);
  }
  Kokkos::finalize();
  return 0;
}
