// Box meshes: numbering, conformity, volume, element kinds, bad inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

#include "harness/variant_test.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/sem/box_mesh.hpp"
#include "ppkit/sem/geometry.hpp"

using namespace ppkit::sem;

namespace {
BoxMesh mesh_of(int order, Deformation d, int ex = 3, int ey = 2, int ez = 2) {
  BoxMeshSpec spec;
  spec.order = order;
  spec.ex = ex;
  spec.ey = ey;
  spec.ez = ez;
  spec.deformation = d;
  spec.seed = ppkit::testing::test_seed();
  return make_box_mesh(spec);
}

const Deformation all_deformations[] = {Deformation::none, Deformation::trilinear,
                                        Deformation::curved, Deformation::mixed};

TEST(SemMesh, GlobalNodesAreSharedConformingly) {
  for (Deformation d : all_deformations)
    for (int order : {1, 3, 4}) {
      const BoxMesh m = mesh_of(order, d);
      const std::size_t stride = m.local_count();
      std::map<std::int64_t, std::array<double, 3>> position;
      std::set<std::int64_t> boundary;
      for (std::size_t l = 0; l < stride; ++l) {
        const std::array<double, 3> x = {m.coordinates[l], m.coordinates[stride + l],
                                         m.coordinates[2 * stride + l]};
        auto [it, fresh] = position.emplace(m.global_ids[l], x);
        if (!fresh) {
          for (int c = 0; c < 3; ++c)
            ASSERT_NEAR(it->second[c], x[c], 1e-14) << to_string(d) << " local node " << l;
        }
        if (m.boundary[l]) boundary.insert(m.global_ids[l]);
      }
      EXPECT_EQ(std::int64_t(position.size()), m.global_count);
      EXPECT_EQ(position.rbegin()->first, m.global_count - 1);
      const std::int64_t gx = m.ex * order + 1, gy = m.ey * order + 1, gz = m.ez * order + 1;
      EXPECT_EQ(std::int64_t(boundary.size()), gx * gy * gz - (gx - 2) * (gy - 2) * (gz - 2));
    }
}

TEST(SemMesh, QuadratureVolume) {
  // The shear and the curved map keep the unit cube's volume (1).
  for (Deformation d : {Deformation::none, Deformation::curved}) {
    const BoxMesh m = mesh_of(6, d);
    const auto g = compute_geometric_factors(m);
    double volume = 0;
    for (std::int64_t e = 0; e < m.elements(); ++e)
      for (int n = 0; n < m.np(); ++n) volume += g[(e * factors_per_node + GWJ) * m.np() + n];
    EXPECT_NEAR(volume, 1.0, d == Deformation::none ? 1e-13 : 1e-6) << to_string(d);
  }
}

TEST(SemMesh, ElementKinds) {
  auto count = [](const BoxMesh& m) {
    return std::count(m.trilinear.begin(), m.trilinear.end(), std::uint8_t(1));
  };
  EXPECT_EQ(count(mesh_of(2, Deformation::none)), 12);
  EXPECT_EQ(count(mesh_of(2, Deformation::trilinear)), 12);
  EXPECT_EQ(count(mesh_of(2, Deformation::curved)), 0);
  EXPECT_EQ(count(mesh_of(2, Deformation::mixed)), 4);  // EX = 3: 2 curved columns of 3
}

TEST(SemMesh, BadInputsAreRejected) {
  EXPECT_THROW(mesh_of(0, Deformation::none), ppkit::Error);
  EXPECT_THROW(mesh_of(16, Deformation::none), ppkit::Error);
  EXPECT_THROW(mesh_of(3, Deformation::none, 0, 2, 2), ppkit::Error);
  EXPECT_THROW(mesh_of(3, Deformation::none, 2, 2, -1), ppkit::Error);
  EXPECT_THROW(parse_deformation("twisted"), ppkit::Error);
  try {
    mesh_of(3, Deformation::none, 2, 0, 2);
    FAIL() << "zero elements accepted";
  } catch (const ppkit::Error& e) {
    EXPECT_NE(std::string(e.what()).find("2x0x2"), std::string::npos) << e.what();
  }
}

TEST(SemMesh, InvertedElementIsNamed) {
  BoxMesh m = mesh_of(3, Deformation::trilinear);
  // Mirror element 5 in r: its Jacobian determinant turns negative.
  const int nq = m.nq();
  const std::size_t stride = m.local_count();
  for (int d = 0; d < 3; ++d)
    for (int k = 0; k < nq; ++k)
      for (int j = 0; j < nq; ++j)
        for (int i = 0; i < nq / 2; ++i) {
          const std::size_t a = d * stride + 5 * m.np() + i + nq * (j + nq * k);
          const std::size_t b = d * stride + 5 * m.np() + (nq - 1 - i) + nq * (j + nq * k);
          std::swap(m.coordinates[a], m.coordinates[b]);
        }
  try {
    compute_geometric_factors(m);
    FAIL() << "inverted element accepted";
  } catch (const ppkit::Error& e) {
    EXPECT_NE(std::string(e.what()).find("element 5 is inverted"), std::string::npos) << e.what();
  }
  // A vertex perturbation of 0.99 element sizes folds elements over.
  BoxMeshSpec spec;
  spec.order = 2;
  spec.ex = spec.ey = spec.ez = 4;
  spec.perturbation = 0.99;
  bool rejected = false;
  for (unsigned seed = 1; seed < 20 && !rejected; ++seed) {
    spec.seed = seed;
    try {
      make_box_mesh(spec);
    } catch (const ppkit::Error&) {
      rejected = true;
    }
  }
  EXPECT_TRUE(rejected);
}
}  // namespace
