// kokkos-<space>/cluster-gather: strategy (i) (cluster_layout.hpp, docs/fem.md
// "Strategy (i)") written once for every execution space, with fp64 FMAs in
// place of cuda/cluster-gather's tensor-core products:
//  1. GaussGeometryKernel (strategy (e)'s kernel 1) stores every Gauss point's
//     inverse Jacobian and |J| w, elements in input order;
//  2. one team of 32 vector lanes per cluster of 4 nodes (kClusterNodes), a
//     2 x 2 x 1 brick of the lattice on a box, takes the cluster's elements
//     one after the other: index 8 b + q forms the derivatives
//     g_b(q) = J_q^-T dN_b(q) of all 8 nodes into team scratch; then index
//     8 r + b, r over the element's nodes a in the cluster, integrates
//       M = sum_q |J_q| w g_a(q) g_b(q)^T,  K = lambda M + mu M^T + mu tr(M) I
//     (isotropic B^T D B) and adds it into an accumulator of the cluster's
//     rows in team scratch. One element's blocks are distinct and the team
//     takes the elements in turn, so the adds need no atomics and no colours;
//     each block of a row is formed once (only rows of the cluster's nodes),
//     and each element's derivatives once per cluster it touches (4.48 times
//     on a box, against node-gather's 8). The rows are then stored once.
#include <algorithm>
#include <type_traits>

#include "ppkit/fem/assemble_kokkos.hpp"
#include "ppkit/fem/cluster_layout.hpp"

namespace ppkit::fem::kokkos_assembly {
namespace {

template <class Space>
struct ClusterDevice : AssemblyCommon<Space> {
  template <class T>
  using View = typename AssemblyCommon<Space>::template View<T>;
  View<double> geometry;  // 80 per element (input order), GaussGeometryKernel, value-major
  View<std::int32_t> node_of_slot, cluster_blocks, elements;
  View<std::int64_t> cluster_slots, slot_rows, cluster_colours, colour_offsets;
  View<std::uint16_t> slot_blocks;
  View<std::uint32_t> lane_blocks;
  View<std::uint8_t> node_slots;
  int max_blocks = 0, max_nodes = 0;
};

template <class Space>
struct ClusterGatherKernel {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;
  using Scratch =
      Kokkos::View<double*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  ClusterDevice<Space> d;

  // Accumulator (9 per block), load (3 per node), derivatives [3 (8 q + b) + i]
  // and |J_q| w.
  KOKKOS_INLINE_FUNCTION static int scratch_doubles(int max_blocks, int max_nodes) {
    return 9 * max_blocks + 3 * max_nodes + 192 + 8;
  }

  // Block (a, b) of cluster element k: lane 4 a + b / 2's word of the layout.
  KOKKOS_INLINE_FUNCTION int block_of(std::int64_t k, int a, int b) const {
    return int(d.lane_blocks(32 * k + 4 * a + b / 2) >> (16 * (b % 2)) & 0xFFFFu);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t c = team.league_rank();
    const std::int64_t s0 = d.cluster_slots(c), nodes = d.cluster_slots(c + 1) - s0;
    const std::int64_t k0 = d.colour_offsets(d.cluster_colours(c));
    const std::int64_t k1 = d.colour_offsets(d.cluster_colours(c + 1));
    const int blocks = d.cluster_blocks(c);
    Scratch scratch(team.team_scratch(0), scratch_doubles(d.max_blocks, d.max_nodes));
    double* const accumulator = scratch.data();
    double* const load = accumulator + 9 * d.max_blocks;
    double* const G = load + 3 * d.max_nodes;
    double* const W = G + 192;
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 9 * blocks),
                         [&](const int m) { accumulator[m] = 0; });
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, int(3 * nodes)),
                         [&](const int m) { load[m] = 0; });
    team.team_barrier();
    // Packs of one element (ClusterGatherOptions' default): pack k is element k.
    for (std::int64_t k = k0; k < k1; ++k) {
      const std::int64_t e = d.elements(k);
      // Index 8 b + q: g_b(q); consecutive indices read consecutive doubles
      // of the value-major record.
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 64), [&](const int item) {
        const int b = item / 8, q = item % 8;
        double inv[9];
        for (int m = 0; m < 9; ++m) inv[m] = d.geometry(80 * e + 8 * m + q);
        double N, dN[3];
        hex8_gauss_shape(b, q, N, dN);
        for (int i = 0; i < 3; ++i)
          G[3 * (8 * q + b) + i] =
              inv[3 * i] * dN[0] + inv[3 * i + 1] * dN[1] + inv[3 * i + 2] * dN[2];
        if (b == 0) W[q] = d.geometry(80 * e + 72 + q);
      });
      team.team_barrier();
      int rows = 0;  // the element's nodes in the cluster
      for (int a = 0; a < 8; ++a) rows += d.node_slots(8 * k + a) != kClusterNoSlot;
      // Index 8 r + b: block (a, b), a the element's r-th node in the cluster.
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 8 * rows), [&](const int item) {
        const int r = item / 8, b = item % 8;
        int a = 0;
        for (int x = 0, seen = 0; x < 8; ++x)
          if (d.node_slots(8 * k + x) != kClusterNoSlot) {
            if (seen == r) a = x;
            ++seen;
          }
        double M[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
        for (int q = 0; q < 8; ++q)
          for (int i = 0; i < 3; ++i) {
            const double wa = W[q] * G[3 * (8 * q + a) + i];
            for (int j = 0; j < 3; ++j) M[3 * i + j] += wa * G[3 * (8 * q + b) + j];
          }
        double* const target = accumulator + 9 * block_of(k, a, b);
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            target[3 * i + j] += isotropic_block_entry(M, d.lambda, d.mu, i, j);
        if (b == 0) {  // node a's body force: sum_q N_a(q) |J_q| w
          double weight = 0;
          for (int q = 0; q < 8; ++q) {
            double N, dN[3];
            hex8_gauss_shape(a, q, N, dN);
            weight += N * W[q];
          }
          const int slot = d.node_slots(8 * k + a);
          for (int i = 0; i < 3; ++i) load[3 * slot + i] += weight * d.body(i);
        }
      });
      team.team_barrier();
    }
    // The cluster's rows (consecutive and equally long per node,
    // csr_pattern.hpp) and load, each stored once.
    for (std::int64_t s = s0; s < s0 + nodes; ++s) {
      const int first = d.slot_blocks(s);
      const int next = s + 1 < s0 + nodes ? int(d.slot_blocks(s + 1)) : blocks;
      const int row_length = 3 * (next - first);
      const std::int64_t row = d.slot_rows(s);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, row_length), [&](const int v) {
        for (int i = 0; i < 3; ++i)
          d.values(row + std::int64_t(i) * row_length + v) =
              accumulator[9 * (first + v / 3) + 3 * i + v % 3];
      });
    }
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, int(3 * nodes)), [&](const int m) {
      d.load(3 * std::int64_t(d.node_of_slot(s0 + m / 3)) + m % 3) = load[m];
    });
  }
};

// Clusters of max_nodes nodes; the accumulator and element limits follow the
// mesh (its largest node), so any hex mesh gets a layout.
ClusterGatherOptions team_cluster_options(const AssemblyProblem& p, const NodeGatherLayout& G,
                                          int max_nodes) {
  std::int64_t widest = 0, busiest = 0;
  for (std::int64_t v = 0; v < p.mesh.num_nodes(); ++v)
    widest =
        std::max(widest, (p.pattern.row_offsets[3 * v + 1] - p.pattern.row_offsets[3 * v]) / 3);
  for (std::int64_t s = 0; s < G.num_nodes(); ++s)
    busiest = std::max(busiest, G.incidence_offsets[s + 1] - G.incidence_offsets[s]);
  ClusterGatherOptions options;
  options.max_nodes = max_nodes;
  options.max_blocks = int(std::max<std::int64_t>(27 * max_nodes, widest));
  options.max_elements = int(std::max<std::int64_t>(27 * max_nodes, busiest));
  options.colour_capacity = options.max_elements;  // the team takes the elements in turn
  return options;
}

template <class Space>
class ClusterGatherRun final : public KokkosAssembler<Space> {
 public:
  explicit ClusterGatherRun(const AssemblyProblem& p) : KokkosAssembler<Space>(p) {
    const NodeGatherLayout nodes = make_node_gather_layout(p);
    const ClusterGatherLayout L =
        make_cluster_gather_layout(p, nodes, team_cluster_options(p, nodes, kClusterNodes));
    upload_assembly_common<Space>(p, nodes.element_coordinates, p.mesh.elements, d_);
    d_.geometry = typename ClusterDevice<Space>::template View<double>(
        "fem Gauss-point geometry", 80 * std::size_t(p.mesh.num_elements()));
    const auto up = [](const auto& host, const char* label) {
      using T = typename std::decay_t<decltype(host)>::value_type;
      return upload<T, Space>(host.data(), host.size(), label);
    };
    d_.node_of_slot = up(L.node_of_slot, "fem cluster nodes");
    d_.cluster_blocks = up(L.cluster_blocks, "fem cluster blocks");
    d_.elements = up(L.elements, "fem cluster elements");
    d_.cluster_slots = up(L.cluster_slots, "fem cluster slots");
    d_.slot_rows = up(L.slot_rows, "fem cluster rows");
    d_.cluster_colours = up(L.cluster_colours, "fem cluster colours");
    d_.colour_offsets = up(L.colour_offsets, "fem cluster colour offsets");
    d_.slot_blocks = up(L.slot_blocks, "fem cluster slot blocks");
    d_.lane_blocks = up(L.lane_blocks, "fem cluster lane blocks");
    d_.node_slots = up(L.node_slots, "fem cluster node slots");
    d_.max_blocks = L.max_blocks;
    d_.max_nodes = L.max_nodes;
    clusters_ = L.num_clusters();
  }

 private:
  // No zeroing: kernel 2 writes every CSR value and load entry once.
  void launch(const Space& exec) override {
    GaussGeometryKernel<Space>::launch("fem cluster-gather geometry", d_, d_.geometry,
                                       GeometryLayout::value_major, exec);
    using Kernel = ClusterGatherKernel<Space>;
    const auto policy =
        Kokkos::TeamPolicy<Space>(exec, clusters_, 1, 32)
            .set_scratch_size(0, Kokkos::PerTeam(Kernel::Scratch::shmem_size(
                                     Kernel::scratch_doubles(d_.max_blocks, d_.max_nodes))));
    Kokkos::parallel_for("fem cluster-gather", policy, Kernel{d_});
  }
  AssemblyCommon<Space>& common() override { return d_; }

  // 4 nodes: a 7.8 KB accumulator on a box. 8-node clusters (a 2 x 2 x 2
  // brick) form each element's derivatives 3.36 instead of 4.48 times, but
  // their larger accumulators leave fewer teams per SM, which costs more than
  // the derivatives they save (16-node clusters more so).
  static constexpr int kClusterNodes = 4;
  std::int64_t clusters_ = 0;
  ClusterDevice<Space> d_;
};

}  // namespace

void register_cluster_gather() {
  // Behind node-gather on a GPU (docs/fem.md): after node-gather and tiled
  // for "auto".
  register_kokkos_run<ClusterGatherRun>("cluster-gather", 38);
}

}  // namespace ppkit::fem::kokkos_assembly
