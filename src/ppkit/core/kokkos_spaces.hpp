#pragma once
// Iterates the Kokkos execution spaces enabled in the Kokkos that ppkit was
// built against, so each Kokkos variant is registered once per space
// ("kokkos-serial/...", "kokkos-openmp/...", "kokkos-cuda/...").
#include <Kokkos_Core.hpp>
#include <string>

#include "ppkit/core/registry.hpp"

namespace ppkit {

// Page-locked host memory for data staged between host and device (MPI halos
// without CUDA-aware MPI); plain host memory where the backend has no pinned space.
#if defined(KOKKOS_ENABLE_CUDA)
using PinnedHostSpace = Kokkos::CudaHostPinnedSpace;
#elif defined(KOKKOS_ENABLE_HIP) && KOKKOS_VERSION >= 40000
using PinnedHostSpace = Kokkos::HIPHostPinnedSpace;
#else
using PinnedHostSpace = Kokkos::HostSpace;
#endif

template <class ExecSpace>
struct KokkosSpace {
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  const char* backend;  // "kokkos-serial"
  AutoTier tier;        // its variants' tier for "auto" (variant_traits.hpp)
  MemoryKind memory;    // where its Views live
};

// Describes the device an execution space runs on ("CPU, 16 threads",
// "NVIDIA H200 (132 SMs)"); defined in kokkos_spaces.cpp for each enabled space.
template <class ExecSpace>
std::string kokkos_space_device();

// Called with KokkosSpace<Space>{"kokkos-<name>", tier, memory} for every enabled space.
template <class F>
void for_each_kokkos_space(F&& f) {
#if defined(KOKKOS_ENABLE_SERIAL)
  f(KokkosSpace<Kokkos::Serial>{"kokkos-serial", AutoTier::host_serial, MemoryKind::host});
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  f(KokkosSpace<Kokkos::OpenMP>{"kokkos-openmp", AutoTier::host_parallel, MemoryKind::host});
#endif
#if defined(KOKKOS_ENABLE_THREADS)
  f(KokkosSpace<Kokkos::Threads>{"kokkos-threads", AutoTier::host_parallel, MemoryKind::host});
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  f(KokkosSpace<Kokkos::Cuda>{"kokkos-cuda", AutoTier::device_portable, MemoryKind::cuda});
#endif
#if defined(KOKKOS_ENABLE_HIP)
#if KOKKOS_VERSION >= 40000
  f(KokkosSpace<Kokkos::HIP>{"kokkos-hip", AutoTier::device_portable, MemoryKind::hip});
#else
  f(KokkosSpace<Kokkos::Experimental::HIP>{"kokkos-hip", AutoTier::device_portable,
                                           MemoryKind::hip});
#endif
#endif
}

// Fills the shared fields of a Kokkos variant of any operation: the Kokkos
// model, data where the space's Views live, the space's tier of "auto" at
// `rank` (variant_traits.hpp).
template <class Op, class Space>
Variant<Op> kokkos_variant(const Space& space, const std::string& strategy, int rank) {
  Variant<Op> v;
  v.name = std::string(space.backend) + "/" + strategy;
  v.backend = space.backend;
  v.strategy = strategy;
  v.model = ProgrammingModel::kokkos;
  v.memory = space.memory;
  v.preference = AutoPreference{space.tier, rank};
  v.availability = [] {
    return Kokkos::is_initialized()
               ? Availability::yes()
               : Availability::no("Kokkos is not initialised (create a ppkit::Runtime first)");
  };
  v.device = [] { return kokkos_space_device<typename Space::execution_space>(); };
  return v;
}

}  // namespace ppkit
