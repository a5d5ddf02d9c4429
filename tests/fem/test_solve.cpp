// Jacobi CG on assembled stiffness matrices, the cantilever against
// Timoshenko beam theory, VTU output, and the C API.
#include <cmath>
#include <fstream>
#include <sstream>

#include "fem_test_problems.hpp"
#include "harness/variant_test.hpp"
#include "ppkit.h"
#include "ppkit/fem/cantilever.hpp"
#include "ppkit/fem/vtu_writer.hpp"
#include "ppkit_fem.h"

namespace {
using namespace ppkit::fem;

TEST(FemSolve, JacobiCgSolvesAConstrainedDistortedBox) {
  const unsigned seed = ppkit::testing::test_seed();
  std::mt19937_64 rng(seed);
  const auto problem =
      make_assembly_problem(inputs::distorted_box({6, 3, 3}, seed), inputs::random_material(rng));
  auto K = assemble_reference(problem);
  std::vector<double> b(problem.mesh.num_dofs());
  std::uniform_real_distribution<double> uni(-1, 1);
  for (double& v : b) v = uni(rng);
  std::vector<std::int64_t> fixed;
  for (auto v : problem.mesh.node_groups.at("fixed"))
    for (int i = 0; i < 3; ++i) fixed.push_back(3 * std::int64_t(v) + i);
  apply_zero_dirichlet(problem.pattern, K.values, b, fixed);
  const auto cg = solve_jacobi_cg(problem.pattern, K.values, b, {1e-12, 10000});
  ASSERT_TRUE(cg.converged);
  const auto& p = problem.pattern;
  double residual = 0, norm = 0;
  for (std::int64_t r = 0; r < p.num_rows; ++r) {
    double Ax = 0;
    for (auto k = p.row_offsets[r]; k < p.row_offsets[r + 1]; ++k)
      Ax += K.values[k] * cg.solution[p.column_indices[k]];
    residual += (Ax - b[r]) * (Ax - b[r]);
    norm += b[r] * b[r];
  }
  EXPECT_LE(std::sqrt(residual / norm), 1e-10);  // true residual, not CG's recurrence
  for (auto d : fixed) EXPECT_EQ(cg.solution[d], 0.0);
}

TEST(FemCantilever, TipDeflectionWithinTwoPercentOfTimoshenkoAndConverges) {
  CantileverSpec coarse;
  coarse.elements = {20, 2, 2};
  CantileverSpec fine;
  fine.elements = {80, 8, 8};  // equal-sided bricks of 1/8 m
  const auto c = solve_cantilever(coarse);
  const auto f = solve_cantilever(fine);
  EXPECT_LT(f.relative_error, 0.02) << "tip " << f.tip_deflection << " theory " << f.theory;
  EXPECT_LT(f.tip_deflection, f.theory);  // trilinear bricks are stiffer than the beam (locking)
  EXPECT_LT(f.relative_error, c.relative_error);  // refinement converges towards theory
  EXPECT_GT(c.relative_error, 0.05);              // ... from a visibly locked coarse mesh
}

TEST(FemCantilever, VonMisesFollowsBeamBendingAndVtuHasTheFields) {
  CantileverSpec spec;
  spec.elements = {40, 4, 4};
  const auto r = solve_cantilever(spec);
  Material m{spec.youngs_modulus, spec.poisson_ratio, {0, 0, 0}};
  const auto vm = element_von_mises(r.problem.mesh, m, r.displacement);
  // Mid-span, top layer (i = 20, j = 1, k = 3): centre at x = 5.125, z - h/2 = 0.375;
  // beam bending stress sigma = P (L - x) z / I dominates (shear adds < 1%).
  const double expected = spec.load * (10.0 - 5.125) * 0.375 / (1.0 / 12);
  EXPECT_NEAR(vm[20 + 40 * (1 + 4 * 3)], expected, 0.1 * expected);
  EXPECT_GT(vm[0 + 40 * (1 + 4 * 3)],
            vm[39 + 40 * (1 + 4 * 3)]);  // moment largest at the fixed end
  const std::string path = ::testing::TempDir() + "fem_cantilever.vtu";
  write_vtu(path, r.problem.mesh, r.displacement, vm);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("NumberOfPoints=\"1025\" NumberOfCells=\"640\""), std::string::npos);
  EXPECT_NE(text.str().find("Name=\"displacement\""), std::string::npos);
  EXPECT_NE(text.str().find("Name=\"von_mises\""), std::string::npos);
  std::remove(path.c_str());
}

TEST(FemCApi, AssemblesIntoCallerOwnedCsrArrays) {
  ASSERT_EQ(ppkit_init(), 0);
  const unsigned seed = ppkit::testing::test_seed();
  std::mt19937_64 rng(seed);
  const auto mesh = inputs::distorted_box({3, 2, 2}, seed);
  const auto material = inputs::random_material(rng);
  int64_t rows = 0, nnz = 0;
  ASSERT_EQ(
      ppkit_fem_csr_size(mesh.num_nodes(), mesh.num_elements(), mesh.elements.data(), &rows, &nnz),
      0)
      << ppkit_fem_last_error();
  std::vector<int64_t> row_offsets(rows + 1);
  std::vector<int32_t> columns(nnz);
  std::vector<double> values(nnz), load(rows);
  ASSERT_EQ(ppkit_fem_assemble(mesh.num_nodes(), mesh.coordinates.data(), mesh.num_elements(),
                               mesh.elements.data(), material.youngs_modulus,
                               material.poisson_ratio, material.body_force.data(), nullptr,
                               row_offsets.data(), columns.data(), values.data(), load.data()),
            0)
      << ppkit_fem_last_error();
  const auto problem = make_assembly_problem(mesh, material);
  const auto reference = assemble_reference(problem);
  EXPECT_EQ(row_offsets, problem.pattern.row_offsets);
  EXPECT_EQ(columns, problem.pattern.column_indices);
  EXPECT_LE(assembly_relative_error({values, load}, reference), 1e-12);

  auto bad = mesh.elements;
  std::swap(bad[8 * 4 + 0], bad[8 * 4 + 6]);  // element 4 folded
  EXPECT_NE(ppkit_fem_assemble(mesh.num_nodes(), mesh.coordinates.data(), mesh.num_elements(),
                               bad.data(), 1e9, 0.3, nullptr, "auto", row_offsets.data(),
                               columns.data(), values.data(), load.data()),
            0);
  EXPECT_NE(std::string(ppkit_fem_last_error()).find("element 4"), std::string::npos)
      << ppkit_fem_last_error();
  EXPECT_NE(ppkit_fem_assemble(mesh.num_nodes(), mesh.coordinates.data(), mesh.num_elements(),
                               mesh.elements.data(), 1e9, 0.3, nullptr, "no-such-variant",
                               row_offsets.data(), columns.data(), values.data(), load.data()),
            0);
  EXPECT_NE(std::string(ppkit_fem_last_error()).find("unknown variant"), std::string::npos);
}

}  // namespace
