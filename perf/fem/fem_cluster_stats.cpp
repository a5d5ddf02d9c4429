// ppkit_fem_cluster_stats: how often strategy (i)'s clusters form each element
// on the benchmark's box (ppkit_bench_fem: perturbation 0.15, seed 2019), from
// the layout alone (host, no GPU). docs/fem.md, "Strategy (i)", quotes it:
//
//   ppkit_fem_cluster_stats 64                    # the benchmark's 64^3 box
//   ppkit_fem_cluster_stats 64 --perturbation 0   # the same box unmoved
//   ppkit_fem_cluster_stats 64 --max-nodes 32 --max-blocks 864 --max-elements 75 --colour-capacity
//   8
//   ppkit_fem_cluster_stats 64 --group 8          # 8 consecutive clusters forming elements
//   together
//   ppkit_fem_cluster_stats 64 --pack-elements 8  # elements packed by cluster rows
//   ppkit_fem_cluster_stats 64 --colour-capacity 10 --pack-elements 4 --symmetric-blocks 1
//                                                 # cuda/cluster-gather's own setting
//   ppkit_fem_cluster_stats 64 --colour-capacity 10 --pack-elements 4 --symmetric-blocks 1
//   --first-add-stores 1 --bank-stride 10         # and its accumulator's wavefronts
//   ppkit_fem_cluster_stats 64 --scrambled 1 ...  # on the scrambled box (a general mesh,
//                                                 # make_scrambled_box_mesh) instead
//
// It prints the host times of the node gather layout (strategy (h)'s, which
// strategy (i) builds on), of the cluster layout and of the bank
// renumbering: the set-up cuda/cluster-gather's prepare() spends on them.
// --group G counts the elements around each run of G consecutive clusters once,
// as G thread blocks of one Hopper thread-block cluster sharing their
// accumulators through distributed shared memory would form them: the
// formations per element such a kernel needs, and the share of their blocks it
// adds into another block's accumulator (docs/fem.md, "Strategy (i)", on why
// the kernel keeps one block per cluster).
//
// --bank-stride S counts the shared-memory wavefronts of cuda/cluster-gather's
// accesses to its accumulator with blocks S doubles apart (cluster_banks.hpp),
// in the layout's numbering and renumbered for the banks, and the
// renumbering's time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "backends/cuda/fem/cluster_banks.hpp"
#include "ppkit/fem/cluster_layout.hpp"

namespace {

int usage(const char* message) {
  std::fprintf(stderr,
               "ppkit_fem_cluster_stats: %s\n"
               "usage: ppkit_fem_cluster_stats N [--perturbation P] [--max-nodes M] "
               "[--max-blocks B] [--max-elements E] [--colour-capacity C] [--pack-elements P] "
               "[--symmetric-blocks 0|1] [--first-add-stores 0|1] [--group G] [--bank-stride S] "
               "[--scrambled 0|1]\n"
               "  N: elements per side of the box (1..256); P: node moves in edges (0..0.15, "
               "default 0.15)\n",
               message);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ppkit::fem;
  if (argc < 2) return usage("missing N");
  const int n = std::atoi(argv[1]);
  if (n < 1 || n > 256) return usage("N is out of range");
  double perturbation = 0.15;
  int group = 1, bank_stride = 0;
  bool scrambled = false;
  ClusterGatherOptions options;
  for (int k = 2; k < argc; k += 2) {
    if (k + 1 >= argc) return usage((std::string("missing the value of ") + argv[k]).c_str());
    const std::string name = argv[k];
    const double value = std::atof(argv[k + 1]);
    if (name == "--perturbation")
      perturbation = value;
    else if (name == "--max-nodes")
      options.max_nodes = int(value);
    else if (name == "--max-blocks")
      options.max_blocks = int(value);
    else if (name == "--max-elements")
      options.max_elements = int(value);
    else if (name == "--colour-capacity")
      options.colour_capacity = int(value);
    else if (name == "--pack-elements")
      options.max_pack_elements = int(value);
    else if (name == "--symmetric-blocks")
      options.symmetric_blocks = value != 0;
    else if (name == "--group")
      group = int(value);
    else if (name == "--first-add-stores")
      options.first_add_stores = value != 0;
    else if (name == "--bank-stride")
      bank_stride = int(value);
    else if (name == "--scrambled")
      scrambled = value != 0;
    else
      return usage(("unknown option " + name).c_str());
  }
  if (group < 1) return usage("G must be 1 or more");
  try {
    BoxMeshSpec spec;
    spec.elements = {n, n, n};
    spec.perturbation = perturbation;
    spec.seed = 2019;
    const AssemblyProblem problem = make_assembly_problem(
        scrambled ? make_scrambled_box_mesh(spec) : make_box_mesh(spec), Material{});
    auto since = [](std::chrono::steady_clock::time_point start) {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    const auto nodes_start = std::chrono::steady_clock::now();
    const NodeGatherLayout nodes = make_node_gather_layout(problem);
    const double nodes_s = since(nodes_start);
    const auto layout_start = std::chrono::steady_clock::now();
    ClusterGatherLayout L = make_cluster_gather_layout(problem, nodes, options);
    const double layout_s = since(layout_start);
    const double elements = double(problem.mesh.num_elements());
    const double groups = double(L.colour_offsets.size() - 1);
    std::printf(
        "%sbox %d^3, perturbation %g, max_nodes %d, max_blocks %d, max_elements %d, "
        "colour_capacity %d, max_pack_elements %d; node gather layout %.2f s, cluster layout "
        "%.2f s\n"
        "clusters %lld, cluster elements %lld = %.3f formations per element, packs %lld = %.3f "
        "per element, colour groups %.0f = %.2f per cluster\n"
        "largest cluster: %d nodes, %d accumulator blocks (%d row blocks), %d elements, %d packs, "
        "%d colours\n",
        scrambled ? "scrambled " : "", n, perturbation, options.max_nodes, options.max_blocks,
        options.max_elements, options.colour_capacity, options.max_pack_elements, nodes_s, layout_s,
        (long long)L.num_clusters(), (long long)L.num_cluster_elements(),
        double(L.num_cluster_elements()) / elements, (long long)L.num_packs(),
        double(L.num_packs()) / elements, groups, groups / double(L.num_clusters()), L.max_nodes,
        L.max_blocks, L.max_row_blocks, L.max_elements, L.max_packs, L.max_colours);
    if (options.max_pack_elements > 1) {
      std::vector<long long> sizes(std::size_t(options.max_pack_elements) + 1, 0);
      for (std::int64_t k = 0; k < L.num_packs(); ++k)
        ++sizes[std::size_t(L.pack_offsets[k + 1] - L.pack_offsets[k])];
      std::printf("packs by elements:");
      for (std::size_t m = 1; m < sizes.size(); ++m) std::printf(" %zu: %lld", m, sizes[m]);
      std::printf("\n");
    }
    if (group > 1) {
      // Distinct elements of each run of `group` clusters, each formed once by
      // the cluster holding most of its nodes (its owner); its blocks of the
      // group's other clusters' nodes would be added remotely (distributed
      // shared memory).
      std::vector<std::int64_t> cluster_of_node(std::size_t(problem.mesh.num_nodes()), -1);
      for (std::int64_t c = 0; c < L.num_clusters(); ++c)
        for (std::int64_t slot = L.cluster_slots[c]; slot < L.cluster_slots[c + 1]; ++slot)
          cluster_of_node[std::size_t(L.node_of_slot[std::size_t(slot)])] = c;
      long long formations = 0, local = 0, remote = 0;
      std::vector<std::int32_t> around;
      for (std::int64_t c0 = 0; c0 < L.num_clusters(); c0 += group) {
        const std::int64_t c1 = std::min<std::int64_t>(c0 + group, L.num_clusters());
        around.assign(L.elements.begin() + L.pack_offsets[L.colour_offsets[L.cluster_colours[c0]]],
                      L.elements.begin() + L.pack_offsets[L.colour_offsets[L.cluster_colours[c1]]]);
        std::sort(around.begin(), around.end());
        around.erase(std::unique(around.begin(), around.end()), around.end());
        formations += std::int64_t(around.size());
        for (const std::int32_t e : around) {
          std::vector<int> in_cluster(std::size_t(c1 - c0), 0);
          for (int a = 0; a < 8; ++a) {
            const std::int64_t c =
                cluster_of_node[std::size_t(problem.mesh.elements[8 * std::size_t(e) + a])];
            if (c >= c0 && c < c1) ++in_cluster[std::size_t(c - c0)];
          }
          const int owner = *std::max_element(in_cluster.begin(), in_cluster.end());
          local += owner;
          for (const int count : in_cluster) remote += count;
          remote -= owner;
        }
      }
      std::printf(
          "groups of %d clusters: %lld formations = %.3f per element; of the rows' blocks they "
          "add, %.1f%% go to another cluster of the group than the forming one\n",
          group, formations, double(formations) / elements,
          100.0 * double(remote) / double(local + remote));
    }
    if (bank_stride != 0) {
      const AccumulatorWavefronts before = count_accumulator_wavefronts(L, bank_stride);
      const auto start = std::chrono::steady_clock::now();
      const std::int64_t shapes = renumber_accumulator_blocks(L, bank_stride);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const AccumulatorWavefronts after = count_accumulator_wavefronts(L, bank_stride);
      std::printf(
          "accumulator wavefronts (blocks %d doubles apart): adds %.2f M, rows %.2f M in the "
          "layout's numbering; %.2f M, %.2f M renumbered for the banks (%lld cluster shapes, "
          "%.2f s)\n",
          bank_stride, double(before.adds) / 1e6, double(before.rows) / 1e6,
          double(after.adds) / 1e6, double(after.rows) / 1e6, (long long)shapes, seconds);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ppkit_fem_cluster_stats: %s\n", e.what());
    return 1;
  }
  return 0;
}
