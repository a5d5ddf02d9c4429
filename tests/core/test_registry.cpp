#include <gtest/gtest.h>

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
  v.preference = preference;
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

}  // namespace
