#include "ppkit/fem/cluster_layout.hpp"

#include <algorithm>
#include <string>

#include "ppkit/core/error.hpp"
#include "ppkit/fem/factored_layout.hpp"  // lattice_morton_node_order

namespace ppkit::fem {

namespace {

// Colours taken per cluster node: kClusterMaxColours bits.
constexpr int kColourWords = kClusterMaxColours / 64;

// One (element, local node) of a cluster node: node a of `element` is the
// cluster's node local_slot, its column blocks at incidence k of the node
// gather layout.
struct ClusterIncidence {
  std::int32_t element;
  int a;
  int local_slot;
  std::int64_t k;
};

void check_options(const ClusterGatherOptions& options) {
  if (options.max_nodes < 1 || options.max_nodes > 255)
    throw Error(
        "cluster-gather: max_nodes " + std::to_string(options.max_nodes) + " is out of range",
        "1..255");
  if (options.max_blocks < 27 || options.max_blocks > 65534)
    throw Error(
        "cluster-gather: max_blocks " + std::to_string(options.max_blocks) + " is out of range",
        "27..65,534");
  if (options.colour_capacity < 1)
    throw Error("cluster-gather: colour_capacity " + std::to_string(options.colour_capacity) +
                    " is out of range",
                "1 or more");
  if (options.max_pack_elements < 1 || options.max_pack_elements > 8)
    throw Error("cluster-gather: max_pack_elements " + std::to_string(options.max_pack_elements) +
                    " is out of range",
                "1..8 (a pack holds at most one element per local node number)");
  if (options.max_elements < 1)
    throw Error(
        "cluster-gather: max_elements " + std::to_string(options.max_elements) + " is out of range",
        "1 or more");
}

// What every step reads: the problem, the node gather layout and the node
// gather layout's slot of each node (its incidences are there).
struct LayoutInputs {
  const AssemblyProblem& p;
  const NodeGatherLayout& G;
  std::vector<std::int64_t> gather_slot;

  LayoutInputs(const AssemblyProblem& problem, const NodeGatherLayout& nodes)
      : p(problem), G(nodes), gather_slot(nodes.node_of_slot.size()) {
    for (std::size_t k = 0; k < G.node_of_slot.size(); ++k)
      gather_slot[G.node_of_slot[k]] = std::int64_t(k);
  }
  // Column blocks of node v's rows.
  std::int64_t column_blocks(std::int64_t v) const {
    const auto& row_offsets = p.pattern.row_offsets;
    return std::int64_t((row_offsets[3 * v + 1] - row_offsets[3 * v]) / 3);
  }
  // Node v's incidences [first, end) in the node gather layout.
  std::int64_t first_incidence(std::int64_t v) const { return G.incidence_offsets[gather_slot[v]]; }
  std::int64_t end_incidence(std::int64_t v) const {
    return G.incidence_offsets[gather_slot[v] + 1];
  }
};

// Clusters: runs of the Morton node order (L.node_of_slot), cut greedily at
// max_nodes nodes, max_blocks row blocks or max_elements elements. Sets
// cluster_slots, cluster_blocks, slot_blocks, max_nodes and max_blocks (row
// blocks until place_row_blocks).
void cut_clusters(const LayoutInputs& in, const ClusterGatherOptions& options,
                  ClusterGatherLayout& L) {
  const NodeGatherLayout& G = in.G;
  const std::int64_t slots = G.num_nodes();
  L.slot_blocks.resize(slots);
  L.cluster_slots.push_back(0);
  int nodes_in = 0;
  std::int64_t blocks_in = 0, elements_in = 0;
  // member[e]: the last cluster element e was counted in.
  std::vector<std::int64_t> member(in.p.mesh.num_elements(), -1);
  const auto close_cluster = [&](std::int64_t end) {
    L.cluster_slots.push_back(end);
    L.cluster_blocks.push_back(std::int32_t(blocks_in));
    L.max_nodes = std::max(L.max_nodes, nodes_in);
    L.max_blocks = std::max(L.max_blocks, int(blocks_in));
    nodes_in = 0;
    blocks_in = 0;
    elements_in = 0;
  };
  for (std::int64_t s = 0; s < slots; ++s) {
    const std::int64_t v = L.node_of_slot[s], blocks = in.column_blocks(v);
    if (blocks > options.max_blocks)
      throw Error("cluster-gather: node " + std::to_string(v) + " has " + std::to_string(blocks) +
                      " neighbour nodes, more than a cluster's accumulator holds (" +
                      std::to_string(options.max_blocks) + " column blocks)",
                  "nodes with at most max_blocks neighbours; node-gather has no such limit");
    const std::int64_t first = in.first_incidence(v), end = in.end_incidence(v);
    const std::int64_t own = end - first;
    if (own > options.max_elements)
      throw Error("cluster-gather: node " + std::to_string(v) + " lies in " + std::to_string(own) +
                      " elements, more than a cluster holds (" +
                      std::to_string(options.max_elements) + ")",
                  "nodes in at most max_elements elements; node-gather has no such limit");
    const std::int64_t cluster = std::int64_t(L.cluster_slots.size()) - 1;
    std::int64_t added = 0;
    for (std::int64_t k = first; k < end; ++k) added += member[G.incidences[k] / 8] != cluster;
    if (nodes_in == options.max_nodes || blocks_in + blocks > options.max_blocks ||
        elements_in + added > options.max_elements) {
      close_cluster(s);
      added = own;
    }
    for (std::int64_t k = first; k < end; ++k)
      member[G.incidences[k] / 8] = std::int64_t(L.cluster_slots.size()) - 1;
    L.slot_blocks[s] = std::uint16_t(blocks_in);
    blocks_in += blocks;
    elements_in += added;
    ++nodes_in;
  }
  if (nodes_in > 0) close_cluster(slots);
}

// Where each row block of a cluster is kept (row_blocks). With symmetric
// blocks, block (s, t) of two cluster nodes is kept once, in the row of the
// earlier slot; the later slot's row reads it transposed (element matrices
// are symmetric: K_ts = K_st^T). Sets row_block_offsets, row_blocks,
// cluster_stored_blocks and max_blocks (kept blocks).
void place_row_blocks(const LayoutInputs& in, bool symmetric_blocks, ClusterGatherLayout& L) {
  const AssemblyProblem& p = in.p;
  const NodeGatherLayout& G = in.G;
  std::vector<std::int32_t> stored_block;  // per row block of the cluster: kept index or -1
  std::vector<std::int64_t> local_slot(p.mesh.num_nodes(), -1);
  std::vector<std::int64_t> column_node;  // per row block of the cluster
  L.row_block_offsets.push_back(0);
  L.max_blocks = 0;
  for (std::int64_t c = 0; c < L.num_clusters(); ++c) {
    const std::int64_t s0 = L.cluster_slots[c], s1 = L.cluster_slots[c + 1];
    const std::int64_t blocks = L.cluster_blocks[c];
    for (std::int64_t s = s0; s < s1; ++s) local_slot[L.node_of_slot[s]] = s - s0;
    column_node.assign(blocks, -1);
    for (std::int64_t s = s0; s < s1; ++s) {
      const std::int64_t v = L.node_of_slot[s];
      for (std::int64_t k = in.first_incidence(v); k < in.end_incidence(v); ++k)
        for (int b = 0; b < 8; ++b)
          column_node[L.slot_blocks[s] + G.incidence_blocks[8 * k + b]] =
              p.mesh.elements[8 * std::int64_t(G.incidences[k] / 8) + b];
    }
    // Row blocks [first, last) of local slot s.
    const auto first_block = [&](std::int64_t s) { return std::int64_t(L.slot_blocks[s0 + s]); };
    const auto last_block = [&](std::int64_t s) {
      return s0 + s + 1 < s1 ? std::int64_t(L.slot_blocks[s0 + s + 1]) : blocks;
    };
    const auto block_of = [&](std::int64_t s, std::int64_t node) {  // s local
      for (std::int64_t o = first_block(s); o < last_block(s); ++o)
        if (column_node[o] == node) return o;
      return std::int64_t(-1);
    };
    stored_block.assign(blocks, -1);
    std::int32_t kept = 0;
    for (std::int64_t s = 0; s < s1 - s0; ++s)
      for (std::int64_t o = first_block(s); o < last_block(s); ++o) {
        const std::int64_t t = column_node[o] >= 0 ? local_slot[column_node[o]] : -1;
        if (!(symmetric_blocks && t >= 0 && t < s)) stored_block[o] = kept++;
      }
    if (kept > std::int32_t(kClusterTransposed) - 1)
      throw Error("cluster-gather: cluster " + std::to_string(c) + " keeps " +
                      std::to_string(kept) + " accumulator blocks, more than row_blocks can name",
                  "at most 32,767 (a smaller max_blocks)");
    for (std::int64_t s = 0; s < s1 - s0; ++s)
      for (std::int64_t o = first_block(s); o < last_block(s); ++o) {
        if (stored_block[o] >= 0) {
          L.row_blocks.push_back(std::uint16_t(stored_block[o]));
        } else {
          const std::int64_t mirror = block_of(local_slot[column_node[o]], L.node_of_slot[s0 + s]);
          if (mirror < 0 || stored_block[mirror] < 0)
            throw Error("cluster-gather: the CSR pattern is not symmetric at node " +
                            std::to_string(L.node_of_slot[s0 + s]),
                        "a symmetric pattern (csr_pattern.hpp)");
          L.row_blocks.push_back(std::uint16_t(stored_block[mirror] | kClusterTransposed));
        }
      }
    for (std::int64_t s = s0; s < s1; ++s) local_slot[L.node_of_slot[s]] = -1;
    L.row_block_offsets.push_back(std::int64_t(L.row_blocks.size()));
    L.cluster_stored_blocks.push_back(kept);
    L.max_blocks = std::max(L.max_blocks, int(kept));
  }
}

// One cluster's elements, packs and colours; the vectors are reused from one
// cluster to the next.
struct ClusterWork {
  // The incidences of the cluster's nodes by element, then local node;
  // element j (cluster element order: ascending input order) has
  // incidences [starts[j], starts[j + 1]).
  std::vector<ClusterIncidence> incidences;
  std::vector<std::int64_t> starts;
  std::int64_t count = 0;           // elements
  std::vector<std::uint8_t> masks;  // per element: its nodes a in the cluster
  // Packs by rank (the order of their first elements): pack r holds the
  // elements members[member_starts[r]], ... [member_starts[r + 1] - 1], ascending.
  std::int64_t packs = 0;
  std::vector<std::int64_t> members;
  std::vector<std::int64_t> member_starts;
  std::vector<int> colour_of;  // per pack rank
  // Scratch of pack_elements and colour_packs.
  std::vector<std::int64_t> by_size;      // elements, most nodes in the cluster first
  std::vector<std::int64_t> pack_of;      // per element: its pack (fill order)
  std::vector<std::uint8_t> pack_masks;   // per pack: local numbers a taken
  std::vector<int> pack_sizes;            // per pack: elements
  std::vector<std::uint64_t> pack_nodes;  // per pack: cluster nodes taken (node_words each)
  std::vector<std::int64_t> pack_first;   // per pack: its first element
  std::vector<std::uint64_t> used;        // colours taken, per cluster node
  std::vector<int> colour_sizes;          // packs per colour
  // Scratch of emit_packs.
  std::vector<std::int64_t> by_colour;  // pack ranks in colour order
  std::vector<int> emitted;             // per cluster node: its packs emitted so far
  std::vector<char> added;              // per kept block: an add emitted (first_add_stores)
};

// The incidences of cluster c's nodes, grouped by element.
void collect_elements(const LayoutInputs& in, const ClusterGatherLayout& L, std::int64_t c,
                      ClusterWork& w) {
  const NodeGatherLayout& G = in.G;
  const std::int64_t s0 = L.cluster_slots[c], s1 = L.cluster_slots[c + 1];
  w.incidences.clear();
  for (std::int64_t s = s0; s < s1; ++s) {
    const std::int64_t v = L.node_of_slot[s];
    for (std::int64_t k = in.first_incidence(v); k < in.end_incidence(v); ++k)
      w.incidences.push_back({G.incidences[k] / 8, G.incidences[k] % 8, int(s - s0), k});
  }
  std::sort(w.incidences.begin(), w.incidences.end(),
            [](const ClusterIncidence& x, const ClusterIncidence& y) {
              return x.element != y.element ? x.element < y.element : x.a < y.a;
            });
  w.starts.clear();
  for (std::size_t m = 0; m < w.incidences.size(); ++m)
    if (m == 0 || w.incidences[m].element != w.incidences[m - 1].element)
      w.starts.push_back(std::int64_t(m));
  w.count = std::int64_t(w.starts.size());
  w.starts.push_back(std::int64_t(w.incidences.size()));
}

// Packs (max_pack_elements > 1: first fit, the elements with most nodes in
// the cluster first, into the first pack where their cluster nodes are other
// nodes at other local numbers), ranked in the order of their first elements.
// With packs of one element, every element is a pack, in element order.
void pack_elements(int cluster_nodes, int max_pack_elements, ClusterWork& w) {
  const std::int64_t count = w.count;
  const auto& starts = w.starts;
  const auto& incidences = w.incidences;
  const int node_words = (cluster_nodes + 63) / 64;
  w.masks.assign(count, 0);
  for (std::int64_t j = 0; j < count; ++j)
    for (std::int64_t m = starts[j]; m < starts[j + 1]; ++m)
      w.masks[j] |= std::uint8_t(1u << incidences[m].a);
  w.by_size.resize(count);
  for (std::int64_t j = 0; j < count; ++j) w.by_size[j] = j;
  std::stable_sort(w.by_size.begin(), w.by_size.end(), [&](std::int64_t x, std::int64_t y) {
    return __builtin_popcount(w.masks[x]) > __builtin_popcount(w.masks[y]);
  });
  w.pack_of.assign(count, -1);
  w.pack_masks.clear();
  w.pack_sizes.clear();
  w.pack_nodes.clear();
  w.pack_first.clear();
  for (const std::int64_t j : w.by_size) {
    const auto fits = [&](std::size_t q) {
      if (w.pack_sizes[q] == max_pack_elements || (w.pack_masks[q] & w.masks[j]) != 0) return false;
      for (std::int64_t m = starts[j]; m < starts[j + 1]; ++m) {
        const int slot = incidences[m].local_slot;
        if (w.pack_nodes[q * node_words + slot / 64] >> (slot % 64) & 1) return false;
      }
      return true;
    };
    std::size_t q = 0;
    while (q < w.pack_sizes.size() && !fits(q)) ++q;
    if (q == w.pack_sizes.size()) {
      w.pack_masks.push_back(0);
      w.pack_sizes.push_back(0);
      w.pack_nodes.resize(w.pack_nodes.size() + node_words, 0);
      w.pack_first.push_back(j);
    }
    w.pack_of[j] = std::int64_t(q);
    w.pack_masks[q] |= w.masks[j];
    ++w.pack_sizes[q];
    w.pack_first[q] = std::min(w.pack_first[q], j);
    for (std::int64_t m = starts[j]; m < starts[j + 1]; ++m) {
      const int slot = incidences[m].local_slot;
      w.pack_nodes[q * node_words + slot / 64] |= std::uint64_t(1) << (slot % 64);
    }
  }
  // Packs in the order of their first elements (with packs of one element,
  // the elements' order).
  const std::int64_t packs = std::int64_t(w.pack_sizes.size());
  w.packs = packs;
  std::vector<std::int64_t> pack_order(packs), rank(packs);
  for (std::int64_t q = 0; q < packs; ++q) pack_order[q] = q;
  std::sort(pack_order.begin(), pack_order.end(),
            [&](std::int64_t x, std::int64_t y) { return w.pack_first[x] < w.pack_first[y]; });
  for (std::int64_t r = 0; r < packs; ++r) rank[pack_order[r]] = r;
  w.member_starts.assign(packs + 1, 0);
  for (std::int64_t j = 0; j < count; ++j) ++w.member_starts[rank[w.pack_of[j]] + 1];
  for (std::int64_t r = 0; r < packs; ++r) w.member_starts[r + 1] += w.member_starts[r];
  w.members.resize(count);
  std::vector<std::int64_t> next(w.member_starts.begin(), w.member_starts.end() - 1);
  for (std::int64_t j = 0; j < count; ++j) w.members[next[rank[w.pack_of[j]]]++] = j;
}

// Colours of the packs, greedily in rank order: the first colour none of the
// pack's cluster nodes has taken and that holds fewer than colour_capacity
// packs.
void colour_packs(int cluster_nodes, int colour_capacity, ClusterWork& w) {
  const auto& starts = w.starts;
  const auto& incidences = w.incidences;
  w.used.assign(std::size_t(cluster_nodes) * kColourWords, 0);
  w.colour_of.assign(w.packs, 0);
  w.colour_sizes.assign(kClusterMaxColours, 0);
  for (std::int64_t r = 0; r < w.packs; ++r) {
    // Calls f(cluster node) for each cluster node of pack r.
    const auto for_each_node = [&](auto&& f) {
      for (std::int64_t n = w.member_starts[r]; n < w.member_starts[r + 1]; ++n)
        for (std::int64_t m = starts[w.members[n]]; m < starts[w.members[n] + 1]; ++m)
          if (f(incidences[m].local_slot)) return true;
      return false;
    };
    const auto taken = [&](int col) {
      return for_each_node([&](int slot) {
        return (w.used[slot * kColourWords + col / 64] >> (col % 64) & 1) != 0;
      });
    };
    int colour = 0;
    while (colour < kClusterMaxColours &&
           (taken(colour) || w.colour_sizes[colour] == colour_capacity))
      ++colour;
    if (colour == kClusterMaxColours)
      throw Error("cluster-gather: element " +
                      std::to_string(incidences[starts[w.members[w.member_starts[r]]]].element) +
                      " shares cluster nodes with too many elements for " +
                      std::to_string(kClusterMaxColours) + " colours",
                  "nodes in at most 255 elements, and at most 256 x colour_capacity "
                  "elements per cluster (max_elements)");
    for_each_node([&](int slot) {
      w.used[slot * kColourWords + colour / 64] |= std::uint64_t(1) << (colour % 64);
      return false;
    });
    w.colour_of[r] = colour;
    ++w.colour_sizes[colour];
  }
}

// Appends cluster c's packs in colour order to L: their elements, colour
// groups, node slots, waits and row members, and the lanes' accumulator
// blocks (first adds marked where first_add_stores).
void emit_packs(const LayoutInputs& in, const ClusterGatherOptions& options, std::int64_t c,
                ClusterWork& w, ClusterGatherLayout& L) {
  const NodeGatherLayout& G = in.G;
  const std::int64_t s0 = L.cluster_slots[c], s1 = L.cluster_slots[c + 1];
  const auto& starts = w.starts;
  const auto& incidences = w.incidences;
  w.emitted.assign(std::size_t(s1 - s0), 0);
  w.added.assign(std::size_t(L.cluster_stored_blocks[c]), 0);
  w.by_colour.resize(w.packs);
  for (std::int64_t r = 0; r < w.packs; ++r) w.by_colour[r] = r;
  std::stable_sort(w.by_colour.begin(), w.by_colour.end(),
                   [&](std::int64_t x, std::int64_t y) { return w.colour_of[x] < w.colour_of[y]; });
  // Packs are emitted in colour order, the order of each node's adds, so a
  // block's first add emitted is its first add made.
  const auto kept = [&](std::uint32_t row_block) {
    const std::uint16_t entry = L.row_blocks[L.row_block_offsets[c] + row_block];
    if (entry & kClusterTransposed) return std::uint32_t(kClusterNoBlock);
    if (!options.first_add_stores || w.added[entry]) return std::uint32_t(entry);
    w.added[entry] = 1;
    return std::uint32_t(entry | kClusterFirstAdd);
  };
  for (std::int64_t n = 0; n < w.packs; ++n) {
    const std::int64_t r = w.by_colour[n];
    if (n > 0 && w.colour_of[r] != w.colour_of[w.by_colour[n - 1]])
      L.colour_offsets.push_back(std::int64_t(L.pack_offsets.size()) - 1);
    L.pack_colours.push_back(
        std::uint8_t(std::int64_t(L.colour_offsets.size()) - 1 - L.cluster_colours[c]));
    const std::size_t lanes = L.lane_blocks.size(), slots_at = L.node_slots.size();
    L.lane_blocks.resize(lanes + 32, std::uint32_t(kClusterNoBlock) * 0x10001u);
    L.node_slots.resize(slots_at + 8, kClusterNoSlot);
    L.node_waits.resize(slots_at + 8, 0);
    L.row_members.resize(slots_at + 8, kClusterNoSlot);
    for (std::int64_t t = w.member_starts[r]; t < w.member_starts[r + 1]; ++t) {
      const std::int64_t j = w.members[t];
      const auto index = std::uint8_t(t - w.member_starts[r]);
      L.elements.push_back(incidences[starts[j]].element);
      for (std::int64_t m = starts[j]; m < starts[j + 1]; ++m) {
        const ClusterIncidence& inc = incidences[m];
        const std::uint32_t base = L.slot_blocks[s0 + inc.local_slot];
        L.row_members[slots_at + inc.a] = index;
        L.node_slots[slots_at + inc.a] = std::uint8_t(inc.local_slot);
        L.node_waits[slots_at + inc.a] = std::uint8_t(w.emitted[inc.local_slot]++);
        for (int pair = 0; pair < 4; ++pair)
          L.lane_blocks[lanes + 4 * inc.a + pair] =
              kept(base + G.incidence_blocks[8 * inc.k + 2 * pair]) |
              kept(base + G.incidence_blocks[8 * inc.k + 2 * pair + 1]) << 16;
      }
    }
    L.pack_offsets.push_back(std::int64_t(L.elements.size()));
  }
  if (options.first_add_stores)
    for (std::size_t block = 0; block < w.added.size(); ++block)
      if (!w.added[block])
        throw Error("cluster-gather: no element of cluster " + std::to_string(c) +
                        " adds to its accumulator block " + std::to_string(block) +
                        ", so first_add_stores would leave it unset",
                    "a CSR pattern from the mesh's elements (csr_pattern.hpp)");
  if (w.packs > 0) L.colour_offsets.push_back(std::int64_t(L.pack_offsets.size()) - 1);
  L.cluster_colours.push_back(std::int64_t(L.colour_offsets.size()) - 1);
}

}  // namespace

ClusterGatherLayout make_cluster_gather_layout(const AssemblyProblem& p, const NodeGatherLayout& G,
                                               const ClusterGatherOptions& options) {
  check_options(options);
  const LayoutInputs in(p, G);
  ClusterGatherLayout L;
  const std::vector<std::int64_t> order = lattice_morton_node_order(p.mesh);
  L.node_of_slot.assign(order.begin(), order.end());
  L.slot_rows.resize(G.num_nodes());
  for (std::int64_t s = 0; s < G.num_nodes(); ++s)
    L.slot_rows[s] = p.pattern.row_offsets[3 * L.node_of_slot[s]];
  cut_clusters(in, options, L);
  L.max_row_blocks = L.max_blocks;
  place_row_blocks(in, options.symmetric_blocks, L);

  // Each cluster's elements in packs, the packs coloured and emitted in
  // colour order.
  L.cluster_colours.push_back(0);
  L.colour_offsets.push_back(0);
  L.pack_offsets.push_back(0);
  L.first_add_stores = options.first_add_stores;
  ClusterWork w;
  for (std::int64_t c = 0; c < L.num_clusters(); ++c) {
    const int cluster_nodes = int(L.cluster_slots[c + 1] - L.cluster_slots[c]);
    collect_elements(in, L, c, w);
    pack_elements(cluster_nodes, options.max_pack_elements, w);
    colour_packs(cluster_nodes, options.colour_capacity, w);
    emit_packs(in, options, c, w, L);
    L.max_elements = std::max(L.max_elements, int(w.count));
    L.max_packs = std::max(L.max_packs, int(w.packs));
    L.max_colours = std::max(L.max_colours, int(L.cluster_colours[c + 1] - L.cluster_colours[c]));
  }
  return L;
}

}  // namespace ppkit::fem
