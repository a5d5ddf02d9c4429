// kokkos-<space>/factored-atomic and factored-colour: strategy (f), designed
// for the memory floor (docs/fem.md, "Where the time goes"); the same
// algorithm as cuda/factored-*, written once for every execution space.
// A team of 32 vector lanes per element:
//  1. Jacobians of the 8 Gauss points (72 entries), then 8 lanes form det J_q
//     and the cofactors, then 192 unnormalised derivatives
//     G_a = cofactor(J_q)^T dN_a (one division per Gauss point in all);
//  2. each lane accumulates M_ab = sum_q (w / det J_q) G_a G_b^T for its two
//     blocks (4 threads per row; 9 FMAs per block and Gauss point) and stages
//     K_ab = lambda M_ab + mu M_ab^T + mu tr(M_ab) I (isotropic D's structure)
//     row-major in team scratch;
//  3. the 576 entries are added 32 consecutive ones at a time (whole CSR row
//     segments per vector step), at row start + 16-bit offset within the row.
// factored-atomic: Morton element order, one launch, atomic adds into values
// zeroed in run(); factored-colour: one launch per colour, the first element
// to touch a block stores, later ones add, so values need no zeroing;
// factored-atomic-runs: as factored-atomic, the adds by whole node-pair runs
// (ke_entry_order.hpp).
#include "ppkit/fem/assemble_kokkos.hpp"
#include "ppkit/fem/factored_element_kokkos.hpp"
#include "ppkit/fem/factored_layout.hpp"
#include "ppkit/fem/ke_entry_order.hpp"

namespace ppkit::fem::kokkos_assembly {
namespace {

template <class Space>
struct FactoredDevice : AssemblyCommon<Space> {
  template <class T>
  using View = typename AssemblyCommon<Space>::template View<T>;
  View<std::uint16_t> column_offsets;  // 64 per slot, [8a + b]
  View<std::uint64_t> first_writer;    // per slot (colour order only)
  View<std::int64_t> row_offsets;      // CSR rows
};

constexpr int kKeStride = 25;  // padded row stride of the staged Ke (fewer bank conflicts)

template <class Space, bool kAtomic, KeEntryOrder ORDER = KeEntryOrder::row_major>
struct FactoredTeamKernel {
  static_assert(kAtomic || ORDER == KeEntryOrder::row_major,
                "node-pair runs are for the atomic order only");
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;
  using Scratch =
      Kokkos::View<double*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using IndexScratch =
      Kokkos::View<std::int64_t*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  FactoredDevice<Space> d;
  std::int64_t first;

  static std::size_t scratch_bytes() {
    return Scratch::shmem_size(24 * kKeStride) + Scratch::shmem_size(192) +
           2 * Scratch::shmem_size(8) + IndexScratch::shmem_size(24);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t e = first + team.league_rank();
    const auto& scratch = team.team_scratch(0);
    // Ke holds x (24), J (72) and the cofactors (72) until the entries are staged.
    Scratch Ke(scratch, 24 * kKeStride), G(scratch, 192), scale(scratch, 8), wdet(scratch, 8);
    IndexScratch row_start(scratch, 24);
    double* x = Ke.data();
    double* J = x + 24;  // J[9q + 3k + i] = dx_i / dxi_k
    double* C = x + 96;  // C[9q + 3i + k] = cofactor (i, k) of J_q
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 24), [&](const int m) {
      x[m] = d.coordinates(24 * e + m);
      row_start(m) = d.row_offsets(3 * std::int64_t(d.nodes(8 * e + m / 3)) + m % 3);
    });
    team.team_barrier();
    const FactoredElementScratch s{x, J, C, G.data(), scale.data(), wdet.data()};
    factored_geometry(team, d.natural_derivatives, s, [&] { team.team_barrier(); });
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 32), [&](const int lane) {
      // x, J and C are dead (the team passed the barrier after G), so Ke may overwrite them.
      factored_lane_blocks(lane, s, d.lambda, d.mu, [&](int a, int b, int i, int j, double value) {
        Ke((3 * a + i) * kKeStride + 3 * b + j) = value;
      });
    });
    team.team_barrier();
    const std::uint64_t first_mask = kAtomic ? 0 : d.first_writer(e);
    // 18 rounds of 32 consecutive row-major entries (or 20 of 5 node-pair
    // runs); in batches of 6 (5) rounds a lane loads all old values before
    // storing (positions within an element are distinct), so several
    // read-modify-writes are in flight instead of one.
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 32), [&](const int lane) {
      constexpr int kRounds = ke_entry_rounds(ORDER);
      constexpr int kBatch = ORDER == KeEntryOrder::row_major ? 6 : 5;
      for (int t0 = 0; t0 < kRounds; t0 += kBatch) {
        std::int64_t position[kBatch];
        double value[kBatch];
        bool first_writer[kBatch], active[kBatch];
        for (int u = 0; u < kBatch; ++u) {
          const KeEntry entry = ke_entry(ORDER, t0 + u, lane);
          const int r = entry.row, c = entry.column, block = 8 * (r / 3) + c / 3;
          position[u] = row_start(r) + d.column_offsets(64 * e + block) + c % 3;
          value[u] = Ke(r * kKeStride + c);
          first_writer[u] = (first_mask >> block) & 1;
          active[u] = entry.active;
        }
        if (kAtomic) {
          for (int u = 0; u < kBatch; ++u)
            if (active[u]) Kokkos::atomic_add(&d.values(position[u]), value[u]);
        } else {
          double old[kBatch];
          for (int u = 0; u < kBatch; ++u) old[u] = first_writer[u] ? 0.0 : d.values(position[u]);
          for (int u = 0; u < kBatch; ++u) d.values(position[u]) = old[u] + value[u];
        }
      }
    });
    const double body[3] = {d.body_x, d.body_y, d.body_z};
    add_body_force<kAtomic>(team, d.shape_values, s.wdet, d.nodes, e, body, d.load);
  }
};

template <class Space>
class FactoredTeamRun final : public KokkosAssembler<Space> {
 public:
  FactoredTeamRun(const AssemblyProblem& p, FactoredOrder order,
                  KeEntryOrder entries = KeEntryOrder::row_major)
      : KokkosAssembler<Space>(p),
        atomic_(order == FactoredOrder::morton_atomic),
        entries_(entries) {
    const FactoredLayout layout = make_factored_layout(p, order);
    launch_offsets_ = layout.launch_offsets;
    upload_assembly_common<Space>(p, layout.coordinates, layout.nodes, d_);
    d_.column_offsets = upload<std::uint16_t, Space>(
        layout.column_offsets.data(), layout.column_offsets.size(), "fem CSR column offsets");
    if (!atomic_)
      d_.first_writer = upload<std::uint64_t, Space>(
          layout.first_writer.data(), layout.first_writer.size(), "fem first-writer masks");
    d_.row_offsets = upload<std::int64_t, Space>(
        p.pattern.row_offsets.data(), p.pattern.row_offsets.size(), "fem CSR row offsets");
  }

 private:
  void launch(const Space& exec) override {
    if (atomic_) Kokkos::deep_copy(exec, d_.values, 0.0);  // first-writer stores need no zeroing
    Kokkos::deep_copy(exec, d_.load, 0.0);
    for (std::size_t k = 0; k + 1 < launch_offsets_.size(); ++k) {
      const std::int64_t first = launch_offsets_[k], count = launch_offsets_[k + 1] - first;
      if (count <= 0) continue;
      const auto policy =
          Kokkos::TeamPolicy<Space>(exec, count, 1, 32)
              .set_scratch_size(0,
                                Kokkos::PerTeam(FactoredTeamKernel<Space, true>::scratch_bytes()));
      if (atomic_ && entries_ == KeEntryOrder::node_pair_runs)
        Kokkos::parallel_for(
            "fem factored-atomic-runs", policy,
            FactoredTeamKernel<Space, true, KeEntryOrder::node_pair_runs>{d_, first});
      else if (atomic_)
        Kokkos::parallel_for("fem factored-atomic", policy,
                             FactoredTeamKernel<Space, true>{d_, first});
      else
        Kokkos::parallel_for("fem factored-colour", policy,
                             FactoredTeamKernel<Space, false>{d_, first});
    }
  }
  AssemblyCommon<Space>& common() override { return d_; }

  bool atomic_;
  KeEntryOrder entries_;
  std::vector<std::int64_t> launch_offsets_;
  FactoredDevice<Space> d_;
};

}  // namespace

void register_factored() {
  // factored-atomic-runs: its node-pair runs touch fewer L2 sectors than
  // factored-atomic's row-major rounds (docs/fem.md), so first for "auto" on
  // a GPU space (fem_kokkos_variant: node-gather on host spaces).
  const struct {
    const char* name;
    FactoredOrder order;
    KeEntryOrder entries;
    int preference;
  } variants[] = {
      {"factored-atomic", FactoredOrder::morton_atomic, KeEntryOrder::row_major, 50},
      {"factored-colour", FactoredOrder::colour_first_writer, KeEntryOrder::row_major, 49},
      {"factored-atomic-runs", FactoredOrder::morton_atomic, KeEntryOrder::node_pair_runs, 51}};
  for (const auto& v : variants) {
    const FactoredOrder order = v.order;
    const KeEntryOrder entries = v.entries;
    for_each_kokkos_space([&v, order, entries](auto space) {
      using Exec = typename decltype(space)::execution_space;
      auto variant = fem_kokkos_variant(space, v.name, v.preference);
      variant.prepare = [order, entries](const AssemblyProblem& p) {
        return std::make_unique<FactoredTeamRun<Exec>>(p, order, entries);
      };
      Registry<FemAssemble>::add(std::move(variant));
    });
  }
}

}  // namespace ppkit::fem::kokkos_assembly
