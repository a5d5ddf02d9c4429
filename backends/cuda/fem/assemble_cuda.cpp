// Hand-tuned CUDA variants of fem.assemble: cuda/thread-per-element (a),
// cuda/warp-4tpr (b), cuda/warp-8tpr (c), cuda/ppni-4tpr (d), cuda/two-kernel (e)
// (colouring: one launch per colour), cuda/atomic-4tpr ((b) without colouring:
// elements in input order, one launch, atomicAdd), and the factored strategy (f)
// designed for the memory floor: cuda/factored-atomic (Morton order, one launch,
// atomics) and cuda/factored-colour (colouring, first-writer stores, no zeroing).
#include <array>
#include <limits>

#include "backends/cuda/core/cuda_device.hpp"
#include "backends/cuda/fem/assemble_cuda_kernels.hpp"
#include "ppkit/fem/assemble.hpp"
#include "ppkit/fem/factored_layout.hpp"
#include "ppkit/fem/hex8_shape.hpp"

namespace ppkit::fem {
namespace {

enum class CudaStrategy {
  thread_per_element,
  warp_4tpr,
  warp_8tpr,
  ppni_4tpr,
  two_kernel,
  atomic_4tpr
};

// Device order of an element's 64 CSR block positions: canonical [8a + b] for
// thread-per-element and two-kernel, else lane order [32 pass + lane]: with 4
// threads per row lane owns rows of node lane/4 and columns of node
// 2(lane%4) + pass, with 8 threads per row rows of node 2(lane/8) + pass and
// columns of node lane%8.
std::array<int, 64> block_order(CudaStrategy s) {
  std::array<int, 64> order{};
  for (int pass = 0; pass < 2; ++pass)
    for (int lane = 0; lane < 32; ++lane) {
      int block = 32 * pass + lane;
      if (s == CudaStrategy::warp_8tpr)
        block = 8 * (2 * (lane / 8) + pass) + lane % 8;
      else if (s != CudaStrategy::thread_per_element && s != CudaStrategy::two_kernel)
        block = 8 * (lane / 4) + 2 * (lane % 4) + pass;
      order[32 * pass + lane] = block;
    }
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
    if (strategy == CudaStrategy::two_kernel)
      geometry_ = cuda::DeviceBuffer<double>(std::size_t(80 * elements));
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
    if (strategy_ == CudaStrategy::two_kernel)
      cuda_kernels::launch_gauss_geometry(arrays_, geometry_.data(),
                                          colour_offsets_.back() - colour_offsets_.front());
    for (std::size_t c = 0; c + 1 < colour_offsets_.size(); ++c) {
      const std::int64_t first = colour_offsets_[c], count = colour_offsets_[c + 1] - first;
      switch (strategy_) {
        case CudaStrategy::thread_per_element:
          cuda_kernels::launch_thread_per_element(arrays_, first, count);
          break;
        case CudaStrategy::warp_4tpr:
          cuda_kernels::launch_warp_4tpr(arrays_, first, count);
          break;
        case CudaStrategy::warp_8tpr:
          cuda_kernels::launch_warp_8tpr(arrays_, first, count);
          break;
        case CudaStrategy::two_kernel:
          cuda_kernels::launch_entries(arrays_, geometry_.data(), first, count);
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
  cuda::DeviceBuffer<double> coordinates_, values_, load_, geometry_;
  cuda::DeviceBuffer<std::int32_t> nodes_;
  cuda::DeviceBuffer<std::int64_t> blocks_, row_offsets_;
  Hex8AssemblyArrays arrays_;
};

// (f) factored: FactoredLayout inputs; atomics in Morton order (values zeroed
// in run()) or colour by colour with first-writer stores (no zeroing).
class CudaFactoredRun final : public PreparedRun<AssemblyResult> {
 public:
  CudaFactoredRun(const AssemblyProblem& p, FactoredOrder order)
      : atomic_(order == FactoredOrder::morton_atomic) {
    const FactoredLayout layout = make_factored_layout(p, order);
    launch_offsets_ = layout.launch_offsets;
    coordinates_ = cuda::DeviceBuffer<double>(layout.coordinates);
    nodes_ = cuda::DeviceBuffer<std::int32_t>(layout.nodes);
    column_offsets_ = cuda::DeviceBuffer<std::uint16_t>(layout.column_offsets);
    if (!atomic_) first_writer_ = cuda::DeviceBuffer<std::uint64_t>(layout.first_writer);
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
    arrays_.column_offsets = column_offsets_.data();
    arrays_.first_writer = atomic_ ? nullptr : first_writer_.data();
    arrays_.row_offsets = row_offsets_.data();
    arrays_.values = values_.data();
    arrays_.load = load_.data();
    arrays_.lambda = p.material.lambda();
    arrays_.mu = p.material.mu();
    for (int i = 0; i < 3; ++i) arrays_.body_force[i] = p.material.body_force[i];
  }

  void run() override {
    if (atomic_) values_.fill_bytes(0);  // first-writer stores need no zeroing
    load_.fill_bytes(0);
    for (std::size_t k = 0; k + 1 < launch_offsets_.size(); ++k)
      cuda_kernels::launch_factored(arrays_, launch_offsets_[k],
                                    launch_offsets_[k + 1] - launch_offsets_[k]);
    PPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }

  AssemblyResult result() override { return {values_.download(), load_.download()}; }

 private:
  bool atomic_;
  std::vector<std::int64_t> launch_offsets_;
  cuda::DeviceBuffer<double> coordinates_, values_, load_;
  cuda::DeviceBuffer<std::int32_t> nodes_;
  cuda::DeviceBuffer<std::uint16_t> column_offsets_;
  cuda::DeviceBuffer<std::uint64_t> first_writer_;
  cuda::DeviceBuffer<std::int64_t> row_offsets_;
  Hex8FactoredArrays arrays_;
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
                  {"warp-8tpr", CudaStrategy::warp_8tpr, 49},
                  {"ppni-4tpr", CudaStrategy::ppni_4tpr, 51},
                  {"two-kernel", CudaStrategy::two_kernel, 20},
                  {"atomic-4tpr", CudaStrategy::atomic_4tpr, 45}};
  for (const auto& v : variants) {
    auto variant = cuda::cuda_variant<fem::FemAssemble>(v.name, v.preference);
    const CudaStrategy strategy = v.strategy;
    variant.prepare = [strategy](const fem::AssemblyProblem& p) {
      return std::make_unique<fem::CudaAssemblyRun>(p, strategy);
    };
    Registry<fem::FemAssemble>::add(std::move(variant));
  }
  using ppkit::fem::FactoredOrder;
  const struct {
    const char* name;
    FactoredOrder order;
    int preference;
  } factored[] = {{"factored-atomic", FactoredOrder::morton_atomic, 60},
                  {"factored-colour", FactoredOrder::colour_first_writer, 59}};
  for (const auto& v : factored) {
    auto variant = cuda::cuda_variant<fem::FemAssemble>(v.name, v.preference);
    const FactoredOrder order = v.order;
    variant.prepare = [order](const fem::AssemblyProblem& p) {
      return std::make_unique<fem::CudaFactoredRun>(p, order);
    };
    Registry<fem::FemAssemble>::add(std::move(variant));
  }
}
}  // namespace ppkit::registration
