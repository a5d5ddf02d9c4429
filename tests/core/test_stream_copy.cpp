// Every copy-bandwidth probe copies exactly (the roofline basis must be a real copy).
#include <algorithm>
#include <cmath>

#include "harness/variant_test.hpp"
#include "ppkit/core/stream_copy.hpp"

namespace {
class StreamCopyTest : public ppkit::testing::VariantTest<ppkit::StreamCopy> {};

TEST_P(StreamCopyTest, CopiesEverySeededElement) {
  const auto problem = ppkit::make_stream_copy_problem(100003, ppkit::testing::test_seed());
  auto run = variant().prepare(problem);
  run->run();
  const auto out = run->result();  // destination was poisoned in prepare()
  ASSERT_EQ(out.size(), problem.source.size());
  for (std::size_t i = 0; i < out.size(); ++i)
    ASSERT_EQ(out[i], problem.source[i]) << "index " << i;
}

PPKIT_INSTANTIATE_VARIANT_TESTS(StreamCopyTest, ppkit::StreamCopy);
}  // namespace

// The per-backend probe behind compare's rooflines and the CLI's time
// estimates: a positive rate for a backend with a runnable copy variant,
// measured once and kept, and NaN for a backend nobody registered.
TEST(BackendCopyBandwidth, MeasuredOncePerBackendAndNanForAnUnknownBackend) {
  const auto& variants = ppkit::Registry<ppkit::StreamCopy>::all();
  const auto runnable = std::find_if(variants.begin(), variants.end(),
                                     [](const auto& v) { return v.availability().available; });
  ASSERT_NE(runnable, variants.end()) << "no runnable copy probe in this build";
  const std::size_t n = 1 << 16;
  const double first = ppkit::backend_copy_bandwidth(runnable->backend, n);
  EXPECT_GT(first, 0.0) << runnable->backend;
  EXPECT_EQ(ppkit::backend_copy_bandwidth(runnable->backend, n), first)
      << "a second call must return the kept measurement, not measure again";
  EXPECT_TRUE(std::isnan(ppkit::backend_copy_bandwidth("no-such-backend", n)));
}
