// Memory checks before allocation (ppkit/core/memory_check.hpp): a problem that
// cannot fit says how much it needs and how much is free before any variant
// allocates; problems that fit are untouched.
#include <gtest/gtest.h>

#include "harness/variant_test.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/memory_check.hpp"
#include "ppkit/fdtd/cases.hpp"
#include "ppkit/fdtd/fdtd_run.hpp"

namespace {
using namespace ppkit;

TEST(MemoryCheck, HostMemoryIsKnown) {
  const auto m = memory::host_memory();
  ASSERT_TRUE(m.known);
  EXPECT_GT(m.free_bytes, 0);
  EXPECT_GE(m.total_bytes, m.free_bytes);
  EXPECT_NO_THROW(memory::require_fits("small", 1024, "host"));
  EXPECT_THROW(memory::require_fits("huge", 1e18, "host"), Error);
  // A backend without a probe whose data lives in host memory (a Kokkos host space).
  EXPECT_THROW(memory::require_fits("huge", 1e18, "kokkos-serial", MemoryKind::host), Error);
  // A backend that cannot say is not checked.
  EXPECT_NO_THROW(memory::require_fits("huge", 1e18, "no-such-backend"));
}

// A 4000^3-cell FDTD grid (1.8 TB of fields) on every available variant: each
// refuses before allocating, naming what it needs and what is free.
TEST(MemoryCheck, ImpossibleFdtdProblemIsRefusedBeforeAllocation) {
  FdtdStep::Problem p;
  p.grid = fdtd::make_grid(4000, 4000, 4000, 4.0, 4.0, 4.0);
  p.steps = 1;
  EXPECT_GT(fdtd::device_bytes(p), 1e12);
  int checked = 0;
  for (const auto& name : Registry<FdtdStep>::names()) {
    const auto& v = Registry<FdtdStep>::find(name);
    if (!v.availability().available) continue;
    if (!memory::free_memory(v.backend, v.memory).known) continue;
    try {
      v.prepare(p);
      ADD_FAILURE() << name << " accepted a 1.8 TB problem";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("needs at least"), std::string::npos) << name << ": " << what;
      EXPECT_NE(what.find("free"), std::string::npos) << name << ": " << what;
      EXPECT_NE(what.find("GiB"), std::string::npos) << name << ": " << what;
    }
    ++checked;
  }
  EXPECT_GT(checked, 0);
  EXPECT_THROW(fdtd::make_stepper("auto", p), Error);
}

TEST(MemoryCheck, ProblemsThatFitAreUntouched) {
  auto p = fdtd::make_cavity_problem({0.1, 0.07, 0.045}, {8, 6, 4}, 5);
  const auto& v = Registry<FdtdStep>::find("auto");
  auto run = v.prepare(p);
  run->run();
  EXPECT_EQ(run->result().fields[2].size(), std::size_t(p.grid.nodes()));
}

}  // namespace
