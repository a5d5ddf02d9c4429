// kokkos-<space>/node-gather: strategy (h), the algorithm of
// cuda/node-gather (gather_layout.hpp, docs/fem.md "Strategy (h)") written
// once for every execution space:
//  1. GaussGeometryKernel (strategy (e)'s kernel 1) stores every Gauss point's
//     inverse Jacobian and |J| w, elements in input order;
//  2. one team of 32 threads (a warp on CUDA) per 4 consecutive node slots
//     (Morton order), taking each node's elements 4 at a time through team
//     scratch, in the CUDA kernel's two phases (team thread loops and team
//     barriers where it exchanges through shared memory): index 8 g + q
//     forms the derivatives g_b = J_q^-T dN_b of all 8 nodes of element g at
//     Gauss point q (shape functions from the node signs, Hex8GaussProducts);
//     index 8 g + b integrates
//       M = sum_q |J_q| w g_node g_b^T,  K = lambda M + mu M^T + mu tr(M) I
//     (isotropic B^T D B) and stages it over its own derivatives; then index
//     c sums the round's staged blocks that fall on its c-th distinct column
//     block (a list per round, round_column_words) into an accumulator of
//     the node's rows: one pass and one barrier per round, where adding the
//     4 elements one after the other took four. A round's incidences and
//     column words come from team scratch, loaded by phase A of the round
//     before (a team's first round's before its rounds start, a slot's first
//     round's during the slot before's last), so a round waits on global
//     memory only for its geometry. The accumulator is written to the node's
//     three CSR rows.
#include <algorithm>
#include <cstdint>

#include "ppkit/core/error.hpp"
#include "ppkit/fem/assemble_kokkos.hpp"
#include "ppkit/fem/gather_layout.hpp"

namespace ppkit::fem::kokkos_assembly {
namespace {

template <class Space>
struct GatherDevice : AssemblyCommon<Space> {
  template <class T>
  using View = typename AssemblyCommon<Space>::template View<T>;
  View<double> geometry;  // 80 per element (input order), GaussGeometryKernel, pair-major
  View<std::int32_t> node_of_slot, incidences;
  View<std::int64_t> incidence_offsets;
  // Per slot, its node's first CSR row and the rows' length (its 3 rows are
  // consecutive and equally long, csr_pattern.hpp), so that a slot's rows
  // need no load that waits for its node number.
  View<std::int64_t> slot_rows;
  View<std::int32_t> slot_row_lengths;
  View<std::uint32_t> round_columns;  // round_column_words()
};

// The adds of each round (4 incidences of a slot) by column: per round, one
// word per distinct column block the round's 32 blocks fall on, sorted by
// block: the block in bits 0-15, then 4 bits per element g of the round, b + 1
// for the element's node b whose block lands there (0: none; an element's 8
// blocks are distinct, so at most one b per element). The round of
// incidences k0 .. k0 + n - 1 keeps its words at 8 k0 .. 8 (k0 + n) - 1 (8 per
// incidence: n elements fall on at most 8 n columns), kNoColumn after its
// last, so a round's words are found from its first incidence alone.
constexpr std::uint32_t kNoColumn = 0xFFFFFFFFu;

std::vector<std::uint32_t> round_column_words(const NodeGatherLayout& L) {
  std::vector<std::uint32_t> words(8 * std::size_t(L.incidences.size()), kNoColumn);
  std::vector<std::uint32_t> round;
  for (std::int64_t s = 0; s < L.num_nodes(); ++s) {
    const std::int64_t first = L.incidence_offsets[s], last = L.incidence_offsets[s + 1];
    for (std::int64_t k0 = first; k0 < last; k0 += 4) {
      round.clear();
      for (std::int64_t g = 0; g < 4 && k0 + g < last; ++g)
        for (std::uint32_t b = 0; b < 8; ++b) {
          const std::uint32_t block = L.incidence_blocks[8 * (k0 + g) + b];
          const std::uint32_t field = (b + 1) << (16 + 4 * g);
          auto it = std::find_if(round.begin(), round.end(),
                                 [&](std::uint32_t w) { return (w & 0xFFFFu) == block; });
          if (it == round.end())
            round.push_back(block | field);
          else
            *it |= field;
        }
      std::sort(round.begin(), round.end(),
                [](std::uint32_t x, std::uint32_t y) { return (x & 0xFFFFu) < (y & 0xFFFFu); });
      std::copy(round.begin(), round.end(), words.begin() + 8 * k0);
    }
  }
  return words;
}

// Team scratch per round (doubles): the derivatives G'[216 g + 26 b + 3 q + i]
// = 8 (J_q^-T dN_b(q))_i of node b of element g at Gauss point q, and the
// node's own ones scaled by |J_q| w / 64 at [24 g + 3 q + i], so that
// phase B's sum of their products is sum_q |J_q| w g_node g_b^T. Phase B's
// index 8 g + b stages its block K_(node, b) over the first 9 of its own G'
// values once it has read them. The strides are the CUDA kernel's: phase A's
// 8-byte stores (indices 3 doubles apart) fall on distinct bank pairs for a
// half-warp (26 b is even, 216 = 8 mod 16 puts group g + 1 on the other 8
// pairs), and phase B reads G' and the scaled vectors as 16-byte pairs
// (DoublePair), 12 loads each where 8-byte loads took 24, one quarter-warp's
// 8 pairs on 8 distinct 16-byte bank groups (13 b mod 8).
constexpr int kNodeStride = 26, kGroupStride = 216;
constexpr int kRoundPoints = 32;  // 4 elements x 8 Gauss points
constexpr int kDerivatives = 4 * kGroupStride, kOwn = 4 * 24;
constexpr int kAccumulatorRow = 3 * kGatherWindowBlocks;
// A round's inputs in team scratch, loaded the round before (two buffers):
// its 4 incidences, then its column words.
constexpr int kRoundInputs = 4 + 32;
// Consecutive node slots per team. A team loads the next slot's rows and
// incidence range while it assembles this one, and the next slot's first
// round of inputs during this one's last round, so only a team's first node
// waits on global memory before its rounds start.
constexpr int kSlotsPerTeam = 4;

template <class Space>
struct NodeGatherKernel {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;
  GatherDevice<Space> d;
  std::int64_t slots = 0;

  // Doubles of team scratch: G', the scaled vectors, the accumulator (3 rows
  // of kAccumulatorRow), and the body-force weights of two slots (32 each).
  static constexpr int kScratchDoubles =
      kDerivatives + kOwn + 3 * kAccumulatorRow + 2 * kRoundPoints;
  static constexpr std::size_t kScratchAlignment = alignof(DoublePair);
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t scratch_bytes() {
    return sizeof(double) * kScratchDoubles + sizeof(std::uint32_t) * 2 * kRoundInputs +
           kScratchAlignment;
  }

  // A slot's node and where its CSR rows are: three loads, none waiting for
  // another.
  struct SlotRows {
    std::int64_t node = 0, row = 0;
    int row_length = 0;
  };
  KOKKOS_INLINE_FUNCTION SlotRows slot_rows(std::int64_t slot) const {
    return SlotRows{d.node_of_slot(slot), d.slot_rows(slot), d.slot_row_lengths(slot)};
  }

  // Index `point`'s share of the inputs (incidences and column words) of the
  // round that starts at incidence k0 of a slot whose incidences end at
  // `last`; indices 0 .. 31 together hold all of them. Both are found from k0
  // alone (8 column words per incidence from k0 on).
  struct RoundInput {
    std::uint32_t incidence = 0, column = kNoColumn;
  };
  KOKKOS_INLINE_FUNCTION RoundInput round_input(std::int64_t last, std::int64_t k0,
                                                int point) const {
    const std::int64_t incidences = last - k0 < 4 ? last - k0 : 4;
    RoundInput in;
    if (point < incidences) in.incidence = std::uint32_t(d.incidences(k0 + point));
    if (point < 8 * incidences) in.column = d.round_columns(8 * k0 + point);
    return in;
  }
  KOKKOS_INLINE_FUNCTION static void store_round_input(std::uint32_t* inputs, int point,
                                                       const RoundInput& in) {
    if (point < 4) inputs[point] = in.incidence;
    inputs[4 + point] = in.column;
  }

  // Phase A for Gauss point q of the round's element g (incidence word
  // `incidence_word`): G' of all 8 nodes, the node's own scaled by |J_q| w /
  // 64, and (in the first window) the point's body-force weight.
  KOKKOS_INLINE_FUNCTION void form_gauss_point(double* G, double* own, double* weights,
                                               std::uint32_t incidence_word, int g, int q,
                                               bool first_window) const {
    const std::int32_t incidence = std::int32_t(incidence_word);
    const int a = incidence % 8;
    // Pair-major records: the group's 8 indices load 8 consecutive 16-byte
    // pairs (one 128-byte line), 5 loads each where value-major records took
    // 10 of 8 bytes, each touching half a line. J_q^-1 as stored gives G' = 8 J_q^-T dN_b (the
    // factor 8 of dN_b's scaled form), taken out once through the weight
    // w / 64 below.
    const auto* const pairs = reinterpret_cast<const DoublePair*>(
        d.geometry.data() + 80 * std::int64_t(incidence / 8) + 2 * q);
    double J_inv[9];
    for (int p = 0; p < 4; ++p) {
      const DoublePair pair = pairs[8 * p];
      J_inv[2 * p] = pair.first;
      J_inv[2 * p + 1] = pair.second;
    }
    const DoublePair last_pair = pairs[32];  // J_inv[8] and |J| w
    J_inv[8] = last_pair.first;
    const double w = last_pair.second;
    const Hex8GaussProducts shape(q);
    double* const Gq = G + kGroupStride * g + 3 * q;
    hex8_for_each_node([&](auto node_b) {
      constexpr int b = decltype(node_b)::value;
      const double dN[3] = {shape.scaled_derivative<b, 0>(), shape.scaled_derivative<b, 1>(),
                            shape.scaled_derivative<b, 2>()};
      for (int i = 0; i < 3; ++i)
        Gq[kNodeStride * b + i] =
            J_inv[3 * i] * dN[0] + J_inv[3 * i + 1] * dN[1] + J_inv[3 * i + 2] * dN[2];
    });
    const double w64 = w * (1.0 / 64);
    for (int i = 0; i < 3; ++i) own[24 * g + 3 * q + i] = w64 * Gq[kNodeStride * a + i];
    if (first_window) weights[8 * g + q] += 0.125 * shape.scaled_value(a) * w;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t slot_begin = std::int64_t(kSlotsPerTeam) * team.league_rank();
    const std::int64_t slot_end =
        slot_begin + kSlotsPerTeam < slots ? slot_begin + kSlotsPerTeam : slots;
    double* const G = static_cast<double*>(team.team_scratch(0).get_shmem_aligned(
        scratch_bytes() - kScratchAlignment, std::ptrdiff_t(kScratchAlignment)));
    double* const own = G + kDerivatives;
    // The window's part of the node's 3 rows, row after row (kAccumulatorRow
    // doubles each), so that they are read for the stores contiguously.
    double* const accumulator = own + kOwn;
    // Point 8 g + q's share of the body-force weight sum_elements sum_q
    // N_node(q) |J_q| w, one buffer per slot parity (a slot's reduction
    // clears its buffer while the next slot adds into the other).
    double* const weight_buffers = accumulator + 3 * kAccumulatorRow;
    std::uint32_t* const round_inputs =
        reinterpret_cast<std::uint32_t*>(weight_buffers + 2 * kRoundPoints);

    SlotRows rows = slot_rows(slot_begin);
    std::int64_t first = d.incidence_offsets(slot_begin),
                 last = d.incidence_offsets(slot_begin + 1);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, kRoundPoints), [&](const int point) {
      weight_buffers[point] = weight_buffers[kRoundPoints + point] = 0;
      if (first < last) store_round_input(round_inputs, point, round_input(last, first, point));
    });
    team.team_barrier();
    int buffer = 0;            // of the round about to run
    bool inputs_ready = true;  // the slot's first round's inputs are in `buffer`
    for (std::int64_t slot = slot_begin; slot < slot_end; ++slot) {
      // The next slot's rows and incidence range, for its start.
      const bool more = slot + 1 < slot_end;
      const SlotRows next_rows = more ? slot_rows(slot + 1) : SlotRows{};
      const std::int64_t next_last = more ? d.incidence_offsets(slot + 2) : last;
      const bool next_has_rounds = more && last < next_last;  // its first is this slot's last
      const bool has_rounds = first < last;
      if (has_rounds && !inputs_ready) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, kRoundPoints), [&](const int point) {
          store_round_input(round_inputs + kRoundInputs * buffer, point,
                            round_input(last, first, point));
        });
        team.team_barrier();
      }
      double* const weights = weight_buffers + kRoundPoints * (slot % 2);
      const int blocks = rows.row_length / 3;
      for (int window = 0; window < blocks; window += kGatherWindowBlocks) {
        const int window_blocks =
            blocks - window < kGatherWindowBlocks ? blocks - window : kGatherWindowBlocks;
        const bool last_window = window + kGatherWindowBlocks >= blocks;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 3 * window_blocks), [&](const int v) {
          for (int i = 0; i < 3; ++i) accumulator[kAccumulatorRow * i + v] = 0;
        });
        for (std::int64_t k0 = first; k0 < last; k0 += 4) {
          const int elements = int(last - k0 < 4 ? last - k0 : 4);
          const std::uint32_t* const inputs = round_inputs + kRoundInputs * buffer;
          // The round after this one: the slot's next, the next window's
          // first, or the next slot's first; phase A loads its inputs into
          // the other buffer.
          std::int64_t next_k0 = -1, next_k0_last = last;
          if (k0 + 4 < last)
            next_k0 = k0 + 4;
          else if (!last_window)
            next_k0 = first;
          else if (next_has_rounds) {
            next_k0 = last;
            next_k0_last = next_last;
          }
          std::uint32_t* const next_inputs = round_inputs + kRoundInputs * (1 - buffer);
          // Phase A, index 8 g + q: Gauss point q of element g forms the
          // derivatives of all 8 nodes once (not once per node pair), from
          // the 12 products of its shape-function factors (Hex8GaussProducts:
          // 9 FMAs a node, the signs folded in); meanwhile the 32 indices
          // load the next round's inputs, storing them into team scratch only
          // after the derivatives: a store right after the load waited for it
          // before the derivatives could start (the largest wait in a profile).
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, kRoundPoints), [&](const int point) {
            const RoundInput next_input =
                next_k0 >= 0 ? round_input(next_k0_last, next_k0, point) : RoundInput{};
            const int g = point / 8, q = point % 8;
            if (g < elements) form_gauss_point(G, own, weights, inputs[g], g, q, window == 0);
            if (next_k0 >= 0) store_round_input(next_inputs, point, next_input);
          });
          team.team_barrier();
          // Phase B, index 8 g + b: K_(node, b) of element g, from 16-byte
          // loads of the scaled vectors (the same for the group's 8 indices)
          // and of b's G'.
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 8 * elements), [&](const int pair) {
            const int g = pair / 8, b = pair % 8;
            const auto* const ga = reinterpret_cast<const DoublePair*>(own + 24 * g);
            double* const gb = G + kGroupStride * g + kNodeStride * b;  // read, then K over it
            const auto* const gb_pairs = reinterpret_cast<const DoublePair*>(gb);
            double M[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
            for (int h = 0; h < 4; ++h) {  // Gauss points 2 h and 2 h + 1, 3 pairs each
              double x[6], y[6];
              for (int m = 0; m < 3; ++m) {
                const DoublePair u = ga[3 * h + m], v = gb_pairs[3 * h + m];
                x[2 * m] = u.first;
                x[2 * m + 1] = u.second;
                y[2 * m] = v.first;
                y[2 * m + 1] = v.second;
              }
              for (int e = 0; e < 2; ++e)
                for (int i = 0; i < 3; ++i)
                  for (int j = 0; j < 3; ++j) M[3 * i + j] += x[3 * e + i] * y[3 * e + j];
            }
            double K[9];
            for (int i = 0; i < 3; ++i)
              for (int j = 0; j < 3; ++j)
                K[3 * i + j] = isotropic_block_entry(M, d.lambda, d.mu, i, j);
            auto* const staged = reinterpret_cast<DoublePair*>(gb);
            for (int m = 0; m < 4; ++m) staged[m] = DoublePair{K[2 * m], K[2 * m + 1]};
            gb[8] = K[8];
          });
          team.team_barrier();
          // Index c: the round's c-th column block, all 9 values, summed over
          // the elements that add to it (two elements' blocks may share a
          // column block, so one index takes all of a column's terms). It
          // decodes its word once, in one pass (a round has at most 32
          // columns); index 9 c + m took about 6 passes, each decoding the
          // word again (a sixth more instructions for the kernel).
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 8 * elements), [&](const int c) {
            const std::uint32_t word = inputs[4 + c];
            const int block = int(word & 0xFFFFu) - window;
            if (word == kNoColumn || block < 0 || block >= window_blocks) return;
            double sum[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
            for (int g = 0; g < 4; ++g) {
              const int b = int(word >> (16 + 4 * g) & 0xFu) - 1;
              if (b < 0) continue;
              const double* const K = G + kGroupStride * g + kNodeStride * b;
              const auto* const K_pairs = reinterpret_cast<const DoublePair*>(K);
              for (int m = 0; m < 4; ++m) {
                const DoublePair p = K_pairs[m];
                sum[2 * m] += p.first;
                sum[2 * m + 1] += p.second;
              }
              sum[8] += K[8];
            }
            double* const target = accumulator + 3 * block;
            for (int i = 0; i < 3; ++i)
              for (int j = 0; j < 3; ++j) target[kAccumulatorRow * i + j] += sum[3 * i + j];
          });
          team.team_barrier();
          buffer = 1 - buffer;
        }
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 3 * window_blocks), [&](const int v) {
          for (int i = 0; i < 3; ++i)
            d.values(rows.row + std::int64_t(i) * rows.row_length + 3 * window + v) =
                accumulator[kAccumulatorRow * i + v];
        });
        team.team_barrier();
      }
      // The last round of a slot with rounds loaded the next slot's first.
      inputs_ready = has_rounds && next_has_rounds;
      double body_weight = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, kRoundPoints),
          [&](const int point, double& sum) {
            sum += weights[point];
            weights[point] = 0;  // for the slot after next
          },
          body_weight);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 3), [&](const int i) {
        d.load(3 * rows.node + i) = body_weight * d.body(i);
      });
      rows = next_rows;
      first = last;
      last = next_last;
    }
  }
};

template <class Space>
class NodeGatherRun final : public KokkosAssembler<Space> {
 public:
  explicit NodeGatherRun(const AssemblyProblem& p) : KokkosAssembler<Space>(p) {
    const NodeGatherLayout layout = make_node_gather_layout(p);
    upload_assembly_common<Space>(p, layout.element_coordinates, p.mesh.elements, d_);
    d_.geometry = typename GatherDevice<Space>::template View<double>(
        "fem Gauss-point geometry", 80 * std::size_t(p.mesh.num_elements()));
    // Phase A reads the records as 16-byte DoublePairs.
    if (reinterpret_cast<std::uintptr_t>(d_.geometry.data()) % alignof(DoublePair) != 0)
      throw Error("node-gather: the Gauss-point geometry allocation is not 16-byte aligned",
                  "a Kokkos memory space whose allocations are 16-byte aligned");
    d_.node_of_slot = upload<std::int32_t, Space>(layout.node_of_slot.data(),
                                                  layout.node_of_slot.size(), "fem gather nodes");
    d_.incidences = upload<std::int32_t, Space>(layout.incidences.data(), layout.incidences.size(),
                                                "fem gather incidences");
    d_.incidence_offsets = upload<std::int64_t, Space>(layout.incidence_offsets.data(),
                                                       layout.incidence_offsets.size(),
                                                       "fem gather incidence offsets");
    const std::vector<std::uint32_t> words = round_column_words(layout);
    d_.round_columns =
        upload<std::uint32_t, Space>(words.data(), words.size(), "fem gather round columns");
    std::vector<std::int64_t> slot_rows(layout.node_of_slot.size());
    std::vector<std::int32_t> slot_row_lengths(layout.node_of_slot.size());
    for (std::size_t s = 0; s < slot_rows.size(); ++s) {
      const std::int64_t node = layout.node_of_slot[s];
      slot_rows[s] = p.pattern.row_offsets[3 * node];
      slot_row_lengths[s] = std::int32_t(p.pattern.row_offsets[3 * node + 1] - slot_rows[s]);
    }
    d_.slot_rows =
        upload<std::int64_t, Space>(slot_rows.data(), slot_rows.size(), "fem gather rows");
    d_.slot_row_lengths = upload<std::int32_t, Space>(
        slot_row_lengths.data(), slot_row_lengths.size(), "fem gather row lengths");
    nodes_ = layout.num_nodes();
  }

 private:
  // No zeroing: kernel 2 writes every CSR value and load entry once.
  void launch(const Space& exec) override {
    GaussGeometryKernel<Space>::launch("fem node-gather geometry", d_, d_.geometry,
                                       GeometryLayout::pair_major, exec);
    const NodeGatherKernel<Space> kernel{d_, nodes_};
    const std::int64_t teams = (nodes_ + kSlotsPerTeam - 1) / kSlotsPerTeam;
    const auto scratch = Kokkos::PerTeam(NodeGatherKernel<Space>::scratch_bytes());
    // 32 team threads on a device (a warp on CUDA), one on the host spaces,
    // whose teams run side by side on the cores (OpenMP would offer its
    // whole pool to one team). The kernel's loops are team thread ranges of
    // 32, whose ends need no warp mask: a vector range ends in a __syncwarp
    // of a mask computed at run time (a MATCH.ANY per check).
    const int team_size =
        Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible
            ? 1
            : 32;
    Kokkos::parallel_for(
        "fem node-gather",
        Kokkos::TeamPolicy<Space>(exec, teams, team_size).set_scratch_size(0, scratch), kernel);
  }
  AssemblyCommon<Space>& common() override { return d_; }

  std::int64_t nodes_ = 0;
  GatherDevice<Space> d_;
};

}  // namespace

void register_node_gather() {
  // The fastest Kokkos variant on a GPU (docs/fem.md), but after the factored
  // variants for "auto": the most preferred Kokkos variant is what `ppkit
  // compare` checks every other against, and factored-atomic-runs (each
  // element's matrix added by atomics, element by element) is a different
  // algorithm from the gathers it checks.
  register_kokkos_run<NodeGatherRun>("node-gather", 40, /*host_rank=*/60);
}

}  // namespace ppkit::fem::kokkos_assembly
