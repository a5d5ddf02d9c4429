#pragma once
// VariantTest<Op>: a GoogleTest fixture parameterised over every registered
// variant of Op. A test written once runs on each variant; a variant that
// cannot run here (no CUDA device, no OpenCL platform) is skipped with its
// reason, never passed silently.
//
//   class CopyTest : public ppkit::testing::VariantTest<ppkit::StreamCopy> {};
//   TEST_P(CopyTest, CopiesEveryElement) { auto run = variant().prepare(p); ... }
//   PPKIT_INSTANTIATE_VARIANT_TESTS(CopyTest, ppkit::StreamCopy);
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ppkit/core/registry.hpp"

namespace ppkit::testing {

template <class Op>
class VariantTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const Availability a = variant().availability();
    if (!a.available) GTEST_SKIP() << "skipped: " << a.reason;
  }
  const Variant<Op>& variant() const { return Registry<Op>::find(GetParam()); }
};

// "kokkos-serial/team-4tpr" -> "kokkos_serial_team_4tpr" (test names allow [A-Za-z0-9_]).
inline std::string variant_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

// A fresh seed per test run unless PPKIT_TEST_SEED is set; printed on failure.
unsigned test_seed();

// Relative error ||a - b||_2 / ||b||_2 (NaN if any entry of a is NaN).
template <class T>
double relative_l2_error(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return std::nan("");
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = double(a[i]) - double(b[i]);
    diff += d * d;
    norm += double(b[i]) * double(b[i]);
  }
  if (std::isnan(diff)) return std::nan("");
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

}  // namespace ppkit::testing

#define PPKIT_INSTANTIATE_VARIANT_TESTS(Fixture, Op)                                               \
  INSTANTIATE_TEST_SUITE_P(Variants, Fixture, ::testing::ValuesIn(::ppkit::Registry<Op>::names()), \
                           ::ppkit::testing::variant_test_name);                                   \
  GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Fixture)
