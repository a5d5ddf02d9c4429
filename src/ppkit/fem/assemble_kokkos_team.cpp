// kokkos-<space>/team-4tpr and team-8tpr: strategies (b) and (c), a warp
// (team of 32 vector lanes) per element. Per Gauss point: the Jacobian's 72
// node terms by the lanes into team scratch and its 9 entries summed over the
// 8 nodes by 9 lanes (the paper's shared-memory form of the reduction over 8
// node lanes; a Kokkos vector reduction of the 3 x 3 value reduces across all
// 32 lanes, 5 shuffle levels of 9 doubles), its determinant and inverse
// (every lane, from scratch), the 24 physical derivatives by 24 lanes into
// team scratch. Then each lane integrates its 18 entries in registers and
// adds them in two passes (integrate_and_scatter). The paper keeps the 18
// accumulators in registers across the Gauss loop; Kokkos vector lanes cannot
// keep state across vector loops, so the 8 Gauss points' derivatives (192
// doubles) are kept in scratch instead and the entry loop runs once.
#include "ppkit/fem/assemble_kokkos.hpp"

namespace ppkit::fem::kokkos_assembly {
namespace {

template <class Space, class LaneMap>
struct GaussLoopTeamKernel {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;
  using Scratch =
      Kokkos::View<double*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  DeviceAssembly<Space> d;
  std::int64_t first;

  static std::size_t scratch_bytes() {
    return Scratch::shmem_size(24) + Scratch::shmem_size(192) + Scratch::shmem_size(8) +
           Scratch::shmem_size(72) + Scratch::shmem_size(9);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t e = first + team.league_rank();
    Scratch x(team.team_scratch(0), 24), g(team.team_scratch(0), 192),
        wdet(team.team_scratch(0), 8), terms(team.team_scratch(0), 72),
        jacobian(team.team_scratch(0), 9);
    load_coordinates(team, d, e, x);
    team.team_barrier();
    for (int q = 0; q < 8; ++q) {
      // terms(8 n + a) = dN_a/dxi_k x_a,i for entry n = 3 k + i of J (dx_i / dxi_k).
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 72), [&](const int m) {
        const int n = m / 8, a = m % 8;
        terms(m) = d.dN(q, a, n / 3) * x(3 * a + n % 3);
      });
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 9), [&](const int n) {
        double sum = 0;
        for (int a = 0; a < 8; ++a) sum += terms(8 * n + a);
        jacobian(n) = sum;
      });
      team.team_barrier();
      double J[9], inv[9];
      for (int n = 0; n < 9; ++n) J[n] = jacobian(n);
      const double det = invert3(J, inv);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 24), [&](const int m) {
        const int a = m / 3, i = m % 3;
        // Row i of J^-1 by selects: indexing inv with the lane's i would put
        // it in local memory on CUDA (a 72-byte stack frame).
        const auto row = [&](const int k) {
          return i == 0 ? inv[k] : (i == 1 ? inv[3 + k] : inv[6 + k]);
        };
        g(24 * q + m) = row(0) * d.dN(q, a, 0) + row(1) * d.dN(q, a, 1) + row(2) * d.dN(q, a, 2);
      });
      Kokkos::single(Kokkos::PerThread(team), [&]() { wdet(q) = det * kGaussWeight; });
    }
    team.team_barrier();
    integrate_and_scatter<LaneMap>(team, d, e, g, wdet);
  }
};

}  // namespace

void register_team_gauss_loop() {
  register_team_per_element<GaussLoopTeamKernel, FourThreadsPerRow>("team", "fem team-gauss-loop",
                                                                    30);
  register_team_per_element<GaussLoopTeamKernel, EightThreadsPerRow>("team", "fem team-gauss-loop",
                                                                     31);
}

}  // namespace ppkit::fem::kokkos_assembly
