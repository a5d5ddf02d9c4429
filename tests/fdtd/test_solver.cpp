// ppkit::fdtd::Solver and its C handles (solver.hpp, ppkit_fdtd.h) on every
// fdtd.step variant: created once, stepped in chunks, fields, probes and
// phasors against the serial reference and bit for bit against the
// registry's run of the same variant; fresh random fields set between chunks
// (host and device arrays); the errors a host code meets.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <random>
#include <string>

#include "fdtd_test_problem.hpp"
#include "harness/variant_test.hpp"
#include "ppkit.h"
#include "ppkit/core/device_memory.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/kokkos_instances.hpp"
#include "ppkit/fdtd/cases.hpp"
#include "ppkit/core/registry.hpp"
#include "ppkit/fdtd/solver.hpp"
#include "ppkit/fdtd/step_applier.hpp"
#include "ppkit_fdtd.h"

namespace {
using namespace ppkit;
using namespace ppkit::fdtd;
using ppkit::testing::relative_l2_error;
using ppkit::testing::test_seed;

constexpr double tolerance = 2e-5;  // fp32 against the serial reference, as test_fdtd_variants

// Random fields Ex..Hz (E ~ 1 V/m, H ~ 1/eta0 A/m) on the grid's nodes.
FieldSet random_fields(const YeeGrid& g, std::mt19937& rng) {
  std::uniform_real_distribution<double> unit(-1, 1);
  FieldSet f;
  for (int c = 0; c < 6; ++c) {
    f[c].resize(std::size_t(g.nodes()));
    for (auto& v : f[c]) v = float((c < 3 ? 1.0 : 1.0 / eta0) * unit(rng));
  }
  return f;
}

// 11 x 9 x 7 cells, random materials (lossy, dense, PEC), a soft and a hard
// source, probes on E and H, random initial fields; with cpml > 0 a CPML of
// that thickness on every face and phasors over an interior box.
FdtdStep::Problem random_case(unsigned seed, int cpml, std::int64_t steps) {
  std::mt19937 rng(seed);
  FdtdStep::Problem p;
  p.grid = make_grid(11, 9, 7, 11e-3, 9e-3, 7e-3, 0.95);
  p.cpml.thickness = cpml;
  p.steps = steps;
  p.materials = {Material{}, Material{4.0, 1.0, 0.02, false}, Material{2.5, 1.5, 0, false},
                 Material{1, 1, 0, true}};
  p.material_id.resize(std::size_t(p.grid.nodes()));
  for (auto& id : p.material_id) id = std::uint32_t(rng() % 4);
  p.initial = random_fields(p.grid, rng);
  test_problem::add_soft_and_hard_sources(p, {5, 4, 3}, {6, 5, 4});
  test_problem::add_random_probes(p, rng, {9, 7, 5});
  if (cpml > 0) {
    p.phasors.frequencies = {2e10, 3.1e10};
    p.phasors.box.lo = {2, 1, 2};
    p.phasors.box.hi = {9, 8, 6};
  }
  return p;
}

// A Solver of the named variant, or nullptr when that variant refuses the case.
std::unique_ptr<Solver> solver_of(const FdtdStep::Problem& p, const std::string& variant) {
  try {
    return std::make_unique<Solver>(p, SolverOptions{variant, std::nullopt});
  } catch (const Error& e) {
    if (std::string(e.what()).find("cannot run") != std::string::npos) return nullptr;
    throw;
  }
}

FieldSet fields_of(const Solver& s) {
  FieldSet f;
  for (int c = 0; c < 6; ++c) {
    f[c].assign(std::size_t(s.field_size()), std::nanf(""));
    s.get_field(Component(c), f[c].data(), ArrayMemory::host);
  }
  return f;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

class FdtdSolverTest : public ppkit::testing::VariantTest<FdtdStep> {};

// CPML, materials, sources, probes and phasors, stepped 5 + 5 + 5: the
// registry's 15-step run of the same variant bit for bit, and the reference.
TEST_P(FdtdSolverTest, ChunksGiveTheRegistryRunAndTheReference) {
  const auto problem = random_case(test_seed(), 2, 15);
  auto solver = solver_of(problem, GetParam());
  if (!solver) GTEST_SKIP() << GetParam() << " does not run this case";
  EXPECT_EQ(solver->variant(), GetParam());
  for (int chunk = 0; chunk < 3; ++chunk) {
    solver->step(5);
    EXPECT_EQ(solver->steps_done(), 5 * (chunk + 1));
  }
  auto run = variant().prepare(problem);
  run->run();
  const auto registry = run->result();
  const auto reference = reference_step(problem);
  const FieldSet fields = fields_of(*solver);
  for (int c = 0; c < 6; ++c)
    EXPECT_EQ(fields[c], registry.fields[c]) << to_string(Component(c)) << " differs from run()";
  EXPECT_LT(fields_relative_error(fields, reference.fields), tolerance);
  const std::vector<double> probes = solver->probe_values();
  ASSERT_EQ(probes.size(), reference.probe_values.size());
  EXPECT_LT(relative_l2_error(probes, std::vector<double>(reference.probe_values.begin(),
                                                          reference.probe_values.end())),
            tolerance);
  const PhasorSet phasors = solver->phasors();
  ASSERT_EQ(phasors.extent, reference.phasors.extent);
  EXPECT_EQ(phasors.re, registry.phasors.re);
  EXPECT_LT(phasors_relative_error(phasors, reference.phasors), 1e-5);
  EXPECT_THROW(solver->step(1), Error);  // past the case's 15 steps
  solver->restart();
  EXPECT_EQ(solver->steps_done(), 0);
  solver->step(15);
  EXPECT_EQ(fields_of(*solver)[2], registry.fields[2]) << "restart() did not restart";
}

// PEC box: fresh random fields set between chunks of 5 steps (host arrays and
// arrays in the solver's memory, alternately); each chunk against the
// reference started from those fields, sources shifted by the steps done.
TEST_P(FdtdSolverTest, FieldsSetBetweenChunksMatchTheReference) {
  const auto problem = random_case(test_seed() + 1, 0, 15);
  auto solver = solver_of(problem, GetParam());
  if (!solver) GTEST_SKIP() << GetParam() << " does not run this case";
  std::mt19937 rng(test_seed() + 2);
  const std::size_t nodes = std::size_t(problem.grid.nodes());
  const auto where = solver->memory();
  for (int chunk = 0; chunk < 3; ++chunk) {
    const FieldSet fresh = random_fields(problem.grid, rng);
    const bool on_device = where && chunk % 2 == 1;
    for (int c = 0; c < 6; ++c) {
      if (on_device) {
        ArrayIn<float> d(*where, nodes);
        copy_to(*where, d.data(), fresh[c].data(), nodes * sizeof(float));
        solver->set_field(Component(c), d.data(), ArrayMemory::device);
        solver->wait();
      } else {
        solver->set_field(Component(c), fresh[c].data(), ArrayMemory::host);
      }
    }
    solver->step(5);
    FdtdStep::Problem part = problem;
    part.steps = 5;
    part.initial = fresh;
    for (auto& s : part.sources) s.delay -= double(5 * chunk) * problem.grid.dt;
    const auto reference = reference_step(part);
    FieldSet got;
    for (int c = 0; c < 6; ++c) {
      got[c].assign(nodes, std::nanf(""));
      if (where && chunk != 1) {  // read through device arrays, too
        ArrayIn<float> d(*where, nodes);
        solver->get_field(Component(c), d.data(), ArrayMemory::device);
        solver->wait();
        copy_from(*where, got[c].data(), d.data(), nodes * sizeof(float));
      } else {
        solver->get_field(Component(c), got[c].data(), ArrayMemory::host);
      }
    }
    EXPECT_LT(fields_relative_error(got, reference.fields), tolerance) << "chunk " << chunk;
    const std::vector<double> probes = solver->probe_values();
    const std::size_t done = std::size_t(solver->steps_done());
    std::vector<double> part_probes;
    for (std::size_t q = 0; q < problem.probes.size(); ++q)
      for (std::size_t s = 0; s < 5; ++s) part_probes.push_back(probes[q * done + 5 * chunk + s]);
    EXPECT_LT(relative_l2_error(part_probes, std::vector<double>(reference.probe_values.begin(),
                                                                 reference.probe_values.end())),
              tolerance)
        << "chunk " << chunk;
  }
}

// The field addresses and strides: reading node (i, j, k) of Ez through
// field() gives get_field's value; OpenCL variants refuse addresses.
TEST_P(FdtdSolverTest, FieldAddressesAndStridesReachEveryNode) {
  const auto problem = random_case(test_seed() + 3, 0, 4);
  auto solver = solver_of(problem, GetParam());
  if (!solver) GTEST_SKIP() << GetParam() << " does not run this case";
  solver->step(2);
  if (!solver->memory()) {
    EXPECT_NE(message_of([&] { solver->field(Component::ez); }).find("OpenCL buffers"),
              std::string::npos);
    std::vector<float> host(std::size_t(solver->field_size()));
    EXPECT_NE(message_of([&] {
                solver->get_field(Component::ez, host.data(), ArrayMemory::device);
              }).find("host array"),
              std::string::npos);
    return;
  }
  const auto where = *solver->memory();
  const FieldArray f = solver->field(Component::ez);
  ASSERT_NE(f.data, nullptr);
  const YeeGrid& g = problem.grid;
  EXPECT_EQ(f.extent, (std::array<index_t, 3>{g.nx + 1, g.ny + 1, g.nz + 1}));
  EXPECT_GE(f.stride[1], g.nz + 1);
  std::vector<float> stored(std::size_t(f.size));
  copy_from(where, stored.data(), f.data, stored.size() * sizeof(float));
  const FieldSet fields = fields_of(*solver);
  for (index_t i = 0; i <= g.nx; ++i)
    for (index_t j = 0; j <= g.ny; ++j)
      for (index_t k = 0; k <= g.nz; ++k)
        ASSERT_EQ(stored[std::size_t(f.at(i, j, k))], fields[2][std::size_t(g.index(i, j, k))])
            << "node " << i << "," << j << "," << k;
}

// Bad arguments, each refused with a message naming it.
TEST_P(FdtdSolverTest, RefusesBadArraysWithTheirNames) {
  const auto problem = random_case(test_seed() + 4, 0, 4);
  auto solver = solver_of(problem, GetParam());
  if (!solver) GTEST_SKIP() << GetParam() << " does not run this case";
  std::vector<float> host(std::size_t(solver->field_size()));
  std::vector<double> wide(host.size());
  EXPECT_NE(message_of([&] {
              solver->set_field(Component::ex, static_cast<const float*>(nullptr),
                                ArrayMemory::host);
            }).find("values (set_field) is NULL"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              solver->set_field(Component::ex, wide.data(), ArrayMemory::host);
            }).find("8-byte values for a fp32 solver"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              solver->get_field(Component(7), host.data(), ArrayMemory::host);
            }).find("component 7"),
            std::string::npos);
  EXPECT_NE(message_of([&] { solver->step(-1); }).find("n = -1"), std::string::npos);
  EXPECT_NE(message_of([&] { solver->step(5); }).find("pass the case's 4 steps"),
            std::string::npos);
  const auto where = solver->memory();
  if (where && where->kind != MemoryKind::host) {
    const std::string m =
        message_of([&] { solver->set_field(Component::ex, host.data(), ArrayMemory::device); });
    // Only the vendor runtime can tell a host pointer from a device one.
    if (m != "(no error)") {
      EXPECT_NE(m.find("host"), std::string::npos) << m;
    }
  }
  Kokkos::View<float*, Kokkos::HostSpace> short_view("short", host.size() - 1);
  EXPECT_NE(message_of([&] { solver->set_field(Component::ex, short_view); }).find("entries"),
            std::string::npos);
  Solver moved = std::move(*solver);
  EXPECT_NE(message_of([&] { solver->step(1); }).find("moved from"), std::string::npos);
}

// StepApplier::copy_planes (the halo route of MPI slabs, mpi_slabs.hpp) on
// the variants whose traits say slab: random planes written into a stepped
// grid come back through copy_field exactly, with the other planes
// untouched, and through copy_planes; planes outside the grid are refused.
TEST_P(FdtdSolverTest, SlabPlanesCopyBothWays) {
  const auto& variant = Registry<FdtdStep>::find(GetParam());
  if (!variant.traits.slab) GTEST_SKIP() << GetParam() << " does not step slabs";
  const auto problem = random_case(test_seed(), 2, 6);
  auto run = variant.prepare(problem);
  auto* applier = dynamic_cast<StepApplier*>(run.get());
  ASSERT_NE(applier, nullptr);
  applier->restart();
  applier->advance(3, nullptr);
  std::mt19937 rng(test_seed() + 1);
  std::uniform_real_distribution<float> unit(-1, 1);
  const YeeGrid& g = problem.grid;
  const index_t first = 4, count = 3, plane = g.stride_x();
  for (int c = 0; c < 6; ++c) {
    std::vector<float> before(std::size_t(g.nodes())), after(before.size());
    std::vector<float> planes(std::size_t(count * plane)), back(planes.size());
    applier->copy_field(c, before.data(), true, false, nullptr);
    for (auto& v : planes) v = unit(rng);
    applier->copy_planes(c, first, count, planes.data(), true, g);
    applier->copy_field(c, after.data(), true, false, nullptr);
    std::vector<float> expected = before;
    std::copy(planes.begin(), planes.end(), expected.begin() + std::ptrdiff_t(first * plane));
    EXPECT_EQ(after, expected) << GetParam() << " field " << c;
    applier->copy_planes(c, first, count, back.data(), false, g);
    EXPECT_EQ(back, planes) << GetParam() << " field " << c;
    // The default of StepApplier (host rows, or the whole field through the
    // host) reads the same planes.
    std::fill(back.begin(), back.end(), 0.0f);
    applier->StepApplier::copy_planes(c, first, count, back.data(), false, g);
    EXPECT_EQ(back, planes) << GetParam() << " field " << c << " (default copy_planes)";
  }
  std::vector<float> two(std::size_t(2 * plane));
  EXPECT_THROW(applier->copy_planes(0, g.nx, 2, two.data(), false, g), Error) << GetParam();
}

// StepApplier::begin_step / finish_step (the overlapped halo of MPI slabs):
// on the variants whose traits say slab_overlap, steps split at edge planes
// (the planes of the soft and the hard source among them, the grid's faces,
// none) leave the fields, probes and phasors of advance() bit for bit on the
// host and OpenCL; in GPU memory to rounding (1e-5 of each array's largest
// value: nvcc contracts the single-plane update of an edge plane into other
// FMAs than the paired or register-blocked one of a whole sweep), which a
// plane left un-updated or a skipped hard source exceeds, but not the soft
// source (1e-8 on fields of order 1): on the GPU its node range is checked
// bit for bit by the MPI slab test (overlap on = off). The other slab
// variants refuse them.
TEST_P(FdtdSolverTest, EdgePlanesFirstEqualsAdvance) {
  const auto& variant = Registry<FdtdStep>::find(GetParam());
  if (!variant.traits.slab) GTEST_SKIP() << GetParam() << " does not step slabs";
  const auto problem = random_case(test_seed(), 2, 6);
  auto whole = variant.prepare(problem);
  auto* a = dynamic_cast<StepApplier*>(whole.get());
  ASSERT_NE(a, nullptr);
  a->restart();
  if (!variant.traits.slab_overlap) {
    EXPECT_THROW(a->begin_step({1}), Error) << GetParam();
    return;
  }
  a->advance(problem.steps, nullptr);
  const bool exact = !variant.memory || *variant.memory == MemoryKind::host;
  const YeeGrid& g = problem.grid;
  for (const std::vector<index_t>& edges :
       {std::vector<index_t>{5}, {6, 2}, {0, g.nx}, {}, {5, 6}}) {
    auto split = variant.prepare(problem);
    auto* b = dynamic_cast<StepApplier*>(split.get());
    b->restart();
    for (std::int64_t s = 0; s < problem.steps; ++s) {
      b->begin_step(edges);
      b->finish_step();
    }
    EXPECT_EQ(b->step(), problem.steps);
    for (int c = 0; c < 6; ++c) {
      std::vector<float> x(std::size_t(g.nodes())), y(x.size());
      a->copy_field(c, x.data(), true, false, nullptr);
      b->copy_field(c, y.data(), true, false, nullptr);
      if (exact)
        EXPECT_EQ(x, y) << GetParam() << " field " << c << ", " << edges.size() << " edges";
      else
        EXPECT_LE(test_problem::max_relative(x, y), 1e-5)
            << GetParam() << " field " << c << ", " << edges.size() << " edges";
    }
    const std::vector<double> ra = a->probe_record(), rb = b->probe_record();
    const PhasorSet pa = a->phasor_sums(), pb = b->phasor_sums();
    if (exact) {
      EXPECT_EQ(ra, rb) << GetParam();
      EXPECT_TRUE(pa.re == pb.re && pa.im == pb.im) << GetParam();
    } else {
      EXPECT_LE(test_problem::max_relative(ra, rb), 1e-5) << GetParam();
      EXPECT_LE(test_problem::max_relative(pa.re, pb.re), 1e-5) << GetParam();
      EXPECT_LE(test_problem::max_relative(pa.im, pb.im), 1e-5) << GetParam();
    }
  }
  // Periodic x copies between the first and the last plane: refused.
  auto periodic_x = problem;
  periodic_x.periodic[0] = true;
  auto wrapped = variant.prepare(periodic_x);
  auto* w = dynamic_cast<StepApplier*>(wrapped.get());
  w->restart();
  EXPECT_THROW(w->begin_step({3}), Error) << GetParam();
  auto run = variant.prepare(problem);
  auto* c = dynamic_cast<StepApplier*>(run.get());
  c->restart();
  EXPECT_THROW(c->finish_step(), Error) << GetParam();
  c->begin_step({3});
  EXPECT_THROW(c->advance(1, nullptr), Error) << GetParam();
  EXPECT_THROW(c->begin_step({3}), Error) << GetParam();
  EXPECT_THROW(
      {
        c->finish_step();
        c->begin_step({g.nx + 1});
      },
      Error)
      << GetParam();
}

PPKIT_INSTANTIATE_VARIANT_TESTS(FdtdSolverTest, FdtdStep);

// Problem::slab: a window of a larger grid takes the global x CPML profiles
// and slots (a layer may end inside the slab), the whole-grid window changes
// nothing, and windows outside the grid or with whole-grid features are refused.
TEST(FdtdSlab, WindowTakesTheGlobalXCpml) {
  const auto global = random_case(test_seed(), 2, 4);
  const StepSetup whole = make_step_setup(global);
  FdtdStep::Problem slab = global;
  slab.slab.global_nx = global.grid.nx;
  const StepSetup same = make_step_setup(slab);
  EXPECT_EQ(same.cpml.axis[0].e_b, whole.cpml.axis[0].e_b);
  EXPECT_EQ(same.cpml.axis[0].h_slot, whole.cpml.axis[0].h_slot);
  slab.grid.nx = 5;
  slab.slab.first_plane = 1;  // planes 1..6 of 0..11: the left layer ends inside
  slab.material_id.clear();
  slab.initial = FieldSet{};
  slab.sources.clear();
  slab.probes.clear();
  slab.phasors = PhasorConfig{};
  const StepSetup part = make_step_setup(slab);
  const CpmlAxis &x = part.cpml.axis[0], &gx = whole.cpml.axis[0];
  ASSERT_EQ(x.e_b.size(), 6u);
  for (std::size_t u = 0; u < 6; ++u) {
    EXPECT_EQ(x.e_b[u], gx.e_b[u + 1]) << u;
    EXPECT_EQ(x.h_c_d[u], gx.h_c_d[u + 1]) << u;
    EXPECT_EQ(x.e_slot[u], gx.e_slot[u + 1]) << u;
    EXPECT_EQ(x.h_slot[u], gx.h_slot[u + 1]) << u;
  }
  EXPECT_EQ(x.e_slot[0], 1);   // inside the left layer
  EXPECT_EQ(x.e_slot[5], -1);  // past it
  FdtdStep::Problem outside = slab;
  outside.slab.first_plane = 7;  // planes 7..12 of 0..11
  EXPECT_NE(message_of([&] { make_step_setup(outside); }).find("leave a grid of 11 cells"),
            std::string::npos);
  FdtdStep::Problem periodic = slab;
  periodic.periodic[0] = true;
  EXPECT_NE(message_of([&] { make_step_setup(periodic); }).find("periodic x"), std::string::npos);
}

// Views on the default space: set a field from a View, read it back through
// field_view, step, and get it into a View.
TEST(FdtdSolver, KokkosViewsOnTheDefaultSpace) {
  using Mem = Kokkos::DefaultExecutionSpace::memory_space;
  const auto problem = random_case(test_seed() + 5, 2, 6);
  const MemoryKind kind = kokkos_data_location<Kokkos::DefaultExecutionSpace>().kind;
  Solver solver(problem, SolverOptions{"split", kind});
  ASSERT_TRUE(solver.memory());
  EXPECT_EQ(solver.memory()->kind, kind) << solver.variant();
  const Solver on_host(problem, SolverOptions{"auto", MemoryKind::host});  // never OpenCL
  ASSERT_TRUE(on_host.memory()) << on_host.variant();
  EXPECT_EQ(on_host.memory()->kind, MemoryKind::host) << on_host.variant();
  std::mt19937 rng(test_seed() + 6);
  const FieldSet fresh = random_fields(problem.grid, rng);
  Kokkos::View<float*, Mem> hy("hy", fresh[4].size());
  Kokkos::deep_copy(
      hy, Kokkos::View<const float*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
              fresh[4].data(), fresh[4].size()));
  solver.set_field(Component::hy, hy);
  const auto view = solver.field_view<float, Mem>(Component::hy);
  // A padded view crosses memory spaces through a compact one in its own space
  // (Kokkos copies between spaces only contiguous views).
  Kokkos::View<float***, Mem> compact("compact", view.extent(0), view.extent(1), view.extent(2));
  Kokkos::deep_copy(compact, view);
  auto mirror = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), compact);
  const YeeGrid& g = problem.grid;
  EXPECT_EQ(mirror(3, 4, 5), fresh[4][std::size_t(g.index(3, 4, 5))]);
  EXPECT_EQ(mirror(g.nx, g.ny, g.nz), fresh[4][std::size_t(g.index(g.nx, g.ny, g.nz))]);
  EXPECT_THROW(((void)solver.field_view<double, Mem>(Component::hy)), Error);
  solver.step(6);
  Kokkos::View<float*, Mem> out("out", fresh[4].size());
  solver.get_field(Component::hy, out);
  auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  FdtdStep::Problem part = problem;
  part.initial[4] = fresh[4];
  const auto reference = reference_step(part);
  EXPECT_LT(relative_l2_error(std::vector<float>(got.data(), got.data() + got.extent(0)),
                              reference.fields[4]),
            tolerance);
}

// An fp64 case (Kokkos variants): double fields in and out, the fp64 reference.
TEST(FdtdSolver, Fp64CasesStepInDouble) {
  auto problem = random_case(test_seed() + 7, 2, 8);
  problem.precision = Precision::fp64;
  problem.phasors = PhasorConfig{};  // fp32 only
  Solver solver(problem);
  EXPECT_EQ(solver.precision(), Precision::fp64);
  EXPECT_TRUE(Registry<FdtdStep>::find(solver.variant()).traits.fp64) << solver.variant();
  solver.step(3);
  solver.step(5);
  const auto reference = reference_step(problem);
  FieldSet64 got;
  for (int c = 0; c < 6; ++c) {
    got[c].resize(std::size_t(solver.field_size()));
    solver.get_field(Component(c), got[c].data(), ArrayMemory::host);
  }
  EXPECT_LT(fields_relative_error(got, reference.fields_fp64), 1e-12);
  std::vector<float> narrow(std::size_t(solver.field_size()));
  EXPECT_THROW(solver.get_field(Component::ex, narrow.data(), ArrayMemory::host), Error);
}

TEST(FdtdSolver, RefusesBadCasesAndNames) {
  auto problem = random_case(test_seed() + 8, 0, 4);
  EXPECT_NE(message_of([&] {
              (void)Solver(problem, SolverOptions{"no-such/variant", std::nullopt});
            }).find("no-such/variant"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              (void)Solver(problem, SolverOptions{"no-such-strategy", std::nullopt});
            }).find("strategy 'no-such-strategy'"),
            std::string::npos);
  auto with_snapshot = problem;
  with_snapshot.snapshots.push_back(PlaneSnapshot{});
  EXPECT_NE(message_of([&] { (void)Solver(with_snapshot); }).find("snapshots"), std::string::npos);
  EXPECT_NE(message_of([&] { (void)Solver::from_json("{\"grid\": "); }).find("not valid JSON"),
            std::string::npos);
  EXPECT_NE(
      message_of([&] { (void)Solver::from_json("{\"grid\": {}, \"bogus\": 1}"); }).find("bogus"),
      std::string::npos);
}

// A JSON case as `ppkit fdtd run --case` reads it.
const char* const json_case = R"({
  "grid": {"cells": [10, 8, 6], "size": [0.010, 0.008, 0.006], "courant": 0.9},
  "steps": 12,
  "materials": [{"name": "glass", "eps_r": 4.0, "sigma": 0.01}],
  "boxes": [{"material": "glass", "min": [2, 2, 2], "max": [6, 5, 4]}],
  "cpml": {"thickness": 2},
  "sources": [{"component": "ez", "node": [4, 4, 3], "waveform": "ricker", "frequency": 3e10,
               "amplitude": 1e-6, "type": "soft"}],
  "probes": [{"component": "ez", "node": [6, 4, 3]}, {"component": "hy", "node": [5, 3, 3]}],
  "outputs": {"probes": "ignored.csv"}
})";

// The handle API: create from JSON, step in chunks, probes against the
// reference, fields through host arrays, the errors a C caller meets.
TEST(FdtdSolverHandle, CreateStepReadDestroy) {
  ASSERT_EQ(ppkit_init(), 0) << ppkit_last_error();
  const auto problem = problem_from_json(nlohmann::json::parse(json_case), "case");
  const auto reference = reference_step(problem);
  ppkit_fdtd_solver_handle h = nullptr;
  ASSERT_EQ(ppkit_fdtd_solver_create_from_json(json_case, nullptr, &h), 0) << ppkit_last_error();
  for (int chunk = 0; chunk < 3; ++chunk)
    ASSERT_EQ(ppkit_fdtd_solver_step(h, 4, nullptr), 0) << ppkit_last_error();
  ppkit_fdtd_solver_info_t info{};
  ASSERT_EQ(ppkit_fdtd_solver_info(h, &info), 0) << ppkit_last_error();
  EXPECT_EQ(info.steps_done, 12);
  EXPECT_EQ(info.nodes, problem.grid.nodes());
  EXPECT_EQ(info.probes, 2);
  std::vector<double> probes(std::size_t(info.probes * info.steps_done));
  long long count = 0;
  ASSERT_EQ(ppkit_fdtd_solver_probe_values(h, probes.data(), (long long)probes.size(), &count), 0)
      << ppkit_last_error();
  EXPECT_EQ(count, 24);
  EXPECT_LT(relative_l2_error(probes, std::vector<double>(reference.probe_values.begin(),
                                                          reference.probe_values.end())),
            tolerance);
  std::vector<float> ez(std::size_t(info.nodes));
  ASSERT_EQ(ppkit_fdtd_solver_get_field(h, PPKIT_FDTD_EZ, ez.data(), info.nodes, PPKIT_FDTD_FP32,
                                        PPKIT_MEM_HOST, nullptr),
            0)
      << ppkit_last_error();
  EXPECT_LT(relative_l2_error(ez, reference.fields[2]), tolerance);
  if (info.memory_kind >= 0) {
    void* data = nullptr;
    long long size = 0, stride[3] = {0, 0, 0};
    ASSERT_EQ(ppkit_fdtd_solver_field(h, PPKIT_FDTD_EZ, &data, &size, stride), 0);
    EXPECT_NE(data, nullptr);
    EXPECT_EQ(stride[0], (info.cells[1] + 1) * info.pitch);
  }

  // Bad arguments: each fails with a message naming what is wrong.
  auto fails_with = [](int status, const char* text) {
    EXPECT_NE(status, 0);
    EXPECT_NE(std::string(ppkit_last_error()).find(text), std::string::npos)
        << ppkit_last_error() << " lacks " << text;
  };
  fails_with(ppkit_fdtd_solver_get_field(h, 6, ez.data(), info.nodes, PPKIT_FDTD_FP32,
                                         PPKIT_MEM_HOST, nullptr),
             "component = 6");
  fails_with(ppkit_fdtd_solver_get_field(h, PPKIT_FDTD_EX, ez.data(), info.nodes - 1,
                                         PPKIT_FDTD_FP32, PPKIT_MEM_HOST, nullptr),
             "count = ");
  fails_with(ppkit_fdtd_solver_set_field(h, PPKIT_FDTD_EX, ez.data(), info.nodes, PPKIT_FDTD_FP64,
                                         PPKIT_MEM_HOST, nullptr),
             "double values for a fp32 case");
  fails_with(ppkit_fdtd_solver_set_field(h, PPKIT_FDTD_EX, nullptr, info.nodes, PPKIT_FDTD_FP32,
                                         PPKIT_MEM_HOST, nullptr),
             "is NULL");
  fails_with(ppkit_fdtd_solver_set_field(h, PPKIT_FDTD_EX, ez.data(), info.nodes, PPKIT_FDTD_FP32,
                                         5, nullptr),
             "memory = 5");
  fails_with(ppkit_fdtd_solver_probe_values(h, probes.data(), 3, nullptr), "capacity = 3");
  fails_with(ppkit_fdtd_solver_step(h, 1, nullptr), "pass the case's 12 steps");
  fails_with(ppkit_fdtd_solver_step(nullptr, 1, nullptr), "ppkit_fdtd_solver_step: handle is NULL");
  ppkit_fdtd_solver_handle bad = nullptr;
  fails_with(ppkit_fdtd_solver_create_from_json("{\"steps\": 3}", nullptr, &bad), "grid");
  EXPECT_EQ(bad, nullptr);
  fails_with(ppkit_fdtd_solver_create_from_json(json_case, "no-such/variant", &bad),
             "no-such/variant");
  ASSERT_EQ(ppkit_fdtd_solver_destroy(h), 0);
  fails_with(ppkit_fdtd_solver_step(h, 1, nullptr), "handle was destroyed");
  EXPECT_EQ(ppkit_fdtd_solver_destroy(nullptr), 0);

  // A handle alive at ppkit_finalize is released; calls on it say so.
  ASSERT_EQ(ppkit_fdtd_solver_create_from_json(json_case, nullptr, &h), 0) << ppkit_last_error();
  ASSERT_EQ(ppkit_finalize(), 0);
  fails_with(ppkit_fdtd_solver_step(h, 1, nullptr), "after ppkit_finalize");
  ASSERT_EQ(ppkit_init(), 0);
  fails_with(ppkit_fdtd_solver_step(h, 1, nullptr), "released by ppkit_finalize");
  EXPECT_EQ(ppkit_fdtd_solver_destroy(h), 0);
}

}  // namespace
