#pragma once
// Host <-> device copies of std::vector for the SEM Kokkos code.
#include <Kokkos_Core.hpp>
#include <string>
#include <vector>

namespace ppkit::sem {

template <class T, class MemSpace>
Kokkos::View<T*, MemSpace> to_device(const std::vector<T>& host, const std::string& label) {
  Kokkos::View<T*, MemSpace> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
                                 host.size());
  Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> in(
      host.data(), host.size());
  Kokkos::deep_copy(out, in);
  return out;
}

template <class T, class MemSpace>
std::vector<T> to_host(const Kokkos::View<T*, MemSpace>& device) {
  std::vector<T> host(device.extent(0));
  Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> out(host.data(),
                                                                                   host.size());
  Kokkos::deep_copy(out, device);
  return host;
}

}  // namespace ppkit::sem
