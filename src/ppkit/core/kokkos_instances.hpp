#pragma once
// What the operators need of a Kokkos execution space: where its data lives
// (DataLocation) and an instance of it on a host code's native stream, so
// that a Kokkos variant queues its kernels where the caller asked.
#include <Kokkos_Core.hpp>
#include <type_traits>

#include "ppkit/core/data_location.hpp"
#include "ppkit/core/error.hpp"

namespace ppkit {

// The native stream of an execution-space instance (cudaStream_t,
// hipStream_t as void*), nullptr for host spaces: what the operators' raw
// apply() takes.
template <class Exec>
void* native_stream(const Exec& exec) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) return exec.cuda_stream();
#endif
#if defined(KOKKOS_ENABLE_HIP) && KOKKOS_VERSION >= 40000
  if constexpr (std::is_same_v<Exec, Kokkos::HIP>) return exec.hip_stream();
#endif
  (void)exec;
  return nullptr;
}

template <class Exec>
DataLocation kokkos_data_location() {
  using Mem = typename Exec::memory_space;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible) {
    return DataLocation{MemoryKind::host, -1};
  }
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
    return DataLocation{MemoryKind::cuda, Exec().cuda_device()};
  }
#endif
#if defined(KOKKOS_ENABLE_HIP) && KOKKOS_VERSION >= 40000
  if constexpr (std::is_same_v<Exec, Kokkos::HIP>) {
    return DataLocation{MemoryKind::hip, Exec().hip_device()};
  }
#endif
  return DataLocation{MemoryKind::managed, -1};  // a space ppkit cannot name: no checks
}

// The instance of Exec for a native stream (nullptr: the default instance),
// created once per stream and reused: making a Kokkos::Cuda on a stream
// allocates its scratch, far too slow to do on every application.
template <class Exec>
class StreamInstance {
 public:
  const Exec& on(void* stream) {
    if (stream == stream_) return instance_;
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
      instance_ = stream ? make_cuda(static_cast<cudaStream_t>(stream)) : Exec();
      stream_ = stream;
      return instance_;
    }
#endif
#if defined(KOKKOS_ENABLE_HIP) && KOKKOS_VERSION >= 40000
    if constexpr (std::is_same_v<Exec, Kokkos::HIP>) {
#if KOKKOS_VERSION >= 40200
      instance_ =
          stream ? Exec(static_cast<hipStream_t>(stream), Kokkos::Impl::ManageStream::no) : Exec();
#else
      instance_ = stream ? Exec(static_cast<hipStream_t>(stream)) : Exec();
#endif
      stream_ = stream;
      return instance_;
    }
#endif
    throw Error("a stream was given to an operator whose data lives in host memory",
                "no stream (nullptr) for a host operator");
  }

 private:
#if defined(KOKKOS_ENABLE_CUDA)
  static Kokkos::Cuda make_cuda(cudaStream_t stream) {
#if KOKKOS_VERSION >= 40200
    return Kokkos::Cuda(stream, Kokkos::Impl::ManageStream::no);
#else
    return Kokkos::Cuda(stream);
#endif
  }
#endif
  Exec instance_{};
  void* stream_ = nullptr;
};

}  // namespace ppkit

#include "ppkit/core/kokkos_spaces.hpp"

namespace ppkit {

// Calls f(Exec{}) with the Kokkos execution space whose memory is `where`
// (host memory: Kokkos's default host space) and returns true, or returns
// false when the Kokkos ppkit was built with has no such space (CUDA memory
// with a host-only Kokkos).
template <class F>
bool with_kokkos_space_for(const DataLocation& where, F&& f) {
  if (where.kind == MemoryKind::host || where.kind == MemoryKind::managed) {
    f(Kokkos::DefaultHostExecutionSpace());
    return true;
  }
  bool found = false;
  for_each_kokkos_space([&](auto space) {
    using Exec = typename decltype(space)::execution_space;
    if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                              typename Exec::memory_space>::accessible) {
      if (!found && kokkos_data_location<Exec>().kind == where.kind) {
        found = true;
        f(Exec());
      }
    }
  });
  return found;
}

}  // namespace ppkit
