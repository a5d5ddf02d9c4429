// Every variant of fem.assemble reproduces the serial reference global matrix
// and load vector on distorted meshes: relative error <= 1e-12 (fp64).
#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

#include "fem_test_problems.hpp"
#include "harness/variant_test.hpp"
#include "ppkit/fem/gmsh_reader.hpp"

namespace {
using namespace ppkit::fem;

constexpr double kTolerance = 1e-12;

class FemAssembleTest : public ppkit::testing::VariantTest<FemAssemble> {};

TEST_P(FemAssembleTest, MatchesReferenceOnDistortedBox) {
  const unsigned seed = ppkit::testing::test_seed();
  std::mt19937_64 rng(seed);
  const auto problem =
      make_assembly_problem(inputs::distorted_box({5, 4, 3}, seed), inputs::random_material(rng));
  const auto reference = assemble_reference(problem);
  auto run = variant().prepare(problem);
  run->run();
  EXPECT_LE(assembly_relative_error(run->result(), reference), kTolerance);
  run->run();  // a second run must not accumulate onto the first
  EXPECT_LE(assembly_relative_error(run->result(), reference), kTolerance);
}

// Enough nodes (11,025) for 172 clusters of 64, more than an H200 holds at once
// (132 blocks): cluster-gather's persistent blocks take several rounds.
TEST_P(FemAssembleTest, MatchesReferenceOnABoxOfManyClusters) {
  const unsigned seed = ppkit::testing::test_seed() + 7;
  std::mt19937_64 rng(seed);
  const auto problem = make_assembly_problem(inputs::distorted_box({20, 20, 24}, seed),
                                             inputs::random_material(rng));
  auto run = variant().prepare(problem);
  run->run();
  EXPECT_LE(assembly_relative_error(run->result(), assemble_reference(problem)), kTolerance);
}

TEST_P(FemAssembleTest, MatchesReferenceWithShuffledElementsAndManyColours) {
  const unsigned seed = ppkit::testing::test_seed() + 1;
  std::mt19937_64 rng(seed);
  auto mesh = inputs::distorted_box({4, 4, 4}, seed, 0.15);
  std::vector<int> perm(mesh.num_elements());
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  auto shuffled = mesh.elements;
  for (std::size_t e = 0; e < perm.size(); ++e)
    std::copy_n(mesh.elements.begin() + 8 * perm[e], 8, shuffled.begin() + 8 * e);
  mesh.elements = shuffled;
  const auto problem = make_assembly_problem(mesh, inputs::random_material(rng));
  ASSERT_GT(problem.coloured.num_colours(), 8);
  auto run = variant().prepare(problem);
  run->run();
  EXPECT_LE(assembly_relative_error(run->result(), assemble_reference(problem)), kTolerance);
}

// 27 elements: an odd count in the single launch of the atomic variants and
// colours of 8, 4, 2 and 1 elements, so a GPU block (and, on AMD, a 64-lane
// wavefront holding two elements) is left partly empty.
TEST_P(FemAssembleTest, MatchesReferenceWithOddElementCounts) {
  const unsigned seed = ppkit::testing::test_seed() + 2;
  std::mt19937_64 rng(seed);
  const auto problem =
      make_assembly_problem(inputs::distorted_box({3, 3, 3}, seed), inputs::random_material(rng));
  bool odd_colour = false;
  for (std::size_t c = 0; c + 1 < problem.coloured.colour_offsets.size(); ++c)
    odd_colour |= (problem.coloured.colour_offsets[c + 1] - problem.coloured.colour_offsets[c]) % 2;
  ASSERT_TRUE(odd_colour);
  auto run = variant().prepare(problem);
  run->run();
  EXPECT_LE(assembly_relative_error(run->result(), assemble_reference(problem)), kTolerance);
}

// A Gmsh mesh (node numbers from the file, hexahedra in file order).
TEST_P(FemAssembleTest, MatchesReferenceOnGmshMesh) {
  std::mt19937_64 rng(ppkit::testing::test_seed() + 3);
  const auto problem =
      make_assembly_problem(read_gmsh_file(std::string(PPKIT_FEM_TEST_DATA) + "/two_hexahedra.msh"),
                            inputs::random_material(rng));
  auto run = variant().prepare(problem);
  run->run();
  EXPECT_LE(assembly_relative_error(run->result(), assemble_reference(problem)), kTolerance);
}

// Randomly renumbered nodes: CSR rows no longer follow grid lines (as in a
// Gmsh mesh), so the tiled variants' row runs are short and irregular; 240
// elements make several tiles with partly filled last chunks.
TEST_P(FemAssembleTest, MatchesReferenceWithRenumberedNodes) {
  const unsigned seed = ppkit::testing::test_seed() + 4;
  std::mt19937_64 rng(seed);
  const auto problem =
      make_assembly_problem(inputs::renumbered_box({8, 6, 5}, seed), inputs::random_material(rng));
  auto run = variant().prepare(problem);
  run->run();
  EXPECT_LE(assembly_relative_error(run->result(), assemble_reference(problem)), kTolerance);
}

// Unstructured valences: centre nodes in 20 elements (63 neighbour nodes)
// and in 32 elements (99), more than the node-gather variants' accumulator
// holds (kGatherWindowBlocks column blocks), and 20 or 32 colours for
// the colouring ones.
TEST_P(FemAssembleTest, MatchesReferenceAroundNodesOfHighValence) {
  const unsigned seed = ppkit::testing::test_seed() + 5;
  std::mt19937_64 rng(seed);
  for (const auto& [sectors, layers] : {std::pair{10, 3}, std::pair{16, 2}}) {
    const auto problem = make_assembly_problem(inputs::fan_mesh(sectors, layers, seed),
                                               inputs::random_material(rng));
    auto run = variant().prepare(problem);
    run->run();
    EXPECT_LE(assembly_relative_error(run->result(), assemble_reference(problem)), kTolerance)
        << sectors << " sectors";
    run->run();
    EXPECT_LE(assembly_relative_error(run->result(), assemble_reference(problem)), kTolerance)
        << sectors << " sectors, second run";
  }
}

// Nodes in no element: empty CSR rows between used ones (node-gather's warps
// for them read no incidences and store a zero load).
TEST_P(FemAssembleTest, MatchesReferenceWithNodesInNoElement) {
  const unsigned seed = ppkit::testing::test_seed() + 6;
  std::mt19937_64 rng(seed);
  const auto problem = make_assembly_problem(inputs::box_with_unused_nodes({3, 2, 2}, seed, 5),
                                             inputs::random_material(rng));
  const auto& rows = problem.pattern.row_offsets;  // equal neighbours: an empty row
  ASSERT_NE(std::adjacent_find(rows.begin(), rows.end()), rows.end());
  auto run = variant().prepare(problem);
  run->run();
  const auto reference = assemble_reference(problem);
  EXPECT_LE(assembly_relative_error(run->result(), reference), kTolerance);
  run->run();
  EXPECT_LE(assembly_relative_error(run->result(), reference), kTolerance);
}

TEST_P(FemAssembleTest, UnrunResultIsPoisoned) {
  const auto problem = make_assembly_problem(inputs::distorted_box({2, 2, 2}, 3), Material{});
  auto run = variant().prepare(problem);
  EXPECT_TRUE(std::isnan(assembly_relative_error(run->result(), assemble_reference(problem))));
}

PPKIT_INSTANTIATE_VARIANT_TESTS(FemAssembleTest, FemAssemble);
}  // namespace
