#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "ppkit.h"
#include "ppkit/core/c_api_support.hpp"
#include "ppkit/core/data_location.hpp"
#include "ppkit/core/device_memory.hpp"
#include "ppkit/core/info.hpp"
#include "ppkit/core/registry.hpp"
#include "ppkit/core/runtime.hpp"
#include "ppkit/core/vector_ops.hpp"

namespace ppkit::c_api {
namespace {
thread_local std::string last_error;
std::unique_ptr<ppkit::Runtime> runtime;
bool was_finalised = false;

struct HandleTable {
  std::mutex mutex;
  std::uintptr_t next = 1;
  std::map<std::uintptr_t, std::unique_ptr<HandleObject>> live;
  std::set<std::uintptr_t> released;  // by ppkit_finalize
};
HandleTable& table() {
  static HandleTable t;
  return t;
}
std::uintptr_t key_of(void* h) { return reinterpret_cast<std::uintptr_t>(h); }
}  // namespace

void set_last_error(const std::string& message) { last_error = message; }
void clear_last_error() { last_error.clear(); }
bool initialised() { return runtime != nullptr; }

void require_initialised(const char* function) {
  if (runtime) return;
  if (was_finalised)
    throw Error(std::string("called after ppkit_finalize"),
                std::string("calls between ppkit_init and ppkit_finalize; ") + function +
                    " needs the runtime");
  throw Error("called before ppkit_init", "call ppkit_init() once first");
}

void describe_operator(const DataLocation& memory, const std::string& variant, int* memory_kind,
                       int* device, char* name, std::size_t capacity) {
  if (memory_kind) *memory_kind = int(memory.kind);
  if (device) *device = memory.device;
  if (name && capacity > 0) {
    const std::size_t n = std::min(capacity - 1, variant.size());
    std::memcpy(name, variant.data(), n);
    name[n] = '\0';
  }
}

void* add_handle(std::unique_ptr<HandleObject> object) {
  HandleTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  // Handle values are multiples of 16 so they look like (and are stored as)
  // aligned pointers; they are never dereferenced.
  const std::uintptr_t key = (t.next++) << 4;
  t.live.emplace(key, std::move(object));
  return reinterpret_cast<void*>(key);
}

HandleObject& find_handle(void* h, const char* argument, const char* kind) {
  const std::string create = std::string("a handle from ") + kind + "_create";
  require(h != nullptr, std::string(argument) + " is NULL", create);
  HandleTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  const auto it = t.live.find(key_of(h));
  if (it != t.live.end()) return *it->second;
  if (t.released.count(key_of(h)))
    throw Error(std::string(argument) + " was released by ppkit_finalize",
                create + " after ppkit_init");
  if (key_of(h) % 16 == 0 && key_of(h) >> 4 < t.next)
    throw Error(std::string(argument) + " was destroyed", create + " not yet destroyed");
  throw Error(std::string(argument) + " is not a ppkit handle", create);
}

void remove_handle(void* h, const char* argument, const char* kind) {
  if (!h) return;
  std::unique_ptr<HandleObject> object;
  {
    HandleTable& t = table();
    std::lock_guard<std::mutex> lock(t.mutex);
    if (t.released.erase(key_of(h))) return;
    const auto it = t.live.find(key_of(h));
    if (it != t.live.end()) {
      object = std::move(it->second);
      t.live.erase(it);
    }
  }
  if (!object) find_handle(h, argument, kind);  // throws with the reason
  object.reset();  // outside the lock: destructors may synchronise with a device
}

void release_all_handles() {
  std::map<std::uintptr_t, std::unique_ptr<HandleObject>> objects;
  {
    HandleTable& t = table();
    std::lock_guard<std::mutex> lock(t.mutex);
    objects.swap(t.live);
    for (const auto& entry : objects) t.released.insert(entry.first);
  }
  objects.clear();
}

// Device allocations of ppkit_malloc: where each one lives, for ppkit_free.
std::map<void*, DataLocation>& allocations() {
  static std::map<void*, DataLocation> a;
  return a;
}
std::mutex& allocations_mutex() {
  static std::mutex m;
  return m;
}

DataLocation location_of_memory(int memory) {
  switch (memory) {
    case PPKIT_MEM_HOST:
      return DataLocation{MemoryKind::host, -1};
    case PPKIT_MEM_DEVICE: {
      register_all_variants();
      if (auto where = default_device_location()) return *where;
      throw Error("this ppkit build has no device memory (no CUDA or HIP device)",
                  "PPKIT_MEM_HOST");
    }
  }
  throw Error("memory = " + std::to_string(memory), "PPKIT_MEM_HOST (0) or PPKIT_MEM_DEVICE (1)");
}

}  // namespace ppkit::c_api

using ppkit::c_api::guarded;

extern "C" {

int ppkit_init(void) {
  return guarded(
      "ppkit_init",
      [] {
        if (!ppkit::c_api::runtime) ppkit::c_api::runtime = std::make_unique<ppkit::Runtime>();
        ppkit::register_all_variants();
      },
      false);
}

int ppkit_finalize(void) {
  return guarded(
      "ppkit_finalize",
      [] {
        if (!ppkit::c_api::runtime) return;
        ppkit::c_api::release_all_handles();  // their device data goes before Kokkos does
        ppkit::c_api::runtime.reset();
        ppkit::c_api::was_finalised = true;
      },
      false);
}

const char* ppkit_version(void) { return ppkit::version_string(); }

int ppkit_info_json(char* buffer, size_t capacity, size_t* required) {
  return guarded(
      "ppkit_info_json",
      [&] {
        const std::string s = ppkit::build_info().dump(2);
        if (required) *required = s.size() + 1;
        ppkit::require(buffer && capacity >= s.size() + 1,
                       "buffer of " + std::to_string(capacity) + " bytes is too small",
                       std::to_string(s.size() + 1) + " bytes or more (see *required)");
        std::memcpy(buffer, s.c_str(), s.size() + 1);
      },
      false);
}

const char* ppkit_last_error(void) { return ppkit::c_api::last_error.c_str(); }

int ppkit_malloc(size_t bytes, int memory, void** pointer) {
  return guarded("ppkit_malloc", [&] {
    ppkit::require(pointer != nullptr, "pointer is NULL", "the address of a void* to set");
    *pointer = nullptr;
    const ppkit::DataLocation where = ppkit::c_api::location_of_memory(memory);
    void* p = ppkit::allocate_in(where, bytes == 0 ? 1 : bytes);
    std::lock_guard<std::mutex> lock(ppkit::c_api::allocations_mutex());
    ppkit::c_api::allocations()[p] = where;
    *pointer = p;
  });
}

int ppkit_free(void* pointer) {
  return guarded(
      "ppkit_free",
      [&] {
        if (!pointer) return;
        ppkit::DataLocation where;
        {
          std::lock_guard<std::mutex> lock(ppkit::c_api::allocations_mutex());
          auto& a = ppkit::c_api::allocations();
          const auto it = a.find(pointer);
          ppkit::require(it != a.end(), "pointer was not allocated by ppkit_malloc (or was freed)",
                         "a pointer from ppkit_malloc, or NULL");
          where = it->second;
          a.erase(it);
        }
        ppkit::release_in(where, pointer);
      },
      false);
}

int ppkit_memcpy(void* destination, int destination_memory, const void* source, int source_memory,
                 size_t bytes) {
  return guarded("ppkit_memcpy", [&] {
    if (bytes == 0) return;
    ppkit::require(destination && source, "destination or source is NULL", "two arrays");
    const auto dst = ppkit::c_api::location_of_memory(destination_memory);
    const auto src = ppkit::c_api::location_of_memory(source_memory);
    ppkit::check_pointer(destination, bytes, dst, "destination");
    ppkit::check_pointer(source, bytes, src, "source");
    if (dst.kind == ppkit::MemoryKind::host && src.kind == ppkit::MemoryKind::host)
      std::memmove(destination, source, bytes);
    else if (src.kind == ppkit::MemoryKind::host)
      ppkit::copy_to(dst, destination, source, bytes);
    else if (dst.kind == ppkit::MemoryKind::host)
      ppkit::copy_from(src, destination, source, bytes);
    else
      ppkit::copy_within(dst, destination, source, bytes);
  });
}

int ppkit_dot(size_t n, const double* x, const double* y, const double* w, double* result) {
  return guarded("ppkit_dot", [&] {
    ppkit::require(result != nullptr, "result is NULL", "the address of a double");
    const auto where = ppkit::locate_pointer(x).value_or(ppkit::DataLocation{});
    *result = ppkit::dot(where, n, x, y, w);
  });
}

int ppkit_axpby(size_t n, double alpha, const double* x, double beta, double* y) {
  return guarded("ppkit_axpby", [&] {
    const auto where = ppkit::locate_pointer(x).value_or(ppkit::DataLocation{});
    ppkit::axpby(where, n, alpha, x, beta, y);
  });
}

}  // extern "C"
