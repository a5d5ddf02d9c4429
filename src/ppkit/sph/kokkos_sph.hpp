#pragma once
// Portable Kokkos kernels of the SPH workload, templated over the execution
// space: particle arrays on the device, cell binning, renumbering by cell
// (count per cell, exclusive scan, scatter, permute every array: the Kokkos
// idiom of a linked-cell list, cf. Cabana's LinkedCellList), the unsorted
// linked list, the pair interaction walking the 27-cell stencil, and the
// symplectic integrator. Included only by the Kokkos variant sources.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <type_traits>

#include "ppkit/core/error.hpp"
#include "ppkit/sph/operations.hpp"
#include "ppkit/sph/sph_pair.hpp"

namespace ppkit::sph::kokkos_impl {

template <class Mem, class T>
using DeviceArray = Kokkos::View<T*, Mem>;

// Fills a device array from a host vector.
template <class View, class T>
void upload(View& view, const std::vector<T>& host) {
  Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(host.data(),
                                                                                       host.size());
  Kokkos::deep_copy(view, h);
}
template <class View, class T>
void download(const View& view, std::vector<T>& host) {
  host.resize(view.extent(0));
  Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(host.data(),
                                                                                 host.size());
  Kokkos::deep_copy(h, view);
}

// The particle arrays of one device (structure of arrays).
template <class Mem>
struct ParticleArrays {
  DeviceArray<Mem, float> x, y, z, vx, vy, vz, rho;
  DeviceArray<Mem, std::uint8_t> kind;
  DeviceArray<Mem, int> id;
  ParticleArrays() = default;
  ParticleArrays(const std::string& label, std::size_t n)
      : x(label + ".x", n),
        y(label + ".y", n),
        z(label + ".z", n),
        vx(label + ".vx", n),
        vy(label + ".vy", n),
        vz(label + ".vz", n),
        rho(label + ".rho", n),
        kind(label + ".kind", n),
        id(label + ".id", n) {}
  int size() const { return static_cast<int>(x.extent(0)); }
};

// ---- neighbour structures ----------------------------------------------------

// How neighbours are found in one interaction: sorted (particles renumbered by
// cell; each cell is the index range [cell_start(c), cell_start(c + 1))) or
// linked (unsorted particles; head(c) -> next(j) -> ... -> -1).
enum class NeighbourMode { sorted, linked };

template <class Mem>
struct CellLists {
  DeviceArray<Mem, int> cell;         // cell of each particle (cells() for escaped)
  DeviceArray<Mem, int> cell_count;   // particles per cell, cells() + 2 entries
  DeviceArray<Mem, int> cell_start;   // exclusive scan of cell_count
  DeviceArray<Mem, int> permutation;  // new index -> old index
  DeviceArray<Mem, int> head, next;   // linked list
  // Fluid particles per cell: boundary particles skip cells without fluid
  // (their density only changes through fluid neighbours).
  DeviceArray<Mem, int> cell_fluid;
  CellLists() = default;
  CellLists(std::size_t n, long long cells)
      : cell("sph.cell", n),
        cell_count("sph.cell_count", std::size_t(cells + 2)),
        cell_start("sph.cell_start", std::size_t(cells + 2)),
        permutation("sph.permutation", n),
        head("sph.head", std::size_t(cells + 1)),
        next("sph.next", n),
        cell_fluid("sph.cell_fluid", std::size_t(cells + 1)) {}
};

template <class Mem>
struct ComputeCell {
  CellGrid g;
  DeviceArray<Mem, const float> x, y, z;
  DeviceArray<Mem, const std::uint8_t> kind;
  DeviceArray<Mem, int> cell;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    if (kind(i) == kEscaped) {
      cell(i) = g.nx * g.ny * g.nz;
      return;
    }
    const int cx = cell_coordinate(x(i), g.lo_x, g.inv_cell_x, g.nx);
    const int cy = cell_coordinate(y(i), g.lo_y, g.inv_cell_y, g.ny);
    const int cz = cell_coordinate(z(i), g.lo_z, g.inv_cell_z, g.nz);
    cell(i) = (cz * g.ny + cy) * g.nx + cx;
  }
};

// Renumbers particles by cell (Guan et al.): IDCount per cell, exclusive scan
// to IDBegin, scatter to IDBegin[cell] + running count, then permute every
// particle array through `scratch`. Afterwards neighbours are index ranges.
template <class Space>
void renumber_by_cell(const CellGrid& g, ParticleArrays<typename Space::memory_space>& p,
                      ParticleArrays<typename Space::memory_space>& scratch,
                      CellLists<typename Space::memory_space>& lists) {
  using Mem = typename Space::memory_space;
  const int n = p.size();
  const int cells = static_cast<int>(g.cells());
  Kokkos::RangePolicy<Space> all(0, n);
  Kokkos::parallel_for("sph.bin", all, ComputeCell<Mem>{g, p.x, p.y, p.z, p.kind, lists.cell});
  auto count = lists.cell_count;
  auto start = lists.cell_start;
  auto cell = lists.cell;
  auto permutation = lists.permutation;
  auto fluid = lists.cell_fluid;
  auto kind = p.kind;
  Kokkos::deep_copy(Space(), count, 0);
  Kokkos::deep_copy(Space(), fluid, 0);
  Kokkos::parallel_for(
      "sph.count", all, KOKKOS_LAMBDA(int i) {
        Kokkos::atomic_increment(&count(cell(i)));
        if (kind(i) == kFluid) Kokkos::atomic_increment(&fluid(cell(i)));
      });
  Kokkos::parallel_scan(
      "sph.scan", Kokkos::RangePolicy<Space>(0, cells + 2),
      KOKKOS_LAMBDA(int c, int& running, bool final) {
        const int k = count(c);
        if (final) start(c) = running;
        running += k;
      });
  Kokkos::deep_copy(Space(), count, 0);  // reused as the running count per cell
  Kokkos::parallel_for(
      "sph.scatter", all, KOKKOS_LAMBDA(int i) {
        const int c = cell(i);
        permutation(start(c) + Kokkos::atomic_fetch_add(&count(c), 1)) = i;
      });
  // Atomics fill a cell in any order; sorting each cell's few indices makes
  // the numbering (and so every sum) reproducible run to run.
  Kokkos::parallel_for(
      "sph.sort_cells", Kokkos::RangePolicy<Space>(0, cells + 1), KOKKOS_LAMBDA(int c) {
        const int begin = start(c), end = start(c + 1);
        for (int a = begin + 1; a < end; ++a) {
          const int value = permutation(a);
          int b = a - 1;
          while (b >= begin && permutation(b) > value) {
            permutation(b + 1) = permutation(b);
            --b;
          }
          permutation(b + 1) = value;
        }
      });
  auto src = p;
  auto dst = scratch;
  Kokkos::parallel_for(
      "sph.permute", all, KOKKOS_LAMBDA(int k) {
        const int i = permutation(k);
        dst.x(k) = src.x(i);
        dst.y(k) = src.y(i);
        dst.z(k) = src.z(i);
        dst.vx(k) = src.vx(i);
        dst.vy(k) = src.vy(i);
        dst.vz(k) = src.vz(i);
        dst.rho(k) = src.rho(i);
        dst.kind(k) = src.kind(i);
        dst.id(k) = src.id(i);
      });
  std::swap(p, scratch);
}

// Unsorted neighbour structure: a linked list per cell built with atomic
// exchange, then each chain put in descending particle index (the order one
// thread inserting 0..n-1 leaves): threads insert in any order, and the
// neighbour sums must not depend on it, so runs are reproducible and equal
// on every execution space.
template <class Space>
void build_linked_list(const CellGrid& g, const ParticleArrays<typename Space::memory_space>& p,
                       CellLists<typename Space::memory_space>& lists) {
  using Mem = typename Space::memory_space;
  Kokkos::RangePolicy<Space> all(0, p.size());
  Kokkos::parallel_for("sph.bin", all, ComputeCell<Mem>{g, p.x, p.y, p.z, p.kind, lists.cell});
  auto head = lists.head;
  auto next = lists.next;
  auto cell = lists.cell;
  const int escaped_cell = static_cast<int>(g.cells());
  auto fluid = lists.cell_fluid;
  auto kind = p.kind;
  Kokkos::deep_copy(Space(), head, -1);
  Kokkos::deep_copy(Space(), fluid, 0);
  Kokkos::parallel_for(
      "sph.link", all, KOKKOS_LAMBDA(int i) {
        const int c = cell(i);
        next(i) = c == escaped_cell ? -1 : Kokkos::atomic_exchange(&head(c), i);
        if (kind(i) == kFluid) Kokkos::atomic_increment(&fluid(c));
      });
  // Insertion sort of each cell's few particles, relinking the chain.
  Kokkos::parallel_for(
      "sph.sort_chains", Kokkos::RangePolicy<Space>(0, escaped_cell), KOKKOS_LAMBDA(int c) {
        int sorted = -1;
        for (int i = head(c); i >= 0;) {
          const int following = next(i);
          if (sorted < 0 || i > sorted) {
            next(i) = sorted;
            sorted = i;
          } else {
            int before = sorted;
            while (next(before) > i) before = next(before);
            next(i) = next(before);
            next(before) = i;
          }
          i = following;
        }
        head(c) = sorted;
      });
}

// ---- interaction ------------------------------------------------------------

template <class Mem>
struct RhsArrays {
  DeviceArray<Mem, float> drho, ax, ay, az, visc;
  RhsArrays() = default;
  explicit RhsArrays(std::size_t n)
      : drho("sph.drho", n),
        ax("sph.ax", n),
        ay("sph.ay", n),
        az("sph.az", n),
        visc("sph.visc", n) {}
};

// One thread per particle walks the 27 cells around it (for sorted particles
// the three cells of a row along x are one contiguous index range).
template <class Mem, NeighbourMode Mode>
struct InteractionKernel {
  KernelConstants k;
  CellGrid g;
  DeviceArray<Mem, const float> x, y, z, vx, vy, vz, rho;
  DeviceArray<Mem, const std::uint8_t> kind;
  DeviceArray<Mem, const int> cell_start, head, next, cell_fluid;
  DeviceArray<Mem, float> drho, ax, ay, az, visc;

  struct Self {
    int i;
    bool fluid;
    float x, y, z, vx, vy, vz, rho, p, c;
  };

  KOKKOS_INLINE_FUNCTION void visit(const Self& s, int j, PairSums& sums) const {
    if (j == s.i) return;
    const bool j_fluid = kind(j) == kFluid;
    if (!s.fluid && !j_fluid) return;
    const float rx = minimum_image(s.x - x(j), k.lx, k.periodic_x);
    const float ry = minimum_image(s.y - y(j), k.ly, k.periodic_y);
    const float rz = minimum_image(s.z - z(j), k.lz, k.periodic_z);
    const float r2 = rx * rx + ry * ry + rz * rz;
    if (r2 >= k.support2) return;
    add_pair(k, s.fluid, j_fluid, rx, ry, rz, r2, s.vx - vx(j), s.vy - vy(j), s.vz - vz(j), s.rho,
             s.p, s.c, rho(j), sums);
  }

  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    const std::uint8_t kind_i = kind(i);
    if (kind_i == kEscaped) {
      drho(i) = ax(i) = ay(i) = az(i) = visc(i) = 0.0f;
      return;
    }
    Self s{i, kind_i == kFluid, x(i), y(i), z(i), vx(i), vy(i), vz(i), rho(i), 0.0f, 0.0f};
    s.p = tait_pressure(k, s.rho);
    s.c = sound_speed(k, s.rho);
    PairSums sums;
    const int cx = cell_coordinate(s.x, g.lo_x, g.inv_cell_x, g.nx);
    const int cy = cell_coordinate(s.y, g.lo_y, g.inv_cell_y, g.ny);
    const int cz = cell_coordinate(s.z, g.lo_z, g.inv_cell_z, g.nz);
    for (int dz = -1; dz <= 1; ++dz) {
      const int mz = neighbour_coordinate(cz, dz, g.nz, g.periodic_z);
      if (mz < 0) continue;
      for (int dy = -1; dy <= 1; ++dy) {
        const int my = neighbour_coordinate(cy, dy, g.ny, g.periodic_y);
        if (my < 0) continue;
        const int row = (mz * g.ny + my) * g.nx;
        if (Mode == NeighbourMode::sorted && !g.periodic_x) {
          const int lo = cx > 0 ? cx - 1 : 0;
          const int hi = cx < g.nx - 1 ? cx + 1 : g.nx - 1;
          if (!s.fluid) {
            int fluid = 0;
            for (int m = lo; m <= hi; ++m) fluid += cell_fluid(row + m);
            if (fluid == 0) continue;
          }
          const int end = cell_start(row + hi + 1);
          for (int j = cell_start(row + lo); j < end; ++j) visit(s, j, sums);
          continue;
        }
        for (int dx = -1; dx <= 1; ++dx) {
          const int mx = neighbour_coordinate(cx, dx, g.nx, g.periodic_x);
          if (mx < 0 || (!s.fluid && cell_fluid(row + mx) == 0)) continue;
          if (Mode == NeighbourMode::sorted) {
            const int end = cell_start(row + mx + 1);
            for (int j = cell_start(row + mx); j < end; ++j) visit(s, j, sums);
          } else {
            for (int j = head(row + mx); j >= 0; j = next(j)) visit(s, j, sums);
          }
        }
      }
    }
    drho(i) = sums.drho;
    visc(i) = sums.visc_max;
    if (s.fluid) {
      ax(i) = sums.ax + k.gx;
      ay(i) = sums.ay + k.gy;
      az(i) = sums.az + k.gz;
    } else {
      ax(i) = ay(i) = az(i) = 0.0f;
    }
  }
};

template <class Space>
void compute_interaction(NeighbourMode mode, const KernelConstants& k, const CellGrid& g,
                         const ParticleArrays<typename Space::memory_space>& p,
                         const CellLists<typename Space::memory_space>& lists,
                         RhsArrays<typename Space::memory_space>& out) {
  using Mem = typename Space::memory_space;
  Kokkos::RangePolicy<Space> all(0, p.size());
  auto launch = [&](auto mode_constant, const char* label) {  // a NeighbourMode integral_constant
    InteractionKernel<Mem, decltype(mode_constant)::value> f{k,
                                                             g,
                                                             p.x,
                                                             p.y,
                                                             p.z,
                                                             p.vx,
                                                             p.vy,
                                                             p.vz,
                                                             p.rho,
                                                             p.kind,
                                                             lists.cell_start,
                                                             lists.head,
                                                             lists.next,
                                                             lists.cell_fluid,
                                                             out.drho,
                                                             out.ax,
                                                             out.ay,
                                                             out.az,
                                                             out.visc};
    Kokkos::parallel_for(label, all, f);
  };
  if (mode == NeighbourMode::sorted)
    launch(std::integral_constant<NeighbourMode, NeighbourMode::sorted>{},
           "sph.interaction.sorted");
  else
    launch(std::integral_constant<NeighbourMode, NeighbourMode::linked>{},
           "sph.interaction.linked");
}

// Team per cell (the portable twin of a warp-per-cell GPU kernel: Guan et
// al.; DualSPHysics' cell mode): one team per cell of the renumbered
// particles. The team stages the neighbour candidates of its cell (the 9 row
// ranges of the 27-cell stencil, 27 cell ranges along a periodic x) chunk by
// chunk in team scratch, and each lane computes particles of the team's cell
// against the staged chunk, so a candidate is read from memory once per cell
// instead of once per particle of the cell. A particle's sums outlive the
// chunks, so they live in team scratch. Neighbours are visited in the order of
// the thread-per-particle walk (InteractionKernel, sorted): each sum adds the
// same terms in the same order. Team size 1 with kLanes vector lanes
// (docs/architecture.md, "Team per element on every backend"): a warp on
// CUDA, a plain loop on a host space.
template <class Space>
struct TeamPerCellKernel {
  using Mem = typename Space::memory_space;
  // Dynamic schedule: cells are numbered z-major, so a static split of the
  // league gives one host thread the water and another the empty air above.
  using Policy = Kokkos::TeamPolicy<Space, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Member = typename Policy::member_type;
  template <class T>
  using Scratch = Kokkos::View<T*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  static constexpr int kLanes = 32;
  static constexpr int kChunk = 128;  // candidates staged at a time
  static constexpr int kOwn = 64;     // particles of the cell computed per pass
  static constexpr int kFields = 8;   // x y z vx vy vz rho kind per staged candidate
  static constexpr int kSums = 5;     // drho ax ay az visc_max per own particle
  static std::size_t scratch_bytes() {
    return Scratch<float>::shmem_size(kFields * kChunk) + Scratch<int>::shmem_size(kChunk) +
           Scratch<float>::shmem_size(kSums * kOwn);
  }

  KernelConstants k;
  CellGrid g;
  DeviceArray<Mem, const float> x, y, z, vx, vy, vz, rho;
  DeviceArray<Mem, const std::uint8_t> kind;
  DeviceArray<Mem, const int> cell_start, cell_fluid;
  DeviceArray<Mem, float> drho, ax, ay, az, visc;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int c = team.league_rank();
    const int begin = cell_start(c), end = cell_start(c + 1);
    if (begin == end) return;
    const int cells = g.nx * g.ny * g.nz;
    if (c == cells) {  // the bucket of escaped particles: no interaction
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, end - begin), [&](const int a) {
        const int i = begin + a;
        drho(i) = ax(i) = ay(i) = az(i) = visc(i) = 0.0f;
      });
      return;
    }
    // The candidate ranges, in the order of InteractionKernel's walk. A cell
    // without fluid holds only boundary particles, which skip rows without
    // fluid; a boundary particle in a cell with fluid gets nothing from such
    // rows either (boundary-boundary pairs are skipped).
    const int cx = c % g.nx, cy = (c / g.nx) % g.ny, cz = c / (g.nx * g.ny);
    const bool own_fluid = cell_fluid(c) > 0;
    int range_begin[27], range_end[27];
    int ranges = 0;
    for (int dz = -1; dz <= 1; ++dz) {
      const int mz = neighbour_coordinate(cz, dz, g.nz, g.periodic_z);
      if (mz < 0) continue;
      for (int dy = -1; dy <= 1; ++dy) {
        const int my = neighbour_coordinate(cy, dy, g.ny, g.periodic_y);
        if (my < 0) continue;
        const int row = (mz * g.ny + my) * g.nx;
        if (!g.periodic_x) {
          const int lo = cx > 0 ? cx - 1 : 0;
          const int hi = cx < g.nx - 1 ? cx + 1 : g.nx - 1;
          if (!own_fluid) {
            int fluid = 0;
            for (int m = lo; m <= hi; ++m) fluid += cell_fluid(row + m);
            if (fluid == 0) continue;
          }
          range_begin[ranges] = cell_start(row + lo);
          range_end[ranges++] = cell_start(row + hi + 1);
          continue;
        }
        for (int dx = -1; dx <= 1; ++dx) {
          const int mx = neighbour_coordinate(cx, dx, g.nx, 1);
          if (!own_fluid && cell_fluid(row + mx) == 0) continue;
          range_begin[ranges] = cell_start(row + mx);
          range_end[ranges++] = cell_start(row + mx + 1);
        }
      }
    }
    Scratch<float> staged(team.team_scratch(0), kFields * kChunk);
    Scratch<int> staged_index(team.team_scratch(0), kChunk);
    Scratch<float> acc(team.team_scratch(0), kSums * kOwn);
    for (int own = begin; own < end; own += kOwn) {
      const int owned = end - own < kOwn ? end - own : kOwn;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, kSums * owned),
                           [&](const int e) { acc(e) = 0.0f; });
      for (int r = 0; r < ranges; ++r) {
        for (int first = range_begin[r]; first < range_end[r]; first += kChunk) {
          const int count = range_end[r] - first < kChunk ? range_end[r] - first : kChunk;
          team.team_barrier();  // the previous chunk is consumed
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, count), [&](const int q) {
            const int j = first + q;
            float* e = &staged(kFields * q);
            e[0] = x(j), e[1] = y(j), e[2] = z(j);
            e[3] = vx(j), e[4] = vy(j), e[5] = vz(j);
            e[6] = rho(j), e[7] = float(kind(j));
            staged_index(q) = j;
          });
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, owned), [&](const int a) {
            const int i = own + a;
            const bool fluid_i = kind(i) == kFluid;
            const float xi = x(i), yi = y(i), zi = z(i), rho_i = rho(i);
            const float ux = vx(i), uy = vy(i), uz = vz(i);
            const float p_i = tait_pressure(k, rho_i), c_i = sound_speed(k, rho_i);
            float* s = &acc(kSums * a);
            PairSums sums;
            sums.drho = s[0], sums.ax = s[1], sums.ay = s[2], sums.az = s[3], sums.visc_max = s[4];
            for (int q = 0; q < count; ++q) {
              const float* e = &staged(kFields * q);
              const bool fluid_j = e[7] == float(kFluid);
              if (staged_index(q) == i || (!fluid_i && !fluid_j)) continue;
              const float rx = minimum_image(xi - e[0], k.lx, k.periodic_x);
              const float ry = minimum_image(yi - e[1], k.ly, k.periodic_y);
              const float rz = minimum_image(zi - e[2], k.lz, k.periodic_z);
              const float r2 = rx * rx + ry * ry + rz * rz;
              if (r2 >= k.support2) continue;
              add_pair(k, fluid_i, fluid_j, rx, ry, rz, r2, ux - e[3], uy - e[4], uz - e[5], rho_i,
                       p_i, c_i, e[6], sums);
            }
            s[0] = sums.drho, s[1] = sums.ax, s[2] = sums.ay, s[3] = sums.az, s[4] = sums.visc_max;
          });
        }
      }
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, owned), [&](const int a) {
        const int i = own + a;
        const float* s = &acc(kSums * a);
        drho(i) = s[0];
        visc(i) = s[4];
        if (kind(i) == kFluid) {
          ax(i) = s[1] + k.gx;
          ay(i) = s[2] + k.gy;
          az(i) = s[3] + k.gz;
        } else {
          ax(i) = ay(i) = az(i) = 0.0f;
        }
      });
      team.team_barrier();  // acc is reused by the next pass
    }
  }
};

// The interaction of renumbered particles, one team per cell (and one for
// the bucket of escaped particles).
template <class Space>
void compute_interaction_team_per_cell(const KernelConstants& k, const CellGrid& g,
                                       const ParticleArrays<typename Space::memory_space>& p,
                                       const CellLists<typename Space::memory_space>& lists,
                                       RhsArrays<typename Space::memory_space>& out) {
  using Kernel = TeamPerCellKernel<Space>;
  const Kernel f{k,
                 g,
                 p.x,
                 p.y,
                 p.z,
                 p.vx,
                 p.vy,
                 p.vz,
                 p.rho,
                 p.kind,
                 lists.cell_start,
                 lists.cell_fluid,
                 out.drho,
                 out.ax,
                 out.ay,
                 out.az,
                 out.visc};
  typename Kernel::Policy policy(static_cast<int>(g.cells()) + 1, 1, Kernel::kLanes);
  Kokkos::parallel_for("sph.interaction.team_per_cell",
                       policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes())), f);
}

// The cell-list builders are compiled once, in libppkit (cell_lists_kokkos.cpp),
// for every enabled execution space; other libraries and executables that
// include this header (the tests, a host code) call those. A second instance
// elsewhere carries a second copy of their Kokkos kernels beside libppkit's,
// and on CUDA libppkit's interaction launches then failed
// (cudaFuncGetAttributes: invalid resource handle) whenever the test
// executable had not launched its own copy first.
#define PPKIT_SPH_CELL_LIST_BUILDERS(EXTERN, SPACE)                                                \
  EXTERN template void build_linked_list<SPACE>(const CellGrid&,                                   \
                                                const ParticleArrays<SPACE::memory_space>&,        \
                                                CellLists<SPACE::memory_space>&);                  \
  EXTERN template void renumber_by_cell<SPACE>(                                                    \
      const CellGrid&, ParticleArrays<SPACE::memory_space>&, ParticleArrays<SPACE::memory_space>&, \
      CellLists<SPACE::memory_space>&);
// Expands PPKIT_SPH_CELL_LIST_BUILDERS(EXTERN, space) for each enabled space.
#if defined(KOKKOS_ENABLE_SERIAL)
#define PPKIT_SPH_CELL_LISTS_SERIAL(EXTERN) PPKIT_SPH_CELL_LIST_BUILDERS(EXTERN, Kokkos::Serial)
#else
#define PPKIT_SPH_CELL_LISTS_SERIAL(EXTERN)
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
#define PPKIT_SPH_CELL_LISTS_OPENMP(EXTERN) PPKIT_SPH_CELL_LIST_BUILDERS(EXTERN, Kokkos::OpenMP)
#else
#define PPKIT_SPH_CELL_LISTS_OPENMP(EXTERN)
#endif
#if defined(KOKKOS_ENABLE_THREADS)
#define PPKIT_SPH_CELL_LISTS_THREADS(EXTERN) PPKIT_SPH_CELL_LIST_BUILDERS(EXTERN, Kokkos::Threads)
#else
#define PPKIT_SPH_CELL_LISTS_THREADS(EXTERN)
#endif
#if defined(KOKKOS_ENABLE_CUDA)
#define PPKIT_SPH_CELL_LISTS_CUDA(EXTERN) PPKIT_SPH_CELL_LIST_BUILDERS(EXTERN, Kokkos::Cuda)
#else
#define PPKIT_SPH_CELL_LISTS_CUDA(EXTERN)
#endif
#if defined(KOKKOS_ENABLE_HIP) && KOKKOS_VERSION >= 40000
#define PPKIT_SPH_CELL_LISTS_HIP(EXTERN) PPKIT_SPH_CELL_LIST_BUILDERS(EXTERN, Kokkos::HIP)
#elif defined(KOKKOS_ENABLE_HIP)
#define PPKIT_SPH_CELL_LISTS_HIP(EXTERN) \
  PPKIT_SPH_CELL_LIST_BUILDERS(EXTERN, Kokkos::Experimental::HIP)
#else
#define PPKIT_SPH_CELL_LISTS_HIP(EXTERN)
#endif
// The formatter does not settle on this macro's layout.
// clang-format off
#define PPKIT_SPH_CELL_LISTS_ALL(EXTERN)                                       \
  PPKIT_SPH_CELL_LISTS_SERIAL(EXTERN)                                          \
  PPKIT_SPH_CELL_LISTS_OPENMP(EXTERN)                                          \
  PPKIT_SPH_CELL_LISTS_THREADS(EXTERN)                                         \
  PPKIT_SPH_CELL_LISTS_CUDA(EXTERN)                                            \
  PPKIT_SPH_CELL_LISTS_HIP(EXTERN)
// clang-format on

PPKIT_SPH_CELL_LISTS_ALL(extern)

}  // namespace ppkit::sph::kokkos_impl
