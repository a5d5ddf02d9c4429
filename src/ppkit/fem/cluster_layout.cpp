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

}  // namespace

ClusterGatherLayout make_cluster_gather_layout(const AssemblyProblem& p, const NodeGatherLayout& G,
                                               const ClusterGatherOptions& options) {
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
  const auto& row_offsets = p.pattern.row_offsets;
  const auto column_blocks = [&](std::int64_t v) {
    return std::int64_t((row_offsets[3 * v + 1] - row_offsets[3 * v]) / 3);
  };
  ClusterGatherLayout L;
  const std::vector<std::int64_t> order = lattice_morton_node_order(p.mesh);
  L.node_of_slot.assign(order.begin(), order.end());
  // The node gather layout's slot of each node (its incidences are there).
  std::vector<std::int64_t> gather_slot(G.node_of_slot.size());
  for (std::size_t k = 0; k < G.node_of_slot.size(); ++k)
    gather_slot[G.node_of_slot[k]] = std::int64_t(k);
  const std::int64_t slots = G.num_nodes();
  L.slot_blocks.resize(slots);
  L.slot_rows.resize(slots);
  for (std::int64_t s = 0; s < slots; ++s) L.slot_rows[s] = row_offsets[3 * L.node_of_slot[s]];

  // Clusters: runs of the Morton node order, cut greedily. member[e] is the
  // last cluster element e was counted in.
  L.cluster_slots.push_back(0);
  int nodes_in = 0;
  std::int64_t blocks_in = 0, elements_in = 0;
  std::vector<std::int64_t> member(p.mesh.num_elements(), -1);
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
    const std::int64_t v = L.node_of_slot[s], blocks = column_blocks(v);
    if (blocks > options.max_blocks)
      throw Error("cluster-gather: node " + std::to_string(v) + " has " + std::to_string(blocks) +
                      " neighbour nodes, more than a cluster's accumulator holds (" +
                      std::to_string(options.max_blocks) + " column blocks)",
                  "nodes with at most max_blocks neighbours; node-gather has no such limit");
    const std::int64_t gs = gather_slot[v];
    const std::int64_t own = G.incidence_offsets[gs + 1] - G.incidence_offsets[gs];
    if (own > options.max_elements)
      throw Error("cluster-gather: node " + std::to_string(v) + " lies in " + std::to_string(own) +
                      " elements, more than a cluster holds (" +
                      std::to_string(options.max_elements) + ")",
                  "nodes in at most max_elements elements; node-gather has no such limit");
    const std::int64_t cluster = std::int64_t(L.cluster_slots.size()) - 1;
    std::int64_t added = 0;
    for (std::int64_t k = G.incidence_offsets[gs]; k < G.incidence_offsets[gs + 1]; ++k)
      added += member[G.incidences[k] / 8] != cluster;
    if (nodes_in == options.max_nodes || blocks_in + blocks > options.max_blocks ||
        elements_in + added > options.max_elements) {
      close_cluster(s);
      added = own;
    }
    for (std::int64_t k = G.incidence_offsets[gs]; k < G.incidence_offsets[gs + 1]; ++k)
      member[G.incidences[k] / 8] = std::int64_t(L.cluster_slots.size()) - 1;
    L.slot_blocks[s] = std::uint16_t(blocks_in);
    blocks_in += blocks;
    elements_in += added;
    ++nodes_in;
  }
  if (nodes_in > 0) close_cluster(slots);
  L.max_row_blocks = L.max_blocks;

  // Where each row block of a cluster is kept (row_blocks). With symmetric
  // blocks, block (s, t) of two cluster nodes is kept once, in the row of the
  // earlier slot; the later slot's row reads it transposed (element matrices
  // are symmetric: K_ts = K_st^T).
  std::vector<std::int32_t> stored_block;  // per row block of the cluster: kept index or -1
  L.row_block_offsets.push_back(0);
  {
    std::vector<std::int64_t> local_slot(p.mesh.num_nodes(), -1);
    std::vector<std::int64_t> column_node;  // per row block of the cluster
    L.max_blocks = 0;
    for (std::int64_t c = 0; c + 1 < std::int64_t(L.cluster_slots.size()); ++c) {
      const std::int64_t s0 = L.cluster_slots[c], s1 = L.cluster_slots[c + 1];
      const std::int64_t blocks = L.cluster_blocks[c];
      for (std::int64_t s = s0; s < s1; ++s) local_slot[L.node_of_slot[s]] = s - s0;
      column_node.assign(blocks, -1);
      for (std::int64_t s = s0; s < s1; ++s) {
        const std::int64_t gs = gather_slot[L.node_of_slot[s]];
        for (std::int64_t k = G.incidence_offsets[gs]; k < G.incidence_offsets[gs + 1]; ++k)
          for (int b = 0; b < 8; ++b)
            column_node[L.slot_blocks[s] + G.incidence_blocks[8 * k + b]] =
                p.mesh.elements[8 * std::int64_t(G.incidences[k] / 8) + b];
      }
      const auto block_of = [&](std::int64_t s, std::int64_t node) {  // s local
        const std::int64_t first = L.slot_blocks[s0 + s];
        const std::int64_t last = s0 + s + 1 < s1 ? L.slot_blocks[s0 + s + 1] : blocks;
        for (std::int64_t o = first; o < last; ++o)
          if (column_node[o] == node) return o;
        return std::int64_t(-1);
      };
      stored_block.assign(blocks, -1);
      std::int32_t kept = 0;
      for (std::int64_t s = 0; s < s1 - s0; ++s) {
        const std::int64_t first = L.slot_blocks[s0 + s];
        const std::int64_t last = s0 + s + 1 < s1 ? L.slot_blocks[s0 + s + 1] : blocks;
        for (std::int64_t o = first; o < last; ++o) {
          const std::int64_t t = column_node[o] >= 0 ? local_slot[column_node[o]] : -1;
          if (!(options.symmetric_blocks && t >= 0 && t < s)) stored_block[o] = kept++;
        }
      }
      if (kept > std::int32_t(kClusterTransposed) - 1)
        throw Error("cluster-gather: cluster " + std::to_string(c) + " keeps " +
                        std::to_string(kept) + " accumulator blocks, more than row_blocks can name",
                    "at most 32,767 (a smaller max_blocks)");
      for (std::int64_t s = 0; s < s1 - s0; ++s) {
        const std::int64_t first = L.slot_blocks[s0 + s];
        const std::int64_t last = s0 + s + 1 < s1 ? L.slot_blocks[s0 + s + 1] : blocks;
        for (std::int64_t o = first; o < last; ++o) {
          if (stored_block[o] >= 0) {
            L.row_blocks.push_back(std::uint16_t(stored_block[o]));
          } else {
            const std::int64_t mirror =
                block_of(local_slot[column_node[o]], L.node_of_slot[s0 + s]);
            if (mirror < 0 || stored_block[mirror] < 0)
              throw Error("cluster-gather: the CSR pattern is not symmetric at node " +
                              std::to_string(L.node_of_slot[s0 + s]),
                          "a symmetric pattern (csr_pattern.hpp)");
            L.row_blocks.push_back(std::uint16_t(stored_block[mirror] | kClusterTransposed));
          }
        }
      }
      for (std::int64_t s = s0; s < s1; ++s) local_slot[L.node_of_slot[s]] = -1;
      L.row_block_offsets.push_back(std::int64_t(L.row_blocks.size()));
      L.cluster_stored_blocks.push_back(kept);
      L.max_blocks = std::max(L.max_blocks, int(kept));
    }
  }

  // Each cluster's elements, in packs (max_pack_elements > 1: first fit, the
  // elements with most nodes in the cluster first, into the first pack where
  // their cluster nodes are other nodes at other local numbers), the packs
  // coloured greedily in the order of their first elements. With packs of one
  // element, every element is a pack, coloured in ascending element order.
  L.cluster_colours.push_back(0);
  L.colour_offsets.push_back(0);
  L.pack_offsets.push_back(0);
  std::vector<ClusterIncidence> incidences;
  std::vector<std::uint64_t> used;          // colours taken, per cluster node
  std::vector<std::int64_t> starts;         // per cluster element: its first incidence
  std::vector<std::uint8_t> masks;          // per cluster element: its nodes a in the cluster
  std::vector<std::int64_t> by_size;        // cluster elements, most nodes in the cluster first
  std::vector<std::int64_t> pack_of;        // per cluster element: its pack
  std::vector<std::uint8_t> pack_masks;     // per pack: local numbers a taken
  std::vector<int> pack_sizes;              // per pack: elements
  std::vector<std::uint64_t> pack_nodes;    // per pack: cluster nodes taken (node_words each)
  std::vector<std::int64_t> pack_first;     // per pack: its first element (cluster element order)
  std::vector<std::int64_t> members;        // cluster elements by pack, ascending in each
  std::vector<std::int64_t> member_starts;  // per pack: its first entry of members
  std::vector<int> colour_of;               // per pack
  std::vector<int> colour_sizes;            // packs per colour
  std::vector<std::int64_t> by_colour;      // packs in colour order
  std::vector<int> emitted;                 // per cluster node: its packs emitted so far
  std::vector<char> added;                  // per kept block: an add emitted (first_add_stores)
  L.first_add_stores = options.first_add_stores;
  for (std::int64_t c = 0; c < L.num_clusters(); ++c) {
    const std::int64_t s0 = L.cluster_slots[c], s1 = L.cluster_slots[c + 1];
    incidences.clear();
    for (std::int64_t s = s0; s < s1; ++s)
      for (std::int64_t k = G.incidence_offsets[gather_slot[L.node_of_slot[s]]];
           k < G.incidence_offsets[gather_slot[L.node_of_slot[s]] + 1]; ++k)
        incidences.push_back({G.incidences[k] / 8, G.incidences[k] % 8, int(s - s0), k});
    std::sort(incidences.begin(), incidences.end(),
              [](const ClusterIncidence& x, const ClusterIncidence& y) {
                return x.element != y.element ? x.element < y.element : x.a < y.a;
              });
    starts.clear();
    for (std::size_t m = 0; m < incidences.size(); ++m)
      if (m == 0 || incidences[m].element != incidences[m - 1].element)
        starts.push_back(std::int64_t(m));
    const std::int64_t count = std::int64_t(starts.size());
    starts.push_back(std::int64_t(incidences.size()));

    // Packs.
    const int node_words = int((s1 - s0 + 63) / 64);
    masks.assign(count, 0);
    for (std::int64_t j = 0; j < count; ++j)
      for (std::int64_t m = starts[j]; m < starts[j + 1]; ++m)
        masks[j] |= std::uint8_t(1u << incidences[m].a);
    by_size.resize(count);
    for (std::int64_t j = 0; j < count; ++j) by_size[j] = j;
    std::stable_sort(by_size.begin(), by_size.end(), [&](std::int64_t x, std::int64_t y) {
      return __builtin_popcount(masks[x]) > __builtin_popcount(masks[y]);
    });
    pack_of.assign(count, -1);
    pack_masks.clear();
    pack_sizes.clear();
    pack_nodes.clear();
    pack_first.clear();
    for (const std::int64_t j : by_size) {
      const auto fits = [&](std::size_t q) {
        if (pack_sizes[q] == options.max_pack_elements || (pack_masks[q] & masks[j]) != 0)
          return false;
        for (std::int64_t m = starts[j]; m < starts[j + 1]; ++m) {
          const int slot = incidences[m].local_slot;
          if (pack_nodes[q * node_words + slot / 64] >> (slot % 64) & 1) return false;
        }
        return true;
      };
      std::size_t q = 0;
      while (q < pack_sizes.size() && !fits(q)) ++q;
      if (q == pack_sizes.size()) {
        pack_masks.push_back(0);
        pack_sizes.push_back(0);
        pack_nodes.resize(pack_nodes.size() + node_words, 0);
        pack_first.push_back(j);
      }
      pack_of[j] = std::int64_t(q);
      pack_masks[q] |= masks[j];
      ++pack_sizes[q];
      pack_first[q] = std::min(pack_first[q], j);
      for (std::int64_t m = starts[j]; m < starts[j + 1]; ++m) {
        const int slot = incidences[m].local_slot;
        pack_nodes[q * node_words + slot / 64] |= std::uint64_t(1) << (slot % 64);
      }
    }
    // Packs in the order of their first elements (with packs of one element,
    // the elements' order).
    const std::int64_t packs = std::int64_t(pack_sizes.size());
    std::vector<std::int64_t> pack_order(packs), rank(packs);
    for (std::int64_t q = 0; q < packs; ++q) pack_order[q] = q;
    std::sort(pack_order.begin(), pack_order.end(),
              [&](std::int64_t x, std::int64_t y) { return pack_first[x] < pack_first[y]; });
    for (std::int64_t r = 0; r < packs; ++r) rank[pack_order[r]] = r;
    member_starts.assign(packs + 1, 0);
    for (std::int64_t j = 0; j < count; ++j) ++member_starts[rank[pack_of[j]] + 1];
    for (std::int64_t r = 0; r < packs; ++r) member_starts[r + 1] += member_starts[r];
    members.resize(count);
    {
      std::vector<std::int64_t> next(member_starts.begin(), member_starts.end() - 1);
      for (std::int64_t j = 0; j < count; ++j) members[next[rank[pack_of[j]]]++] = j;
    }

    // Colours of the packs (r: pack rank).
    used.assign(std::size_t(s1 - s0) * kColourWords, 0);
    colour_of.assign(packs, 0);
    colour_sizes.assign(kClusterMaxColours, 0);
    for (std::int64_t r = 0; r < packs; ++r) {
      int colour = 0;
      const auto taken = [&](int col) {
        for (std::int64_t n = member_starts[r]; n < member_starts[r + 1]; ++n)
          for (std::int64_t m = starts[members[n]]; m < starts[members[n] + 1]; ++m)
            if (used[incidences[m].local_slot * kColourWords + col / 64] >> (col % 64) & 1)
              return true;
        return false;
      };
      while (colour < kClusterMaxColours &&
             (taken(colour) || colour_sizes[colour] == options.colour_capacity))
        ++colour;
      if (colour == kClusterMaxColours)
        throw Error("cluster-gather: element " +
                        std::to_string(incidences[starts[members[member_starts[r]]]].element) +
                        " shares cluster nodes with too many elements for " +
                        std::to_string(kClusterMaxColours) + " colours",
                    "nodes in at most 255 elements, and at most 256 x colour_capacity "
                    "elements per cluster (max_elements)");
      for (std::int64_t n = member_starts[r]; n < member_starts[r + 1]; ++n)
        for (std::int64_t m = starts[members[n]]; m < starts[members[n] + 1]; ++m)
          used[incidences[m].local_slot * kColourWords + colour / 64] |= std::uint64_t(1)
                                                                         << (colour % 64);
      colour_of[r] = colour;
      ++colour_sizes[colour];
    }
    emitted.assign(std::size_t(s1 - s0), 0);
    added.assign(std::size_t(L.cluster_stored_blocks[c]), 0);
    by_colour.resize(packs);
    for (std::int64_t r = 0; r < packs; ++r) by_colour[r] = r;
    std::stable_sort(by_colour.begin(), by_colour.end(),
                     [&](std::int64_t x, std::int64_t y) { return colour_of[x] < colour_of[y]; });
    for (std::int64_t n = 0; n < packs; ++n) {
      const std::int64_t r = by_colour[n];
      if (n > 0 && colour_of[r] != colour_of[by_colour[n - 1]])
        L.colour_offsets.push_back(std::int64_t(L.pack_offsets.size()) - 1);
      L.pack_colours.push_back(
          std::uint8_t(std::int64_t(L.colour_offsets.size()) - 1 - L.cluster_colours[c]));
      const std::size_t lanes = L.lane_blocks.size(), slots_at = L.node_slots.size();
      L.lane_blocks.resize(lanes + 32, std::uint32_t(kClusterNoBlock) * 0x10001u);
      L.node_slots.resize(slots_at + 8, kClusterNoSlot);
      L.node_waits.resize(slots_at + 8, 0);
      L.row_members.resize(slots_at + 8, kClusterNoSlot);
      for (std::int64_t t = member_starts[r]; t < member_starts[r + 1]; ++t) {
        const std::int64_t j = members[t];
        const auto index = std::uint8_t(t - member_starts[r]);
        L.elements.push_back(incidences[starts[j]].element);
        for (std::int64_t m = starts[j]; m < starts[j + 1]; ++m) {
          const ClusterIncidence& inc = incidences[m];
          const std::uint32_t base = L.slot_blocks[s0 + inc.local_slot];
          L.row_members[slots_at + inc.a] = index;
          L.node_slots[slots_at + inc.a] = std::uint8_t(inc.local_slot);
          L.node_waits[slots_at + inc.a] = std::uint8_t(emitted[inc.local_slot]++);
          // Packs are emitted in colour order, the order of each node's
          // adds, so a block's first add emitted is its first add made.
          const auto kept = [&](std::uint32_t row_block) {
            const std::uint16_t entry = L.row_blocks[L.row_block_offsets[c] + row_block];
            if (entry & kClusterTransposed) return std::uint32_t(kClusterNoBlock);
            if (!options.first_add_stores || added[entry]) return std::uint32_t(entry);
            added[entry] = 1;
            return std::uint32_t(entry | kClusterFirstAdd);
          };
          for (int pair = 0; pair < 4; ++pair)
            L.lane_blocks[lanes + 4 * inc.a + pair] =
                kept(base + G.incidence_blocks[8 * inc.k + 2 * pair]) |
                kept(base + G.incidence_blocks[8 * inc.k + 2 * pair + 1]) << 16;
        }
      }
      L.pack_offsets.push_back(std::int64_t(L.elements.size()));
    }
    if (options.first_add_stores)
      for (std::size_t block = 0; block < added.size(); ++block)
        if (!added[block])
          throw Error("cluster-gather: no element of cluster " + std::to_string(c) +
                          " adds to its accumulator block " + std::to_string(block) +
                          ", so first_add_stores would leave it unset",
                      "a CSR pattern from the mesh's elements (csr_pattern.hpp)");
    if (packs > 0) L.colour_offsets.push_back(std::int64_t(L.pack_offsets.size()) - 1);
    L.cluster_colours.push_back(std::int64_t(L.colour_offsets.size()) - 1);
    L.max_elements = std::max(L.max_elements, int(count));
    L.max_packs = std::max(L.max_packs, int(packs));
    L.max_colours = std::max(L.max_colours, int(L.cluster_colours[c + 1] - L.cluster_colours[c]));
  }
  return L;
}

}  // namespace ppkit::fem
