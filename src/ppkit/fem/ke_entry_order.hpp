#pragma once
// The order in which strategy (f)'s 32-lane sub-group adds an element's 576
// Ke entries to the CSR values, round by round (one atomic or store
// instruction per round), shared by the CUDA/HIP kernel
// (backends/cuda_hip/fem/assemble_gpu_kernels.cuh) and the Kokkos one
// (assemble_kokkos_factored.cpp).
//
// row_major: round t, lane l adds entry 32 t + l of the row-major Ke; 18
//   rounds. A round covers a row and a third, so one run of contiguous CSR
//   values in three is split between two instructions.
// node_pair_runs: round t covers 5 whole runs of 6 entries (lanes 30 and 31
//   idle), 20 rounds for the 96 runs (the last holds one). A run is one
//   row of Ke and the 3 columns each of two nodes adjacent along the
//   element's first axis, lower one first
//   ({0,1}, {3,2}, {4,5}, {7,6} in Gmsh's hex8 order, hex8_shape.hpp). Where
//   the node numbering runs along that axis (a structured box) the two nodes'
//   columns are adjacent in the CSR row: 6 contiguous values, 48 B in 2 or 3
//   sectors, none split between instructions. docs/fem.md counts the sectors.
// Either order adds every entry exactly once (tests/fem/test_factored_layout.cpp),
// so the result does not depend on the mesh's numbering.
#include "ppkit/fem/host_device.hpp"

namespace ppkit::fem {

enum class KeEntryOrder { row_major, node_pair_runs };

// Rounds of 32 lanes that cover the 576 entries.
PPKIT_FEM_HD constexpr int ke_entry_rounds(KeEntryOrder order) {
  return order == KeEntryOrder::row_major ? 18 : 20;
}

struct KeEntry {
  int row = 0, column = 0;  // Ke(row, column), row = 3 a + i, column = 3 b + j
  bool active = false;      // false: this lane adds nothing in this round
};

PPKIT_FEM_HD KeEntry ke_entry(KeEntryOrder order, int round, int lane) {
  KeEntry entry;
  if (order == KeEntryOrder::row_major) {
    const int m = 32 * round + lane;
    entry.row = m / 24;
    entry.column = m % 24;
    entry.active = m < 576;
    return entry;
  }
  // Run R = 5 t + l / 6: row R / 4, node pair p = R % 4, whose lower node is
  // 0, 3, 4, 7 (4 (p / 2) + 3 (p % 2)) and whose other node differs in bit 0;
  // entry l % 6 of the run.
  const int run = 5 * round + lane / 6, within = lane % 6, pair = run % 4;
  const int node = (4 * (pair / 2) + 3 * (pair % 2)) ^ (within / 3);
  entry.active = lane < 30 && run < 96;
  entry.row = entry.active ? run / 4 : 0;
  entry.column = entry.active ? 3 * node + within % 3 : 0;
  return entry;
}

}  // namespace ppkit::fem
