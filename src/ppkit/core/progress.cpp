#include "ppkit/core/progress.hpp"

#include <unistd.h>

#include <cstdio>

#include "ppkit/core/timing.hpp"

namespace ppkit {

Progress::Progress(int total)
    : total_(total),
      enabled_(isatty(fileno(stderr)) != 0),
      start_(std::chrono::steady_clock::now()) {}

Progress::~Progress() { finish(); }

void Progress::start_item(const std::string& label) {
  ++done_;
  if (!enabled_) return;
  const double elapsed = seconds_since(start_);
  std::string eta = "?";
  if (done_ > 0 && total_ > done_) {
    const int s = static_cast<int>(elapsed / done_ * (total_ - done_));
    eta = std::to_string(s / 60) + "m" + std::to_string(s % 60) + "s";
  }
  std::fprintf(stderr, "\r\033[K[%d/%d, ETA %s] %s", done_, total_, eta.c_str(), label.c_str());
  std::fflush(stderr);
}

void Progress::finish() {
  if (enabled_ && done_ >= 0) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }
  enabled_ = false;
}

}  // namespace ppkit
