#pragma once
// Host glue of the hand-tuned GPU variants of fem.assemble, shared by CUDA
// (backends/cuda/fem/assemble_cuda.cpp) and HIP (backends/hip/fem/assemble_hip.cpp): templates
// over the kernels' backend (Hex8Kernels<Backend>) and the runtime calls
// behind DeviceBuffer. Strategies, registered as <backend>/<strategy>:
// thread-per-element (a), warp-4tpr (b), warp-8tpr (c), ppni-4tpr (d),
// two-kernel (e) (colouring: one launch per colour), atomic-4tpr ((b) without
// colouring: elements in input order, one launch, atomicAdd), and the factored
// strategy (f) designed for the memory floor: factored-atomic (Morton order,
// one launch, atomics) and factored-colour (colouring, first-writer stores, no
// zeroing), and the tiled strategy (g): tiled (Morton tiles merged in shared
// memory, one atomic flush per tile), and the node-gather strategy (h):
// node-gather (one warp per node writes its CSR rows once). Every run is also
// an operator on the caller's arrays (AssemblerApplier, GpuAssembler below):
// the same launches with the caller's values, load, material and stream in
// the kernels' arguments. Host-only: include from .cpp files compiled by the
// C++ compiler.
#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/cuda_hip/fem/assemble_gpu_kernels.hpp"
#include "ppkit/core/device_buffer.hpp"
#include "ppkit/core/registry.hpp"
#include "ppkit/fem/assemble.hpp"
#include "ppkit/fem/factored_layout.hpp"
#include "ppkit/fem/gather_layout.hpp"
#include "ppkit/fem/hex8_shape.hpp"
#include "ppkit/fem/tiled_layout.hpp"

namespace ppkit::fem::gpu_assembly {

enum class Strategy {
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
inline std::array<int, 64> block_order(Strategy s) {
  std::array<int, 64> order{};
  for (int pass = 0; pass < 2; ++pass)
    for (int lane = 0; lane < 32; ++lane) {
      int block = 32 * pass + lane;
      if (s == Strategy::warp_8tpr)
        block = 8 * (2 * (lane / 8) + pass) + lane % 8;
      else if (s != Strategy::thread_per_element && s != Strategy::two_kernel)
        block = 8 * (lane / 4) + 2 * (lane % 4) + pass;
      order[32 * pass + lane] = block;
    }
  return order;
}

// What every run uploads besides its layout: coordinates and nodes in the
// layout's element order (no element coordinates for the gather runs, whose
// kernel 1 reads the mesh's node coordinates), the outputs (poisoned with NaN
// until the first run, so a variant that never ran fails verification), the
// shape tables and the material, each also set in the kernels' argument
// struct `arrays`.
template <class Backend, class Calls>
struct ElementInputs {
  DeviceBuffer<double, Calls> coordinates, node_coordinates, values, load;
  DeviceBuffer<std::int32_t, Calls> nodes;
  // The nodes of each slot, kept on the host where element coordinates are
  // uploaded, to gather them again from new node coordinates.
  std::vector<std::int32_t> slot_nodes;

  // An operator's inputs (p.own_outputs false) have no values or load.
  template <class Arrays>
  void upload(const AssemblyProblem& p, const std::vector<double>& element_coordinates,
              const std::vector<std::int32_t>& element_nodes, Arrays& arrays) {
    coordinates = DeviceBuffer<double, Calls>(element_coordinates);
    nodes = DeviceBuffer<std::int32_t, Calls>(element_nodes);
    if (!element_coordinates.empty()) slot_nodes = element_nodes;
    if (p.own_outputs) {
      values = DeviceBuffer<double, Calls>(std::size_t(p.pattern.num_nonzeros()));
      load = DeviceBuffer<double, Calls>(std::size_t(p.mesh.num_dofs()));
      values.fill_bytes(0xFF);
      load.fill_bytes(0xFF);
    }
    const auto dN = natural_derivative_table();
    const auto N = shape_value_table();
    Hex8Kernels<Backend>::upload_shape_tables(dN.data(), N.data());
    arrays.coordinates = coordinates.data();
    arrays.nodes = nodes.data();
    if constexpr (std::is_same_v<Arrays, Hex8AssemblyArrays>) {
      // Kernel 1 ((e), (h), (i)) reads each element's nodes' coordinates.
      node_coordinates = DeviceBuffer<double, Calls>(p.mesh.coordinates);
      arrays.node_coordinates = node_coordinates.data();
    }
    arrays.values = values.data();
    arrays.load = load.data();
    arrays.lambda = p.material.lambda();
    arrays.mu = p.material.mu();
    for (int i = 0; i < 3; ++i) arrays.body_force[i] = p.material.body_force[i];
  }
  AssemblyResult download() { return {values.download(), load.download()}; }

  // New node coordinates (3 per node): the element coordinates gathered
  // again in the slots' order, the node coordinates of kernel 1 replaced.
  void update_coordinates(const std::vector<double>& node_xyz) {
    if (coordinates.size() > 0) {
      std::vector<double> gathered(coordinates.size());
      for (std::size_t m = 0; m < gathered.size(); ++m)
        gathered[m] = node_xyz[3 * std::size_t(slot_nodes[m / 3]) + m % 3];
      coordinates.upload(gathered);
    }
    if (node_coordinates.size() > 0) node_coordinates.upload(node_xyz);
  }
};

// The outputs and material of one assembly, as the kernels' arguments hold them.
struct AssemblyOutputs {
  double* values = nullptr;
  double* load = nullptr;
  double lambda = 0, mu = 0;
  double body_force[3] = {0, 0, 0};
};
template <class Arrays>
Arrays with_outputs(Arrays a, const AssemblyOutputs& o) {
  a.values = o.values;
  a.load = o.load;
  a.lambda = o.lambda;
  a.mu = o.mu;
  for (int i = 0; i < 3; ++i) a.body_force[i] = o.body_force[i];
  return a;
}

// What every GPU run shares: run() launches into its own outputs on the
// default stream and waits; the operator side (AssemblerApplier) makes the
// same launches into the caller's arrays on the caller's stream.
template <class Backend, class Calls>
class GpuAssembler : public PreparedRun<AssemblyResult>, public AssemblerApplier {
 protected:
  using Kernels = Hex8Kernels<Backend>;
  explicit GpuAssembler(const AssemblyProblem& p)
      : nonzeros_(std::size_t(p.pattern.num_nonzeros())),
        dofs_(std::size_t(p.mesh.num_dofs())),
        own_outputs_(p.own_outputs),
        material_(p.material),
        device_(Kernels::current_device()) {}
  // Queues one assembly into o's arrays with o's material on stream.
  virtual void launch(const AssemblyOutputs& o, void* stream) = 0;
  static AssemblyOutputs outputs(const Material& m, double* values, double* load) {
    AssemblyOutputs o;
    o.values = values;
    o.load = load;
    o.lambda = m.lambda();
    o.mu = m.mu();
    for (int i = 0; i < 3; ++i) o.body_force[i] = m.body_force[i];
    return o;
  }
  void require_own_outputs() const { require(own_outputs_, operator_only_run); }
  std::size_t nonzeros_, dofs_;
  ElementInputs<Backend, Calls> inputs_;

 public:
  void run() override {
    require_own_outputs();
    launch(outputs(material_, inputs_.values.data(), inputs_.load.data()), nullptr);
    Kernels::synchronize();
  }
  AssemblyResult result() override {
    require_own_outputs();
    return inputs_.download();
  }
  void assemble(const Material& material, double* values, double* load, void* stream) override {
    launch(outputs(material, values, load), stream);
  }
  void update_coordinates(const std::vector<double>& coordinates) override {
    Kernels::synchronize();  // assemblies queued on any stream still read the old ones
    inputs_.update_coordinates(coordinates);
  }
  void wait(void* stream) override { Kernels::synchronize_stream(stream); }
  DataLocation memory() const override {
    return DataLocation{std::is_same_v<Backend, CudaBackend> ? MemoryKind::cuda : MemoryKind::hip,
                        device_};
  }

 private:
  bool own_outputs_;
  Material material_;
  int device_;
};

// The outputs and material of kernel 1's arguments into a gather kernel's
// (node gather (h), cluster gather (i)), which write the same outputs.
template <class Arrays>
void copy_outputs_and_material(const Hex8AssemblyArrays& from, Arrays& to) {
  to.values = from.values;
  to.load = from.load;
  to.lambda = from.lambda;
  to.mu = from.mu;
  for (int i = 0; i < 3; ++i) to.body_force[i] = from.body_force[i];
}

template <class Backend, class Calls>
class AssemblyRun final : public GpuAssembler<Backend, Calls> {
  using Base = GpuAssembler<Backend, Calls>;
  using Kernels = Hex8Kernels<Backend>;
  template <class T>
  using Buffer = DeviceBuffer<T, Calls>;

 public:
  AssemblyRun(const AssemblyProblem& p, Strategy strategy) : Base(p), strategy_(strategy) {
    const auto& c = p.coloured;
    const std::int64_t elements = c.num_elements();
    const auto order = block_order(strategy);
    std::vector<double> coordinates(c.coordinates.size());
    std::vector<std::int32_t> nodes(c.nodes.size());
    std::vector<std::int64_t> blocks(c.block_positions.size());
    // Colour order for the colouring strategies; input order for atomics.
    std::vector<std::int64_t> slot_of(elements);
    for (std::int64_t k = 0; k < elements; ++k)
      slot_of[k] = strategy == Strategy::atomic_4tpr ? p.colouring.order[k] : k;
    for (std::int64_t k = 0; k < elements; ++k) {
      const std::int64_t slot = slot_of[k];
      std::copy_n(c.coordinates.begin() + 24 * k, 24, coordinates.begin() + 24 * slot);
      std::copy_n(c.nodes.begin() + 8 * k, 8, nodes.begin() + 8 * slot);
      for (int s = 0; s < 64; ++s) blocks[64 * slot + s] = c.block_positions[64 * k + order[s]];
    }
    colour_offsets_ = strategy == Strategy::atomic_4tpr ? std::vector<std::int64_t>{0, elements}
                                                        : c.colour_offsets;
    this->inputs_.upload(p, coordinates, nodes, arrays_);
    blocks_ = Buffer<std::int64_t>(blocks);
    row_offsets_ = Buffer<std::int64_t>(p.pattern.row_offsets);
    if (strategy == Strategy::two_kernel) geometry_ = Buffer<double>(std::size_t(80 * elements));
    arrays_.block_positions = blocks_.data();
    arrays_.row_offsets = row_offsets_.data();
  }

 private:
  void launch(const AssemblyOutputs& o, void* stream) override {
    const Hex8AssemblyArrays a = with_outputs(arrays_, o);
    Kernels::zero(a.values, this->nonzeros_, stream);
    Kernels::zero(a.load, this->dofs_, stream);
    if (strategy_ == Strategy::two_kernel)
      Kernels::launch_gauss_geometry(a, geometry_.data(),
                                     colour_offsets_.back() - colour_offsets_.front(), stream);
    for (std::size_t c = 0; c + 1 < colour_offsets_.size(); ++c) {
      const std::int64_t first = colour_offsets_[c], count = colour_offsets_[c + 1] - first;
      switch (strategy_) {
        case Strategy::thread_per_element:
          Kernels::launch_thread_per_element(a, first, count, stream);
          break;
        case Strategy::warp_4tpr:
          Kernels::launch_warp_4tpr(a, first, count, stream);
          break;
        case Strategy::warp_8tpr:
          Kernels::launch_warp_8tpr(a, first, count, stream);
          break;
        case Strategy::two_kernel:
          Kernels::launch_entries(a, geometry_.data(), first, count, stream);
          break;
        case Strategy::ppni_4tpr:
          Kernels::launch_ppni_4tpr(a, first, count, stream);
          break;
        case Strategy::atomic_4tpr:
          Kernels::launch_atomic_4tpr(a, first, count, stream);
          break;
      }
    }
  }

  Strategy strategy_;
  std::vector<std::int64_t> colour_offsets_;
  Buffer<double> geometry_;
  Buffer<std::int64_t> blocks_, row_offsets_;
  Hex8AssemblyArrays arrays_;
};

// (f) factored: FactoredLayout inputs; atomics in Morton order (values zeroed
// in run()) or colour by colour with first-writer stores (no zeroing).
template <class Backend, class Calls>
class FactoredRun final : public GpuAssembler<Backend, Calls> {
  using Base = GpuAssembler<Backend, Calls>;
  using Kernels = Hex8Kernels<Backend>;
  template <class T>
  using Buffer = DeviceBuffer<T, Calls>;

 public:
  FactoredRun(const AssemblyProblem& p, FactoredOrder order,
              KeEntryOrder entries = KeEntryOrder::row_major)
      : Base(p), atomic_(order == FactoredOrder::morton_atomic), entries_(entries) {
    const FactoredLayout layout = make_factored_layout(p, order);
    launch_offsets_ = layout.launch_offsets;
    this->inputs_.upload(p, layout.coordinates, layout.nodes, arrays_);
    column_offsets_ = Buffer<std::uint16_t>(layout.column_offsets);
    if (!atomic_) first_writer_ = Buffer<std::uint64_t>(layout.first_writer);
    row_offsets_ = Buffer<std::int64_t>(p.pattern.row_offsets);
    arrays_.column_offsets = column_offsets_.data();
    arrays_.first_writer = atomic_ ? nullptr : first_writer_.data();
    arrays_.row_offsets = row_offsets_.data();
  }

 private:
  void launch(const AssemblyOutputs& o, void* stream) override {
    const Hex8FactoredArrays a = with_outputs(arrays_, o);
    if (atomic_) Kernels::zero(a.values, this->nonzeros_, stream);  // first-writer stores: none
    Kernels::zero(a.load, this->dofs_, stream);
    for (std::size_t k = 0; k + 1 < launch_offsets_.size(); ++k)
      Kernels::launch_factored(a, launch_offsets_[k], launch_offsets_[k + 1] - launch_offsets_[k],
                               entries_, stream);
  }

  bool atomic_;
  KeEntryOrder entries_;
  std::vector<std::int64_t> launch_offsets_;
  Buffer<std::uint16_t> column_offsets_;
  Buffer<std::uint64_t> first_writer_;
  Buffer<std::int64_t> row_offsets_;
  Hex8FactoredArrays arrays_;
};

// (g) tiled: TiledLayout inputs, one block per tile, values zeroed in run().
// The tile capacity is the layout default (1,200 blocks, 86 KB) or what the
// device's shared memory per block holds, whichever is smaller.
template <class Backend, class Calls>
class TiledRun final : public GpuAssembler<Backend, Calls> {
  using Base = GpuAssembler<Backend, Calls>;
  using Kernels = Hex8Kernels<Backend>;
  template <class T>
  using Buffer = DeviceBuffer<T, Calls>;

 public:
  explicit TiledRun(const AssemblyProblem& p) : Base(p) {
    TiledLayoutOptions options;
    options.max_blocks = std::min(options.max_blocks, Kernels::tiled_block_capacity());
    const TiledLayout layout = make_tiled_layout(p, options);
    tiles_ = layout.num_tiles();
    this->inputs_.upload(p, layout.coordinates, layout.nodes, arrays_);
    block_slots_ = Buffer<std::uint16_t>(layout.block_slots);
    tile_colours_ = Buffer<std::int64_t>(layout.tile_colours);
    colour_offsets_ = Buffer<std::int64_t>(layout.colour_offsets);
    tile_blocks_ = Buffer<std::int32_t>(layout.tile_blocks);
    run_offsets_ = Buffer<std::int64_t>(layout.run_offsets);
    run_positions_ = Buffer<std::int64_t>(layout.run_positions);
    run_row_lengths_ = Buffer<std::int32_t>(layout.run_row_lengths);
    run_first_slots_ = Buffer<std::uint16_t>(layout.run_first_slots);
    chunk_offsets_ = Buffer<std::int64_t>(layout.chunk_offsets);
    chunks_ = Buffer<std::uint64_t>(layout.chunks);
    arrays_.block_slots = block_slots_.data();
    arrays_.tile_colours = tile_colours_.data();
    arrays_.colour_offsets = colour_offsets_.data();
    arrays_.tile_blocks = tile_blocks_.data();
    arrays_.run_offsets = run_offsets_.data();
    arrays_.run_positions = run_positions_.data();
    arrays_.run_row_lengths = run_row_lengths_.data();
    arrays_.run_first_slots = run_first_slots_.data();
    arrays_.chunk_offsets = chunk_offsets_.data();
    arrays_.chunks = chunks_.data();
    arrays_.max_blocks = layout.max_blocks;
  }

 private:
  void launch(const AssemblyOutputs& o, void* stream) override {
    const Hex8TiledArrays a = with_outputs(arrays_, o);
    Kernels::zero(a.values, this->nonzeros_, stream);
    Kernels::zero(a.load, this->dofs_, stream);
    Kernels::launch_tiled(a, tiles_, stream);
  }

  std::int64_t tiles_ = 0;
  Buffer<std::int32_t> tile_blocks_, run_row_lengths_;
  Buffer<std::uint16_t> block_slots_, run_first_slots_;
  Buffer<std::int64_t> tile_colours_, colour_offsets_, run_offsets_, run_positions_, chunk_offsets_;
  Buffer<std::uint64_t> chunks_;
  Hex8TiledArrays arrays_;
};

// (h) node gather: kernel 1 ((e)'s) stores the Gauss-point geometry of the
// input-order elements, kernel 2 writes every node's rows once (no zeroing).
template <class Backend, class Calls>
class NodeGatherRun final : public GpuAssembler<Backend, Calls> {
  using Base = GpuAssembler<Backend, Calls>;
  using Kernels = Hex8Kernels<Backend>;
  template <class T>
  using Buffer = DeviceBuffer<T, Calls>;

 public:
  explicit NodeGatherRun(const AssemblyProblem& p) : Base(p), elements_(p.mesh.num_elements()) {
    const NodeGatherLayout layout = make_node_gather_layout(p);
    nodes_ = layout.num_nodes();
    this->inputs_.upload(p, {}, p.mesh.elements, element_arrays_);
    geometry_ = Buffer<double>(80 * std::size_t(elements_));
    node_of_slot_ = Buffer<std::int32_t>(layout.node_of_slot);
    incidences_ = Buffer<std::int32_t>(layout.incidences);
    incidence_offsets_ = Buffer<std::int64_t>(layout.incidence_offsets);
    incidence_blocks_ = Buffer<std::uint16_t>(layout.incidence_blocks);
    row_offsets_ = Buffer<std::int64_t>(p.pattern.row_offsets);
    arrays_.geometry = geometry_.data();
    arrays_.node_of_slot = node_of_slot_.data();
    arrays_.incidence_offsets = incidence_offsets_.data();
    arrays_.incidences = incidences_.data();
    arrays_.incidence_blocks = incidence_blocks_.data();
    arrays_.row_offsets = row_offsets_.data();
    copy_outputs_and_material(element_arrays_, arrays_);
  }

 private:
  // No zeroing: kernel 2 writes every CSR value and load entry once.
  void launch(const AssemblyOutputs& o, void* stream) override {
    Kernels::launch_gauss_geometry(element_arrays_, geometry_.data(), elements_, stream);
    Kernels::launch_node_gather(with_outputs(arrays_, o), nodes_, stream);
  }

  std::int64_t elements_ = 0, nodes_ = 0;
  Buffer<double> geometry_;
  Buffer<std::int32_t> node_of_slot_, incidences_;
  Buffer<std::int64_t> incidence_offsets_, row_offsets_;
  Buffer<std::uint16_t> incidence_blocks_;
  Hex8AssemblyArrays element_arrays_;  // kernel 1's inputs: input-order nodes
  Hex8GatherArrays arrays_;
};

// Registers every strategy as <backend>/<strategy>; make_variant fills the
// backend's common fields (cuda::cuda_variant, hip::hip_variant).
template <class Backend, class Calls>
void register_variants(Variant<FemAssemble> (*make_variant)(const std::string&, int)) {
  const struct {
    const char* name;
    Strategy strategy;
    int preference;
  } variants[] = {{"thread-per-element", Strategy::thread_per_element, 1},
                  {"warp-4tpr", Strategy::warp_4tpr, 50},
                  {"warp-8tpr", Strategy::warp_8tpr, 49},
                  {"ppni-4tpr", Strategy::ppni_4tpr, 51},
                  {"two-kernel", Strategy::two_kernel, 20},
                  {"atomic-4tpr", Strategy::atomic_4tpr, 45}};
  for (const auto& v : variants) {
    auto variant = make_variant(v.name, v.preference);
    const Strategy strategy = v.strategy;
    // The baseline of the strategy comparison (Kiran et al.'s speedups are over it).
    if (strategy == Strategy::thread_per_element) variant.role = VariantRole::baseline;
    variant.prepare = [strategy](const AssemblyProblem& p) {
      return std::make_unique<AssemblyRun<Backend, Calls>>(p, strategy);
    };
    Registry<FemAssemble>::add(std::move(variant));
  }
  // factored-atomic-runs: the atomic adds by whole node-pair runs
  // (ke_entry_order.hpp), which touch fewer L2 sectors per element than
  // factored-atomic's row-major rounds (5% fewer on the box, 2% on a general
  // mesh, whose runs are no longer contiguous; ppkit_fem_sector_stats), so
  // first of the factored variants (docs/fem.md).
  const struct {
    const char* name;
    FactoredOrder order;
    KeEntryOrder entries;
    int preference;
  } factored[] = {
      {"factored-atomic", FactoredOrder::morton_atomic, KeEntryOrder::row_major, 60},
      {"factored-colour", FactoredOrder::colour_first_writer, KeEntryOrder::row_major, 59},
      {"factored-atomic-runs", FactoredOrder::morton_atomic, KeEntryOrder::node_pair_runs, 61}};
  for (const auto& v : factored) {
    auto variant = make_variant(v.name, v.preference);
    const FactoredOrder order = v.order;
    const KeEntryOrder entries = v.entries;
    variant.prepare = [order, entries](const AssemblyProblem& p) {
      return std::make_unique<FactoredRun<Backend, Calls>>(p, order, entries);
    };
    Registry<FemAssemble>::add(std::move(variant));
  }
  // Below factored-atomic and atomic-4tpr: its 95.7 KB shared accumulator
  // leaves 8 warps per SM, each tile colour ends in a block barrier and the
  // flush leaves the FP64 pipes idle (docs/fem.md, strategy (g)).
  auto tiled = make_variant("tiled", 44);
  tiled.prepare = [](const AssemblyProblem& p) {
    return std::make_unique<TiledRun<Backend, Calls>>(p);
  };
  Registry<FemAssemble>::add(std::move(tiled));
  // node-gather: ahead of factored-atomic-runs on a GPU (each CSR value
  // written once, no atomics; docs/fem.md, strategy (h)), so first for "auto".
  auto gather = make_variant("node-gather", 62);
  gather.prepare = [](const AssemblyProblem& p) {
    return std::make_unique<NodeGatherRun<Backend, Calls>>(p);
  };
  Registry<FemAssemble>::add(std::move(gather));
}

}  // namespace ppkit::fem::gpu_assembly
