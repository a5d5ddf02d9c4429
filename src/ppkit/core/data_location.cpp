#include "ppkit/core/data_location.hpp"

#include <fmt/format.h>

#include <mutex>
#include <vector>

#include "ppkit/core/error.hpp"

namespace ppkit {
namespace {
std::vector<PointerInspector>& inspectors() {
  static std::vector<PointerInspector> list;
  return list;
}
std::mutex& inspectors_mutex() {
  static std::mutex m;
  return m;
}
// A copy of the inspectors, so none runs under the lock.
std::vector<PointerInspector> inspectors_now() {
  std::lock_guard<std::mutex> lock(inspectors_mutex());
  return inspectors();
}
}  // namespace

const char* to_string(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::host:
      return "host";
    case MemoryKind::cuda:
      return "cuda";
    case MemoryKind::hip:
      return "hip";
    case MemoryKind::managed:
      return "managed";
  }
  return "?";
}

std::string DataLocation::describe() const {
  switch (kind) {
    case MemoryKind::host:
      return "host memory";
    case MemoryKind::cuda:
      return fmt::format("CUDA device {} memory", device);
    case MemoryKind::hip:
      return fmt::format("HIP device {} memory", device);
    case MemoryKind::managed:
      return "managed (unified) memory";
  }
  return "unknown memory";
}

void add_pointer_inspector(PointerInspector inspector) {
  std::lock_guard<std::mutex> lock(inspectors_mutex());
  inspectors().push_back(std::move(inspector));
}

std::optional<DataLocation> locate_pointer(const void* p) {
  std::optional<DataLocation> host_answer;
  for (const auto& inspect : inspectors_now())
    if (auto where = inspect(p)) {
      // A runtime that does not know the pointer calls it host memory; prefer
      // another runtime's claim of device memory.
      if (where->kind != MemoryKind::host) return where;
      host_answer = where;
    }
  return host_answer;
}

void check_pointer(const void* p, std::size_t count, const DataLocation& expected,
                   const char* argument) {
  if (count == 0) return;
  // Messages are formatted only on failure: this check runs on every apply.
  if (p == nullptr)
    throw Error(fmt::format("{} is NULL", argument),
                fmt::format("an array of {} values in {}", count, expected.describe()));
  const auto where = locate_pointer(p);
  if (!where || where->kind == MemoryKind::managed || *where == expected) return;
  // Two runtimes may own the same memory (HIP on NVIDIA allocates CUDA
  // memory): the pointer is valid when any of them places it where expected.
  bool claimed = false;
  for (const auto& inspect : inspectors_now())
    if (auto other = inspect(p)) claimed = claimed || *other == expected;
  if (!claimed)
    throw Error(fmt::format("{} points to {}, but this operator works on {}", argument,
                            where->describe(), expected.describe()),
                fmt::format("an array in {} (allocate it there, or create the operator with a "
                            "variant whose data lives where the array is)",
                            expected.describe()));
}

}  // namespace ppkit
