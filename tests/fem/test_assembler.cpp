// ppkit::fem::Assembler and its C handles (assembler.hpp, ppkit_fem.h) on
// every fem.assemble variant: created once on a renumbered distorted box,
// assembled 30 times with a fresh material and body force, the nodes moved
// every third time, in the operator's own memory, each result against the
// serial reference; the CSR pattern it exposes; the errors a host code meets.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>

#include "fem_test_problems.hpp"
#include "harness/variant_test.hpp"
#include "ppkit.h"
#include "ppkit/core/device_memory.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/fem/assembler.hpp"
#include "ppkit_fem.h"

using namespace ppkit::fem;
using ppkit::testing::test_seed;

namespace {
constexpr double kTolerance = 1e-12;  // relative l2, fp64, as the registry's assembly tests

// A distorted 3 x 2 x 2 box whose node coordinates change with `shape` while
// its connectivity (renumbered by `seed`, so CSR rows are not grid lines)
// stays: the meshes of one seed are moves of one another.
HexMesh moved_box(unsigned seed, unsigned shape) {
  HexMesh mesh = inputs::distorted_box({3, 2, 2}, shape);
  std::mt19937_64 rng(seed);
  std::vector<std::int32_t> new_of(mesh.num_nodes());
  std::iota(new_of.begin(), new_of.end(), 0);
  std::shuffle(new_of.begin(), new_of.end(), rng);
  std::vector<double> coordinates(mesh.coordinates.size());
  const double scale = 0.5 + (shape % 7) * 0.25;  // a stretched box, too
  for (std::int64_t v = 0; v < mesh.num_nodes(); ++v)
    for (int i = 0; i < 3; ++i)
      coordinates[3 * new_of[v] + i] = scale * (1 + 0.3 * i) * mesh.coordinates[3 * v + i];
  mesh.coordinates = coordinates;
  for (auto& v : mesh.elements) v = new_of[v];
  return mesh;
}

AssemblerMesh view_of(const HexMesh& m) {
  return AssemblerMesh{m.num_nodes(), m.coordinates.data(), m.num_elements(), m.elements.data()};
}

// An array in the operator's memory, poisoned with NaN and read through the host.
template <class T>
struct DeviceArray {
  DeviceArray(const ppkit::DataLocation& location, std::size_t count)
      : where(location), a(location, count), n(count) {}
  void poison() {
    const std::vector<T> nan(n, std::numeric_limits<T>::has_quiet_NaN
                                    ? std::numeric_limits<T>::quiet_NaN()
                                    : std::numeric_limits<T>::max());
    ppkit::copy_to(where, a.data(), nan.data(), n * sizeof(T));
  }
  std::vector<T> get() const { return get(a.data()); }
  std::vector<T> get(const T* p) const {
    std::vector<T> host(n);
    ppkit::copy_from(where, host.data(), p, n * sizeof(T));
    return host;
  }
  T* data() const { return a.data(); }
  ppkit::DataLocation where;
  ppkit::ArrayIn<T> a;
  std::size_t n;
};

std::string message_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const ppkit::Error& e) {
    return e.what();
  }
  return "";
}

class AssemblerTest : public ppkit::testing::VariantTest<FemAssemble> {};

TEST_P(AssemblerTest, ThirtyAssembliesOfFreshMaterialsAndMovedNodesMatchTheReference) {
  const unsigned seed = test_seed();
  std::mt19937_64 rng(seed + 17);
  AssemblyProblem p = make_assembly_problem(moved_box(seed, seed + 1), Material{});
  AssemblerOptions options;
  options.variant = GetParam();
  Assembler K(view_of(p.mesh), options);
  EXPECT_EQ(K.variant(), GetParam());
  ASSERT_EQ(K.num_rows(), p.pattern.num_rows);
  ASSERT_EQ(K.num_nonzeros(), p.pattern.num_nonzeros());
  EXPECT_EQ(K.num_nodes(), p.mesh.num_nodes());
  EXPECT_EQ(K.num_elements(), p.mesh.num_elements());
  // The pattern in the operator's memory is the problem's.
  const DeviceArray<std::int64_t> offsets(K.memory(), p.pattern.row_offsets.size());
  const DeviceArray<std::int32_t> columns(K.memory(), p.pattern.column_indices.size());
  EXPECT_EQ(offsets.get(K.row_offsets()), p.pattern.row_offsets);
  EXPECT_EQ(columns.get(K.column_indices()), p.pattern.column_indices);

  DeviceArray<double> values(K.memory(), std::size_t(K.num_nonzeros())),
      load(K.memory(), std::size_t(K.num_rows()));
  for (int k = 0; k < 30; ++k) {
    if (k % 3 == 2) {
      p.mesh.coordinates = moved_box(seed, seed + 2 + k).coordinates;
      K.update_coordinates(p.mesh.coordinates.data());
    }
    p.material = inputs::random_material(rng);
    values.poison();
    load.poison();
    K.assemble(p.material.youngs_modulus, p.material.poisson_ratio, p.material.body_force,
               values.data(), load.data());
    K.wait();
    ASSERT_LE(assembly_relative_error({values.get(), load.get()}, assemble_reference(p)),
              kTolerance)
        << GetParam() << ", assembly " << k;
  }
}

TEST_P(AssemblerTest, WritesEveryEntryOfMeshesWithUnusedNodes) {
  AssemblyProblem p =
      make_assembly_problem(inputs::box_with_unused_nodes({2, 2, 1}, test_seed(), 3), Material{});
  AssemblerOptions options;
  options.variant = GetParam();
  Assembler K(view_of(p.mesh), options);
  std::mt19937_64 rng(test_seed());
  p.material = inputs::random_material(rng);
  DeviceArray<double> values(K.memory(), std::size_t(K.num_nonzeros())),
      load(K.memory(), std::size_t(K.num_rows()));
  values.poison();
  load.poison();
  K.assemble(p.material.youngs_modulus, p.material.poisson_ratio, p.material.body_force,
             values.data(), load.data());
  K.wait();
  EXPECT_LE(assembly_relative_error({values.get(), load.get()}, assemble_reference(p)), kTolerance)
      << GetParam();
}

TEST_P(AssemblerTest, RefusesBadArraysAndMaterialsWithTheirNames) {
  const HexMesh mesh = moved_box(test_seed(), test_seed());
  AssemblerOptions options;
  options.variant = GetParam();
  Assembler K(view_of(mesh), options);
  DeviceArray<double> values(K.memory(), std::size_t(K.num_nonzeros())),
      load(K.memory(), std::size_t(K.num_rows()));
  const std::array<double, 3> g{0, 0, -9.81};
  double* v = values.data();
  double* f = load.data();
  EXPECT_NE(message_of([&] { K.assemble(1e9, 0.3, g, nullptr, f); }).find("values is NULL"),
            std::string::npos);
  EXPECT_NE(message_of([&] { K.assemble(1e9, 0.3, g, v, nullptr); }).find("load is NULL"),
            std::string::npos);
  EXPECT_NE(message_of([&] { K.assemble(1e9, 0.3, g, v, v); }).find("same array"),
            std::string::npos);
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  EXPECT_NE(message_of([&] { K.assemble(nan, 0.3, g, v, f); }).find("E = nan"), std::string::npos);
  EXPECT_NE(message_of([&] { K.assemble(inf, 0.3, g, v, f); }).find("E = inf"), std::string::npos);
  EXPECT_NE(message_of([&] { K.assemble(1e9, nan, g, v, f); }).find("nu = nan"), std::string::npos);
  EXPECT_NE(message_of([&] { K.assemble(1e9, 0.5, g, v, f); }).find("-1 < nu < 0.5"),
            std::string::npos);
  EXPECT_NE(message_of([&] { K.assemble(-1, 0.3, g, v, f); }).find("E > 0"), std::string::npos);
  EXPECT_NE(message_of([&] {
              K.assemble(1e9, 0.3, {0, nan, 0}, v, f);
            }).find("body force"),
            std::string::npos);
  if (K.memory().kind != ppkit::MemoryKind::host) {
    // A host array handed to a device operator: the runtime tells, ppkit refuses.
    std::vector<double> host(values.n);
    EXPECT_NE(
        message_of([&] { K.assemble(1e9, 0.3, g, host.data(), f); }).find("values points to host"),
        std::string::npos);
  } else {
    Kokkos::View<double*, Kokkos::HostSpace> kv("values", values.n), kf("load", load.n),
        short_f("load", load.n - 1);
    EXPECT_NO_THROW(K.assemble(1e9, 0.3, g, kv, kf));
    EXPECT_NE(message_of([&] { K.assemble(1e9, 0.3, g, kv, short_f); }).find("load has"),
              std::string::npos);
    Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> wide("wide", values.n, 2);
    const auto column = Kokkos::subview(wide, Kokkos::ALL, 0);
    EXPECT_NE(message_of([&] { K.assemble(1e9, 0.3, g, column, kf); }).find("non-contiguous"),
              std::string::npos);
    int host_stream = 0;
    EXPECT_NE(message_of([&] { K.assemble(1e9, 0.3, g, v, f, &host_stream); }).find("stream"),
              std::string::npos);
  }
}

PPKIT_INSTANTIATE_VARIANT_TESTS(AssemblerTest, FemAssemble);

TEST(FemAssembler, ViewsOnTheDefaultSpaceGiveTheReference) {
  AssemblyProblem p = make_assembly_problem(moved_box(test_seed(), 3), Material{});
  Assembler K(view_of(p.mesh));
  using Mem = Kokkos::DefaultExecutionSpace::memory_space;
  if (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible &&
      K.memory().kind == ppkit::MemoryKind::host)
    GTEST_SKIP() << "auto chose a host variant beside a device Kokkos space";
  Kokkos::View<double*, Mem> values("values", K.num_nonzeros()), load("load", K.num_rows());
  std::mt19937_64 rng(test_seed());
  p.material = inputs::random_material(rng);
  K.assemble_on(Kokkos::DefaultExecutionSpace(), p.material.youngs_modulus,
                p.material.poisson_ratio, p.material.body_force, values, load);
  K.wait();
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), values);
  auto hf = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), load);
  const AssemblyResult got{{hv.data(), hv.data() + hv.extent(0)},
                           {hf.data(), hf.data() + hf.extent(0)}};
  EXPECT_LE(assembly_relative_error(got, assemble_reference(p)), kTolerance) << K.variant();
}

TEST(FemAssembler, RefusesBadMeshesMovesAndNames) {
  AssemblyProblem p = make_assembly_problem(moved_box(test_seed(), 5), Material{});
  const auto message_for = [](const HexMesh& m, const std::string& variant) {
    return message_of([&] {
      AssemblerOptions o;
      o.variant = variant;
      Assembler K(view_of(m), o);
    });
  };
  EXPECT_NE(message_for(p.mesh, "no-such/variant").find("unknown variant"), std::string::npos);
  EXPECT_NE(message_for(p.mesh, "no-such-strategy").find("strategy"), std::string::npos);
  HexMesh out_of_range = p.mesh;
  out_of_range.elements[8 * 5 + 3] = std::int32_t(p.mesh.num_nodes());
  EXPECT_NE(message_for(out_of_range, "auto").find("element 5 refers to node"), std::string::npos)
      << message_for(out_of_range, "auto");
  HexMesh negative = p.mesh;
  negative.elements[2] = -1;
  EXPECT_NE(message_for(negative, "auto").find("element 0 refers to node -1"), std::string::npos);
  HexMesh infinite = p.mesh;
  infinite.coordinates[7] = std::numeric_limits<double>::infinity();
  EXPECT_NE(message_for(infinite, "auto").find("coordinate y of node 2 is inf"), std::string::npos);
  EXPECT_NE(message_of([&] { Assembler K(AssemblerMesh{}); }).find("0 nodes"), std::string::npos);
  AssemblerMesh no_connectivity = view_of(p.mesh);
  no_connectivity.connectivity = nullptr;
  EXPECT_NE(message_of([&] { Assembler K(no_connectivity); }).find("connectivity is NULL"),
            std::string::npos);

  // A move that inverts an element is refused and changes nothing.
  Assembler K(view_of(p.mesh));
  std::vector<double> folded = p.mesh.coordinates;
  const std::int32_t a = p.mesh.elements[8 * 4 + 0], b = p.mesh.elements[8 * 4 + 6];
  for (int i = 0; i < 3; ++i) std::swap(folded[3 * a + i], folded[3 * b + i]);
  EXPECT_NE(message_of([&] { K.update_coordinates(folded.data()); }).find("element"),
            std::string::npos);
  EXPECT_NE(message_of([&] { K.update_coordinates(nullptr); }).find("coordinates is NULL"),
            std::string::npos);
  folded = p.mesh.coordinates;
  folded[0] = std::nan("");
  EXPECT_NE(message_of([&] { K.update_coordinates(folded.data()); }).find("is nan"),
            std::string::npos);
  std::mt19937_64 rng(test_seed());
  p.material = inputs::random_material(rng);
  DeviceArray<double> values(K.memory(), std::size_t(K.num_nonzeros())),
      load(K.memory(), std::size_t(K.num_rows()));
  K.assemble(p.material.youngs_modulus, p.material.poisson_ratio, p.material.body_force,
             values.data(), load.data());
  K.wait();
  EXPECT_LE(assembly_relative_error({values.get(), load.get()}, assemble_reference(p)), kTolerance);

  Assembler moved = std::move(K);
  EXPECT_NE(message_of([&] {
              K.assemble(1e9, 0.3, {0, 0, 0}, values.data(), load.data());  // NOLINT: on purpose
            }).find("moved from"),
            std::string::npos);
}

// ---- the C handles --------------------------------------------------------------

TEST(FemAssemblerHandle, CreateOnceAssembleManyDestroy) {
  ASSERT_EQ(ppkit_init(), 0) << ppkit_last_error();
  const unsigned seed = test_seed();
  std::mt19937_64 rng(seed + 3);
  AssemblyProblem p = make_assembly_problem(moved_box(seed, seed + 7), Material{});
  for (const char* variant : {"auto", "thread-per-element", "node-gather"}) {
    const ppkit_fem_mesh m{p.mesh.num_nodes(), p.mesh.coordinates.data(), p.mesh.num_elements(),
                           p.mesh.elements.data()};
    ppkit_fem_assembler_handle h = nullptr;
    ASSERT_EQ(ppkit_fem_assembler_create(&m, variant, &h), 0) << ppkit_last_error();
    int kind = -1, device = -2;
    char name[64];
    ASSERT_EQ(ppkit_fem_assembler_info(h, &kind, &device, name, sizeof name), 0);
    const ppkit::DataLocation where{ppkit::MemoryKind(kind), device};
    int64_t rows = 0, nnz = 0;
    const int64_t* own_offsets = nullptr;
    const int32_t* own_columns = nullptr;
    ASSERT_EQ(ppkit_fem_assembler_pattern(h, &rows, &nnz, &own_offsets, &own_columns), 0);
    ASSERT_EQ(rows, p.pattern.num_rows);
    ASSERT_EQ(nnz, p.pattern.num_nonzeros());
    std::vector<int64_t> offsets(rows + 1);
    std::vector<int32_t> columns(nnz);
    ASSERT_EQ(ppkit_fem_assembler_copy_pattern(h, offsets.data(), columns.data(), PPKIT_MEM_HOST),
              0)
        << ppkit_last_error();
    EXPECT_EQ(offsets, p.pattern.row_offsets);
    EXPECT_EQ(columns, p.pattern.column_indices);
    DeviceArray<std::int32_t> device_columns(where, std::size_t(nnz));
    ASSERT_EQ(ppkit_fem_assembler_copy_pattern(h, nullptr, device_columns.data(), PPKIT_MEM_DEVICE),
              0)
        << ppkit_last_error();
    EXPECT_EQ(device_columns.get(), p.pattern.column_indices);
    EXPECT_EQ(device_columns.get(own_columns), p.pattern.column_indices);

    DeviceArray<double> values(where, std::size_t(nnz)), load(where, std::size_t(rows));
    for (int k = 0; k < 20; ++k) {
      if (k % 4 == 3) {
        p.mesh.coordinates = moved_box(seed, seed + 100 + k).coordinates;
        ASSERT_EQ(ppkit_fem_assembler_update_coordinates(h, p.mesh.coordinates.data()), 0)
            << ppkit_last_error();
      }
      p.material = inputs::random_material(rng);
      const auto reference = assemble_reference(p);
      values.poison();
      load.poison();
      ASSERT_EQ(ppkit_fem_assembler_assemble(h, p.material.youngs_modulus, p.material.poisson_ratio,
                                             p.material.body_force.data(), values.data(),
                                             load.data(), PPKIT_MEM_DEVICE, nullptr),
                0)
          << ppkit_last_error();
      ASSERT_EQ(ppkit_fem_assembler_wait(h, nullptr), 0);
      EXPECT_LE(assembly_relative_error({values.get(), load.get()}, reference), kTolerance)
          << name << " " << k;
      std::vector<double> host_values(nnz, std::nan("")), host_load(rows, std::nan(""));
      ASSERT_EQ(ppkit_fem_assembler_assemble(h, p.material.youngs_modulus, p.material.poisson_ratio,
                                             p.material.body_force.data(), host_values.data(),
                                             host_load.data(), PPKIT_MEM_HOST, nullptr),
                0)
          << ppkit_last_error();
      EXPECT_LE(assembly_relative_error({host_values, host_load}, reference), kTolerance)
          << name << " host-tagged " << k;
    }
    ASSERT_EQ(ppkit_fem_assembler_destroy(h), 0);
    std::vector<double> v(nnz), f(rows);
    EXPECT_NE(ppkit_fem_assembler_assemble(h, 1e9, 0.3, nullptr, v.data(), f.data(), PPKIT_MEM_HOST,
                                           nullptr),
              0);
    EXPECT_NE(std::string(ppkit_last_error()).find("handle was destroyed"), std::string::npos)
        << ppkit_last_error();
  }
}

TEST(FemAssemblerHandle, ErrorsNameTheArgument) {
  ASSERT_EQ(ppkit_init(), 0);
  AssemblyProblem p = make_assembly_problem(moved_box(test_seed(), 11), Material{});
  const ppkit_fem_mesh m{p.mesh.num_nodes(), p.mesh.coordinates.data(), p.mesh.num_elements(),
                         p.mesh.elements.data()};
  ppkit_fem_assembler_handle h = nullptr;
  ASSERT_EQ(ppkit_fem_assembler_create(&m, nullptr, &h), 0) << ppkit_last_error();
  const auto last = [] { return std::string(ppkit_last_error()); };
  std::vector<double> v(p.pattern.num_nonzeros()), f(p.pattern.num_rows);
  EXPECT_NE(ppkit_fem_assembler_assemble(h, 1e9, 0.3, nullptr, v.data(), f.data(), 7, nullptr), 0);
  EXPECT_NE(last().find("memory = 7"), std::string::npos) << last();
  EXPECT_NE(
      ppkit_fem_assembler_assemble(nullptr, 1e9, 0.3, nullptr, v.data(), f.data(), 0, nullptr), 0);
  EXPECT_NE(last().find("ppkit_fem_assembler_assemble: handle is NULL"), std::string::npos)
      << last();
  EXPECT_NE(ppkit_fem_assembler_assemble(h, 1e9, 0.3, nullptr, nullptr, f.data(), PPKIT_MEM_HOST,
                                         nullptr),
            0);
  EXPECT_NE(last().find("values is NULL"), std::string::npos) << last();
  EXPECT_NE(ppkit_fem_assembler_assemble(h, std::nan(""), 0.3, nullptr, v.data(), f.data(),
                                         PPKIT_MEM_HOST, nullptr),
            0);
  EXPECT_NE(last().find("E = nan"), std::string::npos) << last();
  EXPECT_NE(ppkit_fem_assembler_update_coordinates(h, nullptr), 0);
  EXPECT_NE(last().find("coordinates is NULL"), std::string::npos) << last();
  EXPECT_NE(ppkit_fem_assembler_copy_pattern(h, nullptr, nullptr, 3), 0);
  EXPECT_NE(last().find("memory = 3"), std::string::npos) << last();
  ppkit_fem_assembler_handle bad = nullptr;
  auto elements = p.mesh.elements;
  elements[8 * 2 + 1] = 100000;
  const ppkit_fem_mesh out_of_range{p.mesh.num_nodes(), p.mesh.coordinates.data(),
                                    p.mesh.num_elements(), elements.data()};
  EXPECT_NE(ppkit_fem_assembler_create(&out_of_range, nullptr, &bad), 0);
  EXPECT_EQ(bad, nullptr);
  EXPECT_NE(last().find("element 2 refers to node 100000"), std::string::npos) << last();
  EXPECT_EQ(last(), std::string(ppkit_fem_last_error()));
  EXPECT_NE(ppkit_fem_assembler_create(nullptr, nullptr, &bad), 0);
  EXPECT_NE(last().find("mesh is NULL"), std::string::npos) << last();
  EXPECT_EQ(ppkit_fem_assembler_destroy(h), 0);
  EXPECT_EQ(ppkit_fem_assembler_destroy(nullptr), 0);
}

}  // namespace
