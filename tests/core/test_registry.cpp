#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "ppkit/core/compare.hpp"
#include "ppkit/core/stream_copy.hpp"

namespace {

struct ToyOp {
  static constexpr const char* name = "test.toy";
  using Problem = int;
  using Result = int;
};

ppkit::Variant<ToyOp> toy(const std::string& name, int preference, bool available) {
  ppkit::Variant<ToyOp> v;
  v.name = name;
  v.backend = name.substr(0, name.find('/'));
  v.strategy = name.substr(name.find('/') + 1);
  v.preference = ppkit::AutoPreference{ppkit::AutoTier::host_serial, preference};
  v.availability = [available] {
    return available ? ppkit::Availability::yes() : ppkit::Availability::no("not here");
  };
  return v;
}

TEST(Registry, AutoPicksMostPreferredAvailableVariant) {
  ppkit::Registry<ToyOp>::add(toy("slow/a", 1, true));
  ppkit::Registry<ToyOp>::add(toy("fast/b", 9, false));
  ppkit::Registry<ToyOp>::add(toy("mid/c", 5, true));
  EXPECT_EQ(ppkit::Registry<ToyOp>::find("auto").name, "mid/c");
  EXPECT_EQ(ppkit::Registry<ToyOp>::find("slow/a").name, "slow/a");
}

TEST(Registry, UnknownVariantErrorListsValidNames) {
  try {
    ppkit::Registry<ppkit::StreamCopy>::find("nope/none");
    FAIL() << "expected ppkit::Error";
  } catch (const ppkit::Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown variant 'nope/none'"), std::string::npos);
    EXPECT_NE(e.valid().find("kokkos-serial/deep-copy"), std::string::npos) << e.valid();
  }
}

TEST(Registry, DuplicateNameIsRejected) {
  EXPECT_THROW(
      ppkit::Registry<ppkit::StreamCopy>::add(ppkit::Registry<ppkit::StreamCopy>::all().front()),
      ppkit::Error);
}

TEST(Registry, EveryKokkosSpaceRegistersTheCopyProbe) {
  const auto names = ppkit::Registry<ppkit::StreamCopy>::names();
  EXPECT_NE(std::find(names.begin(), names.end(), "kokkos-serial/deep-copy"), names.end());
#if defined(KOKKOS_ENABLE_OPENMP)
  EXPECT_NE(std::find(names.begin(), names.end(), "kokkos-openmp/deep-copy"), names.end());
#endif
}

TEST(Glob, MatchesLikeAShell) {
  using ppkit::glob_match;
  EXPECT_TRUE(glob_match("*", "cuda/warp-4tpr"));
  EXPECT_TRUE(glob_match("cuda/*", "cuda/warp-4tpr"));
  EXPECT_TRUE(glob_match("*warp*", "kokkos-cuda/warp-4tpr"));
  EXPECT_TRUE(glob_match("cuda/warp-?tpr", "cuda/warp-8tpr"));
  EXPECT_FALSE(glob_match("cuda/*", "kokkos-cuda/warp-4tpr"));
  EXPECT_FALSE(glob_match("a*b", "acbd"));
}

TEST(CompareContext, CommaSeparatedGlobsSelectVariants) {
  ppkit::CompareOptions o;
  o.variant_glob = "cuda/*,*serial*";
  ppkit::CompareContext ctx(o);
  EXPECT_TRUE(ctx.variant_selected("cuda/memcpy"));
  EXPECT_TRUE(ctx.variant_selected("kokkos-serial/deep-copy"));
  EXPECT_FALSE(ctx.variant_selected("opencl/copy-buffer"));
}

TEST(ProblemSize, RejectsUnknownNamesWithValidOnes) {
  EXPECT_EQ(ppkit::parse_problem_size("large"), ppkit::ProblemSize::large);
  try {
    ppkit::parse_problem_size("huge");
    FAIL();
  } catch (const ppkit::Error& e) {
    EXPECT_EQ(e.valid(), "quick, default, large");
  }
}

// compare_variants: a variant whose result is wrong is a FAIL row without
// throughput or speedup, and as the baseline strategy it gives no speedups.
struct OffsetOp {
  static constexpr const char* name = "test.offset";
  using Problem = int;
  using Result = int;
};

class OffsetRun : public ppkit::PreparedRun<int> {
 public:
  OffsetRun(int value, int offset) : value_(value), offset_(offset) {}
  void run() override { out_ = value_ + offset_; }
  int result() override { return out_; }

 private:
  int value_, offset_, out_ = 0;
};

// The same variants with the wrong one as the baseline.
struct OffsetWrongBaselineOp : OffsetOp {
  static constexpr const char* name = "test.offset-wrong-baseline";
};

template <class Op>
void register_offsets(const char* baseline) {
  for (auto [name, offset] :
       {std::pair<const char*, int>{"toy/base", 1}, {"toy/right", 0}, {"toy/wrong", 5}}) {
    ppkit::Variant<Op> v;
    v.name = name;
    v.backend = "toy";
    v.strategy = std::string(name).substr(4);
    if (v.strategy == baseline) v.role = ppkit::VariantRole::baseline;
    const int off = offset;
    v.prepare = [off](const int& p) { return std::make_unique<OffsetRun>(p, off); };
    ppkit::Registry<Op>::add(v);
  }
}

TEST(CompareVariants, WrongResultIsAFailRowWithoutFigures) {
  register_offsets<OffsetOp>("right");
  register_offsets<OffsetWrongBaselineOp>("wrong");
  ppkit::CompareOptions o;
  o.repeats = 1;
  ppkit::CompareContext ctx(o);
  ppkit::CaseModel m;
  m.workload = "test";
  m.case_name = "offset";
  m.work_units = 100;
  m.throughput_unit = "items/s";
  m.tolerance = 0;
  const int problem = 7;
  auto rows = ppkit::compare_variants<OffsetOp>(
      ctx, m, problem, [&](const int& r) { return std::abs(double(r - problem)) / problem; });
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].status, "FAIL");
  EXPECT_EQ(rows[1].status, "PASS");
  EXPECT_EQ(rows[2].status, "FAIL");
  EXPECT_GT(rows[1].throughput, 0);
  EXPECT_DOUBLE_EQ(rows[1].speedup, 1.0);
  for (int i : {0, 2}) {
    EXPECT_TRUE(std::isnan(rows[i].throughput)) << rows[i].variant;
    EXPECT_TRUE(std::isnan(rows[i].speedup)) << rows[i].variant;
    EXPECT_TRUE(std::isnan(rows[i].roofline_fraction)) << rows[i].variant;
  }
  // The wrong variant as the baseline: nobody gets a speedup over it.
  rows = ppkit::compare_variants<OffsetWrongBaselineOp>(
      ctx, m, problem, [&](const int& r) { return std::abs(double(r - problem)) / problem; });
  for (const auto& r : rows) EXPECT_TRUE(std::isnan(r.speedup)) << r.variant;
}

}  // namespace
