#pragma once
// What every function of the C API shares (include/ppkit.h): one error
// channel per thread (ppkit_last_error; the workloads' *_last_error return
// the same message), the check that ppkit_init has run and ppkit_finalize
// has not, and the handle table.
//
// Handles are numbers, not addresses: a handle that was destroyed, or whose
// object ppkit_finalize released, is never reused, so a call on it answers
// "not a live handle" instead of reading freed memory.
#include <cstddef>
#include <memory>
#include <string>
#include <typeinfo>

#include "ppkit/core/data_location.hpp"
#include "ppkit/core/error.hpp"

namespace ppkit::c_api {

void set_last_error(const std::string& message);
void clear_last_error();
// Whether ppkit_init has run and ppkit_finalize has not since.
bool initialised();
// Throws ppkit::Error saying what to call first (function: the caller's name).
void require_initialised(const char* function);

// Runs f() for the C function `function`: returns 0, or 1 with the message
// "<function>: <what>" in the error channel when f throws. Functions that need
// the runtime refuse before ppkit_init and after ppkit_finalize.
template <class F>
int guarded(const char* function, F&& f, bool needs_runtime = true) {
  try {
    clear_last_error();
    if (needs_runtime) require_initialised(function);
    f();
    return 0;
  } catch (const std::exception& e) {
    set_last_error(std::string(function) + ": " + e.what());
  } catch (...) {
    set_last_error(std::string(function) + ": unknown error");
  }
  return 1;
}

// The answers of an operator's *_info call: where its data lives
// (memory_kind: 0 host, 1 CUDA, 2 HIP, 3 managed; device ordinal, -1 on the
// host) and its variant's name, NUL-terminated and cut to capacity. Any
// pointer may be NULL.
void describe_operator(const DataLocation& memory, const std::string& variant, int* memory_kind,
                       int* device, char* name, std::size_t capacity);

// An object behind a handle; release() frees what it holds on the device
// (called by destroy and by ppkit_finalize, before Kokkos is finalised).
class HandleObject {
 public:
  virtual ~HandleObject() = default;
};

// Adds an object to the table and returns its handle.
void* add_handle(std::unique_ptr<HandleObject> object);
// The object of handle h, or throws ppkit::Error naming `argument` and
// `kind` ("ppkit_sem_axhelm") when h is NULL, destroyed, released by
// ppkit_finalize, or of another kind.
HandleObject& find_handle(void* h, const char* argument, const char* kind);
template <class T>
T& lookup(void* h, const char* argument, const char* kind) {
  auto* object = dynamic_cast<T*>(&find_handle(h, argument, kind));
  if (!object)
    throw Error(std::string(argument) + " is not a " + kind + " handle",
                std::string("a handle from ") + kind + "_create");
  return *object;
}
// Destroys handle h's object (NULL and handles released by ppkit_finalize are
// accepted; an unknown handle throws).
void remove_handle(void* h, const char* argument, const char* kind);
// Destroys every object (ppkit_finalize); their handles stay known as released.
void release_all_handles();

}  // namespace ppkit::c_api
