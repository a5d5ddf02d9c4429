#pragma once
// Kernel inputs of the tiled strategy (g) of fem.assemble (docs/fem.md,
// "Strategy (g): tiled"): neighbouring elements merge their updates in
// on-chip memory before they reach the global CSR values.
//
// Elements are taken along the Morton curve (morton_element_order) and cut
// greedily into tiles of at most max_elements elements whose distinct CSR
// node-pair 3x3 blocks number at most max_blocks. A tile's blocks are its
// accumulator (9 doubles per block, row-major, in shared memory / team
// scratch), numbered by ascending CSR position, so blocks of one node row
// with adjacent columns are adjacent slots. Within a tile the elements are
// coloured greedily (no two elements of one colour share a node), so the
// elements of a colour add into the accumulator concurrently without atomics.
// The flush adds the accumulator to the CSR values in runs: a run is a set of
// blocks of one node row with contiguous CSR columns; its 3 rows (segments of
// 3 x blocks values each) are written by consecutive lanes. Segments are
// packed into 32-lane chunks, each described by one 64-bit word.
//
// Nothing here assumes a structured mesh: any valid hex mesh (box or Gmsh)
// is tiled, only the merge ratio depends on the mesh's locality.
#include <cstdint>
#include <vector>

#include "ppkit/fem/assemble.hpp"

namespace ppkit::fem {

struct TiledLayoutOptions {
  int max_elements = 32;  // elements per tile, 1..64 (colours are tracked in 64-bit masks)
  int max_blocks = 1200;  // distinct 3x3 blocks per tile, 64..21,845 (accumulator 72 B per block)
};

// Most blocks of one run: its 3 segments of 3 x blocks values then fit one
// 32-lane chunk each.
constexpr int kTiledMaxRunBlocks = 10;

// Chunk word: bits 0-31 mark the lanes that start a segment, bits 32-47 the
// tile-local index of the chunk's first segment (segment s is row s % 3 of
// the tile's run s / 3), bits 48-53 the number of lanes used (1..32).
constexpr std::uint64_t tiled_chunk(std::uint32_t start_mask, std::uint32_t first_segment,
                                    std::uint32_t lanes) {
  return std::uint64_t(start_mask) | (std::uint64_t(first_segment) << 32) |
         (std::uint64_t(lanes) << 48);
}

struct TiledLayout {
  // Slots: elements tile by tile, within a tile colour by colour (Morton order inside a colour).
  std::vector<std::int64_t> element_of_slot;  // input-order element of each slot
  std::vector<double> coordinates;            // 24 per slot: node a, component i at 3a+i
  std::vector<std::int32_t> nodes;            // 8 per slot
  std::vector<std::uint16_t> block_slots;     // 64 per slot: [8a+b] = accumulator block of (a, b)
  std::vector<std::int64_t> tile_offsets;     // tile t: slots [tile_offsets[t], tile_offsets[t+1])
  std::vector<std::int64_t> tile_colours;     // tile t: colour groups [tile_colours[t], ...[t+1])
  std::vector<std::int64_t> colour_offsets;   // colour group g: slots [offsets[g], offsets[g+1])
  std::vector<std::int32_t> tile_blocks;      // accumulator blocks of each tile
  // Runs of tile t: [run_offsets[t], run_offsets[t+1]), in ascending slot order.
  std::vector<std::int64_t> run_offsets;
  std::vector<std::int64_t> run_positions;     // CSR position of entry (3v, 3w) of its first block
  std::vector<std::int32_t> run_row_lengths;   // length of node v's CSR rows
  std::vector<std::uint16_t> run_first_slots;  // accumulator block of its first block
  std::vector<std::uint16_t> run_blocks;       // 1..kTiledMaxRunBlocks
  // Chunks of tile t: [chunk_offsets[t], chunk_offsets[t+1]), words as tiled_chunk().
  std::vector<std::int64_t> chunk_offsets;
  std::vector<std::uint64_t> chunks;
  int max_blocks = 0;  // the largest tile_blocks entry (accumulator size)

  std::int64_t num_elements() const { return std::int64_t(nodes.size() / 8); }
  std::int64_t num_tiles() const { return std::int64_t(tile_offsets.size()) - 1; }
};

// Builds the layout; throws ppkit::Error for options out of range (a tile
// must hold at least one element's 64 blocks) or a CSR row too long for the
// 16-bit fields.
TiledLayout make_tiled_layout(const AssemblyProblem& problem, const TiledLayoutOptions& options);

// Counts behind the byte model of docs/fem.md, per element of the layout.
struct TiledLayoutStats {
  double elements_per_tile = 0;
  double blocks_per_element = 0;    // global block updates (9 values each) per element
  double segments_per_element = 0;  // contiguous row segments flushed per element
  double chunks_per_element = 0;    // 32-lane flush instructions per element
  double colours_per_tile = 0;
  double metadata_bytes_per_element = 0;  // tile, colour, run and chunk arrays
};
TiledLayoutStats tiled_layout_stats(const TiledLayout& layout);

}  // namespace ppkit::fem
