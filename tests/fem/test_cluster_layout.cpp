// Inputs of the cluster-gather strategy (i): clusters of the Morton node order,
// each cluster's elements in packs whose cluster nodes are distinct nodes at
// distinct local numbers, the packs coloured so that one colour's packs share
// no node of the cluster, and the lane tables of the tensor-core layout.
// Checked against the CSR pattern's column indices, and by a serial walk of
// the layout exactly as the kernel walks it (cluster by cluster, colour by
// colour, pack by pack, lane 4 a + p adding blocks (a, 2 p) and (a, 2 p + 1)
// of row a's element) with the serial reference element matrices, against the
// reference assembly. The accumulator's block numbers chosen for the shared-
// memory banks (cluster_banks.hpp) are checked the same way, and their
// wavefronts against a bank-by-bank simulation of the kernel's accesses.
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
#if defined(PPKIT_HAVE_CUDA)
#include "backends/cuda/fem/cluster_banks.hpp"
#endif

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
  ASSERT_EQ(L.cluster_slots.front(), 0);
  ASSERT_EQ(L.cluster_slots.back(), mesh.num_nodes());
  ASSERT_EQ(L.pack_offsets.front(), 0);
  ASSERT_EQ(L.pack_offsets.back(), L.num_cluster_elements());
  ASSERT_EQ(std::int64_t(L.lane_blocks.size()), 32 * L.num_packs());
  ASSERT_EQ(std::int64_t(L.node_slots.size()), 8 * L.num_packs());
  ASSERT_EQ(std::int64_t(L.row_members.size()), 8 * L.num_packs());
  ASSERT_EQ(std::int64_t(L.pack_colours.size()), L.num_packs());
  ASSERT_EQ(std::int64_t(L.node_waits.size()), 8 * L.num_packs());
  const auto column_blocks = [&](std::int64_t v) {
    return (pattern.row_offsets[3 * v + 1] - pattern.row_offsets[3 * v]) / 3;
  };
  std::vector<int> element_clusters(mesh.num_elements(), 0);
  for (std::int64_t c = 0; c < L.num_clusters(); ++c) {
    const std::int64_t s0 = L.cluster_slots[c], s1 = L.cluster_slots[c + 1];
    ASSERT_GT(s1, s0);
    ASSERT_LE(s1 - s0, options.max_nodes);
    ASSERT_LE(s1 - s0, L.max_nodes);
    std::int64_t blocks = 0;
    std::vector<std::int64_t> slot_of_node(mesh.num_nodes(), -1);
    for (std::int64_t s = s0; s < s1; ++s) {
      ASSERT_EQ(L.slot_blocks[s], blocks);
      ASSERT_EQ(L.slot_rows[s], pattern.row_offsets[3 * std::int64_t(L.node_of_slot[s])]);
      blocks += column_blocks(L.node_of_slot[s]);
      slot_of_node[L.node_of_slot[s]] = s - s0;
    }
    ASSERT_EQ(L.cluster_blocks[c], blocks);
    ASSERT_LE(blocks, options.max_blocks);
    ASSERT_LE(blocks, L.max_row_blocks);
    ASSERT_LE(L.cluster_stored_blocks[c], L.max_blocks);
    ASSERT_EQ(L.row_block_offsets[c + 1] - L.row_block_offsets[c], blocks);
    // The cluster's elements: exactly those with a node in the cluster.
    std::set<std::int32_t> expected, seen;
    std::int64_t packs = 0;
    for (std::int64_t e = 0; e < mesh.num_elements(); ++e)
      for (int a = 0; a < 8; ++a)
        if (slot_of_node[mesh.elements[8 * e + a]] >= 0) expected.insert(std::int32_t(e));
    for (std::int64_t group = L.cluster_colours[c]; group < L.cluster_colours[c + 1]; ++group) {
      std::set<std::int64_t> colour_nodes;  // cluster nodes used by this colour
      ASSERT_LT(L.colour_offsets[group], L.colour_offsets[group + 1]);
      EXPECT_LE(L.colour_offsets[group + 1] - L.colour_offsets[group], options.colour_capacity);
      for (std::int64_t k = L.colour_offsets[group]; k < L.colour_offsets[group + 1]; ++k) {
        EXPECT_EQ(L.pack_colours[k], group - L.cluster_colours[c]);
        ASSERT_LT(L.pack_offsets[k], L.pack_offsets[k + 1]);
        ASSERT_LE(L.pack_offsets[k + 1] - L.pack_offsets[k], options.max_pack_elements);
        ++packs;
        int rows = 0;  // local numbers a of the pack's elements in the cluster
        for (std::int64_t m = L.pack_offsets[k]; m < L.pack_offsets[k + 1]; ++m) {
          const std::int32_t e = L.elements[m];
          const int index = int(m - L.pack_offsets[k]);
          ASSERT_TRUE(seen.insert(e).second) << "element " << e << " twice in cluster " << c;
          ++element_clusters[e];
          bool touches = false;
          for (int a = 0; a < 8; ++a) {
            const std::int64_t v = mesh.elements[8 * e + a], slot = slot_of_node[v];
            if (slot < 0) {
              EXPECT_NE(L.row_members[8 * k + a], index);
              continue;
            }
            touches = true;
            EXPECT_EQ(rows >> a & 1, 0) << "two elements of pack " << k << " hold row " << a;
            rows |= 1 << a;
            EXPECT_EQ(L.row_members[8 * k + a], index);
            EXPECT_TRUE(colour_nodes.insert(v).second)
                << "two elements of one colour share node " << v;
            // Packs of lower colours before it that contain v.
            int lower = 0;
            for (std::int64_t k2 = L.colour_offsets[L.cluster_colours[c]];
                 k2 < L.colour_offsets[group]; ++k2)
              for (std::int64_t m2 = L.pack_offsets[k2]; m2 < L.pack_offsets[k2 + 1]; ++m2)
                for (int b = 0; b < 8; ++b)
                  lower += mesh.elements[8 * std::int64_t(L.elements[m2]) + b] == v;
            EXPECT_EQ(L.node_waits[8 * k + a], lower);
            EXPECT_EQ(L.node_slots[8 * k + a], slot);
            const std::int64_t row = pattern.row_offsets[3 * v];
            for (int p = 0; p < 4; ++p)
              for (int h = 0; h < 2; ++h) {
                // The lane adds block (v, w) where the accumulator keeps it
                // untransposed (row_blocks), else none (kClusterNoBlock).
                std::uint32_t block = (L.lane_blocks[32 * k + 4 * a + p] >> (16 * h)) & 0xFFFF;
                if (block != kClusterNoBlock) block &= ~std::uint32_t(kClusterFirstAdd);
                const std::int64_t w = mesh.elements[8 * e + 2 * p + h];
                std::int64_t column = -1;
                for (std::int64_t j = 0; j < column_blocks(v); ++j)
                  if (pattern.column_indices[row + 3 * j] == 3 * w) column = j;
                ASSERT_GE(column, 0);
                const std::uint16_t entry =
                    L.row_blocks[L.row_block_offsets[c] + L.slot_blocks[s0 + slot] + column];
                EXPECT_EQ(block, entry & kClusterTransposed ? std::uint32_t(kClusterNoBlock)
                                                            : std::uint32_t(entry));
                if (!options.symmetric_blocks) {
                  EXPECT_EQ(entry, L.slot_blocks[s0 + slot] + column);
                }
              }
          }
          EXPECT_TRUE(touches) << "element " << e << " has no node in cluster " << c;
        }
        for (int a = 0; a < 8; ++a) {
          if (rows >> a & 1) continue;
          EXPECT_EQ(L.row_members[8 * k + a], kClusterNoSlot);
          EXPECT_EQ(L.node_slots[8 * k + a], kClusterNoSlot);
          for (int p = 0; p < 4; ++p) EXPECT_EQ(L.lane_blocks[32 * k + 4 * a + p], 0xFFFFFFFFu);
        }
      }
    }
    EXPECT_EQ(seen, expected);
    EXPECT_LE(std::int64_t(seen.size()), options.max_elements);
    EXPECT_LE(std::int64_t(seen.size()), L.max_elements);
    EXPECT_LE(packs, L.max_packs);
    EXPECT_LE(L.cluster_colours[c + 1] - L.cluster_colours[c], L.max_colours);
  }
  // Every element is formed by at least one cluster (each of its nodes is in one).
  EXPECT_TRUE(std::all_of(element_clusters.begin(), element_clusters.end(),
                          [](int n) { return n >= 1 && n <= 8; }));
}

// The kernel's walk on the host, with the reference element matrices. With
// first_add_stores the accumulator starts as NaN and each block's first add
// stores, as the kernel's accumulator holds the cluster before's sums.
AssemblyResult assemble_by_clusters(const AssemblyProblem& problem, const ClusterGatherLayout& L) {
  const auto& mesh = problem.mesh;
  const auto& pattern = problem.pattern;
  AssemblyResult out;
  out.values.assign(pattern.num_nonzeros(), std::nan(""));
  out.load.assign(mesh.num_dofs(), std::nan(""));
  for (std::int64_t c = 0; c < L.num_clusters(); ++c) {
    std::vector<double> accumulator(9 * std::size_t(L.cluster_stored_blocks[c]),
                                    L.first_add_stores ? std::nan("") : 0.0);
    std::vector<double> load(3 * std::size_t(L.cluster_slots[c + 1] - L.cluster_slots[c]), 0.0);
    for (std::int64_t group = L.cluster_colours[c]; group < L.cluster_colours[c + 1]; ++group)
      for (std::int64_t k = L.colour_offsets[group]; k < L.colour_offsets[group + 1]; ++k)
        for (std::int64_t m = L.pack_offsets[k]; m < L.pack_offsets[k + 1]; ++m) {
          const std::int64_t e = L.elements[m];
          ElementCoordinates x{};
          for (int a = 0; a < 8; ++a)
            for (int i = 0; i < 3; ++i)
              x[3 * a + i] = mesh.coordinates[3 * std::int64_t(mesh.elements[8 * e + a]) + i];
          const ElementMatrix Ke = element_stiffness_reference(x, problem.material);
          const ElementVector Fe = element_body_force_reference(x, problem.material);
          for (int lane = 0; lane < 32; ++lane) {
            const int a = lane / 4, p = lane % 4;
            if (L.row_members[8 * k + a] != m - L.pack_offsets[k]) continue;  // another's row
            for (int h = 0; h < 2; ++h) {
              const unsigned word = (L.lane_blocks[32 * k + lane] >> (16 * h)) & 0xFFFF;
              if (word == kClusterNoBlock) continue;
              const bool first_add = (word & kClusterFirstAdd) != 0;
              EXPECT_TRUE(L.first_add_stores || !first_add);
              const unsigned block = word & ~unsigned(kClusterFirstAdd);
              const int b = 2 * p + h;
              for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) {
                  double& value = accumulator[9 * block + 3 * i + j];
                  value = (first_add ? 0.0 : value) + Ke[(3 * a + i) * 24 + 3 * b + j];
                }
            }
            const unsigned slot = L.node_slots[8 * k + a];
            if (p < 3 && slot != kClusterNoSlot) load[3 * slot + p] += Fe[3 * a + p];
          }
        }
    for (std::int64_t s = L.cluster_slots[c]; s < L.cluster_slots[c + 1]; ++s) {
      const std::int64_t v = L.node_of_slot[s], row = pattern.row_offsets[3 * v];
      const std::int64_t length = pattern.row_offsets[3 * v + 1] - row;
      for (int i = 0; i < 3; ++i)
        for (std::int64_t m = 0; m < length; ++m) {
          const std::uint16_t entry =
              L.row_blocks[L.row_block_offsets[c] + L.slot_blocks[s] + m / 3];
          const std::size_t kept = entry & ~kClusterTransposed;
          out.values[row + i * length + m] = entry & kClusterTransposed
                                                 ? accumulator[9 * kept + 3 * (m % 3) + i]
                                                 : accumulator[9 * kept + 3 * i + m % 3];
        }
      for (int i = 0; i < 3; ++i) out.load[3 * v + i] = load[3 * (s - L.cluster_slots[c]) + i];
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

// A distorted box, a box with its nodes numbered at random and a fan (a node
// in 32 elements), each from the test's seed.
std::vector<HexMesh> layout_test_meshes() {
  const unsigned seed = ppkit::testing::test_seed();
  return {inputs::distorted_box({9, 7, 6}, seed), inputs::renumbered_box({5, 6, 4}, seed),
          inputs::fan_mesh(16, 2, seed)};
}

// The kernel's schedule on the host: `warps` warps take the cluster's
// packs round-robin in colour order; a warp adds its pack once every
// cluster node of it has node_waits packs added. Every cluster must finish
// (no warp waits forever) with each node's elements added in colour order.
void expect_schedule_finishes(const AssemblyProblem& problem, const ClusterGatherLayout& L,
                              int warps) {
  for (std::int64_t c = 0; c < L.num_clusters(); ++c) {
    const std::int64_t k0 = L.colour_offsets[L.cluster_colours[c]];
    const std::int64_t k1 = L.colour_offsets[L.cluster_colours[c + 1]];
    std::vector<int> added(L.cluster_slots[c + 1] - L.cluster_slots[c], 0);
    std::vector<std::int64_t> next(warps);
    for (int w = 0; w < warps; ++w) next[w] = k0 + w;
    std::int64_t done = 0;
    for (bool progress = true; progress;) {
      progress = false;
      for (int w = 0; w < warps; ++w) {
        const std::int64_t k = next[w];
        if (k >= k1) continue;
        bool ready = true;
        for (int a = 0; a < 8; ++a)
          if (L.node_slots[8 * k + a] != kClusterNoSlot)
            ready = ready && added[L.node_slots[8 * k + a]] == L.node_waits[8 * k + a];
        if (!ready) continue;
        for (int a = 0; a < 8; ++a)
          if (L.node_slots[8 * k + a] != kClusterNoSlot) ++added[L.node_slots[8 * k + a]];
        next[w] += warps;
        ++done;
        progress = true;
      }
    }
    ASSERT_EQ(done, k1 - k0) << "cluster " << c << " of " << problem.mesh.num_elements()
                             << " elements stalls with " << warps << " warps";
  }
}

TEST(FemClusterLayout, DefaultClustersAreValidOnADistortedBox) {
  const auto problem = distorted_problem({7, 6, 5});
  expect_valid_clusters(problem, {});
  expect_walk_matches_reference(problem, {});
  // cuda/cluster-gather's setting: packs of at most 4, blocks of two cluster
  // nodes kept once.
  const ClusterGatherOptions symmetric{64, 1728, 128, 10, 4, true};
  expect_valid_clusters(problem, symmetric);
  expect_walk_matches_reference(problem, symmetric);
  // ... and each block's first add a store (no zeroing between clusters).
  const ClusterGatherOptions stores{64, 1728, 128, 10, 4, true, true};
  expect_valid_clusters(problem, stores);
  expect_walk_matches_reference(problem, stores);
}

// With first_add_stores, each kept block of a cluster is marked on exactly one
// lane: the first pack, in colour order, whose lanes add to it.
TEST(FemClusterLayout, EachBlocksFirstAddIsMarkedOnce) {
  std::mt19937_64 rng(ppkit::testing::test_seed());
  for (const auto& mesh : {inputs::distorted_box({9, 7, 6}, ppkit::testing::test_seed()),
                           inputs::renumbered_box({5, 6, 4}, ppkit::testing::test_seed())}) {
    const auto problem = make_assembly_problem(mesh, inputs::random_material(rng));
    const auto nodes = make_node_gather_layout(problem);
    for (const bool symmetric : {false, true}) {
      SCOPED_TRACE(symmetric ? "symmetric blocks" : "every block kept");
      const ClusterGatherOptions options{64, 1728, 128, 10, 4, symmetric, true};
      const auto L = make_cluster_gather_layout(problem, nodes, options);
      const auto unmarked =
          make_cluster_gather_layout(problem, nodes, {64, 1728, 128, 10, 4, symmetric, false});
      ASSERT_TRUE(L.first_add_stores);
      ASSERT_FALSE(unmarked.first_add_stores);
      ASSERT_EQ(L.lane_blocks.size(), unmarked.lane_blocks.size());
      for (std::int64_t c = 0; c < L.num_clusters(); ++c) {
        std::vector<int> marks(std::size_t(L.cluster_stored_blocks[c]), 0);
        std::vector<char> added(marks.size(), 0);
        for (std::int64_t k = L.colour_offsets[L.cluster_colours[c]];
             k < L.colour_offsets[L.cluster_colours[c + 1]]; ++k)
          for (int lane = 0; lane < 32; ++lane)
            for (int h = 0; h < 2; ++h) {
              const unsigned word = L.lane_blocks[32 * k + lane] >> (16 * h) & 0xFFFF;
              const unsigned plain = unmarked.lane_blocks[32 * k + lane] >> (16 * h) & 0xFFFF;
              if (plain == kClusterNoBlock) {
                EXPECT_EQ(word, plain);
                continue;
              }
              EXPECT_EQ(word & ~unsigned(kClusterFirstAdd), plain);
              EXPECT_EQ((word & kClusterFirstAdd) != 0, !added[plain])
                  << "cluster " << c << ", pack " << k << ", lane " << lane;
              marks[plain] += (word & kClusterFirstAdd) != 0;
              added[plain] = 1;
            }
        EXPECT_TRUE(std::all_of(marks.begin(), marks.end(), [](int m) { return m == 1; }))
            << "cluster " << c;
      }
    }
  }
}

// Packs on a box: an inner 4 x 4 x 4 brick's 125 elements make one pack per
// node, 64, with packs of at most 8: the 27 inner elements alone, the 54 face
// elements in pairs across the brick, the 36 edge elements in fours and the 8
// corner elements together, in 8 colours (each node lies in 8 packs). With at
// most 4 (cuda/cluster-gather's setting) the corners make two fours: 65 packs.
TEST(FemClusterLayout, PacksOfAnInnerBrickAreItsFacesEdgesAndCorners) {
  const auto problem = distorted_problem({16, 16, 16});
  const auto nodes = make_node_gather_layout(problem);
  struct Expected {
    int max_pack_elements, packs;
    std::vector<int> sizes;  // packs of 0..8 elements
  };
  for (const Expected& x : {Expected{8, 64, {0, 27, 27, 0, 9, 0, 0, 0, 1}},
                            Expected{4, 65, {0, 27, 27, 0, 11, 0, 0, 0, 0}}}) {
    SCOPED_TRACE("max_pack_elements " + std::to_string(x.max_pack_elements));
    const ClusterGatherOptions options{64, 1728, 128, 20, x.max_pack_elements};
    expect_valid_clusters(problem, options);
    expect_walk_matches_reference(problem, options);
    const auto L = make_cluster_gather_layout(problem, nodes, options);
    int inner = 0;
    for (std::int64_t c = 0; c < L.num_clusters(); ++c) {
      const std::int64_t k0 = L.colour_offsets[L.cluster_colours[c]];
      const std::int64_t k1 = L.colour_offsets[L.cluster_colours[c + 1]];
      if (L.pack_offsets[k1] - L.pack_offsets[k0] != 125) continue;
      ++inner;
      std::vector<int> sizes(9, 0);
      for (std::int64_t k = k0; k < k1; ++k) ++sizes[L.pack_offsets[k + 1] - L.pack_offsets[k]];
      EXPECT_EQ(k1 - k0, x.packs) << "cluster " << c;
      EXPECT_EQ(sizes, x.sizes) << "cluster " << c;
      EXPECT_EQ(L.cluster_colours[c + 1] - L.cluster_colours[c], 8) << "cluster " << c;
    }
    // The bricks of nodes 4..15 along each axis (nodes 16 come after the
    // 16^3 cube in the Morton order, so their clusters are not bricks).
    EXPECT_EQ(inner, 27);
  }
}

// Symmetric blocks on a box: an inner 4 x 4 x 4 brick's rows have 1,728 blocks
// (27 per node); of the 1,000 between two of its nodes (10 neighbours along
// each axis: 4 + 2 * 3) the 936 off the diagonal are kept once, so 1,260 are
// kept, and each row block read transposed names a block kept untransposed.
TEST(FemClusterLayout, SymmetricBlocksOfAnInnerBrickAreKeptOnce) {
  const auto problem = distorted_problem({16, 16, 16});
  const auto nodes = make_node_gather_layout(problem);
  const auto L = make_cluster_gather_layout(problem, nodes, {64, 1728, 128, 10, 4, true});
  const auto full = make_cluster_gather_layout(problem, nodes, {64, 1728, 128, 10, 4, false});
  ASSERT_EQ(L.num_clusters(), full.num_clusters());
  int inner = 0;
  for (std::int64_t c = 0; c < L.num_clusters(); ++c) {
    EXPECT_EQ(full.cluster_stored_blocks[c], full.cluster_blocks[c]);
    if (L.cluster_blocks[c] != 1728) continue;
    ++inner;
    EXPECT_EQ(L.cluster_stored_blocks[c], 1260) << "cluster " << c;
    std::vector<int> direct(1260, 0), transposed(1260, 0);
    for (std::int64_t o = L.row_block_offsets[c]; o < L.row_block_offsets[c + 1]; ++o) {
      const std::uint16_t entry = L.row_blocks[o];
      const int kept = entry & ~kClusterTransposed;
      ASSERT_LT(kept, 1260);
      ++(entry & kClusterTransposed ? transposed : direct)[kept];
    }
    // Every kept block is its own row's once; the 468 pairs also the other's.
    EXPECT_EQ(std::count(direct.begin(), direct.end(), 1), 1260);
    EXPECT_EQ(std::count(transposed.begin(), transposed.end(), 1), 468);
    EXPECT_EQ(std::count(transposed.begin(), transposed.end(), 0), 1260 - 468);
  }
  EXPECT_EQ(L.max_blocks, 1260);
  EXPECT_EQ(L.max_row_blocks, 1728);
  EXPECT_GE(inner, 27);
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
                                             {64, 1728, 128, 3},
                                             {64, 1728, 128, 20, 8},
                                             {16, 400, 40, 5, 2},
                                             {5, 1728, 128, 16, 4},
                                             {64, 1728, 128, 10, 4, true},
                                             {5, 1728, 128, 16, 1, true},
                                             {64, 1728, 128, 10, 4, false, true},
                                             {5, 1728, 128, 16, 2, true, true}}) {
    SCOPED_TRACE("max_nodes " + std::to_string(options.max_nodes) + ", max_blocks " +
                 std::to_string(options.max_blocks) + ", max_pack_elements " +
                 std::to_string(options.max_pack_elements));
    expect_valid_clusters(problem, options);
    expect_walk_matches_reference(problem, options);
  }
}

TEST(FemClusterLayout, ClustersAreValidAroundNodesOfHighValence) {
  std::mt19937_64 rng(ppkit::testing::test_seed());
  const auto problem = make_assembly_problem(inputs::fan_mesh(16, 2, ppkit::testing::test_seed()),
                                             inputs::random_material(rng));
  for (const ClusterGatherOptions options : {ClusterGatherOptions{},
                                             {7, 120},
                                             {64, 1728, 40},
                                             {64, 1728, 40, 20, 8},
                                             {64, 1728, 40, 10, 4, true, true}}) {
    expect_valid_clusters(problem, options);
    expect_walk_matches_reference(problem, options);
  }
}

TEST(FemClusterLayout, NodesInNoElementKeepTheirRowsWritten) {
  std::mt19937_64 rng(ppkit::testing::test_seed());
  const auto problem = make_assembly_problem(
      inputs::box_with_unused_nodes({3, 4, 2}, ppkit::testing::test_seed(), 5),
      inputs::random_material(rng));
  for (const ClusterGatherOptions options :
       {ClusterGatherOptions{8, 300}, {8, 300, 128, 16, 8}, {8, 300, 128, 16, 4, true, true}}) {
    expect_valid_clusters(problem, options);
    expect_walk_matches_reference(problem, options);
  }
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
  for (const HexMesh& mesh : layout_test_meshes()) {
    const auto problem = make_assembly_problem(mesh, inputs::random_material(rng));
    const auto nodes = make_node_gather_layout(problem);
    // The defaults, small clusters, and cuda/cluster-gather's own setting (colour
    // groups of its 20 warps).
    for (const ClusterGatherOptions options : {ClusterGatherOptions{},
                                               {16, 400, 40, 3},
                                               {64, 1728, 128, 20},
                                               {64, 1728, 128, 20, 8},
                                               {16, 400, 40, 3, 4}})
      for (const int warps : {1, 5, 16, 20}) {
        expect_schedule_finishes(problem, make_cluster_gather_layout(problem, nodes, options),
                                 warps);
        if (HasFatalFailure()) return;
      }
  }
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
  EXPECT_THROW(make_cluster_gather_layout(problem, nodes, {64, 1728, 128, 16, 0}), ppkit::Error);
  EXPECT_THROW(make_cluster_gather_layout(problem, nodes, {64, 1728, 128, 16, 9}), ppkit::Error);
  // ... and lies in 32 elements.
  try {
    make_cluster_gather_layout(problem, nodes, {64, 1728, 31});
    ADD_FAILURE() << "a node in 32 elements fit a cluster of 31";
  } catch (const ppkit::Error& e) {
    EXPECT_NE(std::string(e.what()).find("lies in 32 elements"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(make_cluster_gather_layout(problem, nodes, {64, 1728, 32}));
}

#if defined(PPKIT_HAVE_CUDA)
// The CUDA backend's bank numbering (backends/cuda/fem/cluster_banks.hpp,
// host code in libppkit when the CUDA backend is built).

// Shared-memory wavefronts of the cluster kernel's accesses to the accumulator
// (cluster_banks.hpp), bank by bank: block x at byte 8 * stride * x, 32 banks
// of 4 bytes; a pass takes as many wavefronts as the most distinct 4-byte
// words it asks of one bank.
struct SimulatedPass {
  std::vector<std::int64_t> bytes;  // each access's first byte
  int width = 0;
  std::int64_t wavefronts() const {
    std::map<int, std::set<std::int64_t>> words;  // bank -> its distinct words
    for (const std::int64_t first : bytes)
      for (std::int64_t word = first / 4; word < (first + width) / 4; ++word)
        words[int(word % 32)].insert(word);
    std::size_t most = 0;
    for (const auto& [bank, set] : words) most = std::max(most, set.size());
    return std::int64_t(most);
  }
};

std::int64_t simulated_wavefronts(const ClusterGatherLayout& L, int stride) {
  std::int64_t total = 0;
  for (std::int64_t c = 0; c < L.num_clusters(); ++c) {
    // The adds: lane 4 a + p's block of each half word, 16-byte pieces by
    // quarter warps (stores; loads where the add is not the block's first),
    // the 9th value's 8 bytes by half warps.
    for (std::int64_t k = L.colour_offsets[L.cluster_colours[c]];
         k < L.colour_offsets[L.cluster_colours[c + 1]]; ++k)
      for (int h = 0; h < 2; ++h)
        for (const bool loads : {false, true}) {
          for (int piece = 0; piece < 5; ++piece) {
            const int lanes = piece < 4 ? 8 : 16;
            for (int first_lane = 0; first_lane < 32; first_lane += lanes) {
              SimulatedPass pass;
              pass.width = piece < 4 ? 16 : 8;
              for (int lane = first_lane; lane < first_lane + lanes; ++lane) {
                const unsigned word = L.lane_blocks[32 * k + lane] >> (16 * h) & 0xFFFF;
                if (word == kClusterNoBlock || (loads && (word & kClusterFirstAdd))) continue;
                pass.bytes.push_back(8 * stride * std::int64_t(word & ~kClusterFirstAdd) +
                                     16 * piece);
              }
              total += pass.wavefronts();
            }
          }
        }
    // The rows: value (i, v) of a node's rows by lane v % 32, a half warp a pass.
    const std::int64_t s0 = L.cluster_slots[c], s1 = L.cluster_slots[c + 1];
    for (std::int64_t s = s0; s < s1; ++s) {
      const int first = L.slot_blocks[s];
      const int length = 3 * ((s + 1 < s1 ? L.slot_blocks[s + 1] : L.cluster_blocks[c]) - first);
      for (int i = 0; i < 3; ++i)
        for (int start = 0; start < length; start += 16) {
          SimulatedPass pass;
          pass.width = 8;
          for (int v = start; v < std::min(length, start + 16); ++v) {
            const std::uint16_t entry = L.row_blocks[L.row_block_offsets[c] + first + v / 3];
            const std::int64_t block = entry & ~kClusterTransposed;
            const int value = entry & kClusterTransposed ? 3 * (v % 3) + i : 3 * i + v % 3;
            pass.bytes.push_back(8 * (stride * block + value));
          }
          total += pass.wavefronts();
        }
    }
  }
  return total;
}

// Renumbered, each cluster's blocks are a permutation of the old ones: the same
// lanes add, the same adds are first, the same row values read transposed.
void expect_cluster_permutations(const ClusterGatherLayout& before,
                                 const ClusterGatherLayout& after) {
  ASSERT_EQ(before.lane_blocks.size(), after.lane_blocks.size());
  ASSERT_EQ(before.row_blocks.size(), after.row_blocks.size());
  EXPECT_EQ(before.max_blocks, after.max_blocks);
  for (std::int64_t c = 0; c < before.num_clusters(); ++c) {
    const int n = before.cluster_stored_blocks[c];
    std::vector<int> number(std::size_t(n), -1);
    const auto maps = [&](unsigned old_block, unsigned new_block) {
      ASSERT_LT(old_block, unsigned(n));
      ASSERT_LT(new_block, unsigned(n));
      if (number[old_block] < 0) number[old_block] = int(new_block);
      EXPECT_EQ(number[old_block], int(new_block)) << "cluster " << c << ", block " << old_block;
    };
    for (std::int64_t k = 32 * before.colour_offsets[before.cluster_colours[c]];
         k < 32 * before.colour_offsets[before.cluster_colours[c + 1]]; ++k)
      for (int h = 0; h < 2; ++h) {
        const unsigned x = before.lane_blocks[k] >> (16 * h) & 0xFFFF;
        const unsigned y = after.lane_blocks[k] >> (16 * h) & 0xFFFF;
        ASSERT_EQ(x == kClusterNoBlock, y == kClusterNoBlock);
        if (x == kClusterNoBlock) continue;
        ASSERT_EQ(x & kClusterFirstAdd, y & kClusterFirstAdd);
        maps(x & ~kClusterFirstAdd, y & ~kClusterFirstAdd);
      }
    for (std::int64_t o = before.row_block_offsets[c]; o < before.row_block_offsets[c + 1]; ++o) {
      ASSERT_EQ(before.row_blocks[o] & kClusterTransposed,
                after.row_blocks[o] & kClusterTransposed);
      maps(before.row_blocks[o] & ~kClusterTransposed, after.row_blocks[o] & ~kClusterTransposed);
    }
    std::vector<int> sorted = number;
    std::sort(sorted.begin(), sorted.end());
    for (int b = 0; b < n; ++b)
      ASSERT_EQ(sorted[b], b) << "cluster " << c << " is not a permutation";
  }
}

// cuda/cluster-gather's options and accumulator stride (assemble_cuda.cpp,
// assemble_cluster_kernels.hpp).
const ClusterGatherOptions kCudaClusterOptions{64, 1728, 128, 10, 4, true, true};
constexpr int kCudaBlockStride = 10;

TEST(FemClusterBanks, RenumberedBlocksAreAPermutationThatAssemblesTheReference) {
  std::mt19937_64 rng(ppkit::testing::test_seed());
  for (const HexMesh& mesh : layout_test_meshes()) {
    const auto problem = make_assembly_problem(mesh, inputs::random_material(rng));
    const auto nodes = make_node_gather_layout(problem);
    for (const ClusterGatherOptions& options :
         {kCudaClusterOptions, ClusterGatherOptions{16, 400, 40, 3, 4, true, true},
          ClusterGatherOptions{64, 1728, 128, 20, 4, false, true}}) {
      const ClusterGatherLayout before = make_cluster_gather_layout(problem, nodes, options);
      ClusterGatherLayout after = before;
      renumber_accumulator_blocks(after, kCudaBlockStride);
      expect_cluster_permutations(before, after);
      EXPECT_LE(assembly_relative_error(assemble_by_clusters(problem, after),
                                        assemble_reference(problem)),
                1e-12);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(FemClusterBanks, CountsMatchABankSimulationAndRenumberingLessensThem) {
  const unsigned seed = ppkit::testing::test_seed();
  // A box (its clusters of a few shapes take the swaps), the same box with
  // its nodes numbered at random (shapes of one cluster: the greedy numbering
  // alone) and a fan (nodes in up to 32 elements).
  struct Case {
    HexMesh mesh;
    double most_kept;  // of the wavefronts before
  };
  for (const Case& test : {Case{inputs::distorted_box({12, 12, 12}, seed), 0.85},
                           Case{inputs::renumbered_box({12, 12, 12}, seed), 0.85},
                           Case{inputs::fan_mesh(16, 2, seed), 0.95}}) {
    const auto problem = make_assembly_problem(test.mesh, Material{});
    const ClusterGatherLayout before =
        make_cluster_gather_layout(problem, make_node_gather_layout(problem), kCudaClusterOptions);
    ClusterGatherLayout after = before;
    renumber_accumulator_blocks(after, kCudaBlockStride);
    const std::int64_t simulated_before = simulated_wavefronts(before, kCudaBlockStride);
    const std::int64_t simulated_after = simulated_wavefronts(after, kCudaBlockStride);
    const AccumulatorWavefronts counted_before =
        count_accumulator_wavefronts(before, kCudaBlockStride);
    const AccumulatorWavefronts counted_after =
        count_accumulator_wavefronts(after, kCudaBlockStride);
    EXPECT_EQ(counted_before.adds + counted_before.rows, simulated_before);
    EXPECT_EQ(counted_after.adds + counted_after.rows, simulated_after);
    EXPECT_LE(double(simulated_after), test.most_kept * double(simulated_before))
        << simulated_before << " -> " << simulated_after;
  }
}

TEST(FemClusterBanks, RejectsStridesWithoutABankModel) {
  const auto problem = make_assembly_problem(
      inputs::distorted_box({4, 4, 4}, ppkit::testing::test_seed()), Material{});
  ClusterGatherLayout L =
      make_cluster_gather_layout(problem, make_node_gather_layout(problem), kCudaClusterOptions);
  for (const int stride : {0, 8, 9, 11}) {
    EXPECT_THROW(renumber_accumulator_blocks(L, stride), ppkit::Error) << stride;
    EXPECT_THROW(count_accumulator_wavefronts(L, stride), ppkit::Error) << stride;
  }
  EXPECT_NO_THROW(renumber_accumulator_blocks(L, 12));
}
#endif  // PPKIT_HAVE_CUDA

}  // namespace
