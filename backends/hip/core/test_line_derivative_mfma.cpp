// Device test of the SEM line-derivative building block (MFMA on gfx90a, FMA
// elsewhere) against a plain host product. Skips without a HIP device.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "backends/hip/core/hip_device.hpp"
#include "backends/hip/core/line_derivative_mfma.hpp"
#include "harness/variant_test.hpp"

namespace {

using ppkit::hip::kLinePoints;
using ppkit::hip::kSlabLines;
constexpr std::size_t kSlabSize = static_cast<std::size_t>(kLinePoints) * kSlabLines;

// Y_s[i][l] = sum_m D[i][m] X_s[m][l], written for clarity.
std::vector<double> reference(const std::vector<double>& d, const std::vector<double>& x,
                              std::size_t slabs) {
  std::vector<double> y(slabs * kSlabSize, 0.0);
  for (std::size_t s = 0; s < slabs; ++s)
    for (int i = 0; i < kLinePoints; ++i)
      for (int l = 0; l < kSlabLines; ++l) {
        double sum = 0.0;
        for (int m = 0; m < kLinePoints; ++m)
          sum += d[i * kLinePoints + m] * x[s * kSlabSize + m * kSlabLines + l];
        y[s * kSlabSize + i * kSlabLines + l] = sum;
      }
  return y;
}

// Values in [0.5, 1.5) with a random sign: never zero, so an entry the kernel
// fails to write (poisoned NaN) or a misplaced operand shows.
std::vector<double> seeded_values(std::size_t n, unsigned seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> magnitude(0.5, 1.5);
  std::bernoulli_distribution negative(0.5);
  std::vector<double> v(n);
  for (auto& e : v) e = negative(engine) ? -magnitude(engine) : magnitude(engine);
  return v;
}

class LineDerivativeTest : public ::testing::TestWithParam<std::size_t> {};

// Odd slab counts leave the second slab of the last wavefront empty.
TEST_P(LineDerivativeTest, MatchesHostProduct) {
  const auto availability = ppkit::hip::device_availability();
  if (!availability.available) GTEST_SKIP() << availability.reason;
  const std::size_t slabs = GetParam();
  const unsigned seed = ppkit::testing::test_seed();
  const auto d = seeded_values(kLinePoints * kLinePoints, seed);
  const auto x = seeded_values(slabs * kSlabSize, seed + 1);

  ppkit::hip::DeviceBuffer<double> d_device(d), x_device(x), y_device(x.size());
  y_device.fill_bytes(0xFF);
  ppkit::hip::launch_line_derivative(d_device.data(), x_device.data(), y_device.data(), slabs);
  PPKIT_HIP_CHECK(hipDeviceSynchronize());
  const auto y = y_device.download();
  const auto expected = reference(d, x, slabs);

  // Each entry sums 8 products of magnitude <= 2.25: fp64 rounding stays far
  // below 1e-13 absolute, whatever order the matrix core accumulates in.
  for (std::size_t i = 0; i < y.size(); ++i)
    ASSERT_NEAR(y[i], expected[i], 1e-13)
        << "slab " << i / kSlabSize << ", entry " << i % kSlabSize
        << " (MFMA path: " << ppkit::hip::device_has_fp64_mfma() << ")";
}

INSTANTIATE_TEST_SUITE_P(Slabs, LineDerivativeTest, ::testing::Values(1, 2, 37, 1000));

}  // namespace
