// The Kokkos neighbour structures (kokkos_sph.hpp) are the same whatever
// order the device's threads insert particles in: each cell's linked list in
// descending particle index, each cell's renumbered range in ascending index.
// Checked on the default execution space (many threads on a GPU or OpenMP)
// against lists built on the host from the cell of every particle.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <random>
#include <vector>

#include "ppkit/sph/kokkos_sph.hpp"

namespace {

using namespace ppkit::sph;
using namespace ppkit::sph::kokkos_impl;
using Space = Kokkos::DefaultExecutionSpace;
using Mem = Space::memory_space;

struct Cloud {
  CellGrid grid{};
  std::vector<float> x, y, z;
};

// n particles in a 6 x 5 x 4 cell box of cell size 0.1 (about 20 per cell, so
// threads collide on every cell), a few outside it (the escaped cell).
Cloud random_cloud(int n, unsigned seed) {
  Cloud c;
  c.grid = CellGrid{0, 0, 0, 10, 10, 10, 6, 5, 4, 0, 0, 0};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> ux(0, 0.6f), uy(0, 0.5f), uz(0, 0.4f);
  for (int i = 0; i < n; ++i) {
    c.x.push_back(i % 97 == 0 ? 5.0f : ux(rng));
    c.y.push_back(uy(rng));
    c.z.push_back(uz(rng));
  }
  return c;
}

ParticleArrays<Mem> to_device(const Cloud& c) {
  const std::size_t n = c.x.size();
  ParticleArrays<Mem> p("test", n);
  auto put = [n](auto view, const std::vector<float>& v) {
    Kokkos::deep_copy(
        view, Kokkos::View<const float*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(v.data(), n));
  };
  put(p.x, c.x);
  put(p.y, c.y);
  put(p.z, c.z);
  Kokkos::deep_copy(p.vx, 0.0f);
  Kokkos::deep_copy(p.vy, 0.0f);
  Kokkos::deep_copy(p.vz, 0.0f);
  Kokkos::deep_copy(p.rho, 1000.0f);
  Kokkos::deep_copy(p.kind, std::uint8_t(kFluid));
  auto id = Kokkos::create_mirror_view(p.id);
  for (std::size_t i = 0; i < n; ++i) id(i) = int(i);
  Kokkos::deep_copy(p.id, id);
  return p;
}

template <class View>
std::vector<int> host_ints(const View& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<int>(h.data(), h.data() + h.extent(0));
}

TEST(SphNeighbourLists, LinkedListsHoldEachCellInDescendingIndexOrder) {
  const Cloud c = random_cloud(20000, 7);
  const auto particles = to_device(c);
  const int cells = int(c.grid.cells());
  CellLists<Mem> lists(c.x.size(), c.grid.cells());
  build_linked_list<Space>(c.grid, particles, lists);
  const auto cell = host_ints(lists.cell), head = host_ints(lists.head),
             next = host_ints(lists.next);
  std::vector<std::vector<int>> expected(static_cast<std::size_t>(cells));
  for (int i = int(c.x.size()) - 1; i >= 0; --i)
    if (cell[std::size_t(i)] < cells) expected[std::size_t(cell[std::size_t(i)])].push_back(i);
  for (int k = 0; k < cells; ++k) {
    std::vector<int> chain;
    for (int i = head[std::size_t(k)]; i >= 0 && chain.size() <= c.x.size();
         i = next[std::size_t(i)])
      chain.push_back(i);
    ASSERT_EQ(chain, expected[std::size_t(k)]) << "cell " << k;
  }
}

TEST(SphNeighbourLists, RenumberingKeepsEachCellInAscendingIndexOrder) {
  const Cloud c = random_cloud(20000, 11);
  auto particles = to_device(c);
  ParticleArrays<Mem> scratch("scratch", c.x.size());
  CellLists<Mem> lists(c.x.size(), c.grid.cells());
  renumber_by_cell<Space>(c.grid, particles, scratch, lists);
  const auto start = host_ints(lists.cell_start), id = host_ints(particles.id);
  for (int k = 0; k <= int(c.grid.cells()); ++k)
    for (int a = start[std::size_t(k)] + 1; a < start[std::size_t(k) + 1]; ++a)
      ASSERT_LT(id[std::size_t(a) - 1], id[std::size_t(a)]) << "cell " << k << ", slot " << a;
}

}  // namespace
