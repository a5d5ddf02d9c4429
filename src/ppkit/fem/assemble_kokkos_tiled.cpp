// kokkos-<space>/tiled: strategy (g), the same algorithm as cuda/tiled,
// written once for every execution space (docs/fem.md, "Strategy (g)").
// One team per tile of the TiledLayout (Morton tiles of up to 32 elements
// whose distinct CSR blocks fit the accumulator):
//  1. the team zeroes the tile's accumulator (9 doubles per block);
//  2. colour by colour, each team thread (32 vector lanes) computes one
//     element with the factored algorithm (factored_element_kokkos.hpp) and
//     adds its 18 values per lane straight into the accumulator slots (no Ke
//     staging; elements of a colour share no block); a team barrier between
//     colours;
//  3. the team adds the accumulator to the CSR values (zeroed in run()) with
//     atomic adds, 32-lane chunks of contiguous CSR row segments.
// The accumulator lives in level-0 team scratch where it fits
// (scratch_size_max(0)); on spaces whose scratch is host memory (Serial,
// OpenMP, whose level 0 is 32 KB in Kokkos 3.4) it moves to level 1, which is
// the same memory, so they run the GPU's tile size; on GPU spaces the tile
// capacity shrinks to what level 0 holds.
#include <algorithm>
#include <string>
#include <type_traits>

#include "ppkit/core/error.hpp"
#include "ppkit/fem/assemble_kokkos.hpp"
#include "ppkit/fem/factored_element_kokkos.hpp"
#include "ppkit/fem/tiled_layout.hpp"

namespace ppkit::fem::kokkos_assembly {
namespace {

template <class Space>
struct TiledDevice : AssemblyCommon<Space> {
  template <class T>
  using View = typename AssemblyCommon<Space>::template View<T>;
  View<std::uint16_t> block_slots;      // 64 per slot, [8a + b]
  View<std::int64_t> tile_colours;      // per tile: colour groups
  View<std::int64_t> colour_offsets;    // per colour group: slots
  View<std::int32_t> tile_blocks;       // per tile: accumulator blocks
  View<std::int64_t> run_offsets;       // per tile: runs
  View<std::int64_t> run_positions;     // per run: CSR position of its first block
  View<std::int32_t> run_row_lengths;   // per run
  View<std::uint16_t> run_first_slots;  // per run
  View<std::int64_t> chunk_offsets;     // per tile: chunks
  View<std::uint64_t> chunks;           // tiled_chunk() words
};

// Scratch of one element: G (192) over x (24) and J (72), then C (72), scale, wdet.
constexpr int kTiledElementScratch = 192 + 72 + 8 + 8;
// Elements computed at once per team (team threads); a structured tile of 32
// elements has 8 colours of 4.
constexpr int kTiledTeamThreads = 4;

KOKKOS_INLINE_FUNCTION int popcount32(std::uint32_t x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __popc(x);
#else
  return __builtin_popcount(x);
#endif
}
KOKKOS_INLINE_FUNCTION int highest_bit32(std::uint32_t x) {  // x != 0
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return 31 - __clz(x);
#else
  return 31 - __builtin_clz(x);
#endif
}

template <class Space>
struct TiledTeamKernel {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;
  using Scratch =
      Kokkos::View<double*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  TiledDevice<Space> d;
  int accumulator_blocks = 0;  // capacity (largest tile)
  int accumulator_level = 0;   // team scratch level of the accumulator

  static std::size_t accumulator_bytes(int blocks) { return Scratch::shmem_size(9 * blocks); }
  static std::size_t element_bytes(int team_threads) {
    return Scratch::shmem_size(std::size_t(team_threads) * kTiledElementScratch);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t t = team.league_rank();
    Scratch elements(team.team_scratch(0), std::size_t(team.team_size()) * kTiledElementScratch);
    Scratch accumulator(team.team_scratch(accumulator_level), 9 * accumulator_blocks);
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, 9 * d.tile_blocks(t)),
                         [&](const int m) { accumulator(m) = 0; });
    team.team_barrier();
    const double body[3] = {d.body_x, d.body_y, d.body_z};
    for (std::int64_t g = d.tile_colours(t); g < d.tile_colours(t + 1); ++g) {
      Kokkos::parallel_for(
          Kokkos::TeamThreadRange(team, d.colour_offsets(g), d.colour_offsets(g + 1)),
          [&](const std::int64_t k) {
            double* own = elements.data() + std::size_t(team.team_rank()) * kTiledElementScratch;
            const FactoredElementScratch s{own, own + 24, own + 192, own, own + 264, own + 272};
            Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 24),
                                 [&](const int m) { s.x[m] = d.coordinates(24 * k + m); });
            // Several elements per team: the vector loops' own lane
            // synchronisation orders the phases (no team barrier here).
            factored_geometry(team, d.natural_derivatives, s, [] {});
            Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 32), [&](const int lane) {
              // Blocks (a, 2(lane%4)) and (a, 2(lane%4) + 1) are [8a + b] = 2 lane, 2 lane + 1.
              const int slot0 = d.block_slots(64 * k + 2 * lane);
              const int slot1 = d.block_slots(64 * k + 2 * lane + 1);
              factored_lane_blocks(
                  lane, s, d.lambda, d.mu, [&](int, int b, int i, int j, double value) {
                    accumulator(9 * ((b & 1) ? slot1 : slot0) + 3 * i + j) += value;
                  });
            });
            add_body_force<true>(team, d.shape_values, s.wdet, d.nodes, k, body, d.load);
          });
      team.team_barrier();
    }
    // Flush: lane l of a chunk adds value l - (its segment's first lane) of
    // segment (first + segments started at or before l - 1), row s % 3 of run s / 3.
    const std::int64_t first_run = d.run_offsets(t);
    Kokkos::parallel_for(
        Kokkos::TeamThreadRange(team, d.chunk_offsets(t), d.chunk_offsets(t + 1)),
        [&](const std::int64_t c) {
          const std::uint64_t word = d.chunks(c);
          const int lanes = int((word >> 48) & 63u);
          const std::uint32_t starts = std::uint32_t(word);
          const std::int64_t first_segment = std::int64_t((word >> 32) & 0xffffu);
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](const int lane) {
            const std::uint32_t below = starts & (0xffffffffu >> (31 - lane));
            const std::int64_t segment = first_segment + popcount32(below) - 1;
            const int value = lane - highest_bit32(below);
            const std::int64_t run = first_run + segment / 3;
            const int i = int(segment % 3);
            const std::int64_t position =
                d.run_positions(run) + std::int64_t(i) * d.run_row_lengths(run) + value;
            Kokkos::atomic_add(
                &d.values(position),
                accumulator(9 * (int(d.run_first_slots(run)) + value / 3) + 3 * i + value % 3));
          });
        });
  }
};

template <class Space>
class TiledTeamRun final : public KokkosAssembler<Space> {
  using Kernel = TiledTeamKernel<Space>;

 public:
  explicit TiledTeamRun(const AssemblyProblem& p) : KokkosAssembler<Space>(p) {
    using Policy = Kokkos::TeamPolicy<Space>;
    constexpr bool host_scratch =
        Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                   typename Space::scratch_memory_space::memory_space>::accessible;
    TiledLayoutOptions options;
    team_threads_ = kTiledTeamThreads;
    const std::size_t level0 = std::size_t(Policy::scratch_size_max(0));
    std::size_t fixed = Kernel::element_bytes(team_threads_);
    if (fixed + Kernel::accumulator_bytes(options.max_blocks) <= level0) {
      accumulator_level_ = 0;
    } else if (host_scratch) {
      accumulator_level_ = 1;
    } else {
      // Largest capacity level 0 holds next to the element scratch (alignment slack of 2 blocks).
      const std::int64_t fit = fixed < level0 ? std::int64_t((level0 - fixed) / (9 * 8)) - 2 : 0;
      if (fit < 64)
        throw Error("team scratch level 0 of " + std::to_string(level0) +
                        " bytes cannot hold a tile accumulator of one element (64 blocks)",
                    "an execution space with at least " +
                        std::to_string(fixed + Kernel::accumulator_bytes(64)) +
                        " bytes of level-0 team scratch");
      options.max_blocks = int(std::min<std::int64_t>(options.max_blocks, fit));
      accumulator_level_ = 0;
    }
    const TiledLayout layout = make_tiled_layout(p, options);
    tiles_ = layout.num_tiles();
    accumulator_blocks_ = layout.max_blocks;
    auto up = [](const auto& host, const char* label) {
      using T = typename std::decay_t<decltype(host)>::value_type;
      return upload<T, Space>(host.data(), host.size(), label);
    };
    upload_assembly_common<Space>(p, layout.coordinates, layout.nodes, d_);
    d_.block_slots = up(layout.block_slots, "fem tile block slots");
    d_.tile_colours = up(layout.tile_colours, "fem tile colours");
    d_.colour_offsets = up(layout.colour_offsets, "fem tile colour offsets");
    d_.tile_blocks = up(layout.tile_blocks, "fem tile blocks");
    d_.run_offsets = up(layout.run_offsets, "fem tile run offsets");
    d_.run_positions = up(layout.run_positions, "fem tile run positions");
    d_.run_row_lengths = up(layout.run_row_lengths, "fem tile run row lengths");
    d_.run_first_slots = up(layout.run_first_slots, "fem tile run first slots");
    d_.chunk_offsets = up(layout.chunk_offsets, "fem tile chunk offsets");
    d_.chunks = up(layout.chunks, "fem tile flush chunks");
    // Serial and OpenMP teams have one thread (team_size_max 1 in Kokkos 3.4).
    const Kernel probe{d_, accumulator_blocks_, accumulator_level_};
    team_threads_ = std::max(1, std::min(team_threads_, Policy(1, 1, 32).team_size_max(
                                                            probe, Kokkos::ParallelForTag())));
  }

 private:
  void launch(const Space& exec) override {
    Kokkos::deep_copy(exec, d_.values, 0.0);
    Kokkos::deep_copy(exec, d_.load, 0.0);
    if (tiles_ > 0) {
      auto policy = Kokkos::TeamPolicy<Space>(exec, tiles_, team_threads_, 32);
      const std::size_t element = Kernel::element_bytes(team_threads_);
      const std::size_t accumulator = Kernel::accumulator_bytes(accumulator_blocks_);
      if (accumulator_level_ == 0)
        policy.set_scratch_size(0, Kokkos::PerTeam(element + accumulator));
      else
        policy.set_scratch_size(0, Kokkos::PerTeam(element))
            .set_scratch_size(1, Kokkos::PerTeam(accumulator));
      Kokkos::parallel_for("fem tiled", policy,
                           Kernel{d_, accumulator_blocks_, accumulator_level_});
    }
  }
  AssemblyCommon<Space>& common() override { return d_; }

  TiledDevice<Space> d_;
  std::int64_t tiles_ = 0;
  int accumulator_blocks_ = 0, accumulator_level_ = 0, team_threads_ = 1;
};

}  // namespace

void register_tiled() {
  // Below the ppni and factored strategies: its shared accumulator leaves few
  // teams per SM and each tile colour ends in a barrier (docs/fem.md,
  // "Strategy (g)").
  register_kokkos_run<TiledTeamRun>("tiled", 39);
}

}  // namespace ppkit::fem::kokkos_assembly
