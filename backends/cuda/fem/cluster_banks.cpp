#include "backends/cuda/fem/cluster_banks.hpp"

#include <algorithm>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ppkit/core/error.hpp"

namespace ppkit::fem {

namespace {

constexpr int kPassBytes = 128;  // one shared-memory pass: 32 banks of 4 bytes

// Random swaps tried per block of each cluster shape of more than one cluster
// (a box has a few dozen shapes), and at most this many in all, so that a mesh
// whose clusters all differ takes the greedy numbering alone. On the
// benchmark's 64^3 box the adds' wavefronts go from 31.7 M to 20.6 M and the
// rows' from 10.2 M to 9.6 M (ppkit_fem_cluster_stats, --bank-stride 10,
// which also prints the host time); 400 swaps per block gave the kernel
// nothing over 50.
constexpr long long kSwapsPerBlock = 50;
constexpr long long kSwapBudget = 2'000'000;

// The passes of one cluster, flat: pass q makes accesses [first[q],
// first[q + 1]), each `width[q]` bytes at `offset` bytes into block `block`
// (distinct addresses), `repeats[q]` times at offsets that move every lane
// alike (the adds' four 16-byte pieces of a block: the same conflicts).
struct ClusterPasses {
  std::vector<std::int32_t> first{0};
  std::vector<std::uint8_t> width, repeats, row;
  std::vector<std::int32_t> block, offset;

  void clear() {
    first.assign(1, 0);
    width.clear();
    repeats.clear();
    row.clear();
    block.clear();
    offset.clear();
  }
  void add(std::int32_t b, std::int32_t o) {
    block.push_back(b);
    offset.push_back(o);
  }
  // Closes the pass of the accesses added since the last one (none: no pass).
  void close(int bytes, int times, bool is_row) {
    if (std::int32_t(block.size()) == first.back()) return;
    first.push_back(std::int32_t(block.size()));
    width.push_back(std::uint8_t(bytes));
    repeats.push_back(std::uint8_t(times));
    row.push_back(is_row);
  }
  int passes() const { return int(first.size()) - 1; }
};

bool is_add(std::uint32_t half) { return half != kClusterNoBlock; }
std::int32_t block_of_add(std::uint32_t half) {
  return std::int32_t(half & ~std::uint32_t(kClusterFirstAdd));
}
std::int64_t first_pack(const ClusterGatherLayout& L, std::int64_t c) {
  return L.colour_offsets[L.cluster_colours[c]];
}
std::int64_t end_pack(const ClusterGatherLayout& L, std::int64_t c) {
  return L.colour_offsets[L.cluster_colours[c + 1]];
}

// The kernel's passes over cluster c's accumulator (cluster_banks.hpp).
void collect_passes(const ClusterGatherLayout& L, std::int64_t c, ClusterPasses& P) {
  P.clear();
  for (std::int64_t k = first_pack(L, c); k < end_pack(L, c); ++k)
    for (int h = 0; h < 2; ++h) {
      const auto half = [&](int lane) {
        return L.lane_blocks[std::size_t(32 * k + lane)] >> (16 * h) & 0xFFFFu;
      };
      // A block's first 8 values in 4 16-byte pieces, a quarter warp a pass,
      // and its 9th value, 8 bytes, a half warp a pass: the stores, then the
      // loads (not made by a block's first add).
      for (const int width : {16, 8})
        for (int loads = 0; loads < 2; ++loads)
          for (int first = 0; first < 32; first += kPassBytes / width) {
            for (int lane = first; lane < first + kPassBytes / width; ++lane)
              if (is_add(half(lane)) && !(loads && (half(lane) & kClusterFirstAdd)))
                P.add(block_of_add(half(lane)), width == 16 ? 0 : 64);
            P.close(width, width == 16 ? 4 : 1, false);
          }
    }
  // The rows: value v of row i of a node by lane v % 32, 8 bytes, a half warp
  // a pass (value (i, jj) of a block at 3 i + jj, of a transposed one at
  // 3 jj + i).
  const std::int64_t s0 = L.cluster_slots[c], s1 = L.cluster_slots[c + 1];
  const std::uint16_t* const row_blocks = L.row_blocks.data() + L.row_block_offsets[c];
  for (std::int64_t s = s0; s < s1; ++s) {
    const int first = L.slot_blocks[s];
    const int last = s + 1 < s1 ? L.slot_blocks[s + 1] : L.cluster_blocks[c];
    const int row_length = 3 * (last - first);
    for (int start = 0; start < row_length; start += 16)
      for (int i = 0; i < 3; ++i) {
        for (int v = start; v < std::min(row_length, start + 16); ++v) {
          const int b = v / 3, jj = v - 3 * b;
          const std::uint16_t entry = row_blocks[first + b];
          const bool transposed = (entry & kClusterTransposed) != 0;
          P.add(std::int32_t(entry & ~kClusterTransposed),
                8 * (transposed ? 3 * jj + i : jj + 3 * i));
        }
        P.close(8, 1, true);
      }
  }
}

// Blocks whose numbers differ by a multiple of the period start at the same
// place among the banks: 8 for 80-byte blocks.
int bank_period(int block_stride) {
  int g = kPassBytes;
  for (int b = 8 * block_stride; b != 0;) {
    const int t = g % b;
    g = b;
    b = t;
  }
  return kPassBytes / g;
}

// Wavefronts of cluster passes with the blocks at their numbers, each pass by
// its own unit counts: adds and rows.
AccumulatorWavefronts numbered_wavefronts(const ClusterPasses& P, int block_stride) {
  AccumulatorWavefronts count;
  for (int q = 0; q < P.passes(); ++q) {
    int units[16] = {};
    int most = 0;
    for (std::int32_t m = P.first[q]; m < P.first[q + 1]; ++m) {
      const int start = 8 * block_stride * P.block[m] % kPassBytes;
      most = std::max(most, ++units[(start + P.offset[m]) % kPassBytes / P.width[q]]);
    }
    (P.row[q] ? count.rows : count.adds) += std::int64_t(most) * P.repeats[q];
  }
  return count;
}

// Wavefronts of cluster passes under a placement of their blocks: each
// block's residue y (its number modulo the period) puts its first byte at
// 8 * block_stride * y modulo 128 among the banks. Keeps each pass's count of
// accesses per bank unit (16 or 8 bytes) and their most, so that moving one
// block costs its own accesses only.
class BankPlacement {
 public:
  BankPlacement(const ClusterPasses& P, int blocks, int block_stride)
      : P_(P),
        period_(bank_period(block_stride)),
        place_(8 * block_stride % kPassBytes),
        residue_(std::size_t(blocks), -1),
        entry_first_(std::size_t(blocks) + 1, 0),
        count_(std::size_t(16) * std::size_t(P.passes()), 0),
        most_(std::size_t(P.passes()), 0) {
    for (const std::int32_t b : P.block) ++entry_first_[std::size_t(b) + 1];
    for (int b = 0; b < blocks; ++b) entry_first_[b + 1] += entry_first_[b];
    entry_pass_.resize(P.block.size());
    entry_unit_.resize(P.block.size() * std::size_t(period_));
    std::vector<std::int32_t> next(entry_first_.begin(), entry_first_.end() - 1);
    for (int q = 0; q < P.passes(); ++q)
      for (std::int32_t m = P.first[q]; m < P.first[q + 1]; ++m) {
        const std::int32_t e = next[std::size_t(P.block[m])]++;
        entry_pass_[e] = q;
        const int shift = P.width[q] == 16 ? 4 : 3;  // bytes per unit: 16 or 8
        for (int y = 0; y < period_; ++y)
          entry_unit_[std::size_t(e) * period_ + y] =
              std::uint8_t(((place_ * y + P.offset[m]) & (kPassBytes - 1)) >> shift);
      }
  }

  int period() const { return period_; }
  int residue(int b) const { return residue_[b]; }

  // Total wavefronts of the placed blocks.
  long long wavefronts() const {
    long long sum = 0;
    for (int q = 0; q < P_.passes(); ++q) sum += (long long)most_[q] * P_.repeats[q];
    return sum;
  }
  // Wavefronts added by placing unplaced block b at residue y, and the
  // accesses it would share a unit with (the tie-break).
  std::pair<long long, long long> placing_cost(int b, int y) const {
    long long added = 0, shared = 0;
    for (std::int32_t e = entry_first_[b]; e < entry_first_[b + 1]; ++e) {
      const int q = entry_pass_[e];
      const int c = count_[16 * std::size_t(q) + unit(e, y)];
      added += (long long)std::max(0, c + 1 - most_[q]) * P_.repeats[q];
      shared += c;
    }
    return {added, shared};
  }
  // Places block b (unplaced: y = -1 before) at residue y; returns the
  // change in wavefronts.
  long long move(int b, int y) {
    long long change = 0;
    const int from = residue_[b];
    for (std::int32_t e = entry_first_[b]; e < entry_first_[b + 1]; ++e) {
      const int q = entry_pass_[e];
      std::uint16_t* const count = &count_[16 * std::size_t(q)];
      const int before = most_[q], to = unit(e, y);
      const bool was_most = from >= 0 && count[unit(e, from)]-- == before;
      if (++count[to] >= before) {
        most_[q] = count[to];
      } else if (was_most) {
        int most = 0;
        for (int u = 0; u < kPassBytes / P_.width[q]; ++u) most = std::max<int>(most, count[u]);
        most_[q] = std::uint16_t(most);
      }
      change += (long long)(most_[q] - before) * P_.repeats[q];
    }
    residue_[b] = y;
    return change;
  }

 private:
  // The bank unit of entry e's access with its block at residue y.
  int unit(std::int32_t e, int y) const { return entry_unit_[std::size_t(e) * period_ + y]; }

  const ClusterPasses& P_;
  int period_, place_;
  std::vector<int> residue_;
  std::vector<std::int32_t> entry_first_, entry_pass_;  // per block: its accesses' passes
  std::vector<std::uint8_t> entry_unit_;                // per access and residue: its unit
  std::vector<std::uint16_t> count_;                    // 16 units per pass
  std::vector<std::uint16_t> most_;
};

// A permutation of cluster's n block numbers (old -> new) that lessens its
// passes' wavefronts. Each block gets a residue modulo the period, every
// residue as many blocks as the numbers below n have: first greedily, block
// after block the residue that adds the fewest wavefronts (then shares the
// fewest units), then by random swaps of two blocks' residues kept where they
// add none (a fixed seed, so the same numbering in every run; any numbering
// gives the same sums in the same order). Blocks of one residue keep their
// order; the old numbering stays where the result is no better.
std::vector<std::int32_t> bank_numbering(const ClusterPasses& P, int n, int block_stride,
                                         long long swaps) {
  std::vector<std::int32_t> number(static_cast<std::size_t>(n));
  BankPlacement placement(P, n, block_stride);
  const int period = placement.period();

  std::vector<int> capacity(static_cast<std::size_t>(period));
  for (int y = 0; y < period; ++y) capacity[y] = (n - y + period - 1) / period;
  for (int b = 0; b < n; ++b) {
    int best = -1;
    std::pair<long long, long long> best_cost;
    for (int y = 0; y < period; ++y) {
      if (capacity[y] == 0) continue;
      const auto cost = placement.placing_cost(b, y);
      if (best < 0 || cost < best_cost) {
        best = y;
        best_cost = cost;
      }
    }
    placement.move(b, best);
    --capacity[best];
  }
  std::mt19937 random(2019);
  for (long long t = 0; t < swaps && n > 1; ++t) {
    const int b = int(std::uint64_t(random()) * unsigned(n) >> 32);
    const int b2 = int(std::uint64_t(random()) * unsigned(n) >> 32);
    const int y = placement.residue(b), y2 = placement.residue(b2);
    if (y == y2) continue;
    if (placement.move(b, y2) + placement.move(b2, y) > 0) {
      placement.move(b2, y2);
      placement.move(b, y);
    }
  }

  const AccumulatorWavefronts numbered = numbered_wavefronts(P, block_stride);
  if (placement.wavefronts() >= numbered.adds + numbered.rows) {
    for (int b = 0; b < n; ++b) number[b] = b;
    return number;
  }
  std::vector<std::int32_t> next(static_cast<std::size_t>(period));
  for (int y = 0; y < period; ++y) next[y] = y;
  for (int b = 0; b < n; ++b) {
    number[b] = next[placement.residue(b)];
    next[placement.residue(b)] += period;
  }
  return number;
}

// A 64-bit digest of what cluster c's passes are made of (its packs' lane
// words, its row blocks and its rows' lengths), equal for clusters of one
// shape. Any numbering is correct for any cluster with as many blocks, so a
// collision could only cost wavefronts.
std::uint64_t shape_digest(const ClusterGatherLayout& L, std::int64_t c) {
  std::uint64_t h = 0x9E3779B97F4A7C15ull;
  const auto mix = [&h](std::uint64_t x) {
    h ^= x + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ull;
  };
  mix(std::uint64_t(L.cluster_stored_blocks[c]));
  for (std::int64_t k = 32 * first_pack(L, c); k < 32 * end_pack(L, c); ++k) mix(L.lane_blocks[k]);
  mix(0xFFFFFFFFFFull);
  for (std::int64_t o = L.row_block_offsets[c]; o < L.row_block_offsets[c + 1]; ++o)
    mix(L.row_blocks[o]);
  for (std::int64_t s = L.cluster_slots[c]; s < L.cluster_slots[c + 1]; ++s) mix(L.slot_blocks[s]);
  return h;
}

void check_stride(int block_stride) {
  if (block_stride < 10 || block_stride % 2 != 0)
    throw Error("cluster-gather: an accumulator block stride of " + std::to_string(block_stride) +
                    " doubles has no bank model",
                "an even stride of at least 10 doubles (9 values, 16-byte aligned blocks)");
}

}  // namespace

AccumulatorWavefronts count_accumulator_wavefronts(const ClusterGatherLayout& L, int block_stride) {
  check_stride(block_stride);
  AccumulatorWavefronts count;
  ClusterPasses P;
  for (std::int64_t c = 0; c < L.num_clusters(); ++c) {
    collect_passes(L, c, P);
    const AccumulatorWavefronts cluster = numbered_wavefronts(P, block_stride);
    count.adds += cluster.adds;
    count.rows += cluster.rows;
  }
  return count;
}

std::int64_t renumber_accumulator_blocks(ClusterGatherLayout& L, int block_stride) {
  check_stride(block_stride);
  // Clusters of one shape (a box's bricks) have the same passes: each shape's
  // numbering is found once. Shapes of more than one cluster, the most
  // frequent first, get the swaps while kSwapBudget lasts; a shape of one
  // cluster the greedy numbering alone.
  struct Shape {
    std::int64_t clusters = 0, first = 0;
    long long swaps = 0;
    std::vector<std::int32_t> number;
  };
  std::unordered_map<std::uint64_t, Shape> shapes;
  std::vector<std::uint64_t> digests(static_cast<std::size_t>(L.num_clusters()));
  for (std::int64_t c = 0; c < L.num_clusters(); ++c) {
    digests[c] = shape_digest(L, c);
    Shape& shape = shapes[digests[c]];
    if (shape.clusters++ == 0) shape.first = c;
  }
  std::vector<Shape*> by_clusters;
  for (auto& [digest, shape] : shapes)
    if (shape.clusters > 1) by_clusters.push_back(&shape);
  std::sort(by_clusters.begin(), by_clusters.end(), [](const Shape* x, const Shape* y) {
    return x->clusters != y->clusters ? x->clusters > y->clusters : x->first < y->first;
  });
  long long swaps_left = kSwapBudget;
  for (Shape* shape : by_clusters) {
    shape->swaps = std::min(swaps_left, kSwapsPerBlock * L.cluster_stored_blocks[shape->first]);
    swaps_left -= shape->swaps;
  }
  ClusterPasses P;
  for (std::int64_t c = 0; c < L.num_clusters(); ++c) {
    const int n = L.cluster_stored_blocks[c];
    Shape& shape = shapes[digests[c]];
    if (shape.number.empty()) {
      collect_passes(L, c, P);
      shape.number = bank_numbering(P, n, block_stride, shape.swaps);
    }
    std::vector<std::int32_t> own;  // a digest that collides with another shape's
    if (int(shape.number.size()) != n) {
      collect_passes(L, c, P);
      own = bank_numbering(P, n, block_stride, 0);
    }
    const std::vector<std::int32_t>& number = own.empty() ? shape.number : own;
    for (std::int64_t k = 32 * first_pack(L, c); k < 32 * end_pack(L, c); ++k) {
      std::uint32_t word = 0;
      for (int h = 0; h < 2; ++h) {
        std::uint32_t half = L.lane_blocks[k] >> (16 * h) & 0xFFFFu;
        if (is_add(half))
          half = (half & kClusterFirstAdd) | std::uint32_t(number[block_of_add(half)]);
        word |= half << (16 * h);
      }
      L.lane_blocks[k] = word;
    }
    for (std::int64_t o = L.row_block_offsets[c]; o < L.row_block_offsets[c + 1]; ++o)
      L.row_blocks[o] = std::uint16_t((L.row_blocks[o] & kClusterTransposed) |
                                      number[L.row_blocks[o] & ~kClusterTransposed]);
  }
  return std::int64_t(shapes.size());
}

}  // namespace ppkit::fem
