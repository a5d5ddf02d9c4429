// The slab partition of the box mesh for the MPI gather-scatter
// (slab_partition.hpp): every element on exactly one rank, the local meshes
// are the global elements, interface planes shared by exactly two ranks with
// the same node order on both sides, every global node owned once, and the
// multiplicities summed over ranks equal those of the whole box.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "harness/variant_test.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/sem/gather_scatter.hpp"
#include "ppkit/sem/slab_partition.hpp"

using namespace ppkit::sem;
using ppkit::testing::test_seed;

namespace {

BoxMesh box(int order, int ex, int ey, int ez) {
  BoxMeshSpec spec;
  spec.order = order;
  spec.ex = ex;
  spec.ey = ey;
  spec.ez = ez;
  spec.deformation = Deformation::mixed;
  spec.seed = test_seed();
  return make_box_mesh(spec);
}

TEST(SemSlabPartition, ColumnsCoverTheBoxInOrder) {
  const auto first = slab_columns(7, 3);
  ASSERT_EQ(first.size(), 4u);
  EXPECT_EQ(first.front(), 0);
  EXPECT_EQ(first.back(), 7);
  for (int r = 0; r < 3; ++r) EXPECT_GE(first[r + 1] - first[r], 2);  // 2, 2, 3
  EXPECT_THROW(slab_columns(3, 4), ppkit::Error);
  EXPECT_THROW(slab_columns(3, 0), ppkit::Error);
  const BoxMesh m = box(2, 2, 1, 1);
  EXPECT_THROW(make_slab_partition(m, 0, 3), ppkit::Error);
  EXPECT_THROW(make_slab_partition(m, 2, 2), ppkit::Error);
}

TEST(SemSlabPartition, ElementsNodesAndInterfaces) {
  for (int order : {1, 3}) {
    const BoxMesh m = box(order, 5, 2, 3);
    const auto global_multiplicity = dssum_reference(
        m.global_ids, m.global_count, std::vector<double>(std::size_t(m.local_count()), 1.0));
    std::map<std::int64_t, double> box_multiplicity;
    for (std::size_t l = 0; l < m.global_ids.size(); ++l)
      box_multiplicity[m.global_ids[l]] = global_multiplicity[l];
    for (int ranks : {1, 2, 3, 5}) {
      std::vector<int> element_rank(std::size_t(m.elements()), -1);
      std::vector<int> owners(std::size_t(m.global_count), 0), holders(m.global_count, 0);
      std::map<std::int64_t, double> summed_multiplicity;
      std::vector<SlabPartition> parts;
      for (int r = 0; r < ranks; ++r) parts.push_back(make_slab_partition(m, r, ranks));
      for (const SlabPartition& s : parts) {
        const BoxMesh& lm = s.local;
        const int np = lm.np();
        ASSERT_EQ(lm.elements(), std::int64_t(s.global_elements.size()));
        // Elements: each on one rank, with the global element's data.
        for (std::int64_t e = 0; e < lm.elements(); ++e) {
          const std::int64_t g = s.global_elements[e];
          ASSERT_EQ(element_rank[g], -1) << "element " << g << " on two ranks";
          element_rank[g] = s.rank;
          EXPECT_EQ(lm.trilinear[e], m.trilinear[g]);
          for (int n = 0; n < np; ++n) {
            const std::size_t l = e * np + n, gl = g * np + n;
            EXPECT_EQ(s.global_nodes[lm.global_ids[l]], m.global_ids[gl]);
            EXPECT_EQ(lm.boundary[l], m.boundary[gl]);
            for (int d = 0; d < 3; ++d)
              ASSERT_EQ(lm.coordinates[d * lm.local_count() + l],
                        m.coordinates[d * m.local_count() + gl]);
          }
        }
        // Local numbering: a bijection onto the slab's global nodes.
        std::set<std::int64_t> seen(s.global_nodes.begin(), s.global_nodes.end());
        EXPECT_EQ(seen.size(), s.global_nodes.size());
        EXPECT_EQ(seen.count(-1), 0u);
        const auto local_multiplicity =
            dssum_reference(lm.global_ids, lm.global_count,
                            std::vector<double>(std::size_t(lm.local_count()), 1.0));
        std::vector<double> node_multiplicity(std::size_t(lm.global_count));
        for (std::size_t l = 0; l < lm.global_ids.size(); ++l)
          node_multiplicity[lm.global_ids[l]] = local_multiplicity[l];
        for (std::int64_t n = 0; n < lm.global_count; ++n) {
          owners[s.global_nodes[n]] += s.owned[n];
          holders[s.global_nodes[n]] += 1;
          summed_multiplicity[s.global_nodes[n]] += node_multiplicity[n];
        }
        // Interface planes: present exactly where there is a neighbour, the
        // rank's right face is the right neighbour's left face, node by node.
        EXPECT_EQ(s.left_face.empty(), s.rank == 0);
        EXPECT_EQ(s.right_face.empty(), s.rank == ranks - 1);
        if (s.right_rank >= 0) {
          const SlabPartition& right = parts[s.right_rank];
          ASSERT_EQ(s.right_face.size(), right.left_face.size());
          EXPECT_EQ(s.right_face.size(), std::size_t((m.ey * order + 1) * (m.ez * order + 1)));
          for (std::size_t k = 0; k < s.right_face.size(); ++k) {
            EXPECT_EQ(s.global_nodes[s.right_face[k]], right.global_nodes[right.left_face[k]]);
            EXPECT_EQ(s.owned[s.right_face[k]], 0);
            EXPECT_EQ(right.owned[right.left_face[k]], 1);
          }
        }
      }
      for (std::int64_t e = 0; e < m.elements(); ++e)
        EXPECT_GE(element_rank[e], 0) << "element " << e << " on no rank";
      // Every global node owned once; interface nodes (global x index a
      // multiple of the slab boundary) held by two ranks, the others by one;
      // multiplicities summed over the ranks equal the box's.
      const std::int64_t gx = std::int64_t(m.ex) * order + 1;
      const auto first = slab_columns(m.ex, ranks);
      std::set<std::int64_t> interface_x;
      for (int r = 1; r < ranks; ++r) interface_x.insert(std::int64_t(first[r]) * order);
      for (std::int64_t g = 0; g < m.global_count; ++g) {
        ASSERT_EQ(owners[g], 1) << "global node " << g << ", " << ranks << " ranks";
        EXPECT_EQ(holders[g], interface_x.count(g % gx) ? 2 : 1) << "global node " << g;
        EXPECT_EQ(summed_multiplicity[g], box_multiplicity[g]) << "global node " << g;
      }
    }
  }
}

}  // namespace
