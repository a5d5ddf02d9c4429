// kokkos-<space>/node-gather: strategy (h), the algorithm of
// cuda/node-gather (gather_layout.hpp, docs/fem.md "Strategy (h)") written
// once for every execution space:
//  1. GaussGeometryKernel (strategy (e)'s kernel 1) stores every Gauss point's
//     inverse Jacobian and |J| w, elements in input order;
//  2. one team of 32 vector lanes per node (Morton order), taking the node's
//     elements 4 at a time through team scratch, in the CUDA kernel's two
//     phases (vector loops and team barriers where it exchanges through
//     shared memory): index 8 g + q forms the derivatives g_b = J_q^-T dN_b
//     of all 8 nodes of element g at Gauss point q (shape functions from the
//     node signs, Hex8GaussProducts); index 8 g + b integrates
//       M = sum_q |J_q| w g_node g_b^T,  K = lambda M + mu M^T + mu tr(M) I
//     (isotropic B^T D B) and stages it over its own derivatives; then index
//     c sums the round's staged blocks that fall on its c-th distinct column
//     block (a list per round, round_column_words) into an accumulator of
//     the node's rows: one pass and one barrier per round, where adding the
//     4 elements one after the other took four (1.26 -> 1.17 ms at 64^3,
//     9.86 -> 9.10 ms at 128^3 on an H200, docs/results/h200.md, seventeenth
//     round). A round's incidences and column words come from team scratch,
//     loaded by phase A of the round before (the node's first round's before
//     its rounds start), so a round waits on global memory only for its
//     geometry (9.11 -> 8.71 ms at 128^3, same round). The accumulator is
//     written to the node's three CSR rows.
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
  View<std::int64_t> incidence_offsets, row_offsets;
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

// Team scratch per round: the derivatives G[200 g + 25 b + 3 q + i] of node b
// of element g at Gauss point q, and the node's own ones scaled by |J_q| w at
// [24 g + 3 q + i]. Phase B's lane 8 g + b stages its block K_(node, b) over
// the first 9 of its own G' values once it has read them. The strides keep
// every 8-byte access free of bank conflicts (a half-warp, groups g and g + 1,
// shares one wavefront): an odd node stride puts a group's 8 lanes on 8
// distinct bank pairs none 16 banks apart, and a group stride of 8 mod 16
// doubles puts the next group on the other 8 pairs, for phase A's stores
// (lanes 3 doubles apart) and phase B's loads and staged blocks alike. The
// CUDA kernel's strides (26, 216) suit its 16-byte loads; with 8-byte ones
// they made 44% of this kernel's shared-load wavefronts bank conflicts, and
// (26, 213) moved the conflicts to phase A's stores (store wavefronts 76 M ->
// 92 M at 64^3; H200, Nsight Compute, fourteenth round).
constexpr int kNodeStride = 25, kGroupStride = 200;
constexpr int kRoundPoints = 32;  // 4 elements x 8 Gauss points
constexpr int kDerivatives = 4 * kGroupStride, kOwn = 4 * 24;
constexpr int kAccumulatorRow = 3 * kGatherWindowBlocks;
// A round's inputs in team scratch, loaded the round before (two buffers):
// its 4 incidences, then its column words.
constexpr int kRoundInputs = 4 + 32;

template <class Space>
struct NodeGatherKernel {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;
  using Scratch =
      Kokkos::View<double*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  GatherDevice<Space> d;

  using InputScratch =
      Kokkos::View<std::uint32_t*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  static constexpr int kScratch = kDerivatives + kOwn + 3 * kAccumulatorRow + kRoundPoints;
  static std::size_t scratch_bytes() {
    return Scratch::shmem_size(kScratch) + InputScratch::shmem_size(2 * kRoundInputs);
  }

  // Lane `lane`'s share of loading the inputs (incidences and column words)
  // of the round that starts at incidence k0 into `inputs`; every lane of the
  // 32 calls it. Both are found from k0 alone, so a node's first round waits
  // on two dependent loads (its incidence offset, then these).
  KOKKOS_INLINE_FUNCTION void load_round(std::uint32_t* inputs, std::int64_t last, std::int64_t k0,
                                         int lane) const {
    const std::int64_t incidences = last - k0 < 4 ? last - k0 : 4;
    if (lane < incidences) inputs[lane] = std::uint32_t(d.incidences(k0 + lane));
    inputs[4 + lane] = lane < 8 * incidences ? d.round_columns(8 * k0 + lane) : kNoColumn;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t slot = team.league_rank();
    const std::int64_t node = d.node_of_slot(slot);
    const std::int64_t first = d.incidence_offsets(slot), last = d.incidence_offsets(slot + 1);
    // The node's 3 rows are consecutive and equally long (csr_pattern.hpp).
    const std::int64_t row = d.row_offsets(3 * node);
    const int row_length = int(d.row_offsets(3 * node + 1) - row), blocks = row_length / 3;
    Scratch scratch(team.team_scratch(0), kScratch);
    double* const G = scratch.data();
    double* const own = G + kDerivatives;
    // The window's part of the node's 3 rows, row after row (kAccumulatorRow
    // doubles each), so that they are read for the stores contiguously.
    double* const accumulator = own + kOwn;
    // Point 8 g + q's share of the body-force weight sum_elements sum_q N_node(q) |J_q| w.
    double* const weights = accumulator + 3 * kAccumulatorRow;
    InputScratch input_scratch(team.team_scratch(0), 2 * kRoundInputs);
    std::uint32_t* const round_inputs = input_scratch.data();
    const bool has_rounds = first < last;
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, kRoundPoints), [&](const int point) {
      weights[point] = 0;
      if (has_rounds) load_round(round_inputs, last, first, point);
    });
    team.team_barrier();
    int buffer = 0;  // of the round about to run
    for (int window = 0; window < blocks; window += kGatherWindowBlocks) {
      const int window_blocks =
          blocks - window < kGatherWindowBlocks ? blocks - window : kGatherWindowBlocks;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 3 * window_blocks), [&](const int v) {
        for (int i = 0; i < 3; ++i) accumulator[kAccumulatorRow * i + v] = 0;
      });
      for (std::int64_t k0 = first; k0 < last; k0 += 4) {
        const int elements = int(last - k0 < 4 ? last - k0 : 4);
        const std::uint32_t* const inputs = round_inputs + kRoundInputs * buffer;
        // The round after this one (the next window's first after a window's
        // last), whose inputs phase A loads into the other buffer.
        const std::int64_t next_k0 =
            k0 + 4 < last ? k0 + 4 : (window + kGatherWindowBlocks < blocks ? first : -1);
        std::uint32_t* const next_inputs = round_inputs + kRoundInputs * (1 - buffer);
        // Phase A, index 8 g + q: Gauss point q of element g forms the
        // derivatives of all 8 nodes once (not once per node pair), from the
        // 12 products of its shape-function factors (Hex8GaussProducts: 9
        // FMAs a node, the signs folded in; J^-1 carries their scale 1/8);
        // meanwhile the 32 lanes load the next round's inputs.
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, kRoundPoints), [&](const int point) {
          if (next_k0 >= 0) load_round(next_inputs, last, next_k0, point);
          const int g = point / 8, q = point % 8;
          if (g >= elements) return;
          const std::int32_t incidence = std::int32_t(inputs[g]);
          const int a = incidence % 8;
          // Pair-major records: the group's 8 lanes load 8 consecutive
          // 16-byte pairs (one 128-byte line), 5 loads a lane where
          // value-major records took 10 of 8 bytes, each touching half a line
          // (1.00 -> 0.984 ms at 64^3, 7.77 -> 7.61 ms at 128^3 on an H200,
          // docs/results/h200.md, twenty-second round).
          const auto* const pairs = reinterpret_cast<const DoublePair*>(
              d.geometry.data() + 80 * std::int64_t(incidence / 8) + 2 * q);
          double J_inv[9];
          for (int p = 0; p < 4; ++p) {
            const DoublePair pair = pairs[8 * p];
            J_inv[2 * p] = 0.125 * pair.first;
            J_inv[2 * p + 1] = 0.125 * pair.second;
          }
          const DoublePair last_pair = pairs[32];  // J_inv[8] and |J| w
          J_inv[8] = 0.125 * last_pair.first;
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
          for (int i = 0; i < 3; ++i) own[24 * g + 3 * q + i] = w * Gq[kNodeStride * a + i];
          if (window == 0) weights[point] += 0.125 * shape.scaled_value(a) * w;
        });
        team.team_barrier();
        // Phase B, index 8 g + b: K_(node, b) of element g.
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 8 * elements), [&](const int pair) {
          const int g = pair / 8, b = pair % 8;
          const double* ga = own + 24 * g;
          double* const gb = G + kGroupStride * g + kNodeStride * b;  // read, then K over it
          double M[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
          for (int q = 0; q < 8; ++q)
            for (int i = 0; i < 3; ++i)
              for (int j = 0; j < 3; ++j) M[3 * i + j] += ga[3 * q + i] * gb[3 * q + j];
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
              gb[3 * i + j] = isotropic_block_entry(M, d.lambda, d.mu, i, j);
        });
        team.team_barrier();
        // Index c: the round's c-th column block, all 9 values, summed over
        // the elements that add to it (two elements' blocks may share a
        // column block, so one index takes all of a column's terms). It
        // decodes its word once, in one pass (a round has at most 32 columns);
        // index 9 c + m took about 6 passes, and the kernel 544 instead of 464
        // M instructions (1.11 -> 1.06 ms at 64^3, 8.53 -> 8.22 ms at 128^3 on
        // an H200; with the words found from the round's first incidence and
        // the accumulator row by row, 1.00 / 7.77 ms: docs/results/h200.md,
        // twenty-second round).
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 8 * elements), [&](const int c) {
          const std::uint32_t word = inputs[4 + c];
          const int block = int(word & 0xFFFFu) - window;
          if (word == kNoColumn || block < 0 || block >= window_blocks) return;
          double sum[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
          for (int g = 0; g < 4; ++g) {
            const int b = int(word >> (16 + 4 * g) & 0xFu) - 1;
            if (b < 0) continue;
            const double* const K = G + kGroupStride * g + kNodeStride * b;
            for (int m = 0; m < 9; ++m) sum[m] += K[m];
          }
          double* const target = accumulator + 3 * block;
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) target[kAccumulatorRow * i + j] += sum[3 * i + j];
        });
        team.team_barrier();
        buffer = 1 - buffer;
      }
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 3 * window_blocks), [&](const int v) {
        for (int i = 0; i < 3; ++i)
          d.values(row + std::int64_t(i) * row_length + 3 * window + v) =
              accumulator[kAccumulatorRow * i + v];
      });
      team.team_barrier();
    }
    double body_weight = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, kRoundPoints),
        [&](const int point, double& sum) { sum += weights[point]; }, body_weight);
    Kokkos::single(Kokkos::PerTeam(team), [&] {
      for (int i = 0; i < 3; ++i) d.load(3 * node + i) = body_weight * d.body(i);
    });
  }
};

template <class Space>
class NodeGatherRun final : public PreparedRun<AssemblyResult> {
 public:
  explicit NodeGatherRun(const AssemblyProblem& p) {
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
    d_.row_offsets = upload<std::int64_t, Space>(
        p.pattern.row_offsets.data(), p.pattern.row_offsets.size(), "fem CSR row offsets");
    nodes_ = layout.num_nodes();
  }

  // No zeroing: kernel 2 writes every CSR value and load entry once.
  void run() override {
    GaussGeometryKernel<Space>::launch("fem node-gather geometry", d_, d_.geometry,
                                       GeometryLayout::pair_major);
    const auto policy =
        Kokkos::TeamPolicy<Space>(nodes_, 1, 32)
            .set_scratch_size(0, Kokkos::PerTeam(NodeGatherKernel<Space>::scratch_bytes()));
    Kokkos::parallel_for("fem node-gather", policy, NodeGatherKernel<Space>{d_});
    Space().fence();
  }

  AssemblyResult result() override { return download_result(d_); }

 private:
  std::int64_t nodes_ = 0;
  GatherDevice<Space> d_;
};

}  // namespace

void register_node_gather() {
  // 1.12-1.13 ms at 64^3 on an H200 against factored-atomic-runs' 1.04 ms
  // (docs/fem.md, seventeenth round), so after the factored variants for "auto".
  register_kokkos_run<NodeGatherRun>("node-gather", 40);
}

}  // namespace ppkit::fem::kokkos_assembly
