#pragma once
// The Kokkos form of the temporally blocked Yee update (kokkos-<space>/blocked-k2,
// -k4): one TeamPolicy launch per pass, a team per y-z tile marching along x
// (scheme, halo and ring: yee_blocked.hpp, whose per-node functions it calls).
// The field ring lives in team scratch level 0 on devices (shared memory) and
// level 1 on hosts (whose level 0 holds only 32 KiB per team); the psi ring
// in level 1. Window rows go to the team's threads, z to the vector lanes.
#include <Kokkos_Core.hpp>

#include "ppkit/fdtd/yee_blocked.hpp"

namespace ppkit::fdtd::blocked {

template <class Exec, class Real>
struct BlockedPass {
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<Real*, typename Exec::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  static constexpr int field_level =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible ? 1
                                                                                             : 0;

  Pass<Real> pass;

  static std::size_t field_scratch(const Tiling& t) {
    return Scratch::shmem_size(std::size_t(t.field_values()));
  }
  static std::size_t psi_scratch(const Tiling& t) {
    return Scratch::shmem_size(std::size_t(t.psi_values()));
  }

  // Visits the window nodes [ly0, ly1) x [lz0, lz1): rows over the team's
  // threads, z over the vector lanes (on hosts, whose vector length is 1, a
  // plain loop, which the compiler inlines f into).
  template <class F>
  KOKKOS_FORCEINLINE_FUNCTION void for_nodes(const Member& team, std::int64_t ly0, std::int64_t ly1,
                                             std::int64_t lz0, std::int64_t lz1, const F& f) const {
    if constexpr (field_level == 1) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ly0, ly1), [&](std::int64_t ly) {
        for (std::int64_t lz = lz0; lz < lz1; ++lz) f(ly, lz);
      });
    } else {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ly0, ly1), [&](std::int64_t ly) {
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lz0, lz1),
                             [&](std::int64_t lz) { f(ly, lz); });
      });
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const Pass<Real>& p = pass;
    const std::int64_t tile = team.league_rank(), nx = p.a.g.nx, steps = p.a.steps;
    const Window w = p.window(tile);
    // team_scratch takes the level by reference: pass a copy (nvcc cannot
    // bind device code to the address of a host static member).
    const int level_of_fields = field_level;
    Scratch fields(team.team_scratch(level_of_fields), std::size_t(p.t.field_values()));
    Scratch psi(team.team_scratch(1), std::size_t(p.t.psi_values()));
    Real* F = fields.data();
    Real* P = psi.data();
    double* energy = p.a.energy_partial + tile * p.t.ring;
    Kokkos::single(Kokkos::PerTeam(team), [&] {
      for (std::int64_t l = 0; l < steps; ++l) energy[l] = 0;
    });
    for (std::int64_t pos = 0; pos <= nx + steps; ++pos) {
      if (pos <= nx) {
        const Plane in = p.plane(pos);
        for_nodes(team, 0, w.ny, 0, w.nz,
                  [&](std::int64_t ly, std::int64_t lz) { p.load_node(F, P, w, in, ly, lz); });
      }
      team.team_barrier();
      for (std::int64_t level = 0; level < steps; ++level) {
        const std::int64_t x = pos - 1 - level, step = p.a.first_step + level;
        if (x < 0 || x > nx) continue;
        const Plane pl = p.plane(x);
        for_nodes(team, 0, w.h_ly_end(), 0, w.h_lz_end(),
                  [&](std::int64_t ly, std::int64_t lz) { p.h_node(F, P, w, pl, ly, lz); });
        team.team_barrier();
        for_nodes(team, w.e_ly_begin(), w.ny, w.e_lz_begin(), w.nz,
                  [&](std::int64_t ly, std::int64_t lz) { p.e_node(F, P, w, pl, ly, lz); });
        team.team_barrier();
        Kokkos::single(Kokkos::PerTeam(team), [&] { p.sources(F, w, x, step); });
        team.team_barrier();
        Kokkos::single(Kokkos::PerTeam(team), [&] { p.probes(F, w, x, step); });
        if (p.a.energy_after[step]) {
          const std::int64_t cy = w.cy1 - w.cy0, cz = w.cz1 - w.cz0;
          double sum = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(team, cy * cz),
              [&](std::int64_t m, double& acc) {
                acc += p.energy(F, w, pl, w.cy0 - w.wy0 + m / cz, w.cz0 - w.wz0 + m % cz);
              },
              sum);
          Kokkos::single(Kokkos::PerTeam(team), [&] { energy[level] += sum; });
        }
      }
      const std::int64_t done = pos - steps;
      if (done >= 0 && done <= nx) {
        const Plane out = p.plane(done);
        for_nodes(team, w.cy0 - w.wy0, w.cy1 - w.wy0, w.cz0 - w.wz0, w.cz1 - w.wz0,
                  [&](std::int64_t ly, std::int64_t lz) { p.store_node(F, P, w, out, ly, lz); });
      }
      team.team_barrier();
    }
  }

  void run(const Exec& exec) const {
    // Devices: 32 vector lanes along z (a warp reads consecutive z of a row).
    Policy policy(exec, pass.t.tiles(), Kokkos::AUTO, field_level == 0 ? 32 : 1);
    if (field_level == 0) {
      policy.set_scratch_size(0, Kokkos::PerTeam(field_scratch(pass.t)));
      policy.set_scratch_size(1, Kokkos::PerTeam(psi_scratch(pass.t)));
    } else {
      policy.set_scratch_size(1, Kokkos::PerTeam(field_scratch(pass.t) + psi_scratch(pass.t)));
    }
    Kokkos::parallel_for("fdtd.blocked_pass", policy, *this);
  }
};

}  // namespace ppkit::fdtd::blocked
