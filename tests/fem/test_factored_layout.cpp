// Inputs of the factored strategy (f): Morton element order, 16-bit offsets
// within CSR rows, first-writer masks (every CSR block claimed by exactly one
// element, the first in launch order).
#include <algorithm>
#include <numeric>
#include <set>

#include "fem_test_problems.hpp"
#include "harness/variant_test.hpp"
#include "ppkit/fem/factored_layout.hpp"
#include "ppkit/fem/hex8_shape.hpp"
#include "ppkit/fem/ke_entry_order.hpp"

namespace {
using namespace ppkit::fem;

TEST(FemFactoredLayout, MortonOrderIsAPermutationThatKeepsNeighboursClose) {
  const auto mesh = inputs::distorted_box({8, 8, 8}, ppkit::testing::test_seed(), 0.1);
  const auto order = morton_element_order(mesh);
  std::vector<std::int64_t> sorted(order);
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::int64_t> identity(mesh.num_elements());
  std::iota(identity.begin(), identity.end(), 0);
  ASSERT_EQ(sorted, identity);
  // On a 2^3-aligned box the first 8 Morton elements form one 2x2x2 cube:
  // element (i,j,k) = i + 8 (j + 8 k) with i, j, k in {0, 1}.
  std::set<std::int64_t> first8(order.begin(), order.begin() + 8);
  EXPECT_EQ(first8, (std::set<std::int64_t>{0, 1, 8, 9, 64, 65, 72, 73}));
}

TEST(FemFactoredLayout, OffsetsReproduceTheBlockPositions) {
  const auto problem = make_assembly_problem(
      inputs::distorted_box({4, 3, 5}, ppkit::testing::test_seed()), Material{});
  for (auto order : {FactoredOrder::morton_atomic, FactoredOrder::colour_first_writer}) {
    const auto layout = make_factored_layout(problem, order);
    ASSERT_EQ(layout.num_elements(), problem.mesh.num_elements());
    ASSERT_EQ(layout.launch_offsets.back(), problem.mesh.num_elements());
    const auto positions = build_csr_block_positions(problem.mesh, problem.pattern);
    for (std::int64_t k = 0; k < layout.num_elements(); ++k) {
      const std::int64_t e = layout.element_of_slot[k];
      for (int a = 0; a < 8; ++a) {
        const std::int32_t v = layout.nodes[8 * k + a];
        ASSERT_EQ(v, problem.mesh.elements[8 * e + a]);
        EXPECT_EQ(layout.coordinates[24 * k + 3 * a + 2], problem.mesh.coordinates[3 * v + 2]);
        for (int b = 0; b < 8; ++b)
          ASSERT_EQ(problem.pattern.row_offsets[3 * v] + layout.column_offsets[64 * k + 8 * a + b],
                    positions[64 * e + 8 * a + b]);
      }
    }
  }
}

TEST(FemFactoredLayout, EveryCsrBlockHasExactlyOneFirstWriterInAnEarlierOrSameColour) {
  auto mesh = inputs::distorted_box({5, 4, 3}, ppkit::testing::test_seed());
  const auto problem = make_assembly_problem(mesh, Material{});
  const auto layout = make_factored_layout(problem, FactoredOrder::colour_first_writer);
  ASSERT_EQ(std::int64_t(layout.first_writer.size()), layout.num_elements());
  // first_launch[block start] = launch (colour) of its first writer; every later
  // touch must come from a later launch.
  std::vector<int> first_launch(problem.pattern.num_nonzeros(), -1);
  std::int64_t claimed = 0;
  for (std::size_t launch = 0; launch + 1 < layout.launch_offsets.size(); ++launch)
    for (std::int64_t k = layout.launch_offsets[launch]; k < layout.launch_offsets[launch + 1]; ++k)
      for (int blk = 0; blk < 64; ++blk) {
        const std::int32_t v = layout.nodes[8 * k + blk / 8];
        const std::int64_t start =
            problem.pattern.row_offsets[3 * v] + layout.column_offsets[64 * k + blk];
        const bool first = (layout.first_writer[k] >> blk) & 1;
        if (first) {
          EXPECT_EQ(first_launch[start], -1) << "block claimed twice";
          first_launch[start] = int(launch);
          ++claimed;
        } else {
          ASSERT_GE(first_launch[start], 0) << "added before its first writer";
          EXPECT_LT(first_launch[start], int(launch));
        }
      }
  // Blocks = nonzeros / 9 (3x3 per node pair).
  EXPECT_EQ(claimed * 9, problem.pattern.num_nonzeros());
}

// Both orders of strategy (f)'s adds cover the 576 entries of Ke exactly once.
TEST(FemKeEntryOrder, EveryOrderAddsEachEntryOnce) {
  for (const KeEntryOrder order : {KeEntryOrder::row_major, KeEntryOrder::node_pair_runs}) {
    std::vector<int> seen(576, 0);
    for (int round = 0; round < ke_entry_rounds(order); ++round)
      for (int lane = 0; lane < 32; ++lane) {
        const KeEntry entry = ke_entry(order, round, lane);
        if (!entry.active) continue;
        ASSERT_TRUE(entry.row >= 0 && entry.row < 24 && entry.column >= 0 && entry.column < 24);
        ++seen[24 * entry.row + entry.column];
      }
    for (int m = 0; m < 576; ++m) EXPECT_EQ(seen[m], 1) << "entry " << m;
  }
}

// node_pair_runs: every round is up to 5 runs of 6 lanes (30 and 31 idle), each run
// one row of Ke and the components 0, 1, 2 of two nodes that differ only in
// the first natural coordinate, the lower one first: the CSR order of their
// columns when nodes are numbered along that axis.
TEST(FemKeEntryOrder, NodePairRunsFollowTheFirstAxis) {
  for (int round = 0; round < ke_entry_rounds(KeEntryOrder::node_pair_runs); ++round) {
    EXPECT_FALSE(ke_entry(KeEntryOrder::node_pair_runs, round, 30).active);
    EXPECT_FALSE(ke_entry(KeEntryOrder::node_pair_runs, round, 31).active);
    for (int run = 0; run < 5; ++run) {
      const KeEntry lead = ke_entry(KeEntryOrder::node_pair_runs, round, 6 * run);
      if (5 * round + run >= 96) {  // 96 runs: the last round holds one
        EXPECT_FALSE(lead.active) << "round " << round << " run " << run;
        continue;
      }
      const int lower = lead.column / 3,
                upper = ke_entry(KeEntryOrder::node_pair_runs, round, 6 * run + 3).column / 3;
      EXPECT_EQ(kNodeSigns[lower][0], -1) << "round " << round << " run " << run;
      EXPECT_EQ(kNodeSigns[upper][0], 1);
      EXPECT_EQ(kNodeSigns[lower][1], kNodeSigns[upper][1]);
      EXPECT_EQ(kNodeSigns[lower][2], kNodeSigns[upper][2]);
      for (int k = 0; k < 6; ++k) {
        const KeEntry entry = ke_entry(KeEntryOrder::node_pair_runs, round, 6 * run + k);
        ASSERT_TRUE(entry.active);
        EXPECT_EQ(entry.row, lead.row);
        EXPECT_EQ(entry.column, 3 * (k < 3 ? lower : upper) + k % 3);
      }
    }
  }
}

}  // namespace
