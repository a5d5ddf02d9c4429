#include <cstring>
#include <memory>
#include <string>

#include "ppkit.h"
#include "ppkit/core/info.hpp"
#include "ppkit/core/runtime.hpp"

namespace {
thread_local std::string last_error;
std::unique_ptr<ppkit::Runtime> runtime;

template <class F>
int guarded(F&& f) {
  try {
    last_error.clear();
    return f();
  } catch (const std::exception& e) {
    last_error = e.what();
  } catch (...) {
    last_error = "unknown error";
  }
  return 1;
}
}  // namespace

extern "C" {

int ppkit_init(void) {
  return guarded([] {
    if (!runtime) runtime = std::make_unique<ppkit::Runtime>();
    return 0;
  });
}

int ppkit_finalize(void) {
  return guarded([] {
    runtime.reset();
    return 0;
  });
}

const char* ppkit_version(void) { return ppkit::version_string(); }

int ppkit_info_json(char* buffer, size_t capacity, size_t* required) {
  return guarded([&] {
    const std::string s = ppkit::build_info().dump(2);
    if (required) *required = s.size() + 1;
    if (!buffer || capacity < s.size() + 1) {
      last_error = "buffer too small: " + std::to_string(s.size() + 1) + " bytes needed";
      return 1;
    }
    std::memcpy(buffer, s.c_str(), s.size() + 1);
    return 0;
  });
}

const char* ppkit_last_error(void) { return last_error.c_str(); }

}  // extern "C"
