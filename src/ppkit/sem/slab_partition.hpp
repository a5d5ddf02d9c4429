#pragma once
// The box mesh split into slabs of element columns along x, one slab per MPI
// rank (the MPI gather-scatter of nekbone_mpi.hpp; docs/sem.md, "Nekbone on
// MPI ranks"). Rank r of R gets the element columns ex in
// [EX r / R, EX (r + 1) / R) with every ey and ez, in the global element order
// (ex fastest). Its local nodes are the global node lattice points with
// ix in [ex_begin N, ex_end N], numbered ix_local + gxl (iy + GY iz). The first
// and last x-planes of a slab are the interface planes shared with the left
// and right neighbours; every other node belongs to this rank alone. Each
// global node is owned by exactly one rank: the interface plane between ranks
// r and r + 1 belongs to r + 1 (the lower-x slab owns its left face), so the
// reductions of the CG count every global node once. Needs no MPI.
#include <cstdint>
#include <vector>

#include "ppkit/sem/box_mesh.hpp"

namespace ppkit::sem {

struct SlabPartition {
  int rank = 0, ranks = 1;
  int ex_begin = 0, ex_end = 0;         // element columns [ex_begin, ex_end)
  int left_rank = -1, right_rank = -1;  // neighbours, -1 at the ends of the box
  // The slab as a mesh of its own: ex = ex_end - ex_begin columns, coordinates,
  // vertices, boundary flags (of the whole box) of its elements; global_ids are
  // the local node numbers and global_count their number.
  BoxMesh local;
  std::vector<std::int64_t> global_elements;  // [local elements]: global element number
  std::vector<std::int64_t> global_nodes;     // [local nodes]: global node id in the box
  std::vector<std::uint8_t> owned;            // [local nodes]: 1 if this rank owns the node
  // Local node numbers of the interface planes in (iy, iz) order, iy fastest
  // (the order the neighbour uses too); empty where there is no neighbour.
  std::vector<std::int64_t> left_face, right_face;
};

// First element column of each rank, plus EX at the end ([ranks + 1]).
// Throws ppkit::Error when there are more ranks than element columns.
std::vector<int> slab_columns(int ex, int ranks);

// Rank `rank`'s slab of `mesh` (which every rank builds the same way).
SlabPartition make_slab_partition(const BoxMesh& mesh, int rank, int ranks);

}  // namespace ppkit::sem
