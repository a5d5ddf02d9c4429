#pragma once
// Numerical health checks on device arrays (docs/reliability.md): the index of
// the first entry that is NaN, infinite or above a bound, found by one
// parallel_reduce, so that a solver can name where it went wrong. Called only
// between iterations or on a failure path, never inside the timed kernels.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <limits>

namespace ppkit::health {

// -1 when every |v(i)| <= bound (NaN fails every comparison and is found too).
template <class Exec, class View>
std::int64_t first_faulty(const View& v, double bound = std::numeric_limits<double>::max()) {
  std::int64_t first = 0;
  Kokkos::parallel_reduce(
      "ppkit.health", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, v.extent(0)),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t & acc) {
        const double x = double(v(i));
        if (!(x <= bound && x >= -bound) && i < acc) acc = i;
      },
      Kokkos::Min<std::int64_t>(first));
  return first >= std::int64_t(v.extent(0)) ? -1 : first;
}

}  // namespace ppkit::health
