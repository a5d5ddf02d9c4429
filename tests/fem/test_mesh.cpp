// Meshes, bad-mesh errors, colouring validity, CSR pattern, and the patch test
// on the assembled global matrix.
#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "fem_test_problems.hpp"
#include "harness/variant_test.hpp"

namespace {
using namespace ppkit::fem;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ppkit::Error& e) {
    return e.what();
  }
  return "";
}

TEST(FemMesh, BoxHasTheExpectedCountsAndPositiveJacobians) {
  const auto mesh = inputs::distorted_box({5, 4, 3}, ppkit::testing::test_seed(), 0.15);
  EXPECT_EQ(mesh.num_nodes(), 6 * 5 * 4);
  EXPECT_EQ(mesh.num_elements(), 60);
  EXPECT_EQ(mesh.node_groups.at("fixed").size(), 5u * 4u);
  for (auto v : mesh.node_groups.at("fixed")) EXPECT_EQ(mesh.coordinates[3 * v], 0.0);
  for (auto v : mesh.node_groups.at("loaded")) EXPECT_DOUBLE_EQ(mesh.coordinates[3 * v], 1.3);
  EXPECT_NO_THROW(validate_mesh(mesh));
}

// make_scrambled_box_mesh: the box's topology, valid elements, and none of
// its numbering, element node order or lattice.
TEST(FemMesh, ScrambledBoxKeepsTheTopologyAndLosesTheLattice) {
  BoxMeshSpec spec;
  spec.elements = {5, 4, 3};
  spec.size = {1.3, 0.9, 1.1};
  spec.perturbation = 0.15;
  spec.seed = ppkit::testing::test_seed();
  const auto box = make_box_mesh(spec), mesh = make_scrambled_box_mesh(spec);
  ASSERT_EQ(mesh.num_nodes(), box.num_nodes());
  ASSERT_EQ(mesh.num_elements(), box.num_elements());
  EXPECT_NO_THROW(validate_mesh(mesh));
  EXPECT_EQ(make_scrambled_box_mesh(spec).elements, mesh.elements);  // seeded
  EXPECT_EQ(make_scrambled_box_mesh(spec).coordinates, mesh.coordinates);
  // Elements per node, sorted: the box's (corners 1, edges 2, faces 4, inside 8).
  auto incidences = [](const HexMesh& m) {
    std::vector<int> count(std::size_t(m.num_nodes()), 0);
    for (auto v : m.elements) ++count[std::size_t(v)];
    std::sort(count.begin(), count.end());
    return count;
  };
  EXPECT_EQ(incidences(mesh), incidences(box));
  EXPECT_EQ(mesh.node_groups.at("fixed").size(), box.node_groups.at("fixed").size());
  // Numbering: share of node pairs (v, v + 1) in one element, and of element
  // pairs (e, e + 1) sharing a node; most of them on the box, few here.
  auto neighbour_shares = [](const HexMesh& m) {
    std::vector<std::vector<std::int64_t>> elements_of(std::size_t(m.num_nodes()));
    for (std::int64_t e = 0; e < m.num_elements(); ++e)
      for (int a = 0; a < 8; ++a) elements_of[std::size_t(m.elements[8 * e + a])].push_back(e);
    int nodes = 0, elements = 0;
    for (std::int64_t v = 0; v + 1 < m.num_nodes(); ++v)
      for (auto e : elements_of[std::size_t(v)]) {
        const auto* first = &m.elements[8 * e];
        if (std::find(first, first + 8, std::int32_t(v + 1)) != first + 8) {
          ++nodes;
          break;
        }
      }
    for (std::int64_t e = 0; e + 1 < m.num_elements(); ++e) {
      const auto* a = &m.elements[8 * e];
      const auto* b = &m.elements[8 * (e + 1)];
      if (std::any_of(a, a + 8, [&](std::int32_t v) { return std::find(b, b + 8, v) != b + 8; }))
        ++elements;
    }
    return std::pair<double, double>{double(nodes) / double(m.num_nodes() - 1),
                                     double(elements) / double(m.num_elements() - 1)};
  };
  const auto [box_nodes, box_elements] = neighbour_shares(box);
  const auto [nodes, elements] = neighbour_shares(mesh);
  EXPECT_GT(box_nodes, 0.75);
  EXPECT_GT(box_elements, 0.75);
  EXPECT_LT(nodes, 0.5);
  EXPECT_LT(elements, 0.5);
  // Element node order: on the box, local node 0 is always the corner with
  // the smallest x + y + z; rotated at random, about 1 element in 8.
  auto node_0_lowest = [](const HexMesh& m) {
    int count = 0;
    for (std::int64_t e = 0; e < m.num_elements(); ++e) {
      auto sum = [&](int a) {
        const auto* x = &m.coordinates[3 * std::size_t(m.elements[8 * e + a])];
        return x[0] + x[1] + x[2];
      };
      bool lowest = true;
      for (int a = 1; a < 8; ++a) lowest = lowest && sum(0) < sum(a);
      count += lowest;
    }
    return count;
  };
  EXPECT_EQ(node_0_lowest(box), box.num_elements());
  EXPECT_LT(node_0_lowest(mesh), box.num_elements() / 2);
  // Lattice: the box's face x = LX is a plane; graded and twisted, it is not.
  double low = 1e300, high = -1e300;
  for (auto v : mesh.node_groups.at("loaded")) {
    low = std::min(low, mesh.coordinates[3 * std::size_t(v)]);
    high = std::max(high, mesh.coordinates[3 * std::size_t(v)]);
  }
  EXPECT_GT(high - low, 0.05);
}

TEST(FemMesh, PerturbationIsSeededAndMovesInteriorNodes) {
  const unsigned seed = ppkit::testing::test_seed();
  const auto a = inputs::distorted_box({3, 3, 3}, seed), b = inputs::distorted_box({3, 3, 3}, seed);
  const auto flat = inputs::distorted_box({3, 3, 3}, seed, 0.0);
  EXPECT_EQ(a.coordinates, b.coordinates);
  EXPECT_NE(a.coordinates, flat.coordinates);
}

TEST(FemMesh, InvertedElementIsNamed) {
  auto mesh = inputs::distorted_box({3, 2, 2}, ppkit::testing::test_seed());
  for (int a = 0; a < 4; ++a)
    std::swap(mesh.elements[8 * 7 + a], mesh.elements[8 * 7 + 4 + a]);  // mirror element 7
  const auto message = error_of([&] { validate_mesh(mesh); });
  EXPECT_NE(message.find("element 7 has det J"), std::string::npos) << message;
  EXPECT_NE(error_of([&] { make_assembly_problem(mesh, Material{}); }).find("element 7"),
            std::string::npos);
}

TEST(FemMesh, UnknownAndRepeatedNodesAreNamed) {
  auto mesh = inputs::distorted_box({2, 2, 2}, ppkit::testing::test_seed());
  auto bad = mesh;
  bad.elements[8 * 5 + 3] = 1000;
  EXPECT_NE(error_of([&] { validate_mesh(bad); }).find("element 5 refers to node 1000"),
            std::string::npos);
  bad = mesh;
  bad.elements[8 * 2 + 1] = bad.elements[8 * 2];
  EXPECT_NE(error_of([&] { validate_mesh(bad); }).find("element 2 uses node"), std::string::npos);
  EXPECT_NE(error_of([] {
              make_box_mesh({{0, 1, 1}});
            }).find("at least one element"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              make_box_mesh({{1, 1, 1}, {1, 1, 1}, 0.6});
            }).find("perturbation"),
            std::string::npos);
  Material m;
  m.poisson_ratio = 0.5;
  EXPECT_NE(error_of([&] { make_assembly_problem(mesh, m); }).find("Poisson"), std::string::npos);
}

TEST(FemColouring, BoxNeedsEightColoursAndTheColouringIsValid) {
  const auto mesh = inputs::distorted_box({6, 5, 4}, ppkit::testing::test_seed());
  const auto colouring = colour_elements(mesh);
  EXPECT_EQ(colouring.num_colours(), 8);
  EXPECT_TRUE(colouring_is_valid(mesh, colouring));
}

TEST(FemColouring, ShuffledElementsStillColourValidly) {
  auto mesh = inputs::distorted_box({5, 5, 4}, ppkit::testing::test_seed());
  std::mt19937_64 rng(ppkit::testing::test_seed());
  std::vector<int> perm(mesh.num_elements());
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  auto shuffled = mesh.elements;
  for (std::size_t e = 0; e < perm.size(); ++e)
    std::copy_n(mesh.elements.begin() + 8 * perm[e], 8, shuffled.begin() + 8 * e);
  mesh.elements = shuffled;
  const auto colouring = colour_elements(mesh);
  EXPECT_GE(colouring.num_colours(), 8);
  EXPECT_TRUE(colouring_is_valid(mesh, colouring));
}

TEST(FemColouring, CheckerRejectsTwoNeighboursOfOneColour) {
  const auto mesh = inputs::distorted_box({3, 3, 3}, ppkit::testing::test_seed());
  auto colouring = colour_elements(mesh);
  // Elements 0 and 1 share a face; give element 1 element 0's colour.
  const int c0 = colouring.colour[0], c1 = colouring.colour[1];
  ASSERT_NE(c0, c1);
  colouring.colour[1] = c0;
  auto& order = colouring.order;
  order.erase(std::find(order.begin(), order.end(), 1));
  order.insert(order.begin() + colouring.colour_offsets[c0 + 1] - 1, 1);
  for (int c = c0 + 1; c <= c1; ++c) ++colouring.colour_offsets[c];
  EXPECT_FALSE(colouring_is_valid(mesh, colouring));
}

TEST(FemCsr, PatternHasNodeNeighbourhoodsAndIsSymmetric) {
  const auto mesh = inputs::distorted_box({4, 3, 3}, ppkit::testing::test_seed());
  const auto p = build_csr_pattern(mesh);
  ASSERT_EQ(p.num_rows, 3 * mesh.num_nodes());
  auto row_length = [&](std::int64_t r) { return p.row_offsets[r + 1] - p.row_offsets[r]; };
  EXPECT_EQ(row_length(0), 3 * 8);                       // corner node: 8 neighbours
  EXPECT_EQ(row_length(3 * (1 + 5 * (1 + 4 * 1))), 81);  // interior node: 27 neighbours
  for (std::int64_t r = 0; r < p.num_rows; ++r) {
    ASSERT_TRUE(std::is_sorted(p.column_indices.begin() + p.row_offsets[r],
                               p.column_indices.begin() + p.row_offsets[r + 1]));
    for (auto k = p.row_offsets[r]; k < p.row_offsets[r + 1];
         ++k) {  // (r, c) present => (c, r) present
      const auto c = p.column_indices[k];
      ASSERT_TRUE(std::binary_search(p.column_indices.begin() + p.row_offsets[c],
                                     p.column_indices.begin() + p.row_offsets[c + 1],
                                     std::int32_t(r)));
    }
  }
  const auto blocks = build_csr_block_positions(mesh, p);
  for (std::int64_t e = 0; e < mesh.num_elements(); ++e)
    for (int a = 0; a < 8; ++a)
      for (int b = 0; b < 8; ++b) {
        const auto pos = blocks[64 * e + 8 * a + b];
        ASSERT_GE(pos, p.row_offsets[3 * mesh.elements[8 * e + a]]);
        ASSERT_EQ(p.column_indices[pos], 3 * mesh.elements[8 * e + b]);
      }
}

// Patch test (Irons): on a distorted mesh, a linear displacement field gives
// zero residual K u at every interior node (constant stress is in equilibrium),
// and the boundary forces sum to zero; with body force zero.
TEST(FemPatchTest, LinearFieldIsInEquilibriumAtInteriorNodes) {
  const unsigned seed = ppkit::testing::test_seed();
  std::mt19937_64 rng(seed);
  auto material = inputs::random_material(rng);
  material.body_force = {0, 0, 0};
  const int n[3] = {4, 4, 3};
  const auto problem =
      make_assembly_problem(inputs::distorted_box({n[0], n[1], n[2]}, seed, 0.15), material);
  const auto K = assemble_reference(problem);
  std::uniform_real_distribution<double> uni(-1, 1);
  double G[3][3], c[3] = {uni(rng), uni(rng), uni(rng)};
  for (auto& row : G)
    for (double& v : row) v = uni(rng);
  const auto& mesh = problem.mesh;
  std::vector<double> u(mesh.num_dofs());
  for (std::int64_t v = 0; v < mesh.num_nodes(); ++v)
    for (int i = 0; i < 3; ++i)
      u[3 * v + i] = c[i] + G[i][0] * mesh.coordinates[3 * v] +
                     G[i][1] * mesh.coordinates[3 * v + 1] + G[i][2] * mesh.coordinates[3 * v + 2];
  const auto& p = problem.pattern;
  double kmax = 0;
  for (double v : K.values) kmax = std::max(kmax, std::fabs(v));
  double total[3] = {0, 0, 0}, largest = 0;
  int interior_checked = 0;
  for (std::int64_t v = 0; v < mesh.num_nodes(); ++v) {
    const std::int64_t i0 = v % (n[0] + 1), j0 = (v / (n[0] + 1)) % (n[1] + 1),
                       k0 = v / ((n[0] + 1) * (n[1] + 1));
    const bool interior = i0 > 0 && i0 < n[0] && j0 > 0 && j0 < n[1] && k0 > 0 && k0 < n[2];
    for (int i = 0; i < 3; ++i) {
      const std::int64_t row = 3 * v + i;
      double r = 0;
      for (auto k = p.row_offsets[row]; k < p.row_offsets[row + 1]; ++k)
        r += K.values[k] * u[p.column_indices[k]];
      total[i] += r;
      largest = std::max(largest, std::fabs(r));
      if (interior) {
        EXPECT_NEAR(r, 0.0, 1e-11 * kmax) << "interior node " << v << " component " << i;
        ++interior_checked;
      }
    }
  }
  EXPECT_EQ(interior_checked, 3 * 3 * 3 * 2);
  EXPECT_GT(largest, 1e-3 * kmax);  // boundary nodes do carry the traction
  for (double t : total) EXPECT_NEAR(t, 0.0, 1e-10 * kmax);
}

}  // namespace
