#pragma once
// Progress displays on stderr, so stdout stays the command's result.
//  - Progress: items of a list (current item, finished/total, items per
//    second, ETA), for the rows of `ppkit compare` and `ppkit sem`.
//  - RunProgress: one long run (time steps, iterations, simulated time): a
//    line with what is done, the rate and the ETA, rewritten in place every
//    0.5 s on a terminal; where stderr is not a terminal only when asked
//    (ProgressMode::always), then a line on the first update and every 10 s.
//    Unless quiet, a run's measured estimate is printed once, on any stream:
//    after the first seconds, the total time at the rate measured so far.
#include <chrono>
#include <string>

namespace ppkit {

// --quiet: never; --progress: always (also into a file or pipe); else auto:
// only when stderr is a terminal.
enum class ProgressMode { automatic, always, never };

class Progress {
 public:
  explicit Progress(int total);
  Progress(int total, ProgressMode mode);
  ~Progress();
  void start_item(const std::string& label);  // marks the previous one finished
  void finish();

 private:
  int total_, done_ = -1;
  bool enabled_, tty_;
  std::chrono::steady_clock::time_point start_;
};

ProgressMode progress_mode(bool quiet, bool forced);

// "1m05s", "2h03m"; "?" for a negative or non-finite time.
std::string format_duration(double seconds);

class RunProgress {
 public:
  // total: the amount of work (steps, iterations, simulated seconds); unit:
  // its name in the rate ("steps", "iterations", ...).
  RunProgress(double total, std::string unit, ProgressMode mode);
  ~RunProgress();
  // Whether a line is shown on every due update.
  bool enabled() const { return enabled_; }
  // Whether update()/show() may print anything: the progress line, or the
  // measured estimate still to come. Callers that run in one piece when
  // nothing is shown run in chunks while this holds.
  bool active() const { return enabled_ || estimate_pending_; }
  // `estimate: about T in total, measured over the first P% (E); ends in
  // about R`, on stderr, once: at the first update after `after_seconds`,
  // when the total at the mean rate so far is at least `min_total_seconds`
  // (shorter runs print nothing). On (5 s, 30 s) unless the mode is never.
  void set_estimate(double after_seconds, double min_total_seconds);
  // Work done so far (of total) and an optional detail put before the rate;
  // prints when a line is due. The ETA is the remaining work at the mean rate.
  void update(double done, const std::string& detail = "");
  // As update(), with the line text given whole (the ETA is appended).
  void show(double fraction_done, const std::string& text);
  // Clears the terminal line (a no-op elsewhere); called by the destructor.
  void finish();

 private:
  bool due();
  void estimate(double fraction_done);
  double total_;
  std::string unit_;
  bool enabled_, tty_, shown_ = false;
  bool estimate_pending_;
  double estimate_after_ = 5, estimate_min_total_ = 30;
  double last_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace ppkit
