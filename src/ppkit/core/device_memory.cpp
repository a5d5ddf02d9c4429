#include "ppkit/core/device_memory.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "ppkit/core/error.hpp"

namespace ppkit {
namespace {
std::mutex& calls_mutex() {
  static std::mutex m;
  return m;
}
std::map<MemoryKind, DeviceMemoryCalls>& all_calls() {
  static std::map<MemoryKind, DeviceMemoryCalls> calls;
  return calls;
}
DeviceMemoryCalls calls_for(const DataLocation& where) {
  std::lock_guard<std::mutex> lock(calls_mutex());
  const auto it = all_calls().find(where.kind);
  if (it == all_calls().end())
    throw Error(fmt::format("this ppkit build cannot allocate or copy {}", where.describe()),
                "host memory, or the memory of a backend built into this ppkit (ppkit info)");
  return it->second;
}
}  // namespace

void add_device_memory_calls(MemoryKind kind, const DeviceMemoryCalls& calls) {
  std::lock_guard<std::mutex> lock(calls_mutex());
  all_calls().emplace(kind, calls);
}

std::optional<DataLocation> default_device_location() {
  std::map<MemoryKind, DeviceMemoryCalls> calls;
  {
    std::lock_guard<std::mutex> lock(calls_mutex());
    calls = all_calls();
  }
  for (MemoryKind kind : {MemoryKind::cuda, MemoryKind::hip}) {
    const auto it = calls.find(kind);
    if (it == calls.end() || !it->second.current_device) continue;
    const int device = it->second.current_device();
    if (device >= 0) return DataLocation{kind, device};
  }
  return std::nullopt;
}

void* allocate_in(const DataLocation& where, std::size_t bytes) {
  if (bytes == 0) return nullptr;
  if (where.kind == MemoryKind::host) {
    void* p = std::malloc(bytes);
    if (!p) throw Error(fmt::format("cannot allocate {} bytes of host memory", bytes));
    return p;
  }
  return calls_for(where).allocate(bytes, where.device);
}

void release_in(const DataLocation& where, void* p) noexcept {
  if (!p) return;
  if (where.kind == MemoryKind::host) return std::free(p);
  try {
    calls_for(where).release(p, where.device);
  } catch (...) {
  }
}

void copy_to(const DataLocation& where, void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  if (where.kind == MemoryKind::host) {
    std::memcpy(dst, src, bytes);
    return;
  }
  calls_for(where).to_device(dst, src, bytes, where.device);
}

void copy_from(const DataLocation& where, void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  if (where.kind == MemoryKind::host) {
    std::memcpy(dst, src, bytes);
    return;
  }
  calls_for(where).to_host(dst, src, bytes, where.device);
}

void copy_within(const DataLocation& where, void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  if (where.kind == MemoryKind::host) {
    std::memmove(dst, src, bytes);
    return;
  }
  calls_for(where).device_to_device(dst, src, bytes, where.device);
}

}  // namespace ppkit
