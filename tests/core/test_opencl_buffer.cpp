// opencl::Buffer::fill_bytes sets every byte, whatever the size's divisibility
// by the fill pattern (16, 8, 4, 2 or 1 bytes) and, on a GPU, past 2^31 bytes,
// where NVIDIA's OpenCL never completed a 1-byte-pattern fill. Checked by
// reading every byte back on the host.
#include <gtest/gtest.h>

#include <random>

#include "backends/opencl/core/opencl_context.hpp"
#include "harness/variant_test.hpp"

namespace {
using ppkit::opencl::Buffer;

void expect_every_byte(const std::vector<unsigned char>& bytes, unsigned char value,
                       std::size_t size) {
  ASSERT_EQ(bytes.size(), size);
  for (std::size_t i = 0; i < bytes.size(); ++i)
    ASSERT_EQ(int(bytes[i]), int(value)) << "byte " << i << " of " << size;
}

TEST(OpenClBuffer, FillSetsEveryByteForEveryPatternWidth) {
  const auto available = ppkit::opencl::availability();
  if (!available.available) GTEST_SKIP() << available.reason;
  std::mt19937 rng(ppkit::testing::test_seed());
  for (std::size_t size : {1, 2, 3, 6, 12, 13, 16, 24, 40, 100003, 1 << 20}) {
    const auto value = static_cast<unsigned char>(rng() % 256);
    std::vector<unsigned char> host(size);
    for (auto& b : host) b = static_cast<unsigned char>(value + 1 + rng() % 255);  // all differ
    Buffer<unsigned char> buffer(host);
    buffer.fill_bytes(value);
    expect_every_byte(buffer.download(), value, size);
  }
}

TEST(OpenClBuffer, FillPastTwoGibibytesOnGpus) {
  const auto available = ppkit::opencl::availability();
  if (!available.available) GTEST_SKIP() << available.reason;
  if (!ppkit::opencl::Context::get().is_gpu())
    GTEST_SKIP() << "2.2 GB fill checked on GPUs only (host memory of CPU runners)";
  const std::size_t size = (std::size_t(1) << 31) + (std::size_t(1) << 27) + 12;
  Buffer<unsigned char> buffer(size);
  buffer.fill_bytes(0x5A);
  expect_every_byte(buffer.download(), 0x5A, size);
}
}  // namespace
