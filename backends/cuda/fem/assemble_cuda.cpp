// cuda/thread-per-element, cuda/warp-4tpr, cuda/ppni-4tpr (colouring: one
// launch per colour) and cuda/atomic-4tpr (no colouring: elements in input
// order, one launch, atomicAdd assembly) of fem.assemble.
#include <array>
#include <limits>

#include "backends/cuda/core/cuda_device.hpp"
#include "backends/cuda/fem/assemble_cuda_kernels.hpp"
#include "ppkit/fem/assemble.hpp"
#include "ppkit/fem/hex8_shape.hpp"

namespace ppkit::fem {
namespace {

enum class CudaStrategy { thread_per_element, warp_4tpr, ppni_4tpr, atomic_4tpr };

// Device order of an element's 64 CSR block positions: canonical [8a + b] for
// thread-per-element, else lane order [32 pass + lane] of 4 threads per row
// (lane owns rows of node lane/4 and columns of node 2(lane%4) + pass).
std::array<int, 64> block_order(CudaStrategy s) {
  std::array<int, 64> order{};
  for (int pass = 0; pass < 2; ++pass)
    for (int lane = 0; lane < 32; ++lane)
      order[32 * pass + lane] = s == CudaStrategy::thread_per_element
                                    ? 32 * pass + lane
                                    : 8 * (lane / 4) + 2 * (lane % 4) + pass;
  return order;
}

class CudaAssemblyRun final : public PreparedRun<AssemblyResult> {
 public:
  CudaAssemblyRun(const AssemblyProblem& p, CudaStrategy strategy) : strategy_(strategy) {
    const auto& c = p.coloured;
    const std::int64_t elements = c.num_elements();
    const auto order = block_order(strategy);
    std::vector<double> coordinates(c.coordinates.size());
    std::vector<std::int32_t> nodes(c.nodes.size());
    std::vector<std::int64_t> blocks(c.block_positions.size());
    // Colour order for the colouring strategies; input order for atomics.
    std::vector<std::int64_t> slot_of(elements);
    for (std::int64_t k = 0; k < elements; ++k)
      slot_of[k] = strategy == CudaStrategy::atomic_4tpr ? p.colouring.order[k] : k;
    for (std::int64_t k = 0; k < elements; ++k) {
      const std::int64_t slot = slot_of[k];
      std::copy_n(c.coordinates.begin() + 24 * k, 24, coordinates.begin() + 24 * slot);
      std::copy_n(c.nodes.begin() + 8 * k, 8, nodes.begin() + 8 * slot);
      for (int s = 0; s < 64; ++s) blocks[64 * slot + s] = c.block_positions[64 * k + order[s]];
    }
    colour_offsets_ = strategy == CudaStrategy::atomic_4tpr ? std::vector<std::int64_t>{0, elements}
                                                            : c.colour_offsets;
    coordinates_ = cuda::DeviceBuffer<double>(coordinates);
    nodes_ = cuda::DeviceBuffer<std::int32_t>(nodes);
    blocks_ = cuda::DeviceBuffer<std::int64_t>(blocks);
    row_offsets_ = cuda::DeviceBuffer<std::int64_t>(p.pattern.row_offsets);
    values_ = cuda::DeviceBuffer<double>(std::size_t(p.pattern.num_nonzeros()));
    load_ = cuda::DeviceBuffer<double>(std::size_t(p.mesh.num_dofs()));
    values_.fill_bytes(0xFF);  // poison (NaN)
    load_.fill_bytes(0xFF);
    const auto dN = natural_derivative_table();
    const auto N = shape_value_table();
    cuda_kernels::upload_shape_tables(dN.data(), N.data());
    arrays_.coordinates = coordinates_.data();
    arrays_.nodes = nodes_.data();
    arrays_.block_positions = blocks_.data();
    arrays_.row_offsets = row_offsets_.data();
    arrays_.values = values_.data();
    arrays_.load = load_.data();
    arrays_.lambda = p.material.lambda();
    arrays_.mu = p.material.mu();
    for (int i = 0; i < 3; ++i) arrays_.body_force[i] = p.material.body_force[i];
  }

  void run() override {
    values_.fill_bytes(0);
    load_.fill_bytes(0);
    for (std::size_t c = 0; c + 1 < colour_offsets_.size(); ++c) {
      const std::int64_t first = colour_offsets_[c], count = colour_offsets_[c + 1] - first;
      switch (strategy_) {
        case CudaStrategy::thread_per_element:
          cuda_kernels::launch_thread_per_element(arrays_, first, count);
          break;
        case CudaStrategy::warp_4tpr:
          cuda_kernels::launch_warp_4tpr(arrays_, first, count);
          break;
        case CudaStrategy::ppni_4tpr:
          cuda_kernels::launch_ppni_4tpr(arrays_, first, count);
          break;
        case CudaStrategy::atomic_4tpr:
          cuda_kernels::launch_atomic_4tpr(arrays_, first, count);
          break;
      }
    }
    PPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }

  AssemblyResult result() override { return {values_.download(), load_.download()}; }

 private:
  CudaStrategy strategy_;
  std::vector<std::int64_t> colour_offsets_;
  cuda::DeviceBuffer<double> coordinates_, values_, load_;
  cuda::DeviceBuffer<std::int32_t> nodes_;
  cuda::DeviceBuffer<std::int64_t> blocks_, row_offsets_;
  Hex8AssemblyArrays arrays_;
};

}  // namespace
}  // namespace ppkit::fem

namespace ppkit::registration {
void register_fem_cuda_variants() {
  using ppkit::fem::CudaStrategy;
  const struct {
    const char* name;
    CudaStrategy strategy;
    int preference;
  } variants[] = {{"thread-per-element", CudaStrategy::thread_per_element, 1},
                  {"warp-4tpr", CudaStrategy::warp_4tpr, 50},
                  {"ppni-4tpr", CudaStrategy::ppni_4tpr, 51},
                  {"atomic-4tpr", CudaStrategy::atomic_4tpr, 45}};
  for (const auto& v : variants) {
    auto variant = cuda::cuda_variant<fem::FemAssemble>(v.name, v.preference);
    const CudaStrategy strategy = v.strategy;
    variant.prepare = [strategy](const fem::AssemblyProblem& p) {
      return std::make_unique<fem::CudaAssemblyRun>(p, strategy);
    };
    Registry<fem::FemAssemble>::add(std::move(variant));
  }
}
}  // namespace ppkit::registration
