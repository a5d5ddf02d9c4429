// The sampled verification of fdtd.step and fdtd.phasor_update at size
// (verification.hpp): the light-cone sub-box reference against the full
// serial reference on every node, the detection of one perturbed node deep in
// the CPML of each variant's result, the placement of the samples on the
// compare's grids (up to 768^3 and past 2^31 nodes, geometry only), and the
// verification problem itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "harness/variant_test.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/verification.hpp"

namespace {
using namespace ppkit;
using namespace ppkit::fdtd;

// Boxes that cut the grid's nodes into parts x parts x parts pieces (every
// node in exactly one box).
std::vector<SampleBox> partition(const YeeGrid& g, index_t parts) {
  const index_t nodes[3] = {g.nx + 1, g.ny + 1, g.nz + 1};
  std::vector<SampleBox> boxes;
  for (index_t a = 0; a < parts; ++a)
    for (index_t b = 0; b < parts; ++b)
      for (index_t c = 0; c < parts; ++c) {
        SampleBox box;
        const index_t part[3] = {a, b, c};
        for (std::size_t d = 0; d < 3; ++d) {
          box.lo[d] = nodes[d] * part[d] / parts;
          box.hi[d] = nodes[d] * (part[d] + 1) / parts;
        }
        box.where = "part";
        boxes.push_back(box);
      }
  return boxes;
}

// (a) The sub-box reference is the full serial reference wherever it samples:
// the grid cut into 27 boxes whose light-cone windows (box + steps nodes) are
// cut off inside the grid on most sides, compared on every node.
TEST(FdtdSampledReference, EqualsFullReferenceOnEveryNode) {
  for (Precision precision : {Precision::fp32, Precision::fp64}) {
    auto p = make_verification_problem(22, 4, 6, ppkit::testing::test_seed());
    p.precision = precision;
    const auto boxes = partition(p.grid, 3);
    // The windows are genuinely cut: a box's window is smaller than the grid.
    ASSERT_LT(light_cone_window(p.grid, boxes[13], p.steps).nodes(), p.grid.nodes());
    const auto sampled = sampled_reference(p, boxes);
    ASSERT_EQ(sampled.nodes(), p.grid.nodes());
    const auto full = reference_step(p);
    const auto check = sampled_error(full, sampled);
    // Same update formulas in the same order: equal up to the compiler's
    // contraction choices, far below any tolerance of the check.
    EXPECT_LT(check.error, precision == Precision::fp32 ? 1e-6 : 1e-13)
        << to_string(precision) << ": " << check.worst;
  }
}

// The verification problem carries data everywhere: random E and H on every
// node (no zeros), four materials drawn per node, sources that matter in the run.
TEST(FdtdVerificationProblem, RandomFieldsAndMaterialsOnEveryNode) {
  const auto p = make_verification_problem(20, 4, 10, 7);
  ASSERT_EQ(p.material_id.size(), std::size_t(p.grid.nodes()));
  std::set<std::uint32_t> ids(p.material_id.begin(), p.material_id.end());
  EXPECT_EQ(ids.size(), 4u);
  for (int c = 0; c < 6; ++c) {
    ASSERT_EQ(p.initial[c].size(), std::size_t(p.grid.nodes()));
    const auto zeros = std::count(p.initial[c].begin(), p.initial[c].end(), 0.0f);
    EXPECT_LT(zeros, 3) << "component " << c;
    const float bound = c < 3 ? 1.0f : float(1 / eta0);
    for (float v : p.initial[c]) ASSERT_TRUE(v >= -bound && v < bound);
  }
  // The same seed gives the same problem; another seed another one.
  EXPECT_EQ(make_verification_problem(20, 4, 10, 7).initial[4], p.initial[4]);
  EXPECT_NE(make_verification_problem(20, 4, 10, 8).initial[4], p.initial[4]);
  // The sources change the fields: the run without them differs at the sources.
  auto silent = p;
  silent.sources.clear();
  const auto with = reference_step(p), without = reference_step(silent);
  for (const auto& s : p.sources) {
    const std::size_t n = std::size_t(p.grid.index(s.i, s.j, s.k));
    EXPECT_GT(std::abs(with.fields[std::size_t(s.component)][n] -
                       without.fields[std::size_t(s.component)][n]),
              0.1f);
  }
}

// A problem where the sampled path (not the whole-grid fallback) is taken:
// 40^3 cells, an 8-cell CPML, 6 steps.
FdtdStep::Problem sampled_problem() {
  return make_verification_problem(40, 8, 6, ppkit::testing::test_seed());
}

// Nodes deep in the CPML of each face: depth thickness / 2 along the face's
// axis, in the middle of a "CPML of the ... face" box along the other two.
std::vector<std::array<index_t, 3>> deep_cpml_nodes(const YeeGrid& g, int thickness,
                                                    const std::vector<SampleBox>& boxes) {
  std::vector<std::array<index_t, 3>> nodes;
  const index_t n[3] = {g.nx, g.ny, g.nz};
  for (const auto& b : boxes) {
    if (b.where.rfind("CPML of the", 0) != 0) continue;
    const int axis = b.where.find(" x face") != std::string::npos   ? 0
                     : b.where.find(" y face") != std::string::npos ? 1
                                                                    : 2;
    const bool high = b.where.find("high") != std::string::npos;
    std::array<index_t, 3> node{};
    for (std::size_t d = 0; d < 3; ++d) node[d] = (b.lo[d] + b.hi[d]) / 2;
    node[std::size_t(axis)] = high ? n[axis] - thickness / 2 : thickness / 2;
    nodes.push_back(node);
  }
  return nodes;
}

class FdtdSampledCheckTest : public ppkit::testing::VariantTest<FdtdStep> {};

// (b) Every variant passes the sampled check, and fails it when one value
// deep in the CPML of its result is off by 1e-3 of the field's RMS (ten
// times the fp32 tolerance), for each of the six faces and both field groups.
TEST_P(FdtdSampledCheckTest, DetectsOnePerturbedNodeDeepInTheCpml) {
  const auto p = sampled_problem();
  std::vector<std::array<index_t, 3>> sources;
  for (const auto& s : p.sources) sources.push_back({s.i, s.j, s.k});
  const auto boxes = verification_boxes(p.grid, p.cpml.thickness, sources, 3);
  for (const auto& b : boxes)  // every window is cut by the light cone somewhere
    ASSERT_LT(light_cone_window(p.grid, b, p.steps).nodes(), p.grid.nodes()) << b.where;
  const auto reference = sampled_reference(p, boxes);
  auto run = variant().prepare(p);
  run->run();
  const auto result = run->result();
  const double tolerance = sampled_tolerance(Precision::fp32);
  const auto clean = sampled_error(result, reference);
  EXPECT_LT(clean.error, tolerance) << clean.worst;
  const auto nodes = deep_cpml_nodes(p.grid, p.cpml.thickness, boxes);
  ASSERT_EQ(nodes.size(), 12u);  // two boxes per face
  for (std::size_t q = 0; q < nodes.size(); ++q) {
    const auto& node = nodes[q];
    const std::size_t c = q % 6;  // Ex, Ey, ..., Hz in turn
    auto broken = result;
    broken.fields[c][std::size_t(p.grid.index(node[0], node[1], node[2]))] +=
        float(1e-3 * reference.scale[c / 3]);
    const auto check = sampled_error(broken, reference);
    EXPECT_GT(check.error, tolerance)
        << "component " << c << " at (" << node[0] << ", " << node[1] << ", " << node[2] << ")";
    EXPECT_NE(check.worst.find("CPML"), std::string::npos) << check.worst;
  }
}

PPKIT_INSTANTIATE_VARIANT_TESTS(FdtdSampledCheckTest, FdtdStep);

// (c) The placement on the compare's grids, without allocating them.
struct Placement {
  YeeGrid grid;
  int thickness;
  std::vector<SampleBox> boxes;
  bool sampled(index_t i, index_t j, index_t k) const {
    return std::any_of(boxes.begin(), boxes.end(),
                       [&](const SampleBox& b) { return b.contains(i, j, k); });
  }
};

Placement place(index_t n, int thickness) {
  Placement pl{make_grid(n, n, n, double(n) * 1e-3, double(n) * 1e-3, double(n) * 1e-3, 0.99),
               thickness,
               {}};
  pl.boxes = verification_boxes(pl.grid, thickness, {{n / 2, n / 3, n / 2}}, 1);
  return pl;
}

void expect_cpml_covered(const Placement& pl) {
  const index_t n = pl.grid.nx, t = pl.thickness;
  // Every depth of every face's layer, the PEC face and the inner edge, at a
  // node outside the other axes' layers (a node of that face's CPML alone).
  for (int axis = 0; axis < 3; ++axis)
    for (int side = 0; side < 2; ++side)
      for (index_t depth = 0; depth <= t + 1; ++depth) {
        const index_t u = side == 0 ? depth : n - depth;
        bool found = false;
        for (const auto& b : pl.boxes) {
          if (u < b.lo[std::size_t(axis)] || u >= b.hi[std::size_t(axis)]) continue;
          bool inside_elsewhere = true;
          for (int d = 0; d < 3; ++d)
            if (d != axis) {
              // some node of the box along d lies outside both layers of d
              const index_t lo = std::max(b.lo[std::size_t(d)], t + 1),
                            hi = std::min(b.hi[std::size_t(d)], n - t);
              inside_elsewhere = inside_elsewhere && lo < hi;
            }
          found = found || inside_elsewhere;
        }
        EXPECT_TRUE(found) << "axis " << axis << " side " << side << " depth " << depth;
      }
  // The corners and the middle of each corner region of three layers.
  for (int corner = 0; corner < 8; ++corner) {
    index_t at[3], mid[3];
    for (int a = 0; a < 3; ++a) {
      at[a] = (corner >> a) & 1 ? n : 0;
      mid[a] = (corner >> a) & 1 ? n - t / 2 : t / 2;
    }
    EXPECT_TRUE(pl.sampled(at[0], at[1], at[2])) << "corner " << corner;
    EXPECT_TRUE(pl.sampled(mid[0], mid[1], mid[2])) << "corner " << corner;
  }
}

TEST(FdtdSamplePlacement, CoversTheCpmlSlabFacesAndLastPlanesAt512And768) {
  for (index_t n : {256, 512, 768}) {
    const Placement pl = place(n, 10);
    SCOPED_TRACE("n = " + std::to_string(n));
    for (const auto& b : pl.boxes)
      for (std::size_t a = 0; a < 3; ++a) {
        ASSERT_GE(b.lo[a], 0) << b.where;
        ASSERT_LE(b.hi[a], n + 1) << b.where;
        ASSERT_LT(b.lo[a], b.hi[a]) << b.where;
      }
    expect_cpml_covered(pl);
    // Every position along each axis lies on a pencil through the interior
    // and on one through the other two axes' layers.
    for (index_t u = 0; u <= n; ++u) {
      int along[3] = {0, 0, 0};
      for (const auto& b : pl.boxes)
        for (std::size_t a = 0; a < 3; ++a)
          if (b.lo[a] == 0 && b.hi[a] == n + 1 && u >= b.lo[a] && u < b.hi[a]) ++along[a];
      for (int a = 0; a < 3; ++a) ASSERT_GE(along[a], 3) << "axis " << a << " at " << u;
    }
    // The whole last x-plane (the highest linear indices) and the last node.
    bool last_plane = false;
    for (const auto& b : pl.boxes)
      last_plane = last_plane || (b.contains(n, 0, 0) && b.hi[1] == n + 1 && b.hi[2] == n + 1 &&
                                  b.lo[1] == 0 && b.lo[2] == 0);
    EXPECT_TRUE(last_plane);
    // Chunk and tile edges in the interior, on every axis at once.
    bool edges = false;
    for (const auto& b : pl.boxes) {
      bool all = b.where == "interior across tile edges";
      const index_t period[3] = {16, 8, 32};
      for (std::size_t a = 0; a < 3 && all; ++a) {
        const index_t edge = (b.hi[a] - 1) / period[a] * period[a];
        all = edge > b.lo[a] && edge > 10 && edge < n - 10;
      }
      edges = edges || all;
    }
    EXPECT_TRUE(edges);
    // The source's node.
    EXPECT_TRUE(pl.sampled(n / 2, n / 3, n / 2));
    // Affordable: the windows of the compare's 20 steps hold fewer nodes
    // than the grid (so the sampled path is taken), and at most a fifth of
    // them from 512^3 on (768^3: 5.0e7 of 4.5e8).
    EXPECT_LT(window_nodes(pl.grid, pl.boxes, 20), (n < 512 ? 1.0 : 0.2) * double(pl.grid.nodes()));
  }
}

// Past 2^31 nodes (1290^3 cells: 2.15e9 nodes), the nodes on both sides of
// every linear index 2^28 .. 2^31 are sampled (8- and 4-byte offsets past
// 2^31 and 2^32, int indices past 2^31), and the last node.
TEST(FdtdSamplePlacement, SamplesWhereLinearIndicesPass2To31) {
  const Placement pl = place(1290, 10);
  ASSERT_GT(pl.grid.nodes(), index_t(1) << 31);
  for (int bits = 28; bits <= 31; ++bits)
    for (index_t q : {(index_t(1) << bits) - 1, index_t(1) << bits}) {
      const index_t i = q / pl.grid.stride_x(), j = (q / pl.grid.stride_y()) % 1291, k = q % 1291;
      ASSERT_EQ(pl.grid.index(i, j, k), q);
      EXPECT_TRUE(pl.sampled(i, j, k)) << "linear index " << q;
    }
  EXPECT_TRUE(pl.sampled(1290, 1290, 1290));
  expect_cpml_covered(pl);
}

// The whole grid replaces the boxes where their windows would cost more (the
// quick compare's 48^3 over 20 steps).
TEST(FdtdSamplePlacement, SmallGridsAreCheckedOnEveryNode) {
  FdtdStep::Problem p;
  p.grid = make_grid(48, 48, 48, 0.048, 0.048, 0.048, 0.99);
  p.cpml.thickness = 10;
  p.steps = 20;
  const auto boxes = verification_boxes(p);
  ASSERT_EQ(boxes.size(), 1u);
  EXPECT_EQ(boxes[0].nodes(), p.grid.nodes());
}

// fdtd.phasor_update: the sampled sums equal the serial reference's on every
// node, and one perturbed sum fails the check.
TEST(FdtdSampledPhasors, EqualFullReferenceAndDetectOnePerturbedSum) {
  auto p = make_phasor_benchmark_problem(12, 2, 3);
  p.first_step = 5;
  const auto boxes = partition(p.grid, 2);
  const auto sampled = sampled_phasor_reference(p, boxes);
  const auto full = reference_phasor_update(p);
  const auto check = sampled_phasor_error(full, sampled);
  EXPECT_LT(check.error, 1e-6) << check.worst;
  auto broken = full;
  broken.phasors.im[std::size_t(broken.phasors.at(1, 4, 3, 7, 11))] += float(1e-3 * sampled.scale);
  const auto failed = sampled_phasor_error(broken, sampled);
  EXPECT_GT(failed.error, 1e-4);
  EXPECT_NE(failed.worst.find("Im hy at node (3, 7, 11)"), std::string::npos) << failed.worst;
}

}  // namespace
