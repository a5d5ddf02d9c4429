// The SEM C API on caller arrays, against the C++ reference.
#include <gtest/gtest.h>

#include <string>

#include "harness/variant_test.hpp"
#include "ppkit/sem/axhelm.hpp"
#include "ppkit/sem/gll.hpp"
#include "ppkit.h"
#include "ppkit_sem.h"

using namespace ppkit::sem;

namespace {
TEST(SemCApi, GllMatchesCpp) {
  double nodes[8], weights[8], d[64];
  ASSERT_EQ(ppkit_sem_gll(7, nodes, weights, d), 0);
  const auto rule = make_gll_rule(7);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(nodes[i], rule.nodes[i]);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(d[i], rule.derivative[i]);
  EXPECT_NE(ppkit_sem_gll(0, nodes, weights, d), 0);
  EXPECT_NE(std::string(ppkit_sem_last_error()).find("1..15"), std::string::npos);
}

TEST(SemCApi, AxhelmOnCallerArrays) {
  ASSERT_EQ(ppkit_init(), 0) << ppkit_last_error();
  BoxMeshSpec spec;
  spec.order = 4;
  spec.ex = 3;
  spec.ey = 2;
  spec.ez = 2;
  spec.seed = ppkit::testing::test_seed();
  const BoxMesh mesh = make_box_mesh(spec);
  AxhelmSettings s;
  s.equation = Equation::helmholtz;
  s.ncol = 3;
  const AxhelmProblem p = make_axhelm_problem(mesh, s, ppkit::testing::test_seed());
  const auto ref = axhelm_reference(p);
  for (const char* variant : {"auto", "stored", "trilinear"}) {
    for (bool give_factors : {false, true}) {
      std::vector<double> y(p.x.size(), -1.0);
      ppkit_sem_axhelm_args a{};
      a.order = p.order;
      a.elements = p.elements;
      a.ncol = p.ncol;
      a.helmholtz = 1;
      a.lambda0 = p.lambda0;
      a.lambda1 = p.lambda1;
      a.vertices = p.vertices.data();
      a.factors = give_factors ? p.factors.data() : nullptr;
      a.x = p.x.data();
      a.y = y.data();
      a.variant = variant;
      ASSERT_EQ(ppkit_sem_axhelm(&a), 0) << ppkit_sem_last_error();
      EXPECT_LE(ppkit::testing::relative_l2_error(y, ref), 1e-12) << variant;
    }
  }
  ppkit_sem_axhelm_args bad{};
  bad.order = 3;
  bad.elements = 0;
  EXPECT_NE(ppkit_sem_axhelm(&bad), 0);
  EXPECT_NE(std::string(ppkit_sem_last_error()).find("elements"), std::string::npos);
  EXPECT_NE(ppkit_sem_axhelm(nullptr), 0);
}
}  // namespace
