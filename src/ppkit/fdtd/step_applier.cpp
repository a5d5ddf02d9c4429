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
              "opencl/plain and /float4, cuda/split-x*), or advance()");
}

void StepApplier::finish_step() { begin_step({}); }

void EdgePlaneSteps::begin(const std::vector<index_t>& edges, index_t planes, std::int64_t step,
                           std::int64_t steps, bool supported, const std::string& unsupported) {
  require(!in_step_, "begin_step() twice", "finish_step() after each begin_step()");
  require(step < steps, "begin_step() after the problem's " + std::to_string(steps) + " steps",
          "at most problem.steps steps");
  require(supported, "begin_step() on a problem with " + unsupported,
          "advance() for those (MPI slabs refuse them)");
  edges_.assign(edges.begin(), edges.end());
  std::sort(edges_.begin(), edges_.end());
  edges_.erase(std::unique(edges_.begin(), edges_.end()), edges_.end());
  for (index_t e : edges_)
    require(e >= 0 && e < planes, "edge plane " + std::to_string(e),
            "a plane 0.." + std::to_string(planes - 1));
  planes_ = planes;
  in_step_ = true;
}

std::vector<std::pair<index_t, index_t>> EdgePlaneSteps::finish() {
  require(in_step_, "finish_step() without begin_step()", "begin_step(edges) first");
  std::vector<std::pair<index_t, index_t>> ranges;
  index_t from = 0;
  for (index_t e : edges_) {
    if (e > from) ranges.emplace_back(from, e);
    from = e + 1;
  }
  if (planes_ > from) ranges.emplace_back(from, planes_);
  in_step_ = false;
  return ranges;
}

void EdgePlaneSteps::require_between_steps() const {
  require(!in_step_, "advance() between begin_step() and finish_step()", "finish_step() first");
}

}  // namespace ppkit::fdtd
