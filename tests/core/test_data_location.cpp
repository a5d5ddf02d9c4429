// check_pointer (data_location.hpp): the argument check of every embedding
// operator, against pointer inspectors registered here for two addresses of
// their own (other addresses are left to the backends' inspectors).
#include <gtest/gtest.h>

#include <string>

#include "ppkit/core/data_location.hpp"
#include "ppkit/core/error.hpp"

namespace {
using ppkit::DataLocation;
using ppkit::MemoryKind;

double shared_by_two_runtimes[4];  // claimed as CUDA and as HIP memory (HIP on NVIDIA)
double hip_only[4];                // claimed as HIP memory only

void register_inspectors() {
  static const bool once = [] {
    ppkit::add_pointer_inspector([](const void* p) -> std::optional<DataLocation> {
      if (p == shared_by_two_runtimes) return DataLocation{MemoryKind::cuda, 0};
      return std::nullopt;
    });
    ppkit::add_pointer_inspector([](const void* p) -> std::optional<DataLocation> {
      if (p == shared_by_two_runtimes || p == hip_only) return DataLocation{MemoryKind::hip, 0};
      return std::nullopt;
    });
    return true;
  }();
  (void)once;
}

std::string message_of(const void* p, const DataLocation& expected) {
  try {
    ppkit::check_pointer(p, 4, expected, "x");
  } catch (const ppkit::Error& e) {
    return e.what();
  }
  return "";
}

// Memory that two runtimes place (HIP on NVIDIA allocates CUDA memory) is
// valid for an operator of either; memory no runtime places where the
// operator works is refused, naming where it is.
TEST(DataLocation, PointerClaimedByTwoRuntimesIsValidForEither) {
  register_inspectors();
  EXPECT_EQ(message_of(shared_by_two_runtimes, {MemoryKind::cuda, 0}), "");
  EXPECT_EQ(message_of(shared_by_two_runtimes, {MemoryKind::hip, 0}), "");
  EXPECT_NE(message_of(shared_by_two_runtimes, {MemoryKind::cuda, 1})
                .find("x points to CUDA device 0 memory, but this operator works on CUDA device 1"),
            std::string::npos);
  EXPECT_NE(message_of(hip_only, {MemoryKind::cuda, 0}).find("x points to HIP device 0 memory"),
            std::string::npos);
  EXPECT_EQ(message_of(hip_only, {MemoryKind::hip, 0}), "");
  EXPECT_NE(message_of(nullptr, {MemoryKind::hip, 0}).find("x is NULL"), std::string::npos);
}

}  // namespace
