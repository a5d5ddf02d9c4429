// Inputs of the cluster-gather strategy (i): clusters of the Morton node order,
// each cluster's elements coloured so that one colour's elements share no
// node of the cluster, and the lane tables of the tensor-core layout. Checked
// against the CSR pattern's column indices, and by a serial walk of the
// layout exactly as the kernel walks it (cluster by cluster, colour by
// colour, lane 4 a + p adding blocks (a, 2 p) and (a, 2 p + 1)) with the
// serial reference element matrices, against the reference assembly.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "fem_test_problems.hpp"
#include "harness/variant_test.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/fem/cluster_layout.hpp"
#include "ppkit/fem/factored_layout.hpp"  // lattice_morton_node_order

namespace {
using namespace ppkit::fem;

void expect_valid_clusters(const AssemblyProblem& problem, const ClusterGatherOptions& options) {
  const auto& mesh = problem.mesh;
  const auto& pattern = problem.pattern;
  const NodeGatherLayout nodes = make_node_gather_layout(problem);
  const ClusterGatherLayout L = make_cluster_gather_layout(problem, nodes, options);
  {
    std::vector<std::int32_t> sorted(L.node_of_slot);
    std::sort(sorted.begin(), sorted.end());
    for (std::int64_t v = 0; v < mesh.num_nodes(); ++v) ASSERT_EQ(sorted[v], v);
  }
  ASSERT_EQ(L.cluster_group, options.cluster_group);
  ASSERT_EQ(L.cluster_slots.front(), 0);
  ASSERT_EQ(L.cluster_slots.back(), mesh.num_nodes());
  ASSERT_EQ(std::int64_t(L.lane_blocks.size()), 32 * L.num_cluster_elements());
  ASSERT_EQ(std::int64_t(L.node_slots.size()), 8 * L.num_cluster_elements());
  ASSERT_EQ(std::int64_t(L.element_colours.size()), L.num_cluster_elements());
  ASSERT_EQ(std::int64_t(L.node_waits.size()), 8 * L.num_cluster_elements());
  ASSERT_EQ(std::int64_t(L.node_ranks.size()), 8 * L.num_cluster_elements());
  const auto column_blocks = [&](std::int64_t v) {
    return (pattern.row_offsets[3 * v + 1] - pattern.row_offsets[3 * v]) / 3;
  };
  // Per node: its cluster and slot in it.
  std::vector<std::int64_t> cluster_of(mesh.num_nodes(), -1), slot_of(mesh.num_nodes(), -1);
  for (std::int64_t c = 0; c < L.num_clusters(); ++c) {
    const std::int64_t s0 = L.cluster_slots[c], s1 = L.cluster_slots[c + 1];
    ASSERT_GT(s1, s0);
    ASSERT_LE(s1 - s0, options.max_nodes);
    ASSERT_LE(s1 - s0, L.max_nodes);
    std::int64_t blocks = 0;
    for (std::int64_t s = s0; s < s1; ++s) {
      ASSERT_EQ(L.slot_blocks[s], blocks);
      ASSERT_EQ(L.slot_rows[s], pattern.row_offsets[3 * std::int64_t(L.node_of_slot[s])]);
      blocks += column_blocks(L.node_of_slot[s]);
      cluster_of[L.node_of_slot[s]] = c;
      slot_of[L.node_of_slot[s]] = s - s0;
    }
    ASSERT_EQ(L.cluster_blocks[c], blocks);
    ASSERT_LE(blocks, options.max_blocks);
    ASSERT_LE(blocks, L.max_blocks);
  }
  const std::int64_t G = L.cluster_group;
  std::vector<int> formations(mesh.num_elements(), 0);
  for (std::int64_t c0 = 0; c0 < L.num_clusters(); c0 += G) {
    const std::int64_t c1 = std::min(c0 + G, L.num_clusters());
    const auto in_group = [&](std::int64_t v) { return cluster_of[v] >= c0 && cluster_of[v] < c1; };
    // The group's elements: exactly those with a node in the group, each
    // formed by one cluster holding most of its nodes.
    std::set<std::int32_t> expected, seen;
    for (std::int64_t e = 0; e < mesh.num_elements(); ++e)
      for (int a = 0; a < 8; ++a)
        if (in_group(mesh.elements[8 * e + a])) expected.insert(std::int32_t(e));
    std::map<std::int64_t, std::vector<int>> waits;  // per group node: its elements' waits
    std::set<std::int64_t> added_by_others;          // group nodes another cluster adds into
    for (std::int64_t c = c0; c < c1; ++c) {
      const int rank = int(c - c0);
      std::int64_t formed = 0;
      for (std::int64_t group = L.cluster_colours[c]; group < L.cluster_colours[c + 1]; ++group) {
        std::set<std::int64_t> colour_nodes;  // group nodes used by this colour
        ASSERT_LT(L.colour_offsets[group], L.colour_offsets[group + 1]);
        EXPECT_LE(L.colour_offsets[group + 1] - L.colour_offsets[group], options.colour_capacity);
        for (std::int64_t k = L.colour_offsets[group]; k < L.colour_offsets[group + 1]; ++k) {
          const std::int32_t e = L.elements[k];
          ASSERT_TRUE(seen.insert(e).second) << "element " << e << " twice in group " << c0;
          EXPECT_EQ(L.element_colours[k], group - L.cluster_colours[c]);
          ++formations[e];
          ++formed;
          std::vector<int> in_cluster(std::size_t(G), 0);
          for (int a = 0; a < 8; ++a) {
            const std::int64_t v = mesh.elements[8 * e + a];
            if (in_group(v)) ++in_cluster[std::size_t(cluster_of[v] - c0)];
          }
          EXPECT_EQ(in_cluster[rank], *std::max_element(in_cluster.begin(), in_cluster.end()))
              << "element " << e << " formed by a cluster without most of its nodes";
          for (int a = 0; a < 8; ++a) {
            const std::int64_t v = mesh.elements[8 * e + a];
            if (!in_group(v)) {
              EXPECT_EQ(L.node_slots[8 * k + a], kClusterNoSlot);
              EXPECT_EQ(L.node_ranks[8 * k + a], rank);
              for (int p = 0; p < 4; ++p) EXPECT_EQ(L.lane_blocks[32 * k + 4 * a + p], 0xFFFFFFFFu);
              continue;
            }
            EXPECT_TRUE(colour_nodes.insert(v).second)
                << "two elements of one colour share node " << v;
            waits[v].push_back(L.node_waits[8 * k + a]);
            if (cluster_of[v] != c) added_by_others.insert(v);
            EXPECT_EQ(L.node_slots[8 * k + a], slot_of[v]);
            EXPECT_EQ(L.node_ranks[8 * k + a], cluster_of[v] - c0);
            const std::int64_t row = pattern.row_offsets[3 * v];
            for (int p = 0; p < 4; ++p)
              for (int h = 0; h < 2; ++h) {
                const std::int64_t block = (L.lane_blocks[32 * k + 4 * a + p] >> (16 * h)) & 0xFFFF;
                const std::int64_t column =
                    block - L.slot_blocks[L.cluster_slots[cluster_of[v]] + slot_of[v]];
                ASSERT_GE(column, 0);
                ASSERT_LT(column, column_blocks(v));
                EXPECT_EQ(pattern.column_indices[row + 3 * column],
                          3 * mesh.elements[8 * e + 2 * p + h]);
              }
          }
        }
      }
      EXPECT_LE(formed, options.max_elements);
      EXPECT_LE(formed, L.max_elements);
      EXPECT_LE(L.cluster_colours[c + 1] - L.cluster_colours[c], L.max_colours);
    }
    EXPECT_EQ(seen, expected);
    // A node's elements add its blocks one after another: waits 0, 1, 2, ...;
    // all atomically where another cluster adds into it.
    for (auto& [v, list] : waits) {
      if (added_by_others.count(v)) {
        EXPECT_TRUE(
            std::all_of(list.begin(), list.end(), [](int w) { return w == kClusterAddAtomically; }))
            << "node " << v << " of cluster " << cluster_of[v]
            << " is added into by another cluster but waits";
        continue;
      }
      std::sort(list.begin(), list.end());
      for (std::size_t m = 0; m < list.size(); ++m)
        EXPECT_EQ(list[m], int(m)) << "node " << v << "'s elements wait for the same count";
    }
  }
  // Every element is formed by at least one group (each of its nodes is in one).
  EXPECT_TRUE(
      std::all_of(formations.begin(), formations.end(), [](int n) { return n >= 1 && n <= 8; }));
}

// The kernel's walk on the host, with the reference element matrices: the
// clusters of a group add into each other's accumulators.
AssemblyResult assemble_by_clusters(const AssemblyProblem& problem, const ClusterGatherLayout& L) {
  const auto& mesh = problem.mesh;
  const auto& pattern = problem.pattern;
  AssemblyResult out;
  out.values.assign(pattern.num_nonzeros(), std::nan(""));
  out.load.assign(mesh.num_dofs(), std::nan(""));
  const std::int64_t G = L.cluster_group;
  for (std::int64_t c0 = 0; c0 < L.num_clusters(); c0 += G) {
    const std::int64_t c1 = std::min(c0 + G, L.num_clusters());
    std::vector<std::vector<double>> accumulator, load;
    for (std::int64_t c = c0; c < c1; ++c) {
      accumulator.emplace_back(9 * std::size_t(L.cluster_blocks[c]), 0.0);
      load.emplace_back(3 * std::size_t(L.cluster_slots[c + 1] - L.cluster_slots[c]), 0.0);
    }
    for (std::int64_t k = L.colour_offsets[L.cluster_colours[c0]];
         k < L.colour_offsets[L.cluster_colours[c1]]; ++k) {
      const std::int64_t e = L.elements[k];
      ElementCoordinates x{};
      for (int a = 0; a < 8; ++a)
        for (int i = 0; i < 3; ++i)
          x[3 * a + i] = mesh.coordinates[3 * std::int64_t(mesh.elements[8 * e + a]) + i];
      const ElementMatrix Ke = element_stiffness_reference(x, problem.material);
      const ElementVector Fe = element_body_force_reference(x, problem.material);
      for (int lane = 0; lane < 32; ++lane) {
        const int a = lane / 4, p = lane % 4;
        const unsigned rank = L.node_ranks[8 * k + a];
        for (int h = 0; h < 2; ++h) {
          const unsigned block = (L.lane_blocks[32 * k + lane] >> (16 * h)) & 0xFFFF;
          if (block == kClusterNoBlock) continue;
          const int b = 2 * p + h;
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
              accumulator.at(rank).at(9 * block + 3 * i + j) += Ke[(3 * a + i) * 24 + 3 * b + j];
        }
        const unsigned slot = L.node_slots[8 * k + a];
        if (p < 3 && slot != kClusterNoSlot) load.at(rank).at(3 * slot + p) += Fe[3 * a + p];
      }
    }
    for (std::int64_t c = c0; c < c1; ++c)
      for (std::int64_t s = L.cluster_slots[c]; s < L.cluster_slots[c + 1]; ++s) {
        const std::int64_t v = L.node_of_slot[s], row = pattern.row_offsets[3 * v];
        const std::int64_t length = pattern.row_offsets[3 * v + 1] - row;
        for (int i = 0; i < 3; ++i)
          for (std::int64_t m = 0; m < length; ++m)
            out.values[row + i * length + m] =
                accumulator[c - c0][9 * (L.slot_blocks[s] + m / 3) + 3 * i + m % 3];
        for (int i = 0; i < 3; ++i)
          out.load[3 * v + i] = load[c - c0][3 * (s - L.cluster_slots[c]) + i];
      }
  }
  return out;
}

void expect_walk_matches_reference(const AssemblyProblem& problem,
                                   const ClusterGatherOptions& options) {
  const NodeGatherLayout nodes = make_node_gather_layout(problem);
  const ClusterGatherLayout L = make_cluster_gather_layout(problem, nodes, options);
  EXPECT_LE(assembly_relative_error(assemble_by_clusters(problem, L), assemble_reference(problem)),
            1e-12);
}

AssemblyProblem distorted_problem(std::array<int, 3> n) {
  std::mt19937_64 rng(ppkit::testing::test_seed());
  const Material material = inputs::random_material(rng);
  return make_assembly_problem(inputs::distorted_box(n, ppkit::testing::test_seed()), material);
}

// The kernel's schedule on the host: in each cluster `warps` warps take the
// cluster's elements round-robin in colour order; a warp adds its element
// once every group node of it has node_waits elements added (the counters of
// the group's clusters; nodes added into atomically wait for nothing). Every
// group must finish (no warp waits forever).
void expect_schedule_finishes(const AssemblyProblem& problem, const ClusterGatherLayout& L,
                              int warps) {
  const std::int64_t G = L.cluster_group;
  for (std::int64_t c0 = 0; c0 < L.num_clusters(); c0 += G) {
    const std::int64_t c1 = std::min(c0 + G, L.num_clusters());
    std::vector<std::vector<int>> added;
    std::vector<std::int64_t> next, end;  // per (cluster, warp)
    for (std::int64_t c = c0; c < c1; ++c) {
      added.emplace_back(L.cluster_slots[c + 1] - L.cluster_slots[c], 0);
      for (int w = 0; w < warps; ++w) {
        next.push_back(L.colour_offsets[L.cluster_colours[c]] + w);
        end.push_back(L.colour_offsets[L.cluster_colours[c + 1]]);
      }
    }
    std::int64_t done = 0;
    for (bool progress = true; progress;) {
      progress = false;
      for (std::size_t w = 0; w < next.size(); ++w) {
        const std::int64_t k = next[w];
        if (k >= end[w]) continue;
        bool ready = true;
        const auto counted = [&](int a) {
          return L.node_slots[8 * k + a] != kClusterNoSlot &&
                 L.node_waits[8 * k + a] != kClusterAddAtomically;
        };
        for (int a = 0; a < 8; ++a)
          if (counted(a))
            ready = ready && added.at(L.node_ranks[8 * k + a]).at(L.node_slots[8 * k + a]) ==
                                 L.node_waits[8 * k + a];
        if (!ready) continue;
        for (int a = 0; a < 8; ++a)
          if (counted(a)) ++added[L.node_ranks[8 * k + a]][L.node_slots[8 * k + a]];
        next[w] += warps;
        ++done;
        progress = true;
      }
    }
    ASSERT_EQ(done,
              L.colour_offsets[L.cluster_colours[c1]] - L.colour_offsets[L.cluster_colours[c0]])
        << "group " << c0 / G << " of " << problem.mesh.num_elements() << " elements stalls with "
        << warps << " warps";
  }
}

TEST(FemClusterLayout, DefaultClustersAreValidOnADistortedBox) {
  const auto problem = distorted_problem({7, 6, 5});
  expect_valid_clusters(problem, {});
  expect_walk_matches_reference(problem, {});
}

TEST(FemClusterLayout, SmallClustersAreValidWithRenumberedNodes) {
  std::mt19937_64 rng(ppkit::testing::test_seed());
  const auto problem = make_assembly_problem(
      inputs::renumbered_box({5, 4, 6}, ppkit::testing::test_seed()), inputs::random_material(rng));
  for (const ClusterGatherOptions options : {ClusterGatherOptions{5, 1728},
                                             {64, 60},
                                             {1, 27},
                                             {64, 1728, 20},
                                             {64, 1728, 128, 1},
                                             {64, 1728, 128, 3}}) {
    SCOPED_TRACE("max_nodes " + std::to_string(options.max_nodes) + ", max_blocks " +
                 std::to_string(options.max_blocks));
    expect_valid_clusters(problem, options);
    expect_walk_matches_reference(problem, options);
  }
}

TEST(FemClusterLayout, ClustersAreValidAroundNodesOfHighValence) {
  std::mt19937_64 rng(ppkit::testing::test_seed());
  const auto problem = make_assembly_problem(inputs::fan_mesh(16, 2, ppkit::testing::test_seed()),
                                             inputs::random_material(rng));
  for (const ClusterGatherOptions options : {ClusterGatherOptions{}, {7, 120}, {64, 1728, 40}}) {
    expect_valid_clusters(problem, options);
    expect_walk_matches_reference(problem, options);
  }
}

TEST(FemClusterLayout, NodesInNoElementKeepTheirRowsWritten) {
  std::mt19937_64 rng(ppkit::testing::test_seed());
  const auto problem = make_assembly_problem(
      inputs::box_with_unused_nodes({3, 4, 2}, ppkit::testing::test_seed(), 5),
      inputs::random_material(rng));
  expect_valid_clusters(problem, {8, 300});
  expect_walk_matches_reference(problem, {8, 300});
}

TEST(FemClusterLayout, MovedNodesKeepTheLatticeOrderAndItsBricks) {
  const unsigned seed = ppkit::testing::test_seed();
  const auto moved = inputs::distorted_box({8, 8, 8}, seed, 0.15);
  const auto straight = inputs::distorted_box({8, 8, 8}, seed, 0.0);
  const auto order = lattice_morton_node_order(moved);
  EXPECT_EQ(order, lattice_morton_node_order(straight));
  // The first 64 nodes are the 4 x 4 x 4 corner brick (node (i, j, k) is i + 9 (j + 9 k)).
  std::vector<std::int64_t> first(order.begin(), order.begin() + 64), brick;
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i) brick.push_back(i + 9 * (j + 9 * k));
  std::sort(first.begin(), first.end());
  EXPECT_EQ(first, brick);
  // So its first cluster is that brick, with the 4 x 4 x 4 elements at the corner.
  const auto problem = make_assembly_problem(moved, Material{});
  const auto L = make_cluster_gather_layout(problem, make_node_gather_layout(problem), {});
  EXPECT_EQ(L.cluster_slots[1], 64);
  EXPECT_EQ(L.colour_offsets[L.cluster_colours[1]], 64);
}

TEST(FemClusterLayout, WarpsOrderedByNodeCountsFinishEveryCluster) {
  std::mt19937_64 rng(ppkit::testing::test_seed());
  for (const auto& mesh : {inputs::distorted_box({9, 7, 6}, ppkit::testing::test_seed()),
                           inputs::renumbered_box({5, 6, 4}, ppkit::testing::test_seed()),
                           inputs::fan_mesh(16, 2, ppkit::testing::test_seed())}) {
    const auto problem = make_assembly_problem(mesh, inputs::random_material(rng));
    const auto nodes = make_node_gather_layout(problem);
    // The defaults, small clusters, and cuda/cluster-gather's own setting (colour
    // groups of its 20 warps).
    for (const ClusterGatherOptions options :
         {ClusterGatherOptions{}, {16, 400, 40, 3}, {64, 1728, 128, 20}})
      for (const int warps : {1, 5, 16, 20}) {
        expect_schedule_finishes(problem, make_cluster_gather_layout(problem, nodes, options),
                                 warps);
        if (HasFatalFailure()) return;
      }
  }
}

TEST(FemClusterLayout, ClusterGroupsFormEachElementOnceAndFinish) {
  std::mt19937_64 rng(ppkit::testing::test_seed());
  for (const auto& mesh : {inputs::distorted_box({9, 10, 8}, ppkit::testing::test_seed()),
                           inputs::renumbered_box({6, 5, 7}, ppkit::testing::test_seed()),
                           inputs::fan_mesh(16, 2, ppkit::testing::test_seed())}) {
    const auto problem = make_assembly_problem(mesh, inputs::random_material(rng));
    const auto nodes = make_node_gather_layout(problem);
    for (const ClusterGatherOptions options : {ClusterGatherOptions{64, 1728, 128, 20, 8},
                                               {64, 1728, 128, 20, 4},
                                               {16, 400, 40, 3, 2},
                                               {8, 300, 128, 1, 5}}) {
      SCOPED_TRACE("cluster_group " + std::to_string(options.cluster_group) + ", max_nodes " +
                   std::to_string(options.max_nodes));
      expect_valid_clusters(problem, options);
      expect_walk_matches_reference(problem, options);
      for (const int warps : {1, 5, 20}) {
        expect_schedule_finishes(problem, make_cluster_gather_layout(problem, nodes, options),
                                 warps);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// 8 clusters of 4 x 4 x 4 nodes share the 9^3 elements around their 8^3 nodes
// (729, 91.1 each) instead of forming 125 each: the owners' ties, dealt class
// by class, split evenly, so no cluster forms more than 92.
TEST(FemClusterLayout, ClusterGroupsOfEightShareTheirElementsEvenly) {
  const auto problem = make_assembly_problem(
      inputs::distorted_box({16, 16, 16}, ppkit::testing::test_seed()), Material{});
  const auto nodes = make_node_gather_layout(problem);
  const auto single = make_cluster_gather_layout(problem, nodes, {64, 1728, 128, 20, 1});
  const auto grouped = make_cluster_gather_layout(problem, nodes, {64, 1728, 128, 20, 8});
  EXPECT_EQ(single.max_elements, 125);
  EXPECT_LE(grouped.max_elements, 92);
  EXPECT_LT(double(grouped.num_cluster_elements()), 0.8 * double(single.num_cluster_elements()));
}

TEST(FemClusterLayout, RejectsOptionsOutOfRangeAndNodesLargerThanTheAccumulator) {
  const auto problem =
      make_assembly_problem(inputs::fan_mesh(16, 2, ppkit::testing::test_seed()), Material{});
  const NodeGatherLayout nodes = make_node_gather_layout(problem);
  EXPECT_THROW(make_cluster_gather_layout(problem, nodes, {0, 1728}), ppkit::Error);
  EXPECT_THROW(make_cluster_gather_layout(problem, nodes, {256, 1728}), ppkit::Error);
  EXPECT_THROW(make_cluster_gather_layout(problem, nodes, {64, 26}), ppkit::Error);
  // The fan's centre node has 99 column blocks.
  try {
    make_cluster_gather_layout(problem, nodes, {64, 98});
    ADD_FAILURE() << "a node with 99 column blocks fit an accumulator of 98";
  } catch (const ppkit::Error& e) {
    EXPECT_NE(std::string(e.what()).find("99 neighbour nodes"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(make_cluster_gather_layout(problem, nodes, {64, 99}));
  EXPECT_THROW(make_cluster_gather_layout(problem, nodes, {64, 1728, 0}), ppkit::Error);
  EXPECT_THROW(make_cluster_gather_layout(problem, nodes, {64, 1728, 128, 0}), ppkit::Error);
  EXPECT_THROW(make_cluster_gather_layout(problem, nodes, {64, 1728, 128, 20, 0}), ppkit::Error);
  try {
    make_cluster_gather_layout(problem, nodes, {64, 1728, 128, 20, kClusterMaxGroup + 1});
    ADD_FAILURE() << "a cluster group larger than kClusterMaxGroup";
  } catch (const ppkit::Error& e) {
    EXPECT_NE(std::string(e.what()).find("cluster_group 9 is out of range"), std::string::npos)
        << e.what();
  }
  // ... and lies in 32 elements.
  try {
    make_cluster_gather_layout(problem, nodes, {64, 1728, 31});
    ADD_FAILURE() << "a node in 32 elements fit a cluster of 31";
  } catch (const ppkit::Error& e) {
    EXPECT_NE(std::string(e.what()).find("lies in 32 elements"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(make_cluster_gather_layout(problem, nodes, {64, 1728, 32}));
}

}  // namespace
