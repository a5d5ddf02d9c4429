// The checks `ppkit compare --large` uses instead of the full serial
// reference (assembly_checks.hpp): they hold for a correct assembly and catch
// a wrong entry.
#include <gtest/gtest.h>

#include "fem_test_problems.hpp"
#include "harness/variant_test.hpp"
#include "ppkit/fem/assembly_checks.hpp"

namespace ppkit::fem {
namespace {

struct Checked {
  AssemblyProblem problem;
  AssemblyResult reference;
};

Checked make_checked() {
  std::mt19937_64 rng(ppkit::testing::test_seed());
  auto problem = make_assembly_problem(inputs::distorted_box({5, 4, 3}, unsigned(rng())),
                                       inputs::random_material(rng));
  auto reference = assemble_reference(problem);
  return {std::move(problem), std::move(reference)};
}

TEST(FemAssemblyChecks, HoldForTheReferenceAssembly) {
  const auto c = make_checked();
  const auto inv = assembly_invariants(c.problem, c.reference);
  EXPECT_LT(inv.symmetry, 1e-14);
  EXPECT_LT(inv.rigid_body, 1e-13);
  const auto load = reference_load(c.problem);
  ASSERT_EQ(load.size(), c.reference.load.size());
  for (std::size_t i = 0; i < load.size(); ++i)
    EXPECT_NEAR(load[i], c.reference.load[i], 1e-14 * std::abs(c.reference.load[i]) + 1e-300);
  const auto rows = sample_reference_rows(c.problem, 20, 7u);
  EXPECT_GE(rows.rows.size(), 30u);  // up to 20 distinct nodes, 3 rows each
  EXPECT_LT(sampled_rows_error(c.problem, rows, c.reference), 1e-14);
}

TEST(FemAssemblyChecks, CatchAnAsymmetricEntry) {
  auto c = make_checked();
  const auto& pattern = c.problem.pattern;
  // An off-diagonal entry of row 7 grows by 1e-6 of the largest entry.
  std::int64_t k = pattern.row_offsets[7];
  while (pattern.column_indices[k] == 7) ++k;
  double largest = 0;
  for (double v : c.reference.values) largest = std::max(largest, std::abs(v));
  c.reference.values[k] += 1e-6 * largest;
  const auto inv = assembly_invariants(c.problem, c.reference);
  EXPECT_GT(inv.symmetry, 5e-7);
  EXPECT_GT(inv.rigid_body, 1e-8);
}

TEST(FemAssemblyChecks, CatchAWrongDiagonalThatSymmetryCannotSee) {
  auto c = make_checked();
  const auto& pattern = c.problem.pattern;
  const auto sample = sample_reference_rows(c.problem, 5000, 3u);  // every node of 120
  // K_00 grows by 1e-6 of itself: K stays symmetric, but a translation along
  // x is no longer in its null space, and row 0 no longer matches the reference.
  std::int64_t k = pattern.row_offsets[0];
  while (pattern.column_indices[k] != 0) ++k;
  c.reference.values[k] *= 1 + 1e-6;
  const auto inv = assembly_invariants(c.problem, c.reference);
  EXPECT_LT(inv.symmetry, 1e-14);
  EXPECT_GT(inv.rigid_body, 1e-8);
  EXPECT_GT(sampled_rows_error(c.problem, sample, c.reference), 1e-10);  // tolerance 1e-12
}

TEST(FemAssemblyChecks, NanIsNeverAPass) {
  auto c = make_checked();
  c.reference.values[3] = std::nan("");
  const auto inv = assembly_invariants(c.problem, c.reference);
  EXPECT_TRUE(std::isnan(inv.symmetry));
  EXPECT_TRUE(std::isnan(inv.rigid_body));
}

}  // namespace
}  // namespace ppkit::fem
