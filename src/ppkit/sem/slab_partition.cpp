#include "ppkit/sem/slab_partition.hpp"

#include <fmt/format.h>

#include "ppkit/core/error.hpp"

namespace ppkit::sem {

std::vector<int> slab_columns(int ex, int ranks) {
  require(ranks >= 1 && ranks <= ex,
          fmt::format("{} MPI ranks for a box of {} element columns along x", ranks, ex),
          "1 <= ranks <= EX (at least one element column per rank)");
  std::vector<int> first(std::size_t(ranks) + 1);
  for (int r = 0; r <= ranks; ++r) first[r] = int(std::int64_t(ex) * r / ranks);
  return first;
}

SlabPartition make_slab_partition(const BoxMesh& mesh, int rank, int ranks) {
  const std::vector<int> first = slab_columns(mesh.ex, ranks);
  require(rank >= 0 && rank < ranks, fmt::format("rank {} of {}", rank, ranks),
          "0 <= rank < ranks");
  SlabPartition s;
  s.rank = rank;
  s.ranks = ranks;
  s.ex_begin = first[rank];
  s.ex_end = first[rank + 1];
  s.left_rank = rank > 0 ? rank - 1 : -1;
  s.right_rank = rank + 1 < ranks ? rank + 1 : -1;

  const int n = mesh.order, np = mesh.np();
  const int columns = s.ex_end - s.ex_begin;
  BoxMesh& m = s.local;
  m.order = mesh.order;
  m.ex = columns;
  m.ey = mesh.ey;
  m.ez = mesh.ez;
  m.deformation = mesh.deformation;
  const std::int64_t E = m.elements();
  const std::size_t global_stride = std::size_t(mesh.local_count()), stride = std::size_t(E) * np;
  m.vertices.resize(std::size_t(E) * 24);
  m.trilinear.resize(E);
  m.coordinates.resize(3 * stride);
  m.global_ids.resize(stride);
  m.boundary.resize(stride);
  s.global_elements.resize(E);

  // Local node lattice: gxl x GY x GZ points.
  const std::int64_t gxl = std::int64_t(columns) * n + 1;
  const std::int64_t gx = std::int64_t(mesh.ex) * n + 1, gy = std::int64_t(mesh.ey) * n + 1,
                     gz = std::int64_t(mesh.ez) * n + 1;
  m.global_count = gxl * gy * gz;
  s.global_nodes.assign(m.global_count, -1);
  s.owned.assign(m.global_count, 0);
  const std::int64_t x0 = std::int64_t(s.ex_begin) * n;  // first global x index of the slab

  for (int ez = 0; ez < mesh.ez; ++ez)
    for (int ey = 0; ey < mesh.ey; ++ey)
      for (int lx = 0; lx < columns; ++lx) {
        const std::int64_t e = lx + std::int64_t(columns) * (ey + std::int64_t(mesh.ey) * ez);
        const std::int64_t g =
            (s.ex_begin + lx) + std::int64_t(mesh.ex) * (ey + std::int64_t(mesh.ey) * ez);
        s.global_elements[e] = g;
        for (int v = 0; v < 24; ++v)
          m.vertices[std::size_t(e) * 24 + v] = mesh.vertices[g * 24 + v];
        m.trilinear[e] = mesh.trilinear[g];
        for (int node = 0; node < np; ++node) {
          const std::size_t l = std::size_t(e) * np + node, gl = std::size_t(g) * np + node;
          for (int d = 0; d < 3; ++d)
            m.coordinates[d * stride + l] = mesh.coordinates[d * global_stride + gl];
          m.boundary[l] = mesh.boundary[gl];
          const std::int64_t id = mesh.global_ids[gl];
          const std::int64_t ix = id % gx, iy = id / gx % gy, iz = id / (gx * gy);
          const std::int64_t local = (ix - x0) + gxl * (iy + gy * iz);
          m.global_ids[l] = local;
          s.global_nodes[local] = id;
        }
      }
  // Ownership: the right interface plane (local ix = gxl - 1) belongs to the
  // right neighbour; everything else to this rank.
  for (std::int64_t local = 0; local < m.global_count; ++local) {
    const std::int64_t ixl = local % gxl;
    s.owned[local] = (ixl == gxl - 1 && s.right_rank >= 0) ? 0 : 1;
  }
  auto face = [&](std::int64_t ixl) {
    std::vector<std::int64_t> f(std::size_t(gy * gz));
    for (std::int64_t iz = 0; iz < gz; ++iz)
      for (std::int64_t iy = 0; iy < gy; ++iy) f[iy + gy * iz] = ixl + gxl * (iy + gy * iz);
    return f;
  };
  if (s.left_rank >= 0) s.left_face = face(0);
  if (s.right_rank >= 0) s.right_face = face(gxl - 1);
  return s;
}

}  // namespace ppkit::sem
