#pragma once
// Host wall-clock timing of prepared runs: warm up, then the median of repeats.
// Valid for device work because PreparedRun::run() returns only after it ends.
#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

#include "ppkit/core/error.hpp"

namespace ppkit {

struct TimingSummary {
  double median_s = 0;
  double min_s = 0;
  double max_s = 0;
  std::vector<double> samples_s;
  // Relative spread (max - min) / median, the figure the compare table prints.
  double spread() const { return median_s > 0 ? (max_s - min_s) / median_s : 0; }
};

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

inline TimingSummary time_repeats(const std::function<void()>& fn, int repeats, int warmup = 1) {
  require(repeats >= 1, "repeats must be at least 1", ">= 1");
  for (int i = 0; i < warmup; ++i) fn();
  TimingSummary t;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    t.samples_s.push_back(seconds_since(start));
  }
  std::vector<double> sorted = t.samples_s;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  t.median_s = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  t.min_s = sorted.front();
  t.max_s = sorted.back();
  return t;
}

}  // namespace ppkit
