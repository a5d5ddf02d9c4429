// Inputs of the tiled strategy (g): tiles along the Morton curve, accumulator
// slots per element block, colours within a tile, runs and 32-lane flush
// chunks. Checked against the CSR block positions built independently from
// the mesh (build_csr_block_positions), on distorted boxes, a box with
// randomly renumbered nodes (CSR rows that do not follow a grid) and a Gmsh mesh.
#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "fem_test_problems.hpp"
#include "harness/variant_test.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/fem/factored_layout.hpp"
#include "ppkit/fem/gmsh_reader.hpp"
#include "ppkit/fem/tiled_layout.hpp"

namespace {
using namespace ppkit::fem;

std::vector<AssemblyProblem> problems() {
  const unsigned seed = ppkit::testing::test_seed();
  std::vector<AssemblyProblem> list;
  list.push_back(make_assembly_problem(inputs::distorted_box({7, 5, 4}, seed), Material{}));
  list.push_back(make_assembly_problem(inputs::renumbered_box({5, 6, 3}, seed + 1), Material{}));
  list.push_back(make_assembly_problem(
      read_gmsh_file(std::string(PPKIT_FEM_TEST_DATA) + "/two_hexahedra.msh"), Material{}));
  return list;
}

const TiledLayoutOptions kOptions[] = {{32, 1200}, {8, 200}, {5, 64}, {64, 21845}};

// Decodes a chunk lane as the kernels do: (tile-local segment, value in the segment).
bool decode_lane(std::uint64_t chunk, int lane, std::int64_t& segment, int& value) {
  const std::uint32_t mask = std::uint32_t(chunk), lanes = std::uint32_t(chunk >> 48) & 63u;
  if (std::uint32_t(lane) >= lanes) return false;
  const std::uint32_t below = mask & (0xffffffffu >> (31 - lane));
  int starts = 0, last = 0;
  for (int l = 0; l <= lane; ++l)
    if ((below >> l) & 1) {
      ++starts;
      last = l;
    }
  segment = std::int64_t((chunk >> 32) & 0xffffu) + starts - 1;
  value = lane - last;
  return true;
}

TEST(FemTiledLayout, EveryElementBlockMapsToTheSlotOfItsCsrPosition) {
  for (const auto& problem : problems())
    for (const auto& options : kOptions) {
      const auto L = make_tiled_layout(problem, options);
      const auto positions = build_csr_block_positions(problem.mesh, problem.pattern);
      ASSERT_EQ(L.num_elements(), problem.mesh.num_elements());
      std::vector<std::int64_t> sorted(L.element_of_slot);
      std::sort(sorted.begin(), sorted.end());
      for (std::int64_t k = 0; k < L.num_elements(); ++k) ASSERT_EQ(sorted[k], k);
      for (std::int64_t t = 0; t < L.num_tiles(); ++t) {
        // Slot -> CSR position and row node from the runs (each slot in exactly one run).
        std::vector<std::int64_t> position_of_slot(L.tile_blocks[t], -1);
        for (std::int64_t r = L.run_offsets[t]; r < L.run_offsets[t + 1]; ++r) {
          ASSERT_GE(L.run_blocks[r], 1);
          ASSERT_LE(L.run_blocks[r], kTiledMaxRunBlocks);
          for (int k = 0; k < L.run_blocks[r]; ++k) {
            const int slot = L.run_first_slots[r] + k;
            ASSERT_LT(slot, L.tile_blocks[t]);
            ASSERT_EQ(position_of_slot[slot], -1) << "slot in two runs";
            position_of_slot[slot] = L.run_positions[r] + 3 * k;
          }
        }
        for (const auto pos : position_of_slot) ASSERT_GE(pos, 0) << "slot in no run";
        // Runs are maximal: a run that continues the previous one's columns in
        // the same node row exists only because that one is full.
        const auto& rows = problem.pattern.row_offsets;
        auto row_node = [&](std::int64_t position) {
          return (std::upper_bound(rows.begin(), rows.end(), position) - rows.begin() - 1) / 3;
        };
        for (std::int64_t r = L.run_offsets[t] + 1; r < L.run_offsets[t + 1]; ++r)
          if (row_node(L.run_positions[r]) == row_node(L.run_positions[r - 1]) &&
              L.run_positions[r] == L.run_positions[r - 1] + 3 * L.run_blocks[r - 1]) {
            EXPECT_EQ(L.run_blocks[r - 1], kTiledMaxRunBlocks) << "run " << r << " not maximal";
          }
        std::set<std::int64_t> touched;
        for (std::int64_t k = L.tile_offsets[t]; k < L.tile_offsets[t + 1]; ++k) {
          const std::int64_t e = L.element_of_slot[k];
          for (int a = 0; a < 8; ++a) {
            const std::int32_t v = problem.mesh.elements[8 * e + a];
            ASSERT_EQ(L.nodes[8 * k + a], v);
            EXPECT_EQ(L.coordinates[24 * k + 3 * a + 1], problem.mesh.coordinates[3 * v + 1]);
            const std::int64_t row_length =
                problem.pattern.row_offsets[3 * v + 1] - problem.pattern.row_offsets[3 * v];
            for (int b = 0; b < 8; ++b) {
              const int slot = L.block_slots[64 * k + 8 * a + b];
              ASSERT_LT(slot, L.tile_blocks[t]);
              ASSERT_EQ(position_of_slot[slot], positions[64 * e + 8 * a + b]);
              touched.insert(positions[64 * e + 8 * a + b]);
            }
            for (std::int64_t r = L.run_offsets[t]; r < L.run_offsets[t + 1]; ++r) {
              if (L.run_positions[r] >= problem.pattern.row_offsets[3 * v] &&
                  L.run_positions[r] < problem.pattern.row_offsets[3 * v + 1]) {
                EXPECT_EQ(L.run_row_lengths[r], row_length);
              }
            }
          }
        }
        // The accumulator holds exactly the tile's distinct blocks.
        EXPECT_EQ(std::int64_t(touched.size()), L.tile_blocks[t]);
      }
    }
}

TEST(FemTiledLayout, TilesRespectCapacityAndColoursShareNoNode) {
  for (const auto& problem : problems())
    for (const auto& options : kOptions) {
      const auto L = make_tiled_layout(problem, options);
      ASSERT_EQ(L.tile_offsets.back(), L.num_elements());
      ASSERT_EQ(L.colour_offsets.back(), L.num_elements());
      for (std::int64_t t = 0; t < L.num_tiles(); ++t) {
        const std::int64_t size = L.tile_offsets[t + 1] - L.tile_offsets[t];
        EXPECT_GE(size, 1);
        EXPECT_LE(size, options.max_elements);
        EXPECT_LE(L.tile_blocks[t], options.max_blocks);
        EXPECT_LE(L.tile_blocks[t], L.max_blocks);
        ASSERT_EQ(L.colour_offsets[L.tile_colours[t]], L.tile_offsets[t]);
        ASSERT_EQ(L.colour_offsets[L.tile_colours[t + 1]], L.tile_offsets[t + 1]);
        for (std::int64_t g = L.tile_colours[t]; g < L.tile_colours[t + 1]; ++g) {
          EXPECT_LT(L.colour_offsets[g], L.colour_offsets[g + 1]) << "empty colour";
          std::set<std::int32_t> nodes;
          for (std::int64_t k = L.colour_offsets[g]; k < L.colour_offsets[g + 1]; ++k)
            for (int a = 0; a < 8; ++a)
              EXPECT_TRUE(nodes.insert(L.nodes[8 * k + a]).second)
                  << "two elements of one colour share node " << L.nodes[8 * k + a];
        }
      }
    }
}

// The greedy cut is capacity-limited: a tile closes only when the next
// element would overflow max_elements or max_blocks.
TEST(FemTiledLayout, GreedyTilesAreMaximal) {
  for (const auto& problem : problems())
    for (const auto& options : kOptions) {
      const auto L = make_tiled_layout(problem, options);
      const auto positions = build_csr_block_positions(problem.mesh, problem.pattern);
      const auto morton = morton_element_order(problem.mesh);
      std::vector<std::int64_t> rank(morton.size());
      for (std::size_t r = 0; r < morton.size(); ++r) rank[morton[r]] = std::int64_t(r);
      for (std::int64_t t = 0; t + 1 < L.num_tiles(); ++t) {
        if (L.tile_offsets[t + 1] - L.tile_offsets[t] == options.max_elements) continue;
        // The element that closed tile t is the next tile's first along the
        // curve (colouring may have moved it within its tile).
        std::int64_t next = -1;
        for (std::int64_t k = L.tile_offsets[t + 1]; k < L.tile_offsets[t + 2]; ++k)
          if (next < 0 || rank[L.element_of_slot[k]] < rank[next]) next = L.element_of_slot[k];
        std::set<std::int64_t> blocks;
        for (std::int64_t k = L.tile_offsets[t]; k < L.tile_offsets[t + 1]; ++k)
          for (int blk = 0; blk < 64; ++blk)
            blocks.insert(positions[64 * L.element_of_slot[k] + blk]);
        for (int blk = 0; blk < 64; ++blk) blocks.insert(positions[64 * next + blk]);
        const bool some_fits = std::int64_t(blocks.size()) <= options.max_blocks;
        EXPECT_FALSE(some_fits) << "tile " << t << " closed although the next element fits";
      }
    }
}

// On an 8^3 box the first 32 Morton elements form a 4x4x2 element block:
// 5x5x3 nodes, 13x13x7 = 1,183 distinct blocks (2,048 element-block touches),
// 8 colours of 4 elements.
TEST(FemTiledLayout, StructuredTileIsA4x4x2BlockWith1183Blocks) {
  const auto problem =
      make_assembly_problem(inputs::distorted_box({8, 8, 8}, ppkit::testing::test_seed()), {});
  const auto L = make_tiled_layout(problem, {32, 1200});
  ASSERT_GE(L.num_tiles(), 1);
  EXPECT_EQ(L.tile_offsets[1], 32);
  EXPECT_EQ(L.tile_blocks[0], 1183);
  EXPECT_EQ(L.tile_colours[1] - L.tile_colours[0], 8);
  // Rows of a node hold its 27 neighbours contiguously, so the tile's columns
  // of one node row form longer runs than the 3 blocks of an x-line.
  EXPECT_LT(L.run_offsets[1] - L.run_offsets[0], 455);
  std::set<std::int64_t> elements(L.element_of_slot.begin(), L.element_of_slot.begin() + 32);
  for (const auto e : elements) {
    const std::int64_t i = e % 8, j = (e / 8) % 8, k = e / 64;
    EXPECT_TRUE(i < 4 && j < 4 && k < 2) << "element " << e;
  }
}

// The per-element counts of strategy (g)'s tile layout: on an 8^3 box every
// tile is a 4x4x2 element block (512 = 16 x 32 Morton elements), so 1,183
// blocks per 32 elements and 8 colours per tile; each block's 3 rows are
// flushed as parts of row segments of 1..kTiledMaxRunBlocks blocks.
TEST(FemTiledLayout, StatsCountTheStructuredTiles) {
  const auto problem =
      make_assembly_problem(inputs::distorted_box({8, 8, 8}, ppkit::testing::test_seed()), {});
  const auto L = make_tiled_layout(problem, {32, 1200});
  const TiledLayoutStats stats = tiled_layout_stats(L);
  ASSERT_EQ(L.num_tiles(), 16);
  EXPECT_DOUBLE_EQ(stats.elements_per_tile, 32.0);
  EXPECT_DOUBLE_EQ(stats.blocks_per_element, 1183.0 / 32.0);
  EXPECT_DOUBLE_EQ(stats.colours_per_tile, 8.0);
  EXPECT_GE(stats.segments_per_element, 3.0 * stats.blocks_per_element / kTiledMaxRunBlocks);
  EXPECT_LE(stats.segments_per_element, 3.0 * stats.blocks_per_element);
  // A chunk covers at most 32 values and a block has 9.
  EXPECT_GE(stats.chunks_per_element, 9.0 * stats.blocks_per_element / 32.0);
  EXPECT_GT(stats.metadata_bytes_per_element, 0.0);
}

// Simulates the kernels' data path on the host: random element blocks added
// into each tile's accumulator through block_slots, flushed through the
// decoded chunks, must equal scattering the same blocks straight through the
// independent CSR block positions.
TEST(FemTiledLayout, AccumulateAndFlushReproducesDirectScatter) {
  std::mt19937_64 rng(ppkit::testing::test_seed());
  std::uniform_real_distribution<double> value(-1, 1);
  for (const auto& problem : problems())
    for (const auto& options : kOptions) {
      const auto L = make_tiled_layout(problem, options);
      const auto positions = build_csr_block_positions(problem.mesh, problem.pattern);
      const auto& rows = problem.pattern.row_offsets;
      std::vector<double> Ke(576 * std::size_t(problem.mesh.num_elements()));
      for (auto& x : Ke) x = value(rng);
      std::vector<double> direct(problem.pattern.num_nonzeros(), 0.0), tiled(direct);
      for (std::int64_t e = 0; e < problem.mesh.num_elements(); ++e)
        for (int blk = 0; blk < 64; ++blk) {
          const std::int32_t v = problem.mesh.elements[8 * e + blk / 8];
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
              direct[positions[64 * e + blk] + i * (rows[3 * v + 1] - rows[3 * v]) + j] +=
                  Ke[576 * e + (3 * (blk / 8) + i) * 24 + 3 * (blk % 8) + j];
        }
      std::int64_t lanes_written = 0;
      for (std::int64_t t = 0; t < L.num_tiles(); ++t) {
        std::vector<double> accumulator(9 * std::size_t(L.tile_blocks[t]), 0.0);
        for (std::int64_t k = L.tile_offsets[t]; k < L.tile_offsets[t + 1]; ++k) {
          const std::int64_t e = L.element_of_slot[k];
          for (int blk = 0; blk < 64; ++blk)
            for (int m = 0; m < 9; ++m)
              accumulator[9 * L.block_slots[64 * k + blk] + m] +=
                  Ke[576 * e + (3 * (blk / 8) + m / 3) * 24 + 3 * (blk % 8) + m % 3];
        }
        for (std::int64_t c = L.chunk_offsets[t]; c < L.chunk_offsets[t + 1]; ++c)
          for (int lane = 0; lane < 32; ++lane) {
            std::int64_t segment = 0;
            int x = 0;
            if (!decode_lane(L.chunks[c], lane, segment, x)) continue;
            const std::int64_t run = L.run_offsets[t] + segment / 3;
            ASSERT_LT(run, L.run_offsets[t + 1]);
            const int i = int(segment % 3);
            ASSERT_LT(x, 3 * L.run_blocks[run]);
            tiled[L.run_positions[run] + std::int64_t(i) * L.run_row_lengths[run] + x] +=
                accumulator[9 * (L.run_first_slots[run] + x / 3) + 3 * i + x % 3];
            ++lanes_written;
          }
      }
      std::int64_t tile_values = 0;
      for (const auto b : L.tile_blocks) tile_values += 9 * std::int64_t(b);
      EXPECT_EQ(lanes_written, tile_values) << "every accumulator value flushed exactly once";
      EXPECT_LE(ppkit::testing::relative_l2_error(tiled, direct), 1e-14);
    }
}

TEST(FemTiledLayout, ImpossibleOptionsAreRejectedWithTheValidRange) {
  const auto problem =
      make_assembly_problem(inputs::distorted_box({2, 2, 2}, ppkit::testing::test_seed()), {});
  auto message = [&](TiledLayoutOptions options) -> std::string {
    try {
      make_tiled_layout(problem, options);
    } catch (const ppkit::Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message({32, 63}).find("cannot hold one hex8 element"), std::string::npos)
      << message({32, 63});
  EXPECT_NE(message({32, 63}).find("at least 64"), std::string::npos);
  EXPECT_NE(message({0, 1200}).find("1 to 64"), std::string::npos);
  EXPECT_NE(message({65, 1200}).find("1 to 64"), std::string::npos);
  EXPECT_NE(message({32, 30000}).find("21845"), std::string::npos);
  EXPECT_EQ(message({1, 64}), "");  // one element per tile is the smallest valid layout
}

}  // namespace
