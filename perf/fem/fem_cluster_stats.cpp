// ppkit_fem_cluster_stats: how often strategy (i)'s clusters form each element
// on the benchmark's box (ppkit_bench_fem: perturbation 0.15, seed 2019), from
// the layout alone (host, no GPU). docs/fem.md, "Strategy (i)", quotes it:
//
//   ppkit_fem_cluster_stats 64                    # the benchmark's 64^3 box
//   ppkit_fem_cluster_stats 64 --perturbation 0   # the same box unmoved
//   ppkit_fem_cluster_stats 64 --max-nodes 32 --max-blocks 864 --max-elements 75 --colour-capacity
//   8
//   ppkit_fem_cluster_stats 64 --group 8          # cluster groups of 8 (cuda/cluster-gather
//                                                 # on sm_90)
//
// --group G builds the layout with ClusterGatherOptions::cluster_group = G: G
// consecutive clusters, the thread blocks of one thread-block cluster sharing
// their accumulators through distributed shared memory, form each element
// around them once. It prints the formations per element, the share of the
// blocks added into another block's accumulator, and how many elements the
// busiest cluster of a group forms (the group waits for it).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "ppkit/fem/cluster_layout.hpp"

namespace {

int usage(const char* message) {
  std::fprintf(stderr,
               "ppkit_fem_cluster_stats: %s\n"
               "usage: ppkit_fem_cluster_stats N [--perturbation P] [--max-nodes M] "
               "[--max-blocks B] [--max-elements E] [--colour-capacity C] [--group G]\n"
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
    else if (name == "--group")
      options.cluster_group = int(value);
    else
      return usage(("unknown option " + name).c_str());
  }
  try {
    BoxMeshSpec spec;
    spec.elements = {n, n, n};
    spec.perturbation = perturbation;
    spec.seed = 2019;
    const AssemblyProblem problem = make_assembly_problem(make_box_mesh(spec), Material{});
    const ClusterGatherLayout L =
        make_cluster_gather_layout(problem, make_node_gather_layout(problem), options);
    const double elements = double(problem.mesh.num_elements());
    const double groups = double(L.colour_offsets.size() - 1);
    std::printf(
        "box %d^3, perturbation %g, max_nodes %d, max_blocks %d, max_elements %d, colour_capacity "
        "%d\n"
        "clusters %lld, cluster elements %lld = %.3f formations per element, colour groups %.0f = "
        "%.2f per cluster\n"
        "largest cluster: %d nodes, %d blocks, %d elements, %d colours\n",
        n, perturbation, options.max_nodes, options.max_blocks, options.max_elements,
        options.colour_capacity, (long long)L.num_clusters(), (long long)L.num_cluster_elements(),
        double(L.num_cluster_elements()) / elements, groups, groups / double(L.num_clusters()),
        L.max_nodes, L.max_blocks, L.max_elements, L.max_colours);
    if (options.cluster_group > 1) {
      // The blocks the group's clusters add into another cluster's
      // accumulator (distributed shared memory), and how evenly the groups
      // share their elements: each group waits for its busiest cluster.
      long long local = 0, remote = 0, atomic = 0, busiest = 0;
      for (std::int64_t c = 0; c < L.num_clusters(); ++c) {
        const int rank = int(c % options.cluster_group);
        for (std::int64_t k = L.colour_offsets[L.cluster_colours[c]];
             k < L.colour_offsets[L.cluster_colours[c + 1]]; ++k)
          for (int a = 0; a < 8; ++a)
            if (L.node_slots[8 * std::size_t(k) + a] != kClusterNoSlot) {
              (L.node_ranks[8 * std::size_t(k) + a] == rank ? local : remote) += 8;
              if (L.node_waits[8 * std::size_t(k) + a] == kClusterAddAtomically) atomic += 8;
            }
      }
      for (std::int64_t c0 = 0; c0 < L.num_clusters(); c0 += options.cluster_group) {
        long long most = 0;
        for (std::int64_t c = c0;
             c < std::min<std::int64_t>(c0 + options.cluster_group, L.num_clusters()); ++c)
          most = std::max<long long>(most, L.colour_offsets[L.cluster_colours[c + 1]] -
                                               L.colour_offsets[L.cluster_colours[c]]);
        busiest += most;
      }
      const double groups_count =
          double((L.num_clusters() + options.cluster_group - 1) / options.cluster_group);
      std::printf(
          "groups of %d clusters: of the rows' blocks added, %.1f%% go to another cluster of the "
          "group than the forming one, %.1f%% are added atomically (to nodes another cluster adds "
          "into); the busiest cluster of a group forms %.1f elements on average (%.1f per "
          "cluster)\n",
          options.cluster_group, 100.0 * double(remote) / double(local + remote),
          100.0 * double(atomic) / double(local + remote), double(busiest) / groups_count,
          double(L.num_cluster_elements()) / double(L.num_clusters()));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ppkit_fem_cluster_stats: %s\n", e.what());
    return 1;
  }
  return 0;
}
