// kokkos-<space>/ppni-4tpr and ppni-8tpr: strategy (d), partially parallel
// numerical integration. The Jacobians of all 8 Gauss points at once (72
// entries in team scratch, spread over the 32 lanes), 8 lanes for the
// determinants, the 72 inverse entries by cofactors over the lanes, the 192
// physical derivatives, then each lane's 18 entries over the Gauss points.
#include "ppkit/fem/assemble_kokkos.hpp"

namespace ppkit::fem::kokkos_assembly {
namespace {

template <class Space, class LaneMap>
struct PpniTeamKernel {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;
  using Scratch =
      Kokkos::View<double*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  DeviceAssembly<Space> d;
  std::int64_t first;

  static std::size_t scratch_bytes() {
    return Scratch::shmem_size(24) + 2 * Scratch::shmem_size(72) + Scratch::shmem_size(192) +
           2 * Scratch::shmem_size(8);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t e = first + team.league_rank();
    const auto& scratch = team.team_scratch(0);
    Scratch x(scratch, 24), jac(scratch, 72), inv(scratch, 72), g(scratch, 192), det(scratch, 8),
        wdet(scratch, 8);
    load_coordinates(team, d, e, x);
    team.team_barrier();
    // jac[9q + 3k + i] = dx_i/dxi_k at Gauss point q
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 72), [&](const int m) {
      const int q = m / 9, k = (m % 9) / 3, i = m % 3;
      double sum = 0;
      for (int a = 0; a < 8; ++a) sum += d.dN(q, a, k) * x(3 * a + i);
      jac(m) = sum;
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 8), [&](const int q) {
      det(q) = determinant3(&jac(9 * q));
      wdet(q) = det(q) * kGaussWeight;
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 72), [&](const int m) {
      const int q = m / 9, i = (m % 9) / 3, k = m % 3;
      inv(m) = inverse_entry(&jac(9 * q), det(q), i, k);
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 192), [&](const int m) {
      const int q = m / 24, a = (m % 24) / 3, i = m % 3;
      g(m) = inv(9 * q + 3 * i) * d.dN(q, a, 0) + inv(9 * q + 3 * i + 1) * d.dN(q, a, 1) +
             inv(9 * q + 3 * i + 2) * d.dN(q, a, 2);
    });
    team.team_barrier();
    integrate_and_scatter<LaneMap>(team, d, e, g, wdet);
  }
};

}  // namespace

void register_ppni() {
  register_team_per_element<PpniTeamKernel, FourThreadsPerRow>("ppni", "fem ppni", 40);
  register_team_per_element<PpniTeamKernel, EightThreadsPerRow>("ppni", "fem ppni", 41);
}

}  // namespace ppkit::fem::kokkos_assembly
