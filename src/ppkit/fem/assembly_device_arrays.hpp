#pragma once
// The narrow interface of fem.assemble for hand-written kernels (CUDA .cu,
// HIP, OpenCL): raw device pointers and scalars only, no Kokkos, no std
// containers. Layouts as in assemble.hpp (ColouredElements, CsrPattern).
#include <cstdint>

namespace ppkit::fem {

struct Hex8AssemblyArrays {
  const double* coordinates = nullptr;            // 24 per element
  const std::int32_t* nodes = nullptr;            // 8 per element
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

}  // namespace ppkit::fem
