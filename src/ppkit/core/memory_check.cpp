#include "ppkit/core/memory_check.hpp"

#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "ppkit/core/error.hpp"

namespace ppkit::memory {
namespace {

std::map<std::string, Probe>& probes() {
  static std::map<std::string, Probe> p;
  return p;
}
std::mutex& probes_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

std::string format_bytes(double bytes) {
  char buf[64];
  if (bytes >= 1024.0 * 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
  else
    std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / (1024.0 * 1024));
  return buf;
}

DeviceMemory host_memory() {
  DeviceMemory m;
  m.device = "host";
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  bool have_free = false, have_total = false;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemAvailable:") {
      m.free_bytes = kib * 1024;
      have_free = true;
    } else if (key == "MemTotal:") {
      m.total_bytes = kib * 1024;
      have_total = true;
    }
  }
  m.known = have_free && have_total;
  return m;
}

void set_probe(const std::string& backend, Probe probe) {
  std::lock_guard<std::mutex> lock(probes_mutex());
  probes()[backend] = std::move(probe);
}

DeviceMemory free_memory(const std::string& backend, const std::optional<MemoryKind>& memory) {
  Probe probe;
  {
    std::lock_guard<std::mutex> lock(probes_mutex());
    const auto it = probes().find(backend);
    if (it != probes().end()) probe = it->second;
  }
  if (probe) return probe();
  if (backend == "host" || memory == MemoryKind::host) return host_memory();
  return {};
}

HostMemoryLimit::HostMemoryLimit(double bytes) {
  set_probe("host", [bytes] {
    DeviceMemory m;
    m.known = true;
    m.free_bytes = m.total_bytes = bytes;
    m.device = "host (limited to " + format_bytes(bytes) + ")";
    return m;
  });
}

HostMemoryLimit::~HostMemoryLimit() { set_probe("host", {}); }

void require_fits(const std::string& what, double bytes, const std::string& backend,
                  const std::optional<MemoryKind>& memory) {
  const DeviceMemory m = free_memory(backend, memory);
  if (!m.known || bytes <= m.free_bytes) return;
  throw Error(what + " needs at least " + format_bytes(bytes) + " on " + m.device + ", which has " +
                  format_bytes(m.free_bytes) + " free (of " + format_bytes(m.total_bytes) + ")",
              "a smaller problem, or a device with more memory");
}

}  // namespace ppkit::memory
