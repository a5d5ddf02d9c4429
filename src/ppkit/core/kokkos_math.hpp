#pragma once
// Math functions callable in Kokkos kernels on every supported Kokkos:
// Kokkos 3.4 has them in Kokkos::Experimental, Kokkos >= 3.7 in Kokkos.
#include <Kokkos_Core.hpp>

namespace ppkit::math {
#if KOKKOS_VERSION >= 30700
using Kokkos::cbrt;
using Kokkos::cos;
using Kokkos::exp;
using Kokkos::fabs;
using Kokkos::pow;
using Kokkos::sin;
using Kokkos::sqrt;
#else
using Kokkos::Experimental::cbrt;
using Kokkos::Experimental::cos;
using Kokkos::Experimental::exp;
using Kokkos::Experimental::fabs;
using Kokkos::Experimental::pow;
using Kokkos::Experimental::sin;
using Kokkos::Experimental::sqrt;
#endif
}  // namespace ppkit::math
