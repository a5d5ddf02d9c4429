// kokkos-<space>/team-4tpr and team-8tpr: strategies (b) and (c), a warp
// per element as a team of 4 threads x 8 vector lanes. Per Gauss point: the 9
// Jacobian entries taken in turn by the team's threads (3 passes of at most
// 4, as the paper's 24 lanes make 3 of the 9 entries per pass), each a vector
// reduction over the 8 node lanes (warp shuffles over 8-lane strides on
// CUDA); its determinant and inverse (every lane, from the 9 entries in team
// scratch), the 24 physical derivatives by 24 lanes into team scratch. Then
// each lane integrates its 18 entries in registers and adds them in two
// passes (integrate_and_scatter). The paper keeps the 18 accumulators in
// registers across the Gauss loop; Kokkos vector lanes cannot keep state
// across vector loops, so the 8 Gauss points' derivatives (192 doubles) are
// kept in scratch instead and the entry loop runs once. (As one team thread
// of 32 vector lanes, reducing a 3x3 value across all 32 lanes, 108 shuffled
// words per Gauss point, this kernel ran 1.5-2x behind the CUDA one on the
// H200.)
#include "ppkit/fem/assemble_kokkos.hpp"

namespace ppkit::fem::kokkos_assembly {
namespace {

template <class Space, class LaneMap>
struct GaussLoopTeamKernel {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;
  using Scratch =
      Kokkos::View<double*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  static constexpr int kTeamThreads = 4, kVectorLength = 8;
  DeviceAssembly<Space> d;
  std::int64_t first;

  static std::size_t scratch_bytes() {
    return Scratch::shmem_size(24) + Scratch::shmem_size(192) + Scratch::shmem_size(8) +
           Scratch::shmem_size(9);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t e = first + team.league_rank();
    Scratch x(team.team_scratch(0), 24), g(team.team_scratch(0), 192),
        wdet(team.team_scratch(0), 8), J(team.team_scratch(0), 9);
    load_coordinates(team, d, e, x);
    team.team_barrier();
    for (int q = 0; q < 8; ++q) {
      // J[3k + i] = dx_i / dxi_k = sum_a dN_a/dxi_k x_ai
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 9), [&](const int entry) {
        const int k = entry / 3, i = entry % 3;
        double sum = 0;
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, 8),
            [&](const int a, double& partial) { partial += d.dN(q, a, k) * x(3 * a + i); }, sum);
        Kokkos::single(Kokkos::PerThread(team), [&]() { J(entry) = sum; });
      });
      team.team_barrier();
      const double Jq[9] = {J(0), J(1), J(2), J(3), J(4), J(5), J(6), J(7), J(8)};
      double inv[9];
      const double det = invert3(Jq, inv);
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, 24), [&](const int m) {
        const int a = m / 3, i = m % 3;
        // Row i of J^-1 by selects: indexing inv with the lane's i would put
        // it in local memory on CUDA (a 72-byte stack frame).
        const auto row = [&](const int k) {
          return i == 0 ? inv[k] : (i == 1 ? inv[3 + k] : inv[6 + k]);
        };
        g(24 * q + m) = row(0) * d.dN(q, a, 0) + row(1) * d.dN(q, a, 1) + row(2) * d.dN(q, a, 2);
      });
      Kokkos::single(Kokkos::PerTeam(team), [&]() { wdet(q) = det * kGaussWeight; });
      team.team_barrier();  // J is rewritten for the next point
    }
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
