// sem.axhelm: every variant against the serial reference (N = 1..9, Poisson and
// Helmholtz, 1 and 3 fields, trilinear/mixed/curved meshes), stored factors ==
// recomputed factors, and properties of the operator itself.
#include <cmath>
#include <map>

#include "harness/variant_test.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/sem/axhelm.hpp"
#include "ppkit/sem/geometry.hpp"

using namespace ppkit::sem;
using ppkit::testing::relative_l2_error;
using ppkit::testing::test_seed;

namespace {
constexpr double tolerance = 1e-12;  // relative l2, fp64

BoxMesh small_mesh(int order, Deformation d, int ex = 2, int ey = 2, int ez = 1) {
  BoxMeshSpec spec;
  spec.order = order;
  spec.ex = ex;
  spec.ey = ey;
  spec.ez = ez;
  spec.deformation = d;
  spec.seed = test_seed() + order;
  return make_box_mesh(spec);
}

AxhelmProblem problem_of(const BoxMesh& m, Equation eq, int ncol) {
  AxhelmSettings s;
  s.equation = eq;
  s.ncol = ncol;
  s.lambda0 = 1.3;
  s.lambda1 = 0.7;
  return make_axhelm_problem(m, s, test_seed() * 7 + m.order);
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

std::vector<double> run_variant(const ppkit::Variant<SemAxhelm>& v, const AxhelmProblem& p) {
  auto run = v.prepare(p);
  run->run();
  return run->result();
}

// ---- the reference itself -------------------------------------------------------

TEST(SemAxhelmReference, EnergyOfCoordinateIsVolume) {
  // u = x (a coordinate) is in the isoparametric space with grad u = e_x, so
  // u^T A u = sum of w|J| exactly (Poisson), on every kind of mesh.
  for (Deformation d : {Deformation::none, Deformation::trilinear, Deformation::curved}) {
    const BoxMesh m = small_mesh(4, d);
    AxhelmProblem p = problem_of(m, Equation::poisson, 1);
    std::copy(m.coordinates.begin(), m.coordinates.begin() + m.local_count(), p.x.begin());
    const auto y = axhelm_reference(p);
    double volume = 0;
    for (std::int64_t e = 0; e < p.elements; ++e)
      for (int n = 0; n < p.np(); ++n)
        volume += p.factors[(e * factors_per_node + GWJ) * p.np() + n];
    EXPECT_NEAR(dot(p.x, y), volume, 1e-12 * volume) << to_string(d);
  }
}

TEST(SemAxhelmReference, PoissonKillsConstantsHelmholtzDoesNot) {
  const BoxMesh m = small_mesh(5, Deformation::trilinear);
  AxhelmProblem p = problem_of(m, Equation::poisson, 1);
  std::fill(p.x.begin(), p.x.end(), 1.0);
  const auto y = axhelm_reference(p);
  double max_abs = 0;
  for (double v : y) max_abs = std::max(max_abs, std::fabs(v));
  EXPECT_LT(max_abs, 1e-12);
  AxhelmProblem h = problem_of(m, Equation::helmholtz, 1);
  std::fill(h.x.begin(), h.x.end(), 1.0);
  double volume = 0;
  for (std::int64_t e = 0; e < h.elements; ++e)
    for (int n = 0; n < h.np(); ++n) volume += h.factors[(e * factors_per_node + GWJ) * h.np() + n];
  EXPECT_NEAR(dot(h.x, axhelm_reference(h)), h.lambda1 * volume, 1e-12);
}

TEST(SemAxhelmReference, BadProblemsAreRejected) {
  const BoxMesh m = small_mesh(2, Deformation::none);
  AxhelmSettings s;
  s.ncol = 2;
  EXPECT_THROW(make_axhelm_problem(m, s, 1), ppkit::Error);
  AxhelmProblem p = problem_of(m, Equation::poisson, 1);
  p.x.pop_back();
  EXPECT_THROW(axhelm_reference(p), ppkit::Error);
  p = problem_of(m, Equation::poisson, 1);
  p.elements = 0;
  EXPECT_THROW(axhelm_reference(p), ppkit::Error);
  EXPECT_THROW(parse_equation("stokes"), ppkit::Error);
}

// The geometry trait each variant declares at registration, against the
// kernels its strategy runs (paper section 3: recompute; 3.3: partial).
TEST(SemAxhelmCost, StrategiesDeclareTheirGeometryAndBytesOrder) {
  const std::map<std::string, GeometryCost> geometry = {
      {"stored", GeometryCost::stored},
      {"stored-dshared", GeometryCost::stored},
      {"trilinear", GeometryCost::recompute},
      {"trilinear-dshared", GeometryCost::recompute},
      {"trilinear-wmma", GeometryCost::recompute},
      {"trilinear-wmma-t", GeometryCost::recompute},
      {"trilinear-wmma-m16", GeometryCost::recompute},
      {"trilinear-mfma", GeometryCost::recompute},
      {"trilinear-partial", GeometryCost::partial}};
  for (const auto& v : ppkit::Registry<SemAxhelm>::all()) {
    ASSERT_TRUE(geometry.count(v.strategy)) << v.name << ": add its geometry here";
    EXPECT_EQ(v.traits.geometry, geometry.at(v.strategy)) << v.name;
  }
  // N = 7, one field, Poisson, all elements trilinear: per element 32 KiB
  // stored, 8 KiB + 24 vertex doubles recomputed, + 1 double per node partial.
  const AxhelmProblem p =
      problem_of(small_mesh(7, Deformation::trilinear, 2, 1, 1), Equation::poisson, 1);
  const double E = double(p.elements), np = 512;
  EXPECT_DOUBLE_EQ(axhelm_cost_for(p, GeometryCost::stored).bytes, E * 8 * 8 * np);
  EXPECT_DOUBLE_EQ(axhelm_cost_for(p, GeometryCost::recompute).bytes, E * 8 * (2 * np + 24));
  EXPECT_DOUBLE_EQ(axhelm_cost_for(p, GeometryCost::partial).bytes, E * 8 * (3 * np + 24));
  // Helmholtz reads w|J| too: 7 factors per node stored; one element of order
  // 1 (8 nodes), one field: X and Y 2 x 8 x 8 B + 7 x 8 x 8 B = 576 B.
  const AxhelmProblem h =
      problem_of(small_mesh(1, Deformation::trilinear, 1, 1, 1), Equation::helmholtz, 1);
  EXPECT_DOUBLE_EQ(axhelm_cost_for(h, GeometryCost::stored).bytes, 576);
  EXPECT_DOUBLE_EQ(axhelm_cost_for(h, GeometryCost::recompute).bytes, 2 * 8 * 8 + 24 * 8);
  EXPECT_LT(axhelm_cost_for(p, GeometryCost::partial).flops_geo,
            axhelm_cost_for(p, GeometryCost::recompute).flops_geo);
  EXPECT_EQ(axhelm_cost_for(p, GeometryCost::partial).flops_ax,
            axhelm_cost_for(p, GeometryCost::stored).flops_ax);
}

// ---- every variant --------------------------------------------------------------

class SemAxhelmTest : public ppkit::testing::VariantTest<SemAxhelm> {
 protected:
  // A variant may be limited to some Nq (cuda/trilinear-wmma, hip/trilinear-mfma:
  // Nq = 8); it then throws ppkit::Error from prepare() saying so, and the case
  // is skipped.
  bool supports(const AxhelmProblem& p) {
    try {
      variant().prepare(p);
      return true;
    } catch (const ppkit::Error& e) {
      const std::string what = e.what();
      if (what.rfind(unsupported_problem_prefix, 0) != 0) throw;
      last_reason_ = what;
      return false;
    }
  }
  std::string last_reason_;
};

TEST_P(SemAxhelmTest, MatchesReferenceForOrders1To9) {
  int checked = 0;
  for (int order = 1; order <= 9; ++order) {
    struct Case {
      Deformation d;
      Equation eq;
      int ncol;
    };
    const Case cases[] = {{Deformation::trilinear, Equation::poisson, 1},
                          {Deformation::mixed, Equation::helmholtz, 3},
                          {Deformation::curved, Equation::poisson, 3},
                          {Deformation::none, Equation::helmholtz, 1}};
    for (const auto& c : cases) {
      const BoxMesh m = small_mesh(order, c.d, c.d == Deformation::mixed ? 3 : 2);
      const AxhelmProblem p = problem_of(m, c.eq, c.ncol);
      if (!supports(p)) continue;
      const auto ref = axhelm_reference(p);
      const auto out = run_variant(variant(), p);
      EXPECT_LE(relative_l2_error(out, ref), tolerance)
          << "N=" << order << " " << to_string(c.d) << " " << to_string(c.eq) << " ncol=" << c.ncol;
      ++checked;
    }
  }
  if (checked == 0) GTEST_SKIP() << "skipped: " << last_reason_;
}

TEST_P(SemAxhelmTest, StoredEqualsRecomputedOnTrilinearMeshes) {
  const auto& stored_name = variant().backend + "/stored";
  const auto names = ppkit::Registry<SemAxhelm>::names();
  if (std::find(names.begin(), names.end(), stored_name) == names.end())
    GTEST_SKIP() << "no stored variant on " << variant().backend;
  const auto& stored = ppkit::Registry<SemAxhelm>::find(stored_name);
  for (int order : {3, 7}) {
    for (Equation eq : {Equation::poisson, Equation::helmholtz}) {
      const AxhelmProblem p = problem_of(small_mesh(order, Deformation::trilinear, 2, 1, 2), eq, 3);
      if (!supports(p)) continue;
      EXPECT_LE(relative_l2_error(run_variant(variant(), p), run_variant(stored, p)), tolerance)
          << "N=" << order << " " << to_string(eq);
    }
  }
}

TEST_P(SemAxhelmTest, SymmetricAndDefinite) {
  for (int order : {2, 7}) {
    const BoxMesh m = small_mesh(order, Deformation::mixed, 3, 1, 2);
    for (Equation eq : {Equation::poisson, Equation::helmholtz}) {
      AxhelmProblem a = problem_of(m, eq, 1);
      if (!supports(a)) continue;
      AxhelmProblem b = a;
      for (std::size_t i = 0; i < b.x.size(); ++i) b.x[i] = std::cos(3.0 * i + test_seed());
      const auto ya = run_variant(variant(), a), yb = run_variant(variant(), b);
      const double xay = dot(b.x, ya), yax = dot(a.x, yb);
      EXPECT_NEAR(xay, yax, 1e-12 * (std::fabs(xay) + 1.0)) << "symmetry N=" << order;
      // Poisson: semi-definite (constants in the kernel); Helmholtz: definite.
      const double energy = dot(a.x, ya);
      EXPECT_GT(energy, 0.0) << to_string(eq);
      if (eq == Equation::poisson) {
        std::fill(a.x.begin(), a.x.end(), 2.5);
        const auto y1 = run_variant(variant(), a);
        double max_abs = 0;
        for (double v : y1) max_abs = std::max(max_abs, std::fabs(v));
        EXPECT_LT(max_abs, 1e-11) << "A 1 != 0, N=" << order;
      } else {
        std::fill(a.x.begin(), a.x.end(), 1.0);
        EXPECT_GT(dot(a.x, run_variant(variant(), a)), 0.0) << "Helmholtz must see constants";
      }
    }
  }
}

PPKIT_INSTANTIATE_VARIANT_TESTS(SemAxhelmTest, ppkit::sem::SemAxhelm);
}  // namespace
