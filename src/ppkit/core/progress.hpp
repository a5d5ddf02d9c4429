#pragma once
// A one-line progress display (current item, finished/total, ETA) that writes
// to stderr only when stderr is a terminal, so logs and CI output stay clean.
#include <chrono>
#include <string>

namespace ppkit {

class Progress {
 public:
  explicit Progress(int total);
  ~Progress();
  void start_item(const std::string& label);  // marks the previous one finished
  void finish();

 private:
  int total_, done_ = -1;
  bool enabled_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace ppkit
