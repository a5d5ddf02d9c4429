// ppkit::sem::Axhelm and its C handles (axhelm_operator.hpp, ppkit_sem.h) on
// every sem.axhelm variant: created once, applied 100 times to fresh inputs
// (and changing Helmholtz coefficients) in the operator's own memory, each
// result against the serial reference; Views and raw pointers; the errors a
// host code meets.
#include <Kokkos_Core.hpp>
#include <random>
#include <string>

#include "harness/variant_test.hpp"
#include "ppkit.h"
#include "ppkit/core/device_memory.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/sem/axhelm_operator.hpp"
#include "ppkit/sem/gather_scatter.hpp"
#include "ppkit_fem.h"
#include "ppkit_sem.h"

using namespace ppkit::sem;
using ppkit::testing::relative_l2_error;
using ppkit::testing::test_seed;

namespace {
constexpr double tolerance = 1e-12;  // relative l2, fp64, as the registry's axhelm tests

AxhelmProblem mixed_problem(int order, Equation equation, int ncol) {
  BoxMeshSpec spec;
  spec.order = order;
  spec.ex = 3;
  spec.ey = 2;
  spec.ez = 2;
  spec.deformation = Deformation::curved;  // some elements load factors, the rest trilinear
  spec.seed = test_seed();
  AxhelmSettings s;
  s.equation = equation;
  s.ncol = ncol;
  return make_axhelm_problem(make_box_mesh(spec), s, test_seed() + 1);
}

AxhelmMesh mesh_of(const AxhelmProblem& p) {
  return AxhelmMesh{p.order, p.elements, p.vertices.data(), p.factors.data(), p.trilinear.data()};
}

// x, y in the operator's memory, filled and read through the host.
struct DeviceArrays {
  DeviceArrays(const ppkit::DataLocation& location, std::size_t count)
      : where(location), x(location, count), y(location, count), n(count) {}
  void put_x(const std::vector<double>& host) {
    ppkit::copy_to(where, x.data(), host.data(), n * sizeof(double));
  }
  void poison_y() {
    const std::vector<double> nan(n, std::nan(""));
    ppkit::copy_to(where, y.data(), nan.data(), n * sizeof(double));
  }
  std::vector<double> get_y() const {
    std::vector<double> host(n);
    ppkit::copy_from(where, host.data(), y.data(), n * sizeof(double));
    return host;
  }
  ppkit::DataLocation where;
  ppkit::ArrayIn<double> x, y;
  std::size_t n;
};

class AxhelmOperatorTest : public ppkit::testing::VariantTest<SemAxhelm> {
 protected:
  // The operator of this variant, or a skip where the variant refuses the
  // problem (tensor-core kernels at N != 7).
  std::unique_ptr<Axhelm> make(const AxhelmProblem& p) {
    AxhelmOptions o;
    o.ncol = p.ncol;
    o.equation = p.equation;
    o.variant = GetParam();
    try {
      return std::make_unique<Axhelm>(mesh_of(p), o);
    } catch (const ppkit::Error& e) {
      if (std::string(e.what()).rfind(unsupported_problem_prefix, 0) == 0) return nullptr;
      throw;
    }
  }
};

TEST_P(AxhelmOperatorTest, HundredApplicationsOfFreshInputsMatchTheReference) {
  const int order = variant().strategy.find("wmma") != std::string::npos ? 7 : 4;
  for (Equation equation : {Equation::poisson, Equation::helmholtz}) {
    AxhelmProblem p = mixed_problem(order, equation, equation == Equation::poisson ? 1 : 3);
    const auto op = make(p);
    if (!op) GTEST_SKIP() << GetParam() << " refuses N = " << order;
    EXPECT_EQ(op->variant(), GetParam());
    EXPECT_EQ(op->size(), std::int64_t(p.x.size()));
    DeviceArrays a(op->memory(), p.x.size());
    std::mt19937_64 rng(test_seed() + 99);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0), positive(0.1, 2.0);
    const int applications = order == 7 ? 20 : 100;
    for (int k = 0; k < applications; ++k) {
      for (double& v : p.x) v = uniform(rng);
      if (p.helmholtz()) {
        p.lambda0 = positive(rng);
        p.lambda1 = positive(rng);
      }
      a.put_x(p.x);
      a.poison_y();
      op->apply(a.x.data(), a.y.data(), p.lambda0, p.lambda1);
      op->wait();
      ASSERT_LE(relative_l2_error(a.get_y(), axhelm_reference(p)), tolerance)
          << GetParam() << " " << to_string(equation) << ", application " << k;
    }
  }
}

TEST_P(AxhelmOperatorTest, RefusesBadArraysWithTheirNames) {
  const AxhelmProblem p = mixed_problem(3, Equation::poisson, 1);
  const auto op = make(p);
  if (!op) GTEST_SKIP() << GetParam() << " refuses N = 3";
  DeviceArrays a(op->memory(), p.x.size());
  auto message_of = [&](auto&& call) -> std::string {
    try {
      call();
    } catch (const ppkit::Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message_of([&] { op->apply(nullptr, a.y.data()); }).find("x is NULL"),
            std::string::npos);
  EXPECT_NE(message_of([&] { op->apply(a.x.data(), nullptr); }).find("y is NULL"),
            std::string::npos);
  EXPECT_NE(message_of([&] { op->apply(a.x.data(), a.x.data()); }).find("same array"),
            std::string::npos);
  if (op->memory().kind != ppkit::MemoryKind::host) {
    // A host array handed to a device operator: the runtime tells, ppkit refuses.
    std::vector<double> host(p.x.size());
    EXPECT_NE(message_of([&] { op->apply(host.data(), a.y.data()); }).find("x points to host"),
              std::string::npos);
  } else {
    // Views: wrong size and non-contiguous.
    Kokkos::View<double*, Kokkos::HostSpace> x("x", p.x.size()), y("y", p.x.size()),
        short_y("y", p.x.size() - 1);
    EXPECT_NO_THROW(op->apply(x, y));
    EXPECT_NE(message_of([&] { op->apply(x, short_y); }).find("y has"), std::string::npos);
    Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> wide("wide", p.x.size(), 2);
    const auto column = Kokkos::subview(wide, Kokkos::ALL, 0);
    EXPECT_NE(message_of([&] { op->apply(x, column); }).find("non-contiguous"), std::string::npos);
    int host_stream = 0;
    EXPECT_NE(message_of([&] { op->apply(x.data(), y.data(), &host_stream); }).find("stream"),
              std::string::npos);
  }
}

PPKIT_INSTANTIATE_VARIANT_TESTS(AxhelmOperatorTest, SemAxhelm);

TEST(SemAxhelmOperator, ViewsGiveTheReferenceOnTheDefaultSpace) {
  const AxhelmProblem p = mixed_problem(5, Equation::poisson, 1);
  Axhelm op(mesh_of(p));
  using Mem = Kokkos::DefaultExecutionSpace::memory_space;
  if (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible &&
      op.memory().kind == ppkit::MemoryKind::host)
    GTEST_SKIP() << "auto chose a host variant beside a device Kokkos space";
  Kokkos::View<double*, Mem> x("x", p.x.size()), y("y", p.x.size());
  auto hx = Kokkos::create_mirror_view(x);
  for (std::size_t i = 0; i < p.x.size(); ++i) hx(i) = p.x[i];
  Kokkos::deep_copy(x, hx);
  op.apply(x, y);
  op.wait();
  auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  const std::vector<double> got(hy.data(), hy.data() + hy.extent(0));
  EXPECT_LE(relative_l2_error(got, axhelm_reference(p)), tolerance) << op.variant();
}

TEST(SemAxhelmOperator, RefusesBadMeshesAndNames) {
  const AxhelmProblem p = mixed_problem(3, Equation::poisson, 1);
  auto message_of = [](AxhelmMesh m, AxhelmOptions o) -> std::string {
    try {
      Axhelm op(m, o);
    } catch (const ppkit::Error& e) {
      return e.what();
    }
    return "";
  };
  AxhelmMesh m = mesh_of(p);
  EXPECT_NE(message_of(m, {1, Equation::poisson, "no-such/variant", std::nullopt})
                .find("unknown variant"),
            std::string::npos);
  EXPECT_NE(
      message_of(m, {1, Equation::poisson, "no-such-strategy", std::nullopt}).find("strategy"),
      std::string::npos);
  EXPECT_NE(message_of(m, {2, Equation::poisson, "auto", std::nullopt}).find("ncol = 2"),
            std::string::npos);
  AxhelmMesh none = m;
  none.vertices = nullptr;
  none.factors = nullptr;
  EXPECT_NE(message_of(none, {}).find("neither vertices nor factors"), std::string::npos);
  AxhelmMesh empty = m;
  empty.elements = 0;
  EXPECT_NE(message_of(empty, {}).find("0 elements"), std::string::npos);
  Axhelm op(m);
  Axhelm moved = std::move(op);
  std::vector<double> x(p.x.size()), y(p.x.size());
  EXPECT_THROW(op.apply(x.data(), y.data()), ppkit::Error);  // NOLINT: use after move, on purpose
}

// ---- the C handles --------------------------------------------------------------

TEST(SemAxhelmHandle, CreateOnceApplyManyDestroy) {
  ASSERT_EQ(ppkit_init(), 0) << ppkit_last_error();
  AxhelmProblem p = mixed_problem(4, Equation::helmholtz, 1);
  for (const char* variant : {"auto", "stored", "trilinear"}) {
    ppkit_sem_axhelm_mesh m{p.order,          p.elements,         1,      1, p.vertices.data(),
                            p.factors.data(), p.trilinear.data(), variant};
    ppkit_sem_axhelm_handle h = nullptr;
    ASSERT_EQ(ppkit_sem_axhelm_create(&m, &h), 0) << ppkit_last_error();
    long long size = 0;
    int kind = -1, device = -2;
    char name[64];
    ASSERT_EQ(ppkit_sem_axhelm_info(h, &size, &kind, &device, name, sizeof name), 0);
    EXPECT_EQ(size, (long long)p.x.size());
    DeviceArrays a(ppkit::DataLocation{ppkit::MemoryKind(kind), device}, p.x.size());
    std::mt19937_64 rng(test_seed() + 5);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    for (int k = 0; k < 10; ++k) {
      for (double& v : p.x) v = uniform(rng);
      p.lambda0 = 1.0 + k;
      p.lambda1 = 0.5 * k;
      const auto ref = axhelm_reference(p);
      a.put_x(p.x);
      ASSERT_EQ(ppkit_sem_axhelm_apply(h, a.x.data(), a.y.data(), PPKIT_MEM_DEVICE, p.lambda0,
                                       p.lambda1, nullptr),
                0)
          << ppkit_last_error();
      ASSERT_EQ(ppkit_sem_axhelm_wait(h, nullptr), 0);
      EXPECT_LE(relative_l2_error(a.get_y(), ref), tolerance) << name << " " << k;
      std::vector<double> y(p.x.size(), std::nan(""));  // host-tagged: copied there and back
      ASSERT_EQ(ppkit_sem_axhelm_apply(h, p.x.data(), y.data(), PPKIT_MEM_HOST, p.lambda0,
                                       p.lambda1, nullptr),
                0)
          << ppkit_last_error();
      EXPECT_LE(relative_l2_error(y, ref), tolerance) << name << " host-tagged " << k;
    }
    ASSERT_EQ(ppkit_sem_axhelm_destroy(h), 0);
    std::vector<double> x(p.x.size()), y(p.x.size());
    EXPECT_NE(ppkit_sem_axhelm_apply(h, x.data(), y.data(), PPKIT_MEM_HOST, 1, 1, nullptr), 0);
    EXPECT_NE(std::string(ppkit_last_error()).find("handle was destroyed"), std::string::npos)
        << ppkit_last_error();
  }
}

TEST(SemAxhelmHandle, ErrorsNameTheArgumentAndFinalizeReleasesHandles) {
  ASSERT_EQ(ppkit_init(), 0);
  const AxhelmProblem p = mixed_problem(2, Equation::poisson, 1);
  ppkit_sem_axhelm_mesh m{p.order, p.elements, 1, 0, p.vertices.data(), nullptr, nullptr, nullptr};
  ppkit_sem_axhelm_handle h = nullptr;
  ASSERT_EQ(ppkit_sem_axhelm_create(&m, &h), 0) << ppkit_last_error();
  std::vector<double> x(p.x.size()), y(p.x.size());
  EXPECT_NE(ppkit_sem_axhelm_apply(h, x.data(), y.data(), 7, 1, 1, nullptr), 0);
  EXPECT_NE(ppkit_sem_axhelm_apply(nullptr, x.data(), y.data(), 0, 1, 1, nullptr), 0);
  EXPECT_NE(std::string(ppkit_last_error()).find("ppkit_sem_axhelm_apply: handle is NULL"),
            std::string::npos)
      << ppkit_last_error();
  EXPECT_NE(ppkit_sem_axhelm_apply(h, nullptr, y.data(), PPKIT_MEM_DEVICE, 1, 1, nullptr), 0);
  EXPECT_NE(std::string(ppkit_last_error()).find("x is NULL"), std::string::npos);
  int not_a_handle = 0;
  EXPECT_NE(
      ppkit_sem_axhelm_wait(reinterpret_cast<ppkit_sem_axhelm_handle>(&not_a_handle), nullptr), 0);
  EXPECT_NE(std::string(ppkit_last_error()).find("not a ppkit handle"), std::string::npos);
  m.order = 0;
  ppkit_sem_axhelm_handle bad = nullptr;
  EXPECT_NE(ppkit_sem_axhelm_create(&m, &bad), 0);
  EXPECT_EQ(bad, nullptr);
  EXPECT_NE(std::string(ppkit_sem_last_error()).find("1..15"), std::string::npos);
  // One error channel: a FEM failure is in ppkit_last_error too.
  EXPECT_NE(ppkit_fem_csr_size(0, 0, nullptr, nullptr, nullptr), 0);
  EXPECT_EQ(std::string(ppkit_last_error()), std::string(ppkit_fem_last_error()));
  EXPECT_NE(std::string(ppkit_last_error()).find("ppkit_fem_csr_size: empty mesh"),
            std::string::npos);
  // ppkit_finalize releases the live handle; later calls say so.
  ASSERT_EQ(ppkit_finalize(), 0);
  EXPECT_NE(ppkit_sem_axhelm_apply(h, x.data(), y.data(), PPKIT_MEM_HOST, 1, 1, nullptr), 0);
  EXPECT_NE(std::string(ppkit_last_error()).find("after ppkit_finalize"), std::string::npos)
      << ppkit_last_error();
  ASSERT_EQ(ppkit_init(), 0);
  EXPECT_NE(ppkit_sem_axhelm_apply(h, x.data(), y.data(), PPKIT_MEM_HOST, 1, 1, nullptr), 0);
  EXPECT_NE(std::string(ppkit_last_error()).find("released by ppkit_finalize"), std::string::npos)
      << ppkit_last_error();
  EXPECT_EQ(ppkit_sem_axhelm_destroy(h), 0);  // accepted, nothing left to free
  ASSERT_EQ(ppkit_finalize(), 0);
  ASSERT_EQ(ppkit_init(), 0);
}

}  // namespace

namespace {

TEST(SemGatherScatter, DssumMatchesTheSerialReferenceAndVectorOpsTheHostLoops) {
  BoxMeshSpec spec;
  spec.order = 3;
  spec.ex = 3;
  spec.ey = 2;
  spec.ez = 2;
  spec.seed = test_seed();
  const BoxMesh mesh = make_box_mesh(spec);
  std::mt19937_64 rng(test_seed() + 3);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> u(mesh.local_count());
  for (double& v : u) v = uniform(rng);
  const ppkit::DataLocation host{ppkit::MemoryKind::host, -1};
  const GatherScatter gs(mesh.global_ids.data(), mesh.local_count(), mesh.global_count, host);
  std::vector<double> summed = u;
  gs.dssum(summed.data());
  gs.wait();
  EXPECT_LE(relative_l2_error(summed, dssum_reference(mesh.global_ids, mesh.global_count, u)),
            1e-15);
  EXPECT_THROW(gs.dssum(nullptr), ppkit::Error);
  std::vector<std::int64_t> bad = mesh.global_ids;
  bad[5] = mesh.global_count;  // out of range
  EXPECT_THROW(GatherScatter(bad.data(), mesh.local_count(), mesh.global_count, host),
               ppkit::Error);

  // ppkit_dot and ppkit_axpby on host arrays against plain loops.
  ASSERT_EQ(ppkit_init(), 0);
  std::vector<double> x = u, y = summed;
  double expected = 0, got = 0;
  for (std::size_t i = 0; i < x.size(); ++i) expected += x[i] * y[i];
  ASSERT_EQ(ppkit_dot(x.size(), x.data(), y.data(), nullptr, &got), 0) << ppkit_last_error();
  EXPECT_NEAR(got, expected, 1e-12 * std::fabs(expected) + 1e-14);
  double weighted = 0;
  for (std::size_t i = 0; i < x.size(); ++i) weighted += x[i] * y[i] * u[i];
  ASSERT_EQ(ppkit_dot(x.size(), x.data(), y.data(), u.data(), &got), 0) << ppkit_last_error();
  EXPECT_NEAR(got, weighted, 1e-12 * std::fabs(weighted) + 1e-14);
  std::vector<double> want(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) want[i] = 0.5 * x[i] - 2.0 * y[i];
  ASSERT_EQ(ppkit_axpby(x.size(), 0.5, x.data(), -2.0, y.data()), 0) << ppkit_last_error();
  EXPECT_LE(relative_l2_error(y, want), 1e-15);
  EXPECT_NE(ppkit_dot(x.size(), x.data(), nullptr, nullptr, &got), 0);
  EXPECT_NE(std::string(ppkit_last_error()).find("y is NULL"), std::string::npos);

  // The C handle, in the memory of an axhelm operator.
  const AxhelmProblem p = make_axhelm_problem(mesh, AxhelmSettings{}, test_seed());
  ppkit_sem_axhelm_mesh m{p.order,           p.elements, 1,       0,
                          p.vertices.data(), nullptr,    nullptr, "kokkos-serial/stored"};
  ppkit_sem_axhelm_handle a = nullptr;
  ASSERT_EQ(ppkit_sem_axhelm_create(&m, &a), 0) << ppkit_last_error();
  ppkit_sem_gather_scatter_handle g = nullptr;
  static_assert(sizeof(long long) == sizeof(std::int64_t));
  ASSERT_EQ(
      ppkit_sem_gather_scatter_create(a, reinterpret_cast<const long long*>(mesh.global_ids.data()),
                                      mesh.global_count, &g),
      0)
      << ppkit_last_error();
  std::vector<double> c = u;
  ASSERT_EQ(ppkit_sem_dssum(g, c.data(), nullptr), 0) << ppkit_last_error();
  EXPECT_LE(relative_l2_error(c, summed), 1e-15);
  EXPECT_NE(
      ppkit_sem_dssum(reinterpret_cast<ppkit_sem_gather_scatter_handle>(a), c.data(), nullptr),
      0);  // an axhelm handle is not a gather-scatter
  EXPECT_NE(std::string(ppkit_last_error()).find("not a ppkit_sem_gather_scatter handle"),
            std::string::npos)
      << ppkit_last_error();
  EXPECT_EQ(ppkit_sem_gather_scatter_destroy(g), 0);
  EXPECT_EQ(ppkit_sem_axhelm_destroy(a), 0);
}

}  // namespace
