#pragma once
// ppkit::Error: what was wrong, where, and what would be valid.
#include <stdexcept>
#include <string>

namespace ppkit {

class Error : public std::runtime_error {
 public:
  // what: the problem ("--order 17 is out of range"); valid: what would be
  // accepted ("1..15"). The message reads "<what> (valid: <valid>)".
  explicit Error(const std::string& what, const std::string& valid = "")
      : std::runtime_error(valid.empty() ? what : what + " (valid: " + valid + ")"),
        problem_(what),
        valid_(valid) {}
  const std::string& problem() const noexcept { return problem_; }
  const std::string& valid() const noexcept { return valid_; }

 private:
  std::string problem_;
  std::string valid_;
};

// Throws ppkit::Error(what, valid) unless condition holds.
inline void require(bool condition, const std::string& what, const std::string& valid = "") {
  if (!condition) throw Error(what, valid);
}

}  // namespace ppkit
