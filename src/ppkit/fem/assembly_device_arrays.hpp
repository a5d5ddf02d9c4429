#pragma once
// The narrow interface of fem.assemble for hand-written kernels (CUDA .cu,
// HIP, OpenCL): raw device pointers and scalars only, no Kokkos, no std
// containers. Layouts as in assemble.hpp (ColouredElements, CsrPattern).
#include <cstdint>

namespace ppkit::fem {

struct Hex8AssemblyArrays {
  const double* coordinates = nullptr;            // 24 per element (kernel 1 reads none)
  const std::int32_t* nodes = nullptr;            // 8 per element
  const double* node_coordinates = nullptr;       // 3 per node, the mesh's (kernel 1's input)
  const std::int64_t* block_positions = nullptr;  // 64 per element, in the kernel's block order
  const std::int64_t* row_offsets = nullptr;      // CSR row offsets
  double* values = nullptr;                       // CSR values (accumulated into)
  double* load = nullptr;                         // load vector (accumulated into)
  double lambda = 0, mu = 0;                      // Lame constants
  double body_force[3] = {0, 0, 0};
};

// Inputs of the factored strategy (f), layouts as in factored_layout.hpp.
struct Hex8FactoredArrays {
  const double* coordinates = nullptr;            // 24 per slot
  const std::int32_t* nodes = nullptr;            // 8 per slot
  const std::uint16_t* column_offsets = nullptr;  // 64 per slot, [8a + b]
  const std::uint64_t* first_writer = nullptr;    // per slot (colour order), or null: atomics
  const std::int64_t* row_offsets = nullptr;      // CSR row offsets
  double* values = nullptr;                       // CSR values
  double* load = nullptr;                         // load vector
  double lambda = 0, mu = 0;                      // Lame constants
  double body_force[3] = {0, 0, 0};
};

// Inputs of the tiled strategy (g), layouts as in tiled_layout.hpp.
struct Hex8TiledArrays {
  const double* coordinates = nullptr;             // 24 per slot
  const std::int32_t* nodes = nullptr;             // 8 per slot
  const std::uint16_t* block_slots = nullptr;      // 64 per slot, [8a + b]
  const std::int64_t* tile_colours = nullptr;      // per tile + 1: colour groups
  const std::int64_t* colour_offsets = nullptr;    // per colour group + 1: slots
  const std::int32_t* tile_blocks = nullptr;       // per tile: accumulator blocks
  const std::int64_t* run_offsets = nullptr;       // per tile + 1: runs
  const std::int64_t* run_positions = nullptr;     // per run
  const std::int32_t* run_row_lengths = nullptr;   // per run
  const std::uint16_t* run_first_slots = nullptr;  // per run
  const std::int64_t* chunk_offsets = nullptr;     // per tile + 1: chunks
  const std::uint64_t* chunks = nullptr;           // flush chunk words
  double* values = nullptr;                        // CSR values (zeroed before)
  double* load = nullptr;                          // load vector (zeroed before)
  double lambda = 0, mu = 0;                       // Lame constants
  double body_force[3] = {0, 0, 0};
  int max_blocks = 0;  // accumulator blocks of the largest tile (dynamic shared memory)
};

// Inputs of the node-gather strategy (h), layouts as in gather_layout.hpp.
// The shared-memory accumulator holds kGatherWindowBlocks column blocks (the
// 27 of a structured mesh's node fit); a node with more neighbours has its
// rows formed in windows of that many blocks, one pass over its elements each.
constexpr int kGatherWindowBlocks = 32;
struct Hex8GatherArrays {
  const double* geometry = nullptr;  // 80 per element: [10 (8 e + q) + m], strategy (e)'s kernel 1
  const std::int32_t* node_of_slot = nullptr;       // per warp slot
  const std::int64_t* incidence_offsets = nullptr;  // per slot + 1
  const std::int32_t* incidences = nullptr;         // 8 * element + local node index
  const std::uint16_t* incidence_blocks = nullptr;  // 8 per incidence
  const std::int64_t* row_offsets = nullptr;        // CSR row offsets
  double* values = nullptr;                         // CSR values (every one written once)
  double* load = nullptr;                           // load vector (every entry written once)
  double lambda = 0, mu = 0;                        // Lame constants
  double body_force[3] = {0, 0, 0};
};

}  // namespace ppkit::fem
