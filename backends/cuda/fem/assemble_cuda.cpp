// Hand-tuned CUDA variants of fem.assemble: cuda/<strategy> for the strategies
// of assemble_gpu_runs.hpp (host glue shared with HIP, kernels in
// assemble_cuda_kernels.cu) and the NVIDIA-only cluster gather (i)
// (assemble_cluster_kernels.cu).
#include <string>

#include "backends/cuda/core/cuda_device.hpp"
#include "backends/cuda/fem/assemble_cluster_kernels.hpp"
#include "backends/cuda_hip/fem/assemble_gpu_runs.hpp"
#include "backends/cuda/fem/cluster_banks.hpp"
#include "ppkit/fem/cluster_layout.hpp"

namespace ppkit::fem::gpu_assembly {
namespace {

// (i) cluster gather: kernel 1 ((e)'s) stores the Gauss-point geometry of the
// input-order elements, kernel 2 (a block per node cluster at a time) writes
// every CSR value and load entry once (no zeroing). Both are captured once
// into a CUDA graph (cuda::LaunchGraph), so a run pays one graph launch
// rather than two kernel launches on the default stream.
// As an operator (AssemblerApplier) the two kernels are launched on the
// caller's stream with the caller's outputs and material, without a graph
// (a graph holds the arguments it was captured with).
class ClusterGatherRun final : public GpuAssembler<CudaBackend, cuda::RuntimeCalls> {
  using Base = GpuAssembler<CudaBackend, cuda::RuntimeCalls>;
  using Kernels = Hex8Kernels<CudaBackend>;
  template <class T>
  using Buffer = cuda::DeviceBuffer<T>;

 public:
  explicit ClusterGatherRun(const AssemblyProblem& p) : Base(p), elements_(p.mesh.num_elements()) {
    const NodeGatherLayout nodes = make_node_gather_layout(p);
    ClusterGatherOptions options;
    options.colour_capacity = shape_.warps;
    options.max_pack_elements = cuda_cluster::kClusterPackElements;
    options.symmetric_blocks = shape_.symmetric_blocks;
    options.first_add_stores = true;
    options.max_blocks =
        std::min(options.max_blocks, cuda_cluster::cluster_block_capacity(options.max_nodes));
    ClusterGatherLayout layout = make_cluster_gather_layout(p, nodes, options);
    // Block numbers chosen for the shared-memory banks (cluster_banks.hpp):
    // they spread each pass of the cluster kernel's accumulator loads and
    // stores over the 32 banks, so it takes fewer shared-memory wavefronts
    // (ppkit_fem_cluster_stats --bank-stride counts them).
    renumber_accumulator_blocks(layout, cuda_cluster::kClusterBlockStride);
    clusters_ = layout.num_clusters();
    inputs_.upload(p, {}, p.mesh.elements, element_arrays_);
    geometry_ = Buffer<double>(80 * std::size_t(elements_));
    node_of_slot_ = Buffer<std::int32_t>(layout.node_of_slot);
    cluster_slots_ = Buffer<std::int64_t>(layout.cluster_slots);
    cluster_blocks_ = Buffer<std::int32_t>(layout.cluster_blocks);
    slot_blocks_ = Buffer<std::uint16_t>(layout.slot_blocks);
    slot_rows_ = Buffer<std::int64_t>(layout.slot_rows);
    cluster_colours_ = Buffer<std::int64_t>(layout.cluster_colours);
    colour_offsets_ = Buffer<std::int64_t>(layout.colour_offsets);
    {
      // The kernel's per-lane forms of the packs' tables (Hex8ClusterArrays).
      const std::int64_t packs = layout.num_packs();
      std::vector<std::int32_t> members(8 * std::size_t(packs), -1);
      std::vector<std::uint32_t> lane_nodes(32 * std::size_t(packs));
      for (std::int64_t k = 0; k < packs; ++k) {
        const std::int64_t first = layout.pack_offsets[k],
                           count = layout.pack_offsets[k + 1] - first;
        for (std::int64_t m = 0; m < count; ++m) members[8 * k + m] = layout.elements[first + m];
        for (int lane = 0; lane < 32; ++lane) {
          const int a = lane / 4, pair = lane % 4;
          lane_nodes[32 * k + lane] =
              std::uint32_t(pair < 3 ? layout.node_slots[8 * k + a] : kClusterNoSlot) |
              std::uint32_t(pair == 0 ? layout.node_waits[8 * k + a] : 0) << 8 |
              std::uint32_t(layout.row_members[8 * k + a]) << 16 | std::uint32_t(count) << 24;
        }
      }
      pack_members_ = Buffer<std::int32_t>(members);
      lane_nodes_ = Buffer<std::uint32_t>(lane_nodes);
    }
    lane_blocks_ = Buffer<std::uint32_t>(layout.lane_blocks);
    row_block_offsets_ = Buffer<std::int64_t>(layout.row_block_offsets);
    {
      // 8 entries past the end: the kernel copies each cluster's row blocks
      // 16 bytes at a time from the 16-byte boundary at or before its first.
      std::vector<std::uint16_t> padded = layout.row_blocks;
      padded.resize(padded.size() + 8, 0);
      row_blocks_ = Buffer<std::uint16_t>(padded);
    }
    arrays_.row_block_offsets = row_block_offsets_.data();
    arrays_.row_blocks = row_blocks_.data();
    arrays_.max_row_blocks = layout.max_row_blocks;
    arrays_.geometry = geometry_.data();
    arrays_.node_of_slot = node_of_slot_.data();
    arrays_.cluster_slots = cluster_slots_.data();
    arrays_.cluster_blocks = cluster_blocks_.data();
    arrays_.slot_blocks = slot_blocks_.data();
    arrays_.slot_rows = slot_rows_.data();
    arrays_.cluster_colours = cluster_colours_.data();
    arrays_.colour_offsets = colour_offsets_.data();
    arrays_.pack_members = pack_members_.data();
    arrays_.lane_nodes = lane_nodes_.data();
    arrays_.lane_blocks = lane_blocks_.data();
    copy_outputs_and_material(element_arrays_, arrays_);
    arrays_.max_blocks = layout.max_blocks;
    arrays_.max_nodes = layout.max_nodes;
    if (p.own_outputs)
      launches_ = cuda::LaunchGraph([this](void* stream) {
        Kernels::launch_gauss_geometry(element_arrays_, geometry_.data(), elements_, stream);
        cuda_cluster::launch_cluster_gather(arrays_, clusters_, shape_, stream);
      });
  }

  void run() override {
    require_own_outputs();
    launches_.run_and_wait();
  }

 private:
  // No zeroing: kernel 2 writes every CSR value and load entry once.
  void launch(const AssemblyOutputs& o, void* stream) override {
    Kernels::launch_gauss_geometry(element_arrays_, geometry_.data(), elements_, stream);
    cuda_cluster::launch_cluster_gather(with_outputs(arrays_, o), clusters_, shape_, stream);
  }

  std::int64_t elements_ = 0, clusters_ = 0;
  cuda_cluster::ClusterKernelShape shape_ = cuda_cluster::cluster_kernel_shape();
  Buffer<double> geometry_;
  Buffer<std::int32_t> node_of_slot_, cluster_blocks_, pack_members_;
  Buffer<std::int64_t> cluster_slots_, cluster_colours_, colour_offsets_, slot_rows_,
      row_block_offsets_;
  Buffer<std::uint16_t> slot_blocks_, row_blocks_;
  Buffer<std::uint32_t> lane_blocks_, lane_nodes_;
  Hex8AssemblyArrays element_arrays_;  // kernel 1's inputs: input-order nodes
  Hex8ClusterArrays arrays_;
  cuda::LaunchGraph launches_;  // kernels 1 and 2 with the arguments above
};

// fp64 mma.sync needs compute capability 8.0 and kernel code built for it.
Availability cluster_gather_availability() {
  const Availability device = cuda::device_availability();
  if (!device.available) return device;
  const int version = cuda_cluster::cluster_gather_binary_version();
  if (version == 0)
    return Availability::no(
        "this build holds no kernel code the CUDA device can run (configure with "
        "CMAKE_CUDA_ARCHITECTURES including the device's)");
  if (version < 80)
    return Availability::no(
        "fp64 tensor-core products (mma.sync) need compute capability 8.0 or "
        "newer; the device runs sm_" +
        std::to_string(version) + " code");
  return Availability::yes();
}

}  // namespace
}  // namespace ppkit::fem::gpu_assembly

namespace ppkit::registration {
void register_fem_cuda_variants() {
  using namespace fem::gpu_assembly;
  register_variants<fem::CudaBackend, cuda::RuntimeCalls>(cuda::cuda_variant<fem::FemAssemble>);
  // node-gather stays ahead of cluster-gather for "auto": it runs on every
  // GPU and its speed does not depend on the mesh cutting into compact
  // clusters (docs/fem.md, strategy (i)). On a general mesh (the scrambled
  // box, docs/fem.md "General meshes and set-up") the clusters form each
  // element 2.48 times instead of 1.95 and need 15.4 colour groups instead of
  // 8, and the layout and bank numbering cost more host time
  // (ppkit_fem_cluster_stats prints both).
  auto cluster = cuda::cuda_variant<fem::FemAssemble>("cluster-gather", 58);
  cluster.availability = cluster_gather_availability;
  cluster.prepare = [](const fem::AssemblyProblem& p) {
    return std::make_unique<ClusterGatherRun>(p);
  };
  Registry<fem::FemAssemble>::add(std::move(cluster));
}
}  // namespace ppkit::registration
