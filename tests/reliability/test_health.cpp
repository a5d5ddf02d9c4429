// Numerical health: an injected NaN or blow-up stops FDTD, FEM CG and SEM PCG
// with a message naming the step or iteration and the location. (SPH's check
// is tested in tests/sph/test_robustness.cpp: step, particle and position.)
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "harness/variant_test.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/fdtd/cases.hpp"
#include "ppkit/fdtd/fdtd_run.hpp"
#include "ppkit/fem/cg_solver.hpp"
#include "ppkit/sem/box_mesh.hpp"
#include "ppkit/sem/nekbone.hpp"

namespace {
using namespace ppkit;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

FdtdStep::Problem cavity_with(fdtd::Component c, fdtd::index_t i, fdtd::index_t j, fdtd::index_t k,
                              float value) {
  auto p = fdtd::make_cavity_problem({0.1, 0.08, 0.06}, {10, 8, 6}, 50);
  for (auto& f : p.initial) f.assign(std::size_t(p.grid.nodes()), 0.0f);
  p.initial[int(c)][std::size_t(p.grid.index(i, j, k))] = value;
  return p;
}

TEST(Health, FdtdNaNNamesStepNodeAndPosition) {
  const auto p = cavity_with(fdtd::Component::ez, 3, 4, 2, std::nanf(""));
  auto stepper = fdtd::make_stepper("auto", p);
  const std::string e = error_of([&] { stepper->advance(1); });
  EXPECT_TRUE(has(e, "fdtd step 1:")) << e;
  EXPECT_TRUE(has(e, "NaN")) << e;
  EXPECT_TRUE(has(e, "at node (")) << e;
  EXPECT_TRUE(has(e, "position (")) << e;
  // The same check on a result's fields (runs without checkpoints) is exact.
  fdtd::FieldSet fields = p.initial;
  const auto fault = fdtd::find_field_fault(fields, fdtd::blow_up_bound);
  ASSERT_TRUE(fault.found);
  const std::string exact = error_of([&] { fdtd::throw_if_faulty(p, 7, fault); });
  EXPECT_TRUE(has(exact, "fdtd step 7: ez is NaN at node (3,4,2), position (0.03, 0.04, 0.025) m"))
      << exact;
}

TEST(Health, FdtdBlowUpAndInfinityAreCaught) {
  const auto big = cavity_with(fdtd::Component::hy, 5, 2, 3, 1e35f);
  auto stepper = fdtd::make_stepper("auto", big);
  const std::string e = error_of([&] { stepper->advance(1); });
  EXPECT_TRUE(has(e, "fdtd step 1:")) << e;
  EXPECT_TRUE(has(e, "blown up") || has(e, "infinite") || has(e, "NaN")) << e;
  const auto inf = cavity_with(fdtd::Component::ex, 2, 2, 2, INFINITY);
  const auto fault = fdtd::find_field_fault(inf.initial, fdtd::blow_up_bound);
  const std::string exact = error_of([&] { fdtd::throw_if_faulty(inf, 0, fault); });
  EXPECT_TRUE(has(exact, "ex is infinite at node (2,2,2), position (0.025, 0.02, 0.02) m"))
      << exact;
  // Healthy runs pass the check.
  auto ok = fdtd::make_cavity_problem({0.1, 0.08, 0.06}, {10, 8, 6}, 30);
  EXPECT_NO_THROW(fdtd::make_stepper("auto", ok)->advance(30));
}

// A 1-D Laplacian (SPD, tridiagonal 2, -1) as CSR.
struct Laplacian {
  fem::CsrPattern pattern;
  std::vector<double> values;
  explicit Laplacian(std::int64_t n) {
    pattern.num_rows = n;
    pattern.row_offsets.push_back(0);
    for (std::int64_t r = 0; r < n; ++r) {
      for (std::int64_t c = std::max<std::int64_t>(0, r - 1); c <= std::min(n - 1, r + 1); ++c) {
        pattern.column_indices.push_back(std::int32_t(c));
        values.push_back(c == r ? 2.0 : -1.0);
      }
      pattern.row_offsets.push_back(std::int64_t(pattern.column_indices.size()));
    }
  }
};

TEST(Health, FemCgNaNNamesIterationAndDof) {
  Laplacian a(30);
  std::vector<double> b(30, 1.0);
  fem::CgOptions o;
  EXPECT_TRUE(fem::solve_jacobi_cg(a.pattern, a.values, b, o).converged);
  b[7] = std::numeric_limits<double>::quiet_NaN();
  const std::string e1 = error_of([&] { fem::solve_jacobi_cg(a.pattern, a.values, b, o); });
  EXPECT_TRUE(has(e1, "right-hand side is nan at iteration 0, DOF 7 (node 2, component y)")) << e1;
  b[7] = 1.0;
  a.values[40] = std::numeric_limits<double>::infinity();  // an off-diagonal entry
  const std::string e2 = error_of([&] { fem::solve_jacobi_cg(a.pattern, a.values, b, o); });
  EXPECT_TRUE(has(e2, "at iteration")) << e2;
  EXPECT_TRUE(has(e2, "DOF ")) << e2;
}

TEST(Health, SemPcgNaNNamesIterationAndElement) {
  sem::BoxMeshSpec spec;
  spec.order = 3;
  spec.ex = spec.ey = spec.ez = 2;
  const auto mesh = sem::make_box_mesh(spec);
  auto p = sem::make_nekbone_problem(mesh, sem::NekboneSettings{});
  const std::size_t np = 4 * 4 * 4;
  p.rhs[5 * np + 1 + 4 * 2 + 16 * 1] = std::numeric_limits<double>::quiet_NaN();
  int checked = 0;
  for (const auto& name : Registry<sem::SemNekbone>::names()) {
    const auto& v = Registry<sem::SemNekbone>::find(name);
    if (!v.availability().available || v.model != ProgrammingModel::kokkos) continue;
    auto run = v.prepare(p);
    const std::string e = error_of([&] { run->run(); });
    EXPECT_TRUE(has(e, "sem PCG residual is not finite at iteration 0")) << name << ": " << e;
    EXPECT_TRUE(has(e, "element ")) << name << ": " << e;
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
