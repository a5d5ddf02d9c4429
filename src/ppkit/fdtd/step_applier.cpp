// The default plane copy of a StepApplier (step_applier.hpp).
#include "ppkit/fdtd/step_applier.hpp"

#include <algorithm>
#include <cstring>

#include "ppkit/core/error.hpp"

namespace ppkit::fdtd {

void StepApplier::copy_planes(int c, index_t first, index_t count, float* host, bool into_field,
                              const YeeGrid& grid) {
  require(first >= 0 && count >= 0 && first + count <= grid.nx + 1,
          "planes " + std::to_string(first) + ".." + std::to_string(first + count) +
              " of a grid with " + std::to_string(grid.nx + 1) + " x-planes",
          "planes inside the grid");
  const std::size_t len = std::size_t(grid.nz + 1), rows = std::size_t(count * (grid.ny + 1));
  const std::size_t row0 = std::size_t(first * (grid.ny + 1));
  const auto where = memory();
  if (where && where->kind == MemoryKind::host) {
    // Host storage: rows of pitch() floats, the first nz + 1 of them the values.
    wait(nullptr);
    float* field = static_cast<float*>(field_address(c));
    const std::size_t pitch = std::size_t(this->pitch());
    for (std::size_t r = 0; r < rows; ++r) {
      float* stored = field + (row0 + r) * pitch;
      if (into_field)
        std::memcpy(stored, host + r * len, len * sizeof(float));
      else
        std::memcpy(host + r * len, stored, len * sizeof(float));
    }
    return;
  }
  // Anything else: the whole field through the host.
  std::vector<float> whole(std::size_t(grid.nodes()));
  copy_field(c, whole.data(), true, false, nullptr);
  float* part = whole.data() + row0 * len;
  if (into_field) {
    std::copy(host, host + rows * len, part);
    copy_field(c, whole.data(), true, true, nullptr);
  } else {
    std::copy(part, part + rows * len, host);
  }
}

void StepApplier::begin_step(const std::vector<index_t>&) {
  throw Error("this fdtd.step variant cannot update a slab's edge planes first",
              "a variant whose traits say slab_overlap (kokkos-<space>/plain and /split, "
              "opencl/plain and /float4), or advance()");
}

void StepApplier::finish_step() { begin_step({}); }

}  // namespace ppkit::fdtd
