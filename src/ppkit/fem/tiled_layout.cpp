#include "ppkit/fem/tiled_layout.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "ppkit/core/error.hpp"
#include "ppkit/fem/factored_layout.hpp"

namespace ppkit::fem {
namespace {

constexpr int kMaxTileElements = 64;   // colours per tile fit a 64-bit mask per node
constexpr int kMaxTileBlocks = 21845;  // 3 segments per block index fit 16 bits
constexpr int kBlocksPerElement = 64;  // 8 distinct nodes (validated mesh): 8 x 8 blocks
constexpr int kChunkLanes = 32;

int lowest_clear_bit(std::uint64_t mask) {
  int c = 0;
  while ((mask >> c) & 1) ++c;
  return c;
}

}  // namespace

TiledLayout make_tiled_layout(const AssemblyProblem& p, const TiledLayoutOptions& options) {
  if (options.max_elements < 1 || options.max_elements > kMaxTileElements)
    throw Error("tile size of " + std::to_string(options.max_elements) + " elements",
                "1 to " + std::to_string(kMaxTileElements) + " elements per tile");
  if (options.max_blocks < kBlocksPerElement)
    throw Error("tile capacity of " + std::to_string(options.max_blocks) +
                    " CSR blocks cannot hold one hex8 element, which touches 64 (8 x 8 node pairs)",
                "a capacity of at least 64 blocks");
  if (options.max_blocks > kMaxTileBlocks)
    throw Error("tile capacity of " + std::to_string(options.max_blocks) + " CSR blocks",
                "at most " + std::to_string(kMaxTileBlocks) + " blocks (16-bit slot numbers)");
  const auto& mesh = p.mesh;
  const std::int64_t elements = mesh.num_elements();
  const auto& row_offsets = p.pattern.row_offsets;
  // Block positions of the input-order elements, from the coloured copy.
  std::vector<std::int64_t> coloured_slot_of(elements);
  for (std::int64_t k = 0; k < elements; ++k) coloured_slot_of[p.colouring.order[k]] = k;
  auto block_position = [&](std::int64_t e, int block) {
    return p.coloured.block_positions[64 * coloured_slot_of[e] + block];
  };
  // Dense block number: a node's 3 rows of length L hold L / 3 blocks each
  // row, so node v's blocks start at row_offsets[3v] / 9.
  auto block_id = [&](std::int64_t position, std::int32_t v) {
    const std::int64_t row_start = row_offsets[3 * std::int64_t(v)];
    return row_start / 9 + (position - row_start) / 3;
  };

  const std::vector<std::int64_t> morton = morton_element_order(mesh);
  std::vector<std::int32_t> tile_index_of_block(std::size_t(p.pattern.num_nonzeros() / 9), -1);
  std::vector<std::uint64_t> node_colours(std::size_t(mesh.num_nodes()), 0);

  TiledLayout L;
  L.element_of_slot.reserve(elements);
  L.coordinates.resize(24 * elements);
  L.nodes.resize(8 * elements);
  L.block_slots.resize(64 * elements);
  L.tile_offsets = {0};
  L.tile_colours = {0};
  L.colour_offsets = {0};
  L.run_offsets = {0};
  L.chunk_offsets = {0};

  std::vector<std::pair<std::int64_t, std::int32_t>> blocks;  // (CSR position, row node)
  std::vector<std::int64_t> ids;
  std::vector<int> colour_of;
  for (std::int64_t first = 0; first < elements;) {
    // Grow the tile along the Morton curve while its blocks fit.
    blocks.clear();
    ids.clear();
    std::int64_t end = first;
    while (end < elements && end - first < options.max_elements) {
      const std::int64_t e = morton[end];
      int fresh = 0;
      for (int blk = 0; blk < 64; ++blk) {
        const std::int32_t v = mesh.elements[8 * e + blk / 8];
        fresh += tile_index_of_block[block_id(block_position(e, blk), v)] < 0;
      }
      if (std::int64_t(blocks.size()) + fresh > options.max_blocks) break;
      for (int blk = 0; blk < 64; ++blk) {
        const std::int32_t v = mesh.elements[8 * e + blk / 8];
        const std::int64_t position = block_position(e, blk), id = block_id(position, v);
        if (tile_index_of_block[id] < 0) {
          tile_index_of_block[id] = std::int32_t(blocks.size());
          blocks.emplace_back(position, v);
          ids.push_back(id);
        }
      }
      ++end;
    }
    // Slots by ascending CSR position: a node row's blocks become adjacent.
    std::sort(blocks.begin(), blocks.end());
    for (std::size_t s = 0; s < blocks.size(); ++s)
      tile_index_of_block[block_id(blocks[s].first, blocks[s].second)] = std::int32_t(s);

    // Greedy colouring inside the tile: lowest colour none of the nodes has.
    colour_of.assign(std::size_t(end - first), 0);
    int colours = 0;
    for (std::int64_t k = first; k < end; ++k) {
      const std::int64_t e = morton[k];
      std::uint64_t used = 0;
      for (int a = 0; a < 8; ++a) used |= node_colours[mesh.elements[8 * e + a]];
      const int c = lowest_clear_bit(used);
      for (int a = 0; a < 8; ++a) node_colours[mesh.elements[8 * e + a]] |= std::uint64_t(1) << c;
      colour_of[k - first] = c;
      colours = std::max(colours, c + 1);
    }
    for (int c = 0; c < colours; ++c) {
      for (std::int64_t k = first; k < end; ++k) {
        if (colour_of[k - first] != c) continue;
        const std::int64_t e = morton[k], slot = std::int64_t(L.element_of_slot.size());
        L.element_of_slot.push_back(e);
        for (int a = 0; a < 8; ++a) {
          const std::int32_t v = mesh.elements[8 * e + a];
          L.nodes[8 * slot + a] = v;
          for (int i = 0; i < 3; ++i)
            L.coordinates[24 * slot + 3 * a + i] = mesh.coordinates[3 * std::int64_t(v) + i];
          for (int b = 0; b < 8; ++b)
            L.block_slots[64 * slot + 8 * a + b] =
                std::uint16_t(tile_index_of_block[block_id(block_position(e, 8 * a + b), v)]);
        }
      }
      L.colour_offsets.push_back(std::int64_t(L.element_of_slot.size()));
    }
    L.tile_offsets.push_back(std::int64_t(L.element_of_slot.size()));
    L.tile_colours.push_back(std::int64_t(L.colour_offsets.size()) - 1);
    L.tile_blocks.push_back(std::int32_t(blocks.size()));
    L.max_blocks = std::max(L.max_blocks, std::int32_t(blocks.size()));

    // Runs: blocks of one row node at consecutive column positions (3 apart).
    const std::int64_t first_run = std::int64_t(L.run_positions.size());
    for (std::size_t s = 0; s < blocks.size(); ++s) {
      const auto [position, v] = blocks[s];
      const std::int64_t row_length =
          row_offsets[3 * std::int64_t(v) + 1] - row_offsets[3 * std::int64_t(v)];
      const bool extends = std::int64_t(L.run_positions.size()) > first_run &&
                           blocks[s - 1].second == v && blocks[s - 1].first + 3 == position &&
                           L.run_blocks.back() < kTiledMaxRunBlocks;
      if (extends) {
        ++L.run_blocks.back();
        continue;
      }
      if (row_length > std::int64_t(std::numeric_limits<std::int32_t>::max()))
        throw Error("CSR row of node " + std::to_string(v) + " has " + std::to_string(row_length) +
                        " entries",
                    "rows shorter than 2^31 entries");
      L.run_positions.push_back(position);
      L.run_row_lengths.push_back(std::int32_t(row_length));
      L.run_first_slots.push_back(std::uint16_t(s));
      L.run_blocks.push_back(1);
    }
    L.run_offsets.push_back(std::int64_t(L.run_positions.size()));

    // Chunks: the tile's segments (3 per run) packed in order into 32 lanes.
    const std::int64_t runs = std::int64_t(L.run_positions.size()) - first_run;
    std::uint32_t mask = 0, lanes = 0, chunk_first = 0;
    for (std::int64_t g = 0; g < 3 * runs; ++g) {
      const std::uint32_t length = 3u * L.run_blocks[first_run + g / 3];
      if (lanes + length > kChunkLanes) {
        L.chunks.push_back(tiled_chunk(mask, chunk_first, lanes));
        mask = 0;
        lanes = 0;
        chunk_first = std::uint32_t(g);
      }
      mask |= 1u << lanes;
      lanes += length;
    }
    if (lanes > 0) L.chunks.push_back(tiled_chunk(mask, chunk_first, lanes));
    L.chunk_offsets.push_back(std::int64_t(L.chunks.size()));

    // Reset the per-tile marks.
    for (const std::int64_t id : ids) tile_index_of_block[id] = -1;
    for (std::int64_t k = first; k < end; ++k)
      for (int a = 0; a < 8; ++a) node_colours[mesh.elements[8 * morton[k] + a]] = 0;
    first = end;
  }
  return L;
}

TiledLayoutStats tiled_layout_stats(const TiledLayout& L) {
  TiledLayoutStats s;
  const double elements = double(L.num_elements()), tiles = double(L.num_tiles());
  if (elements == 0 || tiles == 0) return s;
  double blocks = 0;
  for (const auto b : L.tile_blocks) blocks += b;
  const double runs = double(L.run_positions.size()), chunks = double(L.chunks.size());
  const double groups = double(L.colour_offsets.size()) - 1;
  s.elements_per_tile = elements / tiles;
  s.blocks_per_element = blocks / elements;
  s.segments_per_element = 3 * runs / elements;
  s.chunks_per_element = chunks / elements;
  s.colours_per_tile = groups / tiles;
  // Per tile: tile_offsets, tile_colours, run_offsets, chunk_offsets (8 B
  // each), tile_blocks (4 B); per colour group 8 B; per run 8 + 4 + 2 + 2 B;
  // per chunk 8 B.
  s.metadata_bytes_per_element =
      (tiles * (4 * 8 + 4) + groups * 8 + runs * 16 + chunks * 8) / elements;
  return s;
}

}  // namespace ppkit::fem
