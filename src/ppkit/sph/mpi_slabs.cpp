#include "ppkit/sph/mpi_slabs.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <numeric>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "ppkit/core/checkpoint.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/kokkos_spaces.hpp"
#include "ppkit/sph/checkpoint.hpp"
#include "ppkit/sph/kokkos_step.hpp"

namespace ppkit::sph {

namespace {

using namespace kokkos_impl;
using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;
constexpr bool data_in_host_memory = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;

// One particle's whole state, as it travels between ranks (ghosts and migrants).
struct Record {
  float x, y, z, vx, vy, vz, rho;
  std::int32_t id, kind;
};
template <class T>
using View = Kokkos::View<T*, Mem>;
using Range = std::pair<int, int>;

// Host copy of a structure of arrays (all its entries).
Particles download_all(const ParticleArrays<Mem>& s);

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The first n particles of a structure of arrays (views into its storage).
ParticleArrays<Mem> head(const ParticleArrays<Mem>& a, int n) {
  ParticleArrays<Mem> h;
  const Range r(0, n);
  h.x = Kokkos::subview(a.x, r);
  h.y = Kokkos::subview(a.y, r);
  h.z = Kokkos::subview(a.z, r);
  h.vx = Kokkos::subview(a.vx, r);
  h.vy = Kokkos::subview(a.vy, r);
  h.vz = Kokkos::subview(a.vz, r);
  h.rho = Kokkos::subview(a.rho, r);
  h.kind = Kokkos::subview(a.kind, r);
  h.id = Kokkos::subview(a.id, r);
  return h;
}

void grow(ParticleArrays<Mem>& a, int capacity) {
  Kokkos::resize(a.x, capacity);
  Kokkos::resize(a.y, capacity);
  Kokkos::resize(a.z, capacity);
  Kokkos::resize(a.vx, capacity);
  Kokkos::resize(a.vy, capacity);
  Kokkos::resize(a.vz, capacity);
  Kokkos::resize(a.rho, capacity);
  Kokkos::resize(a.kind, capacity);
  Kokkos::resize(a.id, capacity);
}

// Makes a scratch view hold at least n entries (contents not kept).
template <class V>
void fit(V& v, std::size_t n) {
  if (v.extent(0) < n) v = V(v.label(), n + n / 4 + 16);
}

// Writes particle records into slots of a particle array: record k goes to
// slot at(offset + k) (at: the renumbering's old -> new index, or none),
// ghosts with id -(id + 1) so that later kernels can tell them apart.
struct Unpack {
  ParticleArrays<Mem> s;
  View<const Record> in;
  View<const int> at;
  int offset;
  bool mapped, ghost;
  KOKKOS_INLINE_FUNCTION void operator()(int k) const {
    const int i = mapped ? at(offset + k) : offset + k;
    const Record& r = in(k);
    s.x(i) = r.x, s.y(i) = r.y, s.z(i) = r.z;
    s.vx(i) = r.vx, s.vy(i) = r.vy, s.vz(i) = r.vz;
    s.rho(i) = r.rho;
    s.kind(i) = std::uint8_t(r.kind);
    s.id(i) = ghost ? -(r.id + 1) : r.id;
  }
};

// Reads the records of particles index(k) (mapped through `at` when set).
struct Pack {
  ParticleArrays<Mem> s;
  View<const int> index, at;
  bool mapped;
  View<Record> out;
  KOKKOS_INLINE_FUNCTION void operator()(int k) const {
    const int i = mapped ? at(index(k)) : index(k);
    out(k) = Record{s.x(i),   s.y(i),  s.z(i),
                    s.vx(i),  s.vy(i), s.vz(i),
                    s.rho(i), s.id(i), std::int32_t(s.kind(i))};
  }
};

// The messages of one exchange with the two neighbours.
struct Exchange {
  View<Record> send[2], receive[2];  // [0]: left neighbour, [1]: right
  Kokkos::View<Record*, PinnedHostSpace> host_send[2], host_receive[2];  // staged path only
  int send_count[2] = {0, 0}, receive_count[2] = {0, 0};
};

// Runs f on every rank; when it throws on any, every rank throws the message
// of the lowest failing rank (so that no rank waits in a collective forever).
template <class F>
void collectively(MPI_Comm comm, F&& f) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string text[2];  // the problem and what would be valid
  int failed = INT_MAX;
  try {
    f();
  } catch (const Error& e) {
    text[0] = e.problem();
    text[1] = e.valid();
    failed = rank;
  } catch (const std::exception& e) {
    text[0] = e.what();
    failed = rank;
  }
  int first = INT_MAX;
  MPI_Allreduce(&failed, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == INT_MAX) return;
  for (auto& t : text) {
    int length = int(t.size());
    MPI_Bcast(&length, 1, MPI_INT, first, comm);
    t.resize(std::size_t(length));
    MPI_Bcast(t.data(), length, MPI_CHAR, first, comm);
  }
  throw Error(text[0], text[1]);
}

}  // namespace

std::string rank_checkpoint_path(const std::string& path, int rank) {
  return path + ".rank" + std::to_string(rank);
}

std::vector<int> balanced_columns(const std::vector<std::int64_t>& weight, int ranks) {
  const int columns = int(weight.size());
  require(ranks >= 1 && ranks <= columns,
          std::to_string(ranks) + " ranks for " + std::to_string(columns) + " cell columns",
          "at most one rank per cell column along x (a coarser --dp, or fewer ranks)");
  std::vector<std::int64_t> prefix(std::size_t(columns) + 1, 0);
  for (int c = 0; c < columns; ++c)
    prefix[std::size_t(c) + 1] = prefix[std::size_t(c)] + weight[std::size_t(c)];
  const double total = double(prefix.back());
  std::vector<int> b(std::size_t(ranks) + 1, 0);
  b[std::size_t(ranks)] = columns;
  for (int k = 1; k < ranks; ++k) {
    const double target = total * k / ranks;
    int c = int(std::lower_bound(prefix.begin(), prefix.end(), std::int64_t(std::ceil(target))) -
                prefix.begin());
    if (c > 0 && std::abs(double(prefix[std::size_t(c - 1)]) - target) <=
                     std::abs(double(prefix[std::size_t(std::min(c, columns))]) - target))
      --c;
    // At least one column per slab on either side.
    c = std::max(c, b[std::size_t(k - 1)] + 1);
    c = std::min(c, columns - (ranks - k));
    b[std::size_t(k)] = c;
  }
  return b;
}

struct MpiSphSolver::Impl {
  MPI_Comm comm;
  int rank = 0, nranks = 1, left = MPI_PROC_NULL, right = MPI_PROC_NULL;
  MpiSphOptions options;
  bool direct = true;
  Parameters params;
  KernelConstants constants;
  CellGrid grid;
  DomainBox domain{};
  std::int64_t total_particles = 0;
  std::vector<int> columns;  // slab boundaries b_0..b_R (cell columns along x)

  // state: the owned particles in [0, owned), ghosts appended during a step;
  // spare: the renumbering's scratch, the predictor's start state and the
  // migration's target (the two swap).
  ParticleArrays<Mem> state, spare;
  int capacity = 0, owned = 0;
  CellLists<Mem> lists;
  RhsArrays<Mem> rhs;
  View<int> column, inverse, index[3];
  View<int> histogram;
  Exchange ghosts, migrants;
  bool renumbered = false;

  double time = 0;
  std::int64_t steps = 0, escaped = 0;
  MpiSphStats stats;

  Impl(const Case& c, MPI_Comm cm, const MpiSphOptions& o);
  void reserve(int n);
  void load(const Particles& mine);
  int first() const { return columns[std::size_t(rank)]; }
  int end() const { return columns[std::size_t(rank) + 1]; }
  void compute_columns(int n);
  template <class Pred>
  int select(int n, int list, Pred pred);
  void exchange(Exchange& x, bool count_bytes);
  void exchange_ghosts();
  void refresh_ghosts();
  std::int64_t migrate();
  void migrate_all();
  void rebalance();
  Solver::StepInfo step();
};

MpiSphSolver::Impl::Impl(const Case& c, MPI_Comm cm, const MpiSphOptions& o)
    : comm(cm), options(o), params(c.params) {
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  right = rank + 1 < nranks ? rank + 1 : MPI_PROC_NULL;
  validate(params);
  require(!params.domain.periodic[0], "MPI slabs along a periodic x axis",
          "a case without periodicity along x (the single-rank solver runs periodic x)");
  require(o.balance_every >= 0, "balance interval " + std::to_string(o.balance_every),
          "0 (never) or a positive number of steps");
  require(o.balance_threshold > 0, "balance threshold " + std::to_string(o.balance_threshold),
          "> 0 (e.g. 0.1 for 10%)");
  require(o.reorder.every >= 0, "reorder interval " + std::to_string(o.reorder.every),
          "0 (never) or a positive number of steps");
  constants = make_kernel_constants(params);
  grid = make_cell_grid(params);
  domain = domain_box(params.domain);
  direct = mpi::halo_is_direct(o.halo, data_in_host_memory);
  total_particles = std::int64_t(c.particles.size());
  require(std::size_t(total_particles) < std::size_t(INT_MAX / sizeof(Record)),
          std::to_string(total_particles) + " particles", "fewer than 2^31 / 36 per case");
  // Initial slabs: fluid particles per column split evenly (every rank builds
  // the same case, so no communication is needed).
  const Particles& p = c.particles;
  std::vector<std::int64_t> weight(std::size_t(grid.nx), 0);
  std::vector<int> col(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    col[i] =
        p.kind[i] == kEscaped ? -1 : cell_coordinate(p.x[i], grid.lo_x, grid.inv_cell_x, grid.nx);
    if (p.kind[i] == kFluid) ++weight[std::size_t(col[i])];
  }
  columns = balanced_columns(weight, nranks);
  Particles mine;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const bool home = col[i] < 0 ? rank == 0 : col[i] >= first() && col[i] < end();
    if (!home) continue;
    mine.x.push_back(p.x[i]), mine.y.push_back(p.y[i]), mine.z.push_back(p.z[i]);
    mine.vx.push_back(p.vx[i]), mine.vy.push_back(p.vy[i]), mine.vz.push_back(p.vz[i]);
    mine.rho.push_back(p.rho[i]), mine.kind.push_back(p.kind[i]), mine.id.push_back(p.id[i]);
  }
  histogram = View<int>("sph.mpi.histogram", std::size_t(grid.nx));
  for (int d = 0; d < 2; ++d) {
    ghosts.send[d] = View<Record>("sph.mpi.ghost_send", 0);
    ghosts.receive[d] = View<Record>("sph.mpi.ghost_receive", 0);
    migrants.send[d] = View<Record>("sph.mpi.migrant_send", 0);
    migrants.receive[d] = View<Record>("sph.mpi.migrant_receive", 0);
  }
  load(mine);
  escaped = std::int64_t(p.count(kEscaped));
}

void MpiSphSolver::Impl::reserve(int n) {
  if (n <= capacity && capacity > 0) return;
  const int grown = std::max(n + n / 4 + 64, capacity);
  if (capacity == 0) {
    state = ParticleArrays<Mem>("sph.mpi", std::size_t(grown));
    spare = ParticleArrays<Mem>("sph.mpi.spare", std::size_t(grown));
    column = View<int>("sph.mpi.column", std::size_t(grown));
    inverse = View<int>("sph.mpi.inverse", std::size_t(grown));
    for (auto& v : index) v = View<int>("sph.mpi.index", std::size_t(grown));
  } else {
    grow(state, grown);  // keeps the owned particles
    grow(spare, grown);
    Kokkos::resize(column, grown);
    Kokkos::resize(inverse, grown);
    for (auto& v : index) Kokkos::resize(v, grown);
  }
  lists = CellLists<Mem>(std::size_t(grown), grid.cells());
  rhs = RhsArrays<Mem>(std::size_t(grown));
  capacity = grown;
}

void MpiSphSolver::Impl::load(const Particles& mine) {
  reserve(int(mine.size()));
  owned = int(mine.size());
  auto s = head(state, owned);
  upload(s.x, mine.x);
  upload(s.y, mine.y);
  upload(s.z, mine.z);
  upload(s.vx, mine.vx);
  upload(s.vy, mine.vy);
  upload(s.vz, mine.vz);
  upload(s.rho, mine.rho);
  upload(s.kind, mine.kind);
  upload(s.id, mine.id);
}

// column(i): the cell column along x of particle i, -1 for escaped particles
// (they stay where they escaped and are nobody's ghost).
void MpiSphSolver::Impl::compute_columns(int n) {
  auto col = column;
  auto x = state.x;
  auto kind = state.kind;
  const CellGrid g = grid;
  Kokkos::parallel_for(
      "sph.mpi.column", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(int i) {
        col(i) = kind(i) == kEscaped ? -1 : cell_coordinate(x(i), g.lo_x, g.inv_cell_x, g.nx);
      });
}

// index[list] = the i < n with pred(i), in increasing order; returns how many.
template <class Pred>
int MpiSphSolver::Impl::select(int n, int list, Pred pred) {
  auto out = index[list];
  int count = 0;
  Kokkos::parallel_scan(
      "sph.mpi.select", Kokkos::RangePolicy<Exec>(0, n),
      KOKKOS_LAMBDA(int i, int& running, bool final) {
        if (!pred(i)) return;
        if (final) out(running) = i;
        ++running;
      },
      count);
  return count;
}

// Sends send[0] left and send[1] right, receiving receive[0] from the left and
// receive[1] from the right; receive counts must be set. Through the device
// arrays themselves (direct) or pinned host copies (staged).
void MpiSphSolver::Impl::exchange(Exchange& x, bool count_bytes) {
  const int peer[2] = {left, right};
  MPI_Request requests[4];
  int pending = 0;
  Exec().fence();
  for (int d = 0; d < 2; ++d) {
    if (peer[d] == MPI_PROC_NULL) continue;
    const int bytes_in = x.receive_count[d] * int(sizeof(Record));
    void* in = x.receive[d].data();
    if (!direct) {
      fit(x.host_receive[d], std::size_t(x.receive_count[d]));
      in = x.host_receive[d].data();
    }
    MPI_Irecv(in, bytes_in, MPI_BYTE, peer[d], 1 - d, comm, &requests[pending++]);
  }
  for (int d = 0; d < 2; ++d) {
    if (peer[d] == MPI_PROC_NULL) continue;
    const int n = x.send_count[d];
    const void* out = x.send[d].data();
    if (!direct) {
      fit(x.host_send[d], std::size_t(n));
      Kokkos::deep_copy(Kokkos::subview(x.host_send[d], Range(0, n)),
                        Kokkos::subview(x.send[d], Range(0, n)));
      out = x.host_send[d].data();
    }
    MPI_Isend(out, n * int(sizeof(Record)), MPI_BYTE, peer[d], d, comm, &requests[pending++]);
    if (count_bytes) stats.halo_bytes += double(n) * sizeof(Record);
  }
  MPI_Waitall(pending, requests, MPI_STATUSES_IGNORE);
  if (!direct)
    for (int d = 0; d < 2; ++d)
      if (peer[d] != MPI_PROC_NULL)
        Kokkos::deep_copy(Kokkos::subview(x.receive[d], Range(0, x.receive_count[d])),
                          Kokkos::subview(x.host_receive[d], Range(0, x.receive_count[d])));
}

// Step 1: the owned particles of the first column go left as ghosts, those of
// the last column right; received ghosts are appended after the owned ones
// (left neighbour's first), with negative ids.
void MpiSphSolver::Impl::exchange_ghosts() {
  const auto t0 = std::chrono::steady_clock::now();
  compute_columns(owned);
  auto col = column;
  const int b = first(), e = end();
  const int to_left = left == MPI_PROC_NULL
                          ? 0
                          : select(
                                owned, 0, KOKKOS_LAMBDA(int i) { return col(i) == b; });
  const int to_right = right == MPI_PROC_NULL
                           ? 0
                           : select(
                                 owned, 1, KOKKOS_LAMBDA(int i) { return col(i) == e - 1; });
  ghosts.send_count[0] = to_left;
  ghosts.send_count[1] = to_right;
  for (int d = 0; d < 2; ++d) {
    fit(ghosts.send[d], std::size_t(ghosts.send_count[d]));
    Kokkos::parallel_for("sph.mpi.pack_ghosts", Kokkos::RangePolicy<Exec>(0, ghosts.send_count[d]),
                         Pack{state, index[d], inverse, false, ghosts.send[d]});
  }
  // Counts first, so that the receivers size their arrays.
  MPI_Request requests[4];
  int pending = 0;
  ghosts.receive_count[0] = ghosts.receive_count[1] = 0;
  const int peer[2] = {left, right};
  for (int d = 0; d < 2; ++d)
    if (peer[d] != MPI_PROC_NULL) {
      MPI_Irecv(&ghosts.receive_count[d], 1, MPI_INT, peer[d], 11 - d, comm, &requests[pending++]);
      MPI_Isend(&ghosts.send_count[d], 1, MPI_INT, peer[d], 10 + d, comm, &requests[pending++]);
    }
  MPI_Waitall(pending, requests, MPI_STATUSES_IGNORE);
  for (int d = 0; d < 2; ++d) fit(ghosts.receive[d], std::size_t(ghosts.receive_count[d]));
  exchange(ghosts, true);
  reserve(owned + ghosts.receive_count[0] + ghosts.receive_count[1]);
  int offset = owned;
  for (int d = 0; d < 2; ++d) {
    Kokkos::parallel_for("sph.mpi.unpack_ghosts",
                         Kokkos::RangePolicy<Exec>(0, ghosts.receive_count[d]),
                         Unpack{state, ghosts.receive[d], inverse, offset, false, true});
    offset += ghosts.receive_count[d];
  }
  Exec().fence();
  stats.halo_seconds += seconds_since(t0);
}

// Step 3: the same ghosts again, at their predicted state. The particles may
// have been renumbered since exchange_ghosts(): `inverse` maps the indices of
// then to those of now.
void MpiSphSolver::Impl::refresh_ghosts() {
  const auto t0 = std::chrono::steady_clock::now();
  for (int d = 0; d < 2; ++d)
    Kokkos::parallel_for("sph.mpi.pack_ghosts", Kokkos::RangePolicy<Exec>(0, ghosts.send_count[d]),
                         Pack{state, index[d], inverse, renumbered, ghosts.send[d]});
  exchange(ghosts, true);
  int offset = owned;
  for (int d = 0; d < 2; ++d) {
    Kokkos::parallel_for("sph.mpi.unpack_ghosts",
                         Kokkos::RangePolicy<Exec>(0, ghosts.receive_count[d]),
                         Unpack{state, ghosts.receive[d], inverse, offset, renumbered, true});
    offset += ghosts.receive_count[d];
  }
  Exec().fence();
  stats.halo_seconds += seconds_since(t0);
}

// One migration pass over the n particles in `state`: ghosts (negative ids)
// are dropped, particles whose column is left of the slab go to the left
// neighbour, right of it to the right one, the rest (escaped included) stay,
// in order. Returns how many received particles are still not home (they
// move on in the next pass, after a rebalance).
std::int64_t MpiSphSolver::Impl::migrate() {
  const int n = owned + ghosts.receive_count[0] + ghosts.receive_count[1];
  ghosts.receive_count[0] = ghosts.receive_count[1] = 0;
  compute_columns(n);
  auto col = column;
  auto id = state.id;
  const int b = first(), e = end();
  const int keep = select(
      n, 2,
      KOKKOS_LAMBDA(int i) { return id(i) >= 0 && (col(i) < 0 || (col(i) >= b && col(i) < e)); });
  migrants.send_count[0] = select(
      n, 0, KOKKOS_LAMBDA(int i) { return id(i) >= 0 && col(i) >= 0 && col(i) < b; });
  migrants.send_count[1] = select(
      n, 1, KOKKOS_LAMBDA(int i) { return id(i) >= 0 && col(i) >= e; });
  require((left != MPI_PROC_NULL || migrants.send_count[0] == 0) &&
              (right != MPI_PROC_NULL || migrants.send_count[1] == 0),
          "a particle left the outermost slab", "cell columns clamped to the grid");
  for (int d = 0; d < 2; ++d) {
    fit(migrants.send[d], std::size_t(migrants.send_count[d]));
    Kokkos::parallel_for("sph.mpi.pack_migrants",
                         Kokkos::RangePolicy<Exec>(0, migrants.send_count[d]),
                         Pack{state, index[d], inverse, false, migrants.send[d]});
    stats.migrated += migrants.send_count[d];
  }
  // Compact the particles that stay into spare, then swap.
  {
    auto from = state;
    auto to = spare;
    auto kept = index[2];
    Kokkos::parallel_for(
        "sph.mpi.compact", Kokkos::RangePolicy<Exec>(0, keep), KOKKOS_LAMBDA(int k) {
          const int i = kept(k);
          to.x(k) = from.x(i), to.y(k) = from.y(i), to.z(k) = from.z(i);
          to.vx(k) = from.vx(i), to.vy(k) = from.vy(i), to.vz(k) = from.vz(i);
          to.rho(k) = from.rho(i), to.kind(k) = from.kind(i), to.id(k) = from.id(i);
        });
    std::swap(state, spare);
  }
  MPI_Request requests[4];
  int pending = 0;
  const int peer[2] = {left, right};
  migrants.receive_count[0] = migrants.receive_count[1] = 0;
  for (int d = 0; d < 2; ++d)
    if (peer[d] != MPI_PROC_NULL) {
      MPI_Irecv(&migrants.receive_count[d], 1, MPI_INT, peer[d], 21 - d, comm,
                &requests[pending++]);
      MPI_Isend(&migrants.send_count[d], 1, MPI_INT, peer[d], 20 + d, comm, &requests[pending++]);
    }
  MPI_Waitall(pending, requests, MPI_STATUSES_IGNORE);
  for (int d = 0; d < 2; ++d) fit(migrants.receive[d], std::size_t(migrants.receive_count[d]));
  exchange(migrants, false);
  const int arrived = migrants.receive_count[0] + migrants.receive_count[1];
  reserve(keep + arrived);
  int offset = keep;
  for (int d = 0; d < 2; ++d) {
    Kokkos::parallel_for("sph.mpi.unpack_migrants",
                         Kokkos::RangePolicy<Exec>(0, migrants.receive_count[d]),
                         Unpack{state, migrants.receive[d], inverse, offset, false, false});
    offset += migrants.receive_count[d];
  }
  owned = keep + arrived;
  // Arrivals not in this slab (possible only after the boundaries moved).
  compute_columns(owned);
  col = column;
  std::int64_t astray = 0;
  Kokkos::parallel_reduce(
      "sph.mpi.astray", Kokkos::RangePolicy<Exec>(keep, owned),
      KOKKOS_LAMBDA(int i, std::int64_t& sum) {
        if (col(i) >= 0 && (col(i) < b || col(i) >= e)) ++sum;
      },
      astray);
  return astray;
}

// Migration passes until every particle is on the rank of its column (one
// pass unless the boundaries moved by more than a slab).
void MpiSphSolver::Impl::migrate_all() {
  for (;;) {
    std::int64_t astray = migrate(), total = 0;
    MPI_Allreduce(&astray, &total, 1, MPI_INT64_T, MPI_SUM, comm);
    if (total == 0) return;
  }
}

// Step 5. Boundaries move in whole cell columns: every rank then keeps the
// global cell grid (the same cell of every particle on every rank, the same
// stencil as one rank), a slab's halo stays exactly one column (cells are at
// least the kernel support 2h wide), and owner and ghost follow from one
// integer, the particle's column, so no particle is both or neither.
void MpiSphSolver::Impl::rebalance() {
  auto kind = state.kind;
  std::int64_t mine = 0;
  Kokkos::parallel_reduce(
      "sph.mpi.fluid_count", Kokkos::RangePolicy<Exec>(0, owned),
      KOKKOS_LAMBDA(int i, std::int64_t& sum) { sum += kind(i) == kFluid ? 1 : 0; }, mine);
  std::vector<std::int64_t> count(std::size_t(nranks), 0);
  MPI_Allgather(&mine, 1, MPI_INT64_T, count.data(), 1, MPI_INT64_T, comm);
  const double mean = double(std::accumulate(count.begin(), count.end(), std::int64_t(0))) / nranks;
  double drift = 0;
  for (auto n : count) drift = std::max(drift, std::abs(double(n) - mean));
  if (mean <= 0 || drift <= options.balance_threshold * mean) return;
  // Fluid particles per column over all ranks.
  compute_columns(owned);
  auto col = column;
  auto hist = histogram;
  Kokkos::deep_copy(hist, 0);
  Kokkos::parallel_for(
      "sph.mpi.histogram", Kokkos::RangePolicy<Exec>(0, owned), KOKKOS_LAMBDA(int i) {
        if (kind(i) == kFluid && col(i) >= 0) Kokkos::atomic_increment(&hist(col(i)));
      });
  std::vector<int> local(std::size_t(grid.nx));
  download(hist, local);
  std::vector<std::int64_t> mine_w(local.begin(), local.end()), weight(local.size());
  MPI_Allreduce(mine_w.data(), weight.data(), grid.nx, MPI_INT64_T, MPI_SUM, comm);
  const std::vector<int> next = balanced_columns(weight, nranks);
  if (next == columns) return;
  columns = next;
  ++stats.rebalances;
  migrate_all();
}

Solver::StepInfo MpiSphSolver::Impl::step() {
  const auto t0 = std::chrono::steady_clock::now();
  Solver::StepInfo info;
  exchange_ghosts();
  auto compute_start = std::chrono::steady_clock::now();
  const int n = owned + ghosts.receive_count[0] + ghosts.receive_count[1];
  info.reordered = options.reorder.reorder_at(steps);
  renumbered = info.reordered;
  NeighbourMode mode = NeighbourMode::linked;
  {
    auto work = head(state, n);
    if (info.reordered) {
      auto scratch = head(spare, n);
      renumber_by_cell<Exec>(grid, work, scratch, lists);
      std::swap(state, spare);  // the renumbered particles are in spare's storage
      mode = NeighbourMode::sorted;
      // inverse(old index) = new index, for refresh_ghosts().
      auto perm = lists.permutation;
      auto inv = inverse;
      Kokkos::parallel_for(
          "sph.mpi.inverse", Kokkos::RangePolicy<Exec>(0, n),
          KOKKOS_LAMBDA(int k) { inv(perm(k)) = k; });
    } else {
      build_linked_list<Exec>(grid, work, lists);
    }
  }
  auto work = head(state, n);
  auto start = head(spare, n);
  compute_interaction<Exec>(mode, constants, grid, work, lists, rhs);
  // Ghosts' right-hand sides miss the neighbours beyond the halo: zero them,
  // so that the dt maxima see owned particles only.
  {
    auto id = work.id;
    auto r = rhs;
    Kokkos::parallel_for(
        "sph.mpi.ghost_rhs", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(int i) {
          if (id(i) < 0) r.drho(i) = r.ax(i) = r.ay(i) = r.az(i) = r.visc(i) = 0.0f;
        });
  }
  float local_max[3] = {0, 0, 0}, global_max[3] = {0, 0, 0};
  fluid_maxima<Exec>(work, rhs, n, local_max[0], local_max[1], local_max[2]);
  stats.compute_seconds += seconds_since(compute_start);  // the maxima are on the host: fenced
  MPI_Allreduce(local_max, global_max, 3, MPI_FLOAT, MPI_MAX, comm);
  info.dt = time_step_from_maxima(params, global_max[0], global_max[1], global_max[2]);
  const float dt = float(info.dt);
  Kokkos::RangePolicy<Exec> all(0, n);
  Kokkos::parallel_for("sph.predictor", all,
                       Predictor<Mem>{dt, constants.rho0, domain, work, start, rhs});
  refresh_ghosts();
  compute_start = std::chrono::steady_clock::now();
  compute_interaction<Exec>(mode, constants, grid, work, lists, rhs);
  Kokkos::parallel_for("sph.corrector", all,
                       Corrector<Mem>{dt, constants.rho0, domain, work, start, rhs});
  {
    // Ghosts are done: marked escaped so that escape counting and the blow-up
    // search see owned particles only; migrate() drops them.
    auto id = work.id;
    auto kind = work.kind;
    Kokkos::parallel_for(
        "sph.mpi.retire_ghosts", all, KOKKOS_LAMBDA(int i) {
          if (id(i) < 0) kind(i) = kEscaped;
        });
  }
  long long escaped_now = 0;
  Kokkos::parallel_reduce(
      "sph.escape", all,
      MarkEscaped<Mem>{domain, float(params.rho0 / params.rho_blowup_factor), work}, escaped_now);
  int bad = n;
  Kokkos::parallel_reduce("sph.blowup", all,
                          FindBlowUp<Mem>{float(params.rho0 * params.rho_blowup_factor), n, work},
                          Kokkos::Min<int>(bad));
  long long local_sum[2] = {escaped_now, bad < n ? 1 : 0}, sum[2] = {0, 0};
  stats.compute_seconds += seconds_since(compute_start);
  MPI_Allreduce(local_sum, sum, 2, MPI_LONG_LONG, MPI_SUM, comm);
  escaped += sum[0];
  ++steps;
  time += info.dt;
  if (sum[1] > 0)
    collectively(comm, [&] {
      if (bad >= n) return;
      const Particles s = download_all(work);
      const auto i = std::size_t(bad);
      std::ostringstream what;
      what << "SPH blow-up at step " << steps << " (t = " << time << " s) on rank " << rank
           << ": particle " << s.id[i] << " (" << (s.kind[i] == kFluid ? "fluid" : "boundary")
           << ") has density " << s.rho[i] << " kg/m^3, position (" << s.x[i] << ", " << s.y[i]
           << ", " << s.z[i] << ") m, velocity (" << s.vx[i] << ", " << s.vy[i] << ", " << s.vz[i]
           << ") m/s";
      throw Error(what.str(), "a finite state with density below " +
                                  std::to_string(params.rho_blowup_factor) +
                                  " rho0; try a smaller CFL number or a finer --dp");
    });
  migrate_all();
  if (options.balance_every > 0 && steps % options.balance_every == 0) rebalance();
  ++stats.steps;
  stats.seconds += seconds_since(t0);
  return info;
}

namespace {
Particles download_all(const ParticleArrays<Mem>& s) {
  Particles out;
  download(s.x, out.x);
  download(s.y, out.y);
  download(s.z, out.z);
  download(s.vx, out.vx);
  download(s.vy, out.vy);
  download(s.vz, out.vz);
  download(s.rho, out.rho);
  download(s.kind, out.kind);
  download(s.id, out.id);
  return out;
}

// Records of the host particles selected by `keep`, and back.
template <class Keep>
std::vector<Record> records_of(const Particles& s, Keep keep) {
  std::vector<Record> out;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (keep(i))
      out.push_back(Record{s.x[i], s.y[i], s.z[i], s.vx[i], s.vy[i], s.vz[i], s.rho[i], s.id[i],
                           std::int32_t(s.kind[i])});
  return out;
}
Particles particles_of(const std::vector<Record>& r) {
  Particles out;
  out.resize(r.size());
  for (std::size_t i = 0; i < r.size(); ++i) {
    out.x[i] = r[i].x, out.y[i] = r[i].y, out.z[i] = r[i].z;
    out.vx[i] = r[i].vx, out.vy[i] = r[i].vy, out.vz[i] = r[i].vz;
    out.rho[i] = r[i].rho, out.kind[i] = std::uint8_t(r[i].kind), out.id[i] = r[i].id;
  }
  return out;
}

// Rank 0 gets everyone's records (in rank order); the others an empty vector.
std::vector<Record> gather_records(const std::vector<Record>& mine, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const int bytes = int(mine.size() * sizeof(Record));
  std::vector<int> counts(std::size_t(ranks), 0), offsets(std::size_t(ranks), 0);
  MPI_Gather(&bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  std::vector<Record> all;
  if (rank == 0) {
    long long total = 0;
    for (int r = 0; r < ranks; ++r) {
      offsets[std::size_t(r)] = int(total);
      total += counts[std::size_t(r)];
    }
    require(total < INT_MAX, "gathering " + std::to_string(total) + " bytes of particles",
            "fewer than 2^31 bytes (fewer particles)");
    all.resize(std::size_t(total) / sizeof(Record));
  }
  MPI_Gatherv(mine.data(), bytes, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, 0,
              comm);
  return all;
}
}  // namespace

MpiSphSolver::MpiSphSolver(const Case& c, MPI_Comm comm, const MpiSphOptions& options) {
  collectively(comm, [&] { impl_ = std::make_unique<Impl>(c, comm, options); });
}
MpiSphSolver::~MpiSphSolver() = default;

Solver::StepInfo MpiSphSolver::step() { return impl_->step(); }
double MpiSphSolver::time() const { return impl_->time; }
std::int64_t MpiSphSolver::steps_done() const { return impl_->steps; }
std::int64_t MpiSphSolver::escaped() const { return impl_->escaped; }
Particles MpiSphSolver::local_state() { return download_all(head(impl_->state, impl_->owned)); }
int MpiSphSolver::rank() const { return impl_->rank; }
MPI_Comm MpiSphSolver::comm() const { return impl_->comm; }
int MpiSphSolver::ranks() const { return impl_->nranks; }
int MpiSphSolver::first_column() const { return impl_->first(); }
int MpiSphSolver::end_column() const { return impl_->end(); }
const std::vector<int>& MpiSphSolver::slab_columns() const { return impl_->columns; }
std::string MpiSphSolver::halo_path() const {
  return mpi::halo_path_name(impl_->direct, data_in_host_memory);
}
const MpiSphStats& MpiSphSolver::stats() const { return impl_->stats; }
void MpiSphSolver::reset_stats() { impl_->stats = MpiSphStats{}; }

MpiParticleCounts MpiSphSolver::counts() const {
  auto kind = impl_->state.kind;
  MpiParticleCounts c;
  std::int64_t fluid = 0, boundary = 0;
  Kokkos::RangePolicy<Exec> all(0, impl_->owned);
  Kokkos::parallel_reduce(
      "sph.mpi.fluid", all,
      KOKKOS_LAMBDA(int i, std::int64_t& f) { f += kind(i) == kFluid ? 1 : 0; }, fluid);
  Kokkos::parallel_reduce(
      "sph.mpi.boundary", all,
      KOKKOS_LAMBDA(int i, std::int64_t& b) { b += kind(i) == kBoundary ? 1 : 0; }, boundary);
  c.fluid = fluid;
  c.boundary = boundary;
  c.escaped = impl_->owned - fluid - boundary;
  return c;
}

Particles MpiSphSolver::gather_state() {
  const Particles mine = local_state();
  Particles all =
      particles_of(gather_records(records_of(mine, [](std::size_t) { return true; }), impl_->comm));
  if (impl_->rank == 0) {
    require(std::int64_t(all.size()) == impl_->total_particles,
            "the ranks hold " + std::to_string(all.size()) + " particles",
            std::to_string(impl_->total_particles) + ", as in the case");
    all.sort_by_id();
  }
  return all;
}

ProbeSample MpiSphSolver::measure(const ProbeLayout& layout) {
  const Particles mine = local_state();
  const Parameters& p = impl_->params;
  const double reach = 2 * p.h * 1.001;  // a superset of measure_probes()'s kernel support
  auto near = [&](std::size_t j) {
    if (mine.kind[j] == kEscaped) return false;
    for (const auto& xy : layout.height_xy) {
      const double dx = mine.x[j] - xy[0], dy = mine.y[j] - xy[1];
      if (dx * dx + dy * dy < reach * reach) return true;
    }
    for (const auto& pt : layout.pressure_xyz)
      if (std::abs(mine.x[j] - pt[0]) < reach && std::abs(mine.y[j] - pt[1]) < reach &&
          std::abs(mine.z[j] - pt[2]) < reach)
        return true;
    return false;
  };
  const Particles near_probes = particles_of(gather_records(records_of(mine, near), impl_->comm));
  ProbeSample sample;
  if (impl_->rank == 0) sample = measure_probes(layout, p, near_probes, impl_->time);
  MPI_Bcast(sample.height.data(), 4, MPI_DOUBLE, 0, impl_->comm);
  MPI_Bcast(sample.pressure.data(), 8, MPI_DOUBLE, 0, impl_->comm);
  sample.time = impl_->time;
  return sample;
}

void MpiSphSolver::write_checkpoint(const std::string& path) {
  const Particles s = local_state();
  collectively(impl_->comm, [&] {
    checkpoint::Content out("sph-mpi");
    out.put_scalar("time", impl_->time);
    out.put_scalar("step", impl_->steps);
    out.put_scalar("escaped", impl_->escaped);
    out.put_scalar("dp", impl_->params.dp);
    out.put_scalar("h", impl_->params.h);
    out.put_scalar("rank", std::int64_t(impl_->rank));
    out.put_scalar("ranks", std::int64_t(impl_->nranks));
    out.put_scalar("particles", impl_->total_particles);
    out.put("slab_columns",
            std::vector<std::int32_t>(impl_->columns.begin(), impl_->columns.end()));
    put_particles(out, s);
    checkpoint::write(rank_checkpoint_path(path, impl_->rank), out);
  });
}

void MpiSphSolver::restore_checkpoint(const std::string& path) {
  Impl& m = *impl_;
  // Rank 0's file says how many ranks wrote the checkpoint: another count is
  // refused before any rank looks for a file that may not exist.
  collectively(m.comm, [&] {
    if (m.rank != 0) return;
    const checkpoint::Content in = checkpoint::read(rank_checkpoint_path(path, 0), "sph-mpi");
    const std::int64_t ranks = in.get_integer("ranks");
    require(ranks == m.nranks,
            "checkpoint '" + path + "' was written by " + std::to_string(ranks) +
                " MPI ranks, this run has " + std::to_string(m.nranks),
            "a restart on " + std::to_string(ranks) + " ranks (mpirun -np " +
                std::to_string(ranks) + "), or a new run from t = 0");
  });
  collectively(m.comm, [&] {
    const std::string file = rank_checkpoint_path(path, m.rank);
    const checkpoint::Content in = checkpoint::read(file, "sph-mpi");
    require(
        in.get_integer("rank") == m.rank && in.get_integer("ranks") == m.nranks,
        "checkpoint file '" + file + "' is rank " + std::to_string(in.get_integer("rank")) +
            " of " + std::to_string(in.get_integer("ranks")),
        "the files of one checkpoint, " + path + ".rank0 .. rank" + std::to_string(m.nranks - 1));
    require(in.get_integer("particles") == m.total_particles &&
                std::abs(in.get_double("dp") - m.params.dp) < 1e-12,
            "checkpoint '" + path + "' holds " + std::to_string(in.get_integer("particles")) +
                " particles at dp " + std::to_string(in.get_double("dp")),
            "a checkpoint of the same case (" + std::to_string(m.total_particles) +
                " particles, dp " + std::to_string(m.params.dp) + ")");
    const auto columns = in.get<std::int32_t>("slab_columns");
    require(columns.size() == std::size_t(m.nranks) + 1 && columns.back() == m.grid.nx,
            "checkpoint '" + file + "' has slab columns for another grid",
            std::to_string(m.nranks + 1) + " boundaries ending at " + std::to_string(m.grid.nx));
    const Particles s = get_particles(in, file);
    m.columns.assign(columns.begin(), columns.end());
    m.load(s);
    m.time = in.get_double("time");
    m.steps = in.get_integer("step");
    m.escaped = in.get_integer("escaped");
  });
  std::int64_t mine = m.owned, total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, m.comm);
  require(total == m.total_particles,
          "checkpoint '" + path + "' holds " + std::to_string(total) + " particles in all",
          std::to_string(m.total_particles) + ", as in the case");
}

RunSummary run_mpi_simulation(MpiSphSolver& solver, const Case& c, const ProbeLayout& layout,
                              const RunOptions& o) {
  validate(o);
  require(o.vtk_dir.empty(), "VTK snapshots on MPI ranks",
          "no --vtk with more than one rank (run one rank for snapshots)");
  const auto start = std::chrono::steady_clock::now();
  MPI_Comm comm = solver.comm();
  const MpiParticleCounts mine = solver.counts();
  const std::int64_t local = mine.fluid + mine.boundary + mine.escaped;
  std::int64_t held = 0;
  MPI_Allreduce(&local, &held, 1, MPI_INT64_T, MPI_SUM, comm);
  require(held == std::int64_t(c.particles.size()),
          "the MPI solver holds " + std::to_string(held) + " particles, the case " +
              std::to_string(c.particles.size()),
          "a solver built from this case");
  if (!o.restart_file.empty()) solver.restore_checkpoint(o.restart_file);
  RunSummary summary;
  std::ofstream csv;
  collectively(comm, [&] {
    if (solver.rank() != 0 || o.probes_csv.empty()) return;
    std::vector<std::string> kept;
    if (!o.restart_file.empty()) {
      // Keep the rows up to the restart time (a restart continues the file).
      std::ifstream in(o.probes_csv);
      std::string line;
      if (std::getline(in, line) && line == probe_csv_header())
        while (std::getline(in, line))
          if (std::strtod(line.c_str(), nullptr) <= solver.time() + 1e-6) kept.push_back(line);
    }
    csv.open(o.probes_csv, std::ios::trunc);
    require(bool(csv), "cannot write '" + o.probes_csv + "'", "a writable --probes path");
    csv << probe_csv_header() << "\n";
    for (const auto& row : kept) csv << row << "\n";
  });
  auto sample = [&] {
    const ProbeSample p = solver.measure(layout);
    summary.probes.push_back(p);
    if (csv.is_open()) csv << probe_csv_row(p) << "\n" << std::flush;
  };
  auto next_multiple = [&](double interval) {
    return (std::floor(solver.time() / interval + 1e-9) + 1) * interval;
  };
  if (o.restart_file.empty()) sample();
  double next_probe = next_multiple(o.probe_interval);
  double next_checkpoint = o.checkpoint_file.empty() ? INFINITY : next_multiple(o.checkpoint_every);
  std::int64_t checkpointed_step = -1;
  while (solver.time() < o.t_end - 1e-12) {
    if (o.max_steps >= 0 && summary.steps >= o.max_steps) break;
    solver.step();
    ++summary.steps;
    if (solver.time() >= next_probe) {
      sample();
      next_probe = next_multiple(o.probe_interval);
    }
    if (solver.time() >= next_checkpoint) {
      solver.write_checkpoint(o.checkpoint_file);
      next_checkpoint = next_multiple(o.checkpoint_every);
      checkpointed_step = solver.steps_done();
    }
  }
  if (!o.checkpoint_file.empty() && checkpointed_step != solver.steps_done())  // the final state
    solver.write_checkpoint(o.checkpoint_file);
  summary.time = solver.time();
  summary.escaped = solver.escaped();
  // The slowest rank's wall time.
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MPI_Allreduce(&wall, &summary.wall_seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  return summary;
}

}  // namespace ppkit::sph
