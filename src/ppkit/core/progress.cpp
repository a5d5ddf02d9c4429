#include "ppkit/core/progress.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "ppkit/core/timing.hpp"

namespace ppkit {

Progress::Progress(int total) : Progress(total, ProgressMode::automatic) {}

Progress::Progress(int total, ProgressMode mode)
    : total_(total),
      enabled_(mode == ProgressMode::always ||
               (mode == ProgressMode::automatic && isatty(fileno(stderr)) != 0)),
      tty_(isatty(fileno(stderr)) != 0),
      start_(std::chrono::steady_clock::now()) {}

Progress::~Progress() { finish(); }

void Progress::start_item(const std::string& label) {
  ++done_;
  if (!enabled_) return;
  const double elapsed = seconds_since(start_);
  std::string eta = "?";
  if (done_ > 0 && total_ > done_) eta = format_duration(elapsed / done_ * (total_ - done_));
  const double rate = elapsed > 0 ? done_ / elapsed : 0;
  std::fprintf(stderr, "%s[%d/%d, %.2g/s, ETA %s] %s%s", tty_ ? "\r\033[K" : "", done_, total_,
               rate, eta.c_str(), label.c_str(), tty_ ? "" : "\n");
  std::fflush(stderr);
}

void Progress::finish() {
  if (enabled_ && tty_ && done_ >= 0) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }
  enabled_ = false;
}

ProgressMode progress_mode(bool quiet, bool forced) {
  return quiet ? ProgressMode::never : forced ? ProgressMode::always : ProgressMode::automatic;
}

std::string format_duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  const long total = std::lround(s);
  char buf[48];
  if (total >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", total / 3600, total / 60 % 60);
  else
    std::snprintf(buf, sizeof buf, "%ldm%02lds", total / 60, total % 60);
  return buf;
}

RunProgress::RunProgress(double total, std::string unit, ProgressMode mode)
    : total_(total),
      unit_(std::move(unit)),
      enabled_(mode == ProgressMode::always ||
               (mode == ProgressMode::automatic && isatty(fileno(stderr)) != 0)),
      tty_(isatty(fileno(stderr)) != 0),
      estimate_pending_(mode != ProgressMode::never),
      start_(std::chrono::steady_clock::now()) {}

RunProgress::~RunProgress() { finish(); }

void RunProgress::set_estimate(double after_seconds, double min_total_seconds) {
  estimate_after_ = after_seconds;
  estimate_min_total_ = min_total_seconds;
}

void RunProgress::estimate(double fraction_done) {
  if (!estimate_pending_) return;
  const double elapsed = seconds_since(start_);
  if (elapsed < estimate_after_ || !(fraction_done > 0)) return;
  estimate_pending_ = false;  // once: the progress line keeps the ETA current
  const double total = elapsed / fraction_done;
  if (fraction_done >= 1 || total < estimate_min_total_) return;
  std::fprintf(
      stderr,
      "%sestimate: about %s in total, measured over the first %.2g%% (%s); ends in about %s\n",
      tty_ && shown_ ? "\r\033[K" : "", format_duration(total).c_str(), 100 * fraction_done,
      format_duration(elapsed).c_str(), format_duration(total - elapsed).c_str());
  std::fflush(stderr);
  last_ = -1e300;  // redraw the progress line at once
}

bool RunProgress::due() {
  if (!enabled_) return false;
  const double now = seconds_since(start_);
  if (shown_ && now - last_ < (tty_ ? 0.5 : 10.0)) return false;
  shown_ = true;
  last_ = now;
  return true;
}

void RunProgress::show(double fraction_done, const std::string& text) {
  estimate(fraction_done);
  if (!due()) return;
  const double elapsed = seconds_since(start_);
  const double eta =
      fraction_done > 0 ? elapsed / fraction_done * (1 - fraction_done) : std::nan("");
  std::fprintf(stderr, "%s%s, ETA %s%s", tty_ ? "\r\033[K" : "", text.c_str(),
               format_duration(eta).c_str(), tty_ ? "" : "\n");
  std::fflush(stderr);
}

void RunProgress::update(double done, const std::string& detail) {
  if (!active()) return;
  const double elapsed = seconds_since(start_);
  const double rate = elapsed > 0 ? done / elapsed : 0.0;
  char text[200];
  std::snprintf(
      text, sizeof text,
      rate >= 100 ? "%.0f/%.0f %s (%.0f%%), %.0f %s/s" : "%.0f/%.0f %s (%.0f%%), %.3g %s/s", done,
      total_, unit_.c_str(), total_ > 0 ? 100 * done / total_ : 0.0, rate, unit_.c_str());
  show(total_ > 0 ? done / total_ : 0, detail.empty() ? text : text + (", " + detail));
}

void RunProgress::finish() {
  if (enabled_ && tty_ && shown_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }
  enabled_ = false;
  estimate_pending_ = false;
}

}  // namespace ppkit
