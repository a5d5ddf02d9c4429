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

// The verification `ppkit compare` and the benchmarks share
// (assembly_verification): passes a correct assembly, fails one wrong value of
// K, both with the full reference and with the sampled checks of large boxes.
TEST(FemAssemblyChecks, VerificationFailsOneWrongValue) {
  const auto c = make_checked();
  const auto& variant = Registry<FemAssemble>::find("kokkos-serial/thread-per-element");
  for (bool full : {true, false}) {
    // Sample every node, so the wrong row is among the sampled ones.
    const auto verification = assembly_verification(c.problem, full, 1000, 5u);
    CompareRow row;
    const double good = verification.check(variant, c.reference, row);
    EXPECT_TRUE(verification.passes(good)) << full << " " << good;
    auto wrong = c.reference;
    wrong.values[wrong.values.size() / 3] *= 1.0 + 1e-4;
    const double bad = verification.check(variant, wrong, row);
    EXPECT_FALSE(verification.passes(bad)) << full << " " << bad;
    EXPECT_FALSE(row.extra.value("verified_against", std::string()).empty());
  }
}

// assembly_cost's compulsory bytes against hand counts: coordinates (24 B per
// node) and connectivity (32 B per element) read once, CSR values (8 B per
// nonzero) and load (8 B per DOF) written once.
TEST(FemAssemblyCost, CompulsoryBytesAreAHandCount) {
  const Material steel{2.0e11, 0.3, {0.0, 0.0, -7.7e4}};
  // One element: 8 nodes, 24 DOF, a dense 24 x 24 matrix.
  const auto one = make_assembly_problem(inputs::distorted_box({1, 1, 1}, 3u), steel);
  EXPECT_DOUBLE_EQ(assembly_cost(one).bytes, 8 * 24 + 32 + 576 * 8 + 24 * 8);  // 5,024 B
  // Two elements in a row: 12 nodes; the 4 shared nodes see all 12 nodes, the
  // 8 end nodes 8 each: 9 x (4 x 12 + 8 x 8) = 1,008 nonzeros; 36 DOF.
  const auto two = make_assembly_problem(inputs::distorted_box({2, 1, 1}, 3u), steel);
  EXPECT_DOUBLE_EQ(assembly_cost(two).bytes, 12 * 24 + 2 * 32 + 1008 * 8 + 36 * 8);  // 8,704 B
  // The paper layout's traffic: 10,464 B per element plus the zeroing pass.
  EXPECT_DOUBLE_EQ(assembly_cost(two).modelled_bytes, 2 * 10464 + 8 * (1008 + 36));
  EXPECT_LT(assembly_cost(two).bytes, assembly_cost(two).modelled_bytes);
}

}  // namespace
}  // namespace ppkit::fem
