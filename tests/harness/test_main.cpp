// main() of every ppkit test executable: Kokkos is initialised once for the
// whole run (ppkit::Runtime), then GoogleTest runs.
#include <gtest/gtest.h>

#include <cstdio>

#include "harness/variant_test.hpp"
#include "ppkit/core/runtime.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ppkit::Runtime runtime(argc, argv);
  std::printf("ppkit tests: random seed %u (set PPKIT_TEST_SEED=%u to reproduce)\n",
              ppkit::testing::test_seed(), ppkit::testing::test_seed());
  return RUN_ALL_TESTS();
}

#include <chrono>
#include <cstdlib>

namespace ppkit::testing {
unsigned test_seed() {
  static const unsigned seed = [] {
    if (const char* s = std::getenv("PPKIT_TEST_SEED"))
      return unsigned(std::strtoul(s, nullptr, 10));
    return unsigned(std::chrono::steady_clock::now().time_since_epoch().count() & 0x7fffffff);
  }();
  return seed;
}
}  // namespace ppkit::testing
