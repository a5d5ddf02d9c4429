// The one instance of the Kokkos cell-list builders per enabled execution
// space (kokkos_sph.hpp says why there is only one).
#include "ppkit/sph/kokkos_sph.hpp"

namespace ppkit::sph::kokkos_impl {
PPKIT_SPH_CELL_LISTS_ALL()
}  // namespace ppkit::sph::kokkos_impl
