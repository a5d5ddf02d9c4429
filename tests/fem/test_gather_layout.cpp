// Inputs of the node-gather strategy (h): every node's incidences in Morton
// node order, and for each incidence the column block of each of the
// element's nodes in the node's rows, checked against the CSR pattern's
// column indices (independent of the block positions the layout is built from).
#include <algorithm>
#include <numeric>

#include "fem_test_problems.hpp"
#include "harness/variant_test.hpp"
#include "ppkit/fem/gather_layout.hpp"

namespace {
using namespace ppkit::fem;

void expect_blocks_match_pattern(const AssemblyProblem& problem) {
  const auto& mesh = problem.mesh;
  const auto layout = make_node_gather_layout(problem);
  ASSERT_EQ(layout.num_nodes(), mesh.num_nodes());
  std::vector<std::int32_t> sorted(layout.node_of_slot);
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::int32_t> identity(mesh.num_nodes());
  std::iota(identity.begin(), identity.end(), 0);
  ASSERT_EQ(sorted, identity);
  ASSERT_EQ(layout.incidence_blocks.size(), 8 * layout.incidences.size());
  ASSERT_EQ(std::int64_t(layout.element_coordinates.size()), 24 * mesh.num_elements());
  for (std::int64_t e = 0; e < mesh.num_elements(); ++e)
    for (int a = 0; a < 8; ++a)
      for (int i = 0; i < 3; ++i)
        ASSERT_EQ(layout.element_coordinates[24 * e + 3 * a + i],
                  mesh.coordinates[3 * std::int64_t(mesh.elements[8 * e + a]) + i]);
  std::vector<int> incidences_seen(8 * mesh.num_elements(), 0);
  for (std::int64_t slot = 0; slot < layout.num_nodes(); ++slot) {
    const std::int32_t v = layout.node_of_slot[slot];
    const std::int64_t row = problem.pattern.row_offsets[3 * std::int64_t(v)];
    const std::int64_t blocks = (problem.pattern.row_offsets[3 * std::int64_t(v) + 1] - row) / 3;
    for (std::int64_t k = layout.incidence_offsets[slot]; k < layout.incidence_offsets[slot + 1];
         ++k) {
      const std::int32_t incidence = layout.incidences[k];
      const std::int64_t e = incidence / 8;
      ASSERT_EQ(mesh.elements[8 * e + incidence % 8], v);
      ++incidences_seen[incidence];
      for (int b = 0; b < 8; ++b) {
        const std::int64_t block = layout.incidence_blocks[8 * k + b];
        ASSERT_LT(block, blocks);
        EXPECT_EQ(problem.pattern.column_indices[row + 3 * block], 3 * mesh.elements[8 * e + b]);
      }
    }
  }
  // Every (element, local node) is an incidence of exactly one node.
  EXPECT_TRUE(
      std::all_of(incidences_seen.begin(), incidences_seen.end(), [](int n) { return n == 1; }));
}

TEST(FemNodeGatherLayout, BlocksFollowTheCsrPatternOnADistortedBox) {
  expect_blocks_match_pattern(make_assembly_problem(
      inputs::distorted_box({5, 3, 4}, ppkit::testing::test_seed()), Material{}));
}

TEST(FemNodeGatherLayout, BlocksFollowTheCsrPatternWithRenumberedNodes) {
  expect_blocks_match_pattern(make_assembly_problem(
      inputs::renumbered_box({4, 5, 3}, ppkit::testing::test_seed()), Material{}));
}

TEST(FemNodeGatherLayout, BlocksFollowTheCsrPatternAroundNodesOfHighValence) {
  const auto problem =
      make_assembly_problem(inputs::fan_mesh(16, 2, ppkit::testing::test_seed()), Material{});
  const auto layout = make_node_gather_layout(problem);
  std::int64_t most_elements = 0, most_blocks = 0;
  for (std::int64_t slot = 0; slot < layout.num_nodes(); ++slot) {
    const std::int64_t v = layout.node_of_slot[slot];
    most_elements = std::max(most_elements,
                             layout.incidence_offsets[slot + 1] - layout.incidence_offsets[slot]);
    most_blocks =
        std::max(most_blocks,
                 (problem.pattern.row_offsets[3 * v + 1] - problem.pattern.row_offsets[3 * v]) / 3);
  }
  // The middle level's centre node: 32 elements, 3 centres and 3 x 32 ring nodes.
  EXPECT_EQ(most_elements, 32);
  EXPECT_EQ(most_blocks, 99);
  expect_blocks_match_pattern(problem);
}

}  // namespace
