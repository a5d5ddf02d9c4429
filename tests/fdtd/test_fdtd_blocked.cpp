// The temporally blocked fdtd.step (several steps per pass; blocked_step.hpp,
// yee_kokkos_blocked_kernels.hpp, and the OpenCL form fdtd_blocked.cl where
// OpenCL is built) against the serial reference: every node equal (same
// arithmetic in the same order, so the float values compare equal) after
// every step count, on random fields everywhere (CPML with kappa and alpha
// included), with sources and probes on tile seams, on the registered
// variants (found by their steps_per_pass trait) and on explicit tilings that
// do not divide the grid, on the Kokkos host form and the OpenCL form; a halo
// one node short must fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <sstream>

#include "harness/variant_test.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/fdtd/blocked_step.hpp"
#include "ppkit/fdtd/solver.hpp"
#include "ppkit/fdtd/step_features.hpp"
#include "fdtd_test_problem.hpp"
#ifdef PPKIT_TEST_OPENCL
#include "backends/opencl/fdtd/fdtd_opencl_blocked.hpp"
#endif

namespace {
using namespace ppkit;
using namespace ppkit::fdtd;

// Random E and H on every node, four materials (lossy, dense, magnetic, PEC)
// drawn per node, a CPML of `cpml` cells with kappa and alpha on every face,
// a soft and a hard source and E and H probes at the given nodes, the energy
// every 3 steps.
FdtdStep::Problem random_problem(unsigned seed, std::array<index_t, 3> cells, int cpml,
                                 std::int64_t steps,
                                 const std::vector<std::array<index_t, 3>>& at) {
  std::mt19937 rng(seed);
  FdtdStep::Problem p;
  p.grid = make_grid(cells[0], cells[1], cells[2], double(cells[0]) * 1e-3, double(cells[1]) * 1e-3,
                     double(cells[2]) * 1e-3, 0.95);
  p.cpml.thickness = cpml;
  p.cpml.kappa_max = 2;
  p.cpml.alpha_max = 0.05;
  p.steps = steps;
  p.energy_interval = 3;
  p.materials = {Material{}, Material{4.0, 1.0, 0.02, false}, Material{2.5, 1.5, 0, false},
                 Material{1, 1, 0, true}};
  p.material_id.resize(std::size_t(p.grid.nodes()));
  for (auto& id : p.material_id) id = std::uint32_t(rng() % 4);
  test_problem::randomize_fields(p, rng);
  PointSource soft;
  soft.component = Component::ez;
  soft.i = at[0][0], soft.j = at[0][1], soft.k = at[0][2];
  soft.waveform = Waveform::ricker;
  soft.frequency = 2e10;
  soft.amplitude = 1e-8;
  p.sources.push_back(soft);
  PointSource hard = soft;
  hard.component = Component::ey;
  hard.i = at[1][0], hard.j = at[1][1], hard.k = at[1][2];
  hard.hard = true;
  hard.waveform = Waveform::modulated_gaussian;
  hard.amplitude = 0.5;
  p.sources.push_back(hard);
  int c = 0;
  for (const auto& node : at) {
    Probe pr;
    pr.component = Component(c++ % 6);
    pr.i = node[0], pr.j = node[1], pr.k = node[2];
    p.probes.push_back(pr);
  }
  return p;
}

// Field values that differ by more than `tolerance` times their component's
// largest |want| (tolerance 0: float !=), and the first few of them as text.
struct Mismatch {
  std::size_t count = 0;
  std::string first;
  std::vector<std::array<index_t, 4>> nodes;  // component, i, j, k
};
Mismatch mismatches(const YeeGrid& g, const FieldSet& got, const FieldSet& want,
                    double tolerance = 0) {
  Mismatch m;
  std::ostringstream text;
  for (int c = 0; c < 6; ++c) {
    double largest = 0;
    for (float w : want[c]) largest = std::max(largest, std::abs(double(w)));
    const double allowed = tolerance * largest;
    for (index_t i = 0; i <= g.nx; ++i)
      for (index_t j = 0; j <= g.ny; ++j)
        for (index_t k = 0; k <= g.nz; ++k) {
          const std::size_t n = std::size_t(g.index(i, j, k));
          if (got[c][n] == want[c][n] ||
              (tolerance > 0 && std::abs(double(got[c][n]) - double(want[c][n])) <= allowed))
            continue;
          if (m.count++ < 5)
            text << to_string(Component(c)) << "(" << i << "," << j << "," << k
                 << "): " << got[c][n] << " vs " << want[c][n] << "; ";
          m.nodes.push_back({c, i, j, k});
        }
  }
  m.first = text.str();
  return m;
}

// Host and OpenCL variants compute each node with the reference's operations,
// so they must equal it bit for bit; nvcc contracts multiplies and adds into
// FMAs (and differently in a single-step and a multi-step pass), so variants
// in GPU memory must equal it to rounding: 1e-5 of each component's largest
// value, which one node written twice or skipped still exceeds.
double tolerance_of(const Variant<FdtdStep>& v) {
  return !v.memory || *v.memory == MemoryKind::host ? 0 : 1e-5;
}

// Probe series equal to the reference's, to `tolerance` times its largest value.
template <class T>
void expect_probes(const std::vector<T>& got, const std::vector<float>& want,
                   const std::string& what, double tolerance) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double largest = 0;
  for (float w : want) largest = std::max(largest, std::abs(double(w)));
  for (std::size_t q = 0; q < got.size(); ++q)
    if (tolerance == 0)
      EXPECT_EQ(double(got[q]), double(want[q])) << what << " probe value " << q;
    else
      EXPECT_LE(std::abs(double(got[q]) - double(want[q])), tolerance * largest)
          << what << " probe value " << q;
}

// Fields and probes equal to the reference's (to `tolerance`, see above),
// energies to 1e-10 (summed in another order; 1e-6 with a tolerance).
void expect_equal(const FdtdStep::Problem& p, const FdtdStep::Result& got,
                  const FdtdStep::Result& want, const std::string& what, double tolerance = 0) {
  const Mismatch m = mismatches(p.grid, got.fields, want.fields, tolerance);
  EXPECT_EQ(m.count, 0u) << what << ": " << m.first;
  expect_probes(got.probe_values, want.probe_values, what, tolerance);
  ASSERT_EQ(got.energy_steps, want.energy_steps) << what;
  const double energy_tolerance = tolerance == 0 ? 1e-10 : 1e-6;
  for (std::size_t e = 0; e < got.energy.size(); ++e)
    EXPECT_NEAR(got.energy[e], want.energy[e], energy_tolerance * want.energy[e])
        << what << " energy " << e;
}

// The registered variants with several steps per pass that can run here.
std::vector<const Variant<FdtdStep>*> blocked_variants() {
  std::vector<const Variant<FdtdStep>*> out;
  for (const auto& v : Registry<FdtdStep>::all())
    if (v.traits.steps_per_pass > 1 && v.availability().available) out.push_back(&v);
  return out;
}

// The blocked forms that take an explicit tiling: the Kokkos host form, and
// the OpenCL form where OpenCL is built and has a device, with its default
// work-groups and with groups of 16 x 8 work-items (the GPU shape, whose
// work-items share the ring across barriers; on a CPU the default is one).
struct BlockedForm {
  std::string name;
  std::function<FdtdStep::Result(const FdtdStep::Problem&, const BlockedTiling&)> run;
};
std::vector<BlockedForm> blocked_forms() {
  std::vector<BlockedForm> out{{"kokkos host", run_blocked_on_host}};
#ifdef PPKIT_TEST_OPENCL
  if (Registry<FdtdStep>::find("opencl/blocked-k2").availability().available) {
    out.push_back({"opencl", [](const FdtdStep::Problem& p, const BlockedTiling& t) {
                     return run_blocked_on_opencl(p, t);
                   }});
    out.push_back({"opencl 16x8", [](const FdtdStep::Problem& p, const BlockedTiling& t) {
                     return run_blocked_on_opencl(p, t, OpenClGroupShape{16, 8});
                   }});
  }
#endif
  return out;
}

// Nodes on the seams of `tile`-node tiles along y and z, in the CPML and
// inside, for sources and probes.
std::vector<std::array<index_t, 3>> seam_nodes(const std::array<index_t, 3>& cells, index_t tile_y,
                                               index_t tile_z) {
  return {{cells[0] / 2, tile_y, tile_z - 1},
          {cells[0] / 3, tile_y - 1, tile_z},
          {2, tile_y, 3},
          {cells[0] - 2, 2 * tile_y - 1, cells[2] - 2},
          {cells[0] / 2, 3, 2 * tile_z},
          {1, cells[1] - 1, tile_z},
          {cells[0] - 1, tile_y + 1, 1}};
}

// After each of 1..9 steps (passes of 2 and 4 steps and the remainders) at
// 48^3 with a 6-cell CPML, each registered blocked variant equals the reference.
TEST(FdtdBlocked, RegisteredVariantsEqualReferenceAfterEveryStep) {
  const auto variants = blocked_variants();
  ASSERT_GE(variants.size(), 2u) << "blocked-k2 and -k4 of a host space";
  const std::array<index_t, 3> cells{48, 48, 48};
  auto p = random_problem(ppkit::testing::test_seed(), cells, 6, 1, seam_nodes(cells, 16, 16));
  for (std::int64_t steps = 1; steps <= 9; ++steps) {
    p.steps = steps;
    const auto reference = reference_step(p);
    for (const auto* v : variants) {
      auto run = v->prepare(p);
      run->run();
      expect_equal(p, run->result(), reference,
                   v->name + " after " + std::to_string(steps) + " steps", tolerance_of(*v));
    }
  }
}

// From rest (zero fields and psi), so that the sources alone make every
// non-zero value: a source applied twice, or by a tile to a node of another
// tile's core, shows at once. Each registered blocked variant after 1..9
// steps equals the reference.
TEST(FdtdBlocked, SourcesFromRestEqualReferenceAfterEveryStep) {
  // Sources on either side of the seam of the default tiles on two host
  // threads or compute units (2 tiles of 16 rows: rows 15 and 16).
  const std::array<index_t, 3> cells{24, 30, 22};
  auto p = random_problem(
      ppkit::testing::test_seed(), cells, 4, 1,
      {{12, 15, 10}, {8, 16, 11}, {2, 14, 3}, {20, 17, 18}, {12, 3, 16}, {1, 29, 8}, {23, 9, 1}});
  for (auto& field : p.initial) field.clear();
  FieldSet zero;
  for (auto& field : zero) field.assign(std::size_t(p.grid.nodes()), 0.0f);
  for (std::int64_t steps = 1; steps <= 9; ++steps) {
    p.steps = steps;
    const auto reference = reference_step(p);
    ASSERT_GT(mismatches(p.grid, reference.fields, zero).count, 0u) << "no source acted";
    for (const auto* v : blocked_variants()) {
      auto run = v->prepare(p);
      run->run();
      expect_equal(p, run->result(), reference,
                   v->name + " from rest after " + std::to_string(steps) + " steps",
                   tolerance_of(*v));
    }
  }
}

// Explicit tiles that divide neither extent (7 x 10 nodes and 13 x 6 on
// 37 x 29 x 41 and 48^3 cells), 1 to 4 steps per pass, runs of one pass plus
// a remainder: every value of each blocked form equal to the reference's.
TEST(FdtdBlocked, TilesNotDividingTheGridEqualReference) {
  struct Case {
    std::array<index_t, 3> cells;
    index_t tile_y, tile_z;
  };
  for (const Case& c : {Case{{37, 29, 41}, 7, 10}, Case{{48, 48, 48}, 13, 6}}) {
    for (int k : {1, 2, 3, 4}) {
      const std::int64_t steps = 2 * k + 1;
      const auto p = random_problem(ppkit::testing::test_seed() + unsigned(k), c.cells, 5, steps,
                                    seam_nodes(c.cells, c.tile_y, c.tile_z));
      BlockedTiling tiling;
      tiling.steps_per_pass = k;
      tiling.tile_y = c.tile_y;
      tiling.tile_z = c.tile_z;
      const auto reference = reference_step(p);
      for (const BlockedForm& form : blocked_forms()) {
        std::ostringstream what;
        what << form.name << " " << c.cells[0] << "x" << c.cells[1] << "x" << c.cells[2]
             << " tiles " << c.tile_y << "x" << c.tile_z << " k=" << k;
        expect_equal(p, form.run(p, tiling), reference, what.str());
      }
    }
  }
}

// A halo one node short of the light cone (steps_per_pass - 1) leaves wrong
// values, and only within steps_per_pass nodes of the tile seams along y and
// z, in each blocked form. Tiles of 9 x 6 nodes divide neither extent (49
// nodes), and their rings at k = 4 fit the 48 KiB of local memory of a GPU
// work-group (a 13 x 11 tile needs 61,552 bytes).
TEST(FdtdBlocked, HaloOneShortFailsAtTheSeams) {
  const std::array<index_t, 3> cells{48, 48, 48};
  const index_t tile_y = 9, tile_z = 6;
  for (const BlockedForm& form : blocked_forms()) {
    for (int k : {2, 4}) {
      // One pass, so a wrong value has not yet travelled away from its seam.
      const auto p = random_problem(ppkit::testing::test_seed(), cells, 6, k,
                                    seam_nodes(cells, tile_y, tile_z));
      BlockedTiling tiling;
      tiling.steps_per_pass = k;
      tiling.tile_y = tile_y;
      tiling.tile_z = tile_z;
      const auto reference = reference_step(p);
      expect_equal(p, form.run(p, tiling), reference, form.name + " full halo");
      tiling.halo = k - 1;
      const auto short_halo = form.run(p, tiling);
      const Mismatch m = mismatches(p.grid, short_halo.fields, reference.fields);
      EXPECT_GT(m.count, 0u) << form.name << " k = " << k << ": a halo of k - 1 went unnoticed";
      // The distance of a row to the nearest seam of its axis (tiles of `tile` nodes).
      const auto seam_distance = [](index_t u, index_t tile, index_t nodes) {
        index_t best = nodes;
        for (index_t s = tile; s < nodes; s += tile)
          best = std::min(best, std::min(std::abs(u - s), std::abs(u - (s - 1))));
        return best;
      };
      for (const auto& node : m.nodes) {
        const index_t dy = seam_distance(node[2], tile_y, cells[1] + 1);
        const index_t dz = seam_distance(node[3], tile_z, cells[2] + 1);
        ASSERT_LT(std::min(dy, dz), k)
            << form.name << " k = " << k << ": wrong value away from every seam at "
            << to_string(Component(int(node[0]))) << "(" << node[1] << "," << node[2] << ","
            << node[3] << ")";
      }
    }
  }
}

// Rows too long for whole-row tiles in the host's team scratch (12001 nodes:
// the rings of blocked-k4 need about 36 MB, the limit is 20 MiB) or in an
// OpenCL device's local memory: the variants split z into tiles that fit and
// still equal the reference.
TEST(FdtdBlocked, LongRowsSplitIntoZTilesThatFit) {
  const std::array<index_t, 3> cells{8, 6, 12000};
  const auto p = random_problem(ppkit::testing::test_seed(), cells, 2, 5,
                                {{4, 3, 6000}, {3, 3, 6001}, {5, 2, 11990}, {1, 1, 3}});
  const auto reference = reference_step(p);
  for (const auto* v : blocked_variants()) {
    // The host spaces' scratch limit and OpenCL's local memory (no memory kind).
    if (v->memory && *v->memory != MemoryKind::host) continue;
    auto run = v->prepare(p);
    run->run();
    expect_equal(p, run->result(), reference, v->name);
  }
}

// fdtd::Solver steps a blocked variant 5 + 5 + 5 (passes of k and the rest in
// each chunk): the registry's 15-step run and the reference, value for value
// (to rounding in GPU memory, tolerance_of).
TEST(FdtdBlocked, SolverChunksEqualTheRegistryRunAndTheReference) {
  const std::array<index_t, 3> cells{20, 18, 17};
  const auto p = random_problem(ppkit::testing::test_seed(), cells, 3, 15, seam_nodes(cells, 8, 8));
  const auto reference = reference_step(p);
  for (const auto* v : blocked_variants()) {
    Solver solver(p, SolverOptions{v->name, std::nullopt});
    for (int chunk = 0; chunk < 3; ++chunk) solver.step(5);
    FieldSet fields;
    for (int c = 0; c < 6; ++c) {
      fields[c].assign(std::size_t(solver.field_size()), std::nanf(""));
      solver.get_field(Component(c), fields[c].data(), ArrayMemory::host);
    }
    auto run = v->prepare(p);
    run->run();
    const auto registry = run->result();
    const double tolerance = tolerance_of(*v);
    EXPECT_EQ(mismatches(p.grid, fields, registry.fields, tolerance).count, 0u) << v->name;
    EXPECT_EQ(mismatches(p.grid, fields, reference.fields, tolerance).count, 0u) << v->name;
    expect_probes(solver.probe_values(), reference.probe_values, v->name, tolerance);
  }
}

// Features that need the whole grid after every step are refused with the
// feature's name and the variants that run it; the traits say so.
TEST(FdtdBlocked, RefusesPerStepFeaturesNamingVariantsThatRunThem) {
  const std::array<index_t, 3> cells{12, 12, 12};
  const auto base = random_problem(1, cells, 2, 4, seam_nodes(cells, 4, 4));
  for (const auto* v : blocked_variants()) {
    for (StepFeature f : {StepFeature::phasors, StepFeature::snapshots, StepFeature::far_field,
                          StepFeature::plane_wave, StepFeature::periodic, StepFeature::fp64})
      EXPECT_FALSE(runs(v->traits, f)) << v->name << " " << to_string(f);
    auto p = base;
    p.phasors.frequencies = {1e10};
    p.phasors.box.lo = {3, 3, 3};
    p.phasors.box.hi = {8, 8, 8};
    try {
      v->prepare(p);
      ADD_FAILURE() << v->name << " accepted phasors";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("phasors"), std::string::npos) << what;
      EXPECT_NE(what.find("cannot run"), std::string::npos) << what;
      for (const auto& other : Registry<FdtdStep>::all()) {
        if (other.traits.phasors) {
          EXPECT_NE(what.find(other.name), std::string::npos) << other.name << ": " << what;
        }
      }
    }
    p = base;
    PlaneSnapshot s;
    s.component = Component::ez;
    s.normal = 2;
    s.index = 6;
    s.every = 2;
    p.snapshots.push_back(s);
    EXPECT_THROW(v->prepare(p), Error) << v->name << " accepted snapshots";
  }
}

// step_bytes for k steps per pass: one pass's compulsory traffic times the
// ceil(steps / k) passes; the registered variants' model follows their traits.
TEST(FdtdBlocked, BytesPerPassDividedBySteps) {
  const std::array<index_t, 3> cells{30, 30, 30};
  auto p = random_problem(1, cells, 4, 20, seam_nodes(cells, 8, 8));
  const double one_step = step_bytes(p) / 20;
  EXPECT_DOUBLE_EQ(step_bytes(p, 1), step_bytes(p));
  EXPECT_DOUBLE_EQ(step_bytes(p, 4), 5 * one_step);
  EXPECT_DOUBLE_EQ(step_bytes(p, 2), 10 * one_step);
  p.steps = 21;  // 6 passes of 4 (the last one of 1 step)
  EXPECT_DOUBLE_EQ(step_bytes(p, 4), 6 * one_step);
  EXPECT_THROW(step_bytes(p, 0), Error);
  for (const auto* v : blocked_variants())
    EXPECT_DOUBLE_EQ(step_bytes_of_variant(p, v->name), step_bytes(p, v->traits.steps_per_pass));
}

}  // namespace
