#include "ppkit/core/output_path.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ppkit/core/error.hpp"

namespace ppkit {
namespace {

[[noreturn]] void refuse(const std::string& option, const std::string& path,
                         const std::string& what, int error) {
  throw Error(
      option + " '" + path + "': " + (what.empty() ? "" : what + ": ") + std::strerror(error),
      "a path in a directory this user can create files in");
}

// mkdir -p: each missing component in turn; an existing non-directory stops it.
void make_directories(const std::string& directory, const std::string& option,
                      const std::string& path) {
  std::size_t end = 0;
  while (end != std::string::npos) {
    end = directory.find('/', end + 1);
    const std::string prefix = directory.substr(0, end);
    if (prefix.empty()) continue;
    struct stat st {};
    if (::stat(prefix.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) refuse(option, path, "'" + prefix + "'", ENOTDIR);
      continue;
    }
    if (errno != ENOENT) refuse(option, path, "cannot look at '" + prefix + "'", errno);
    if (::mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST)
      refuse(option, path, "cannot create directory '" + prefix + "'", errno);
  }
}

// Creates and removes a file in `directory`: the only test that also sees
// read-only mounts, pseudo file systems and quotas of zero.
void probe_directory(const std::string& directory, const std::string& option,
                     const std::string& path) {
  const std::string probe =
      directory + "/.ppkit-write-check-" + std::to_string(static_cast<long>(::getpid()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) refuse(option, path, "cannot create files in '" + directory + "'", errno);
  ::close(fd);
  ::unlink(probe.c_str());
}

std::string without_trailing_slashes(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace

void require_writable_directory(const std::string& directory, const std::string& option) {
  require(!directory.empty(), option + " is empty", "a directory name");
  const std::string d = without_trailing_slashes(directory);
  make_directories(d, option, directory);
  probe_directory(d, option, directory);
}

void require_writable_file(const std::string& path, const std::string& option) {
  require(!path.empty(), option + " is empty", "a file name");
  if (path.back() == '/') refuse(option, path, "a file name is needed", EISDIR);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) refuse(option, path, "a file name is needed", EISDIR);
    if (::access(path.c_str(), W_OK) != 0) refuse(option, path, "cannot be replaced", errno);
  }
  const std::size_t slash = path.rfind('/');
  const std::string directory = slash == std::string::npos ? "."
                                : slash == 0               ? "/"
                                                           : path.substr(0, slash);
  make_directories(directory, option, path);
  probe_directory(directory, option, path);
}

}  // namespace ppkit
