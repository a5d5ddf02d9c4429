// RunProgress's measured estimate (docs/cli.md, "Progress"): printed once,
// after the calibration time, with the total at the mean rate so far; never
// for short runs or with --quiet.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <string>
#include <thread>

#include "ppkit/core/progress.hpp"

namespace {

using ppkit::ProgressMode;
using ppkit::RunProgress;

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

TEST(RunProgressEstimate, PrintedOnceAfterCalibrationFromTheMeasuredRate) {
  testing::internal::CaptureStderr();
  {
    RunProgress progress(100, "steps", ProgressMode::automatic);
    progress.set_estimate(0.05, 0.2);
    EXPECT_TRUE(progress.active());
    progress.update(1);  // before the calibration time: nothing yet
    sleep_ms(80);
    progress.update(10);  // 10% in >= 80 ms: about 0.8 s or more in total
    sleep_ms(20);
    progress.update(20);
    progress.finish();
    EXPECT_FALSE(progress.active());
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(err, "estimate: "), 1) << err;
  EXPECT_TRUE(std::regex_search(
      err,
      std::regex(R"(estimate: about 0m0[1-9]s in total, measured over the first 10% \(0m00s\); )"
                 R"(ends in about 0m0[0-9]s)")))
      << err;
}

TEST(RunProgressEstimate, NotPrintedForShortRunsOrWhenQuiet) {
  testing::internal::CaptureStderr();
  {
    RunProgress short_run(100, "steps", ProgressMode::automatic);
    short_run.set_estimate(0.05, 1000);  // a total under 1000 s prints nothing
    sleep_ms(60);
    short_run.update(10);
    EXPECT_FALSE(short_run.active());  // checked once, then done

    RunProgress quiet(100, "steps", ProgressMode::never);
    quiet.set_estimate(0.0, 0.0);
    EXPECT_FALSE(quiet.active());
    sleep_ms(10);
    quiet.update(1);
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(RunProgressEstimate, FinishedWorkPrintsNoEstimate) {
  testing::internal::CaptureStderr();
  {
    RunProgress progress(10, "steps", ProgressMode::automatic);
    progress.set_estimate(0.0, 0.0);
    sleep_ms(5);
    progress.update(10);  // all done at the first update: nothing to estimate
  }
  EXPECT_EQ(count(testing::internal::GetCapturedStderr(), "estimate: "), 0);
}

}  // namespace
