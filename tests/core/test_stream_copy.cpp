// Every copy-bandwidth probe copies exactly (the roofline basis must be a real copy).
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
