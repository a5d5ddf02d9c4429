#include "ppkit/fdtd/mpi_slabs.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <fstream>

#include "ppkit/core/error.hpp"
#include "ppkit/core/kokkos_spaces.hpp"
#include "ppkit/fdtd/mpi_sar.hpp"
#include "ppkit/fdtd/step_applier.hpp"
#include "ppkit/fdtd/step_features.hpp"
#include "ppkit/fdtd/yee_kokkos_kernels.hpp"

namespace ppkit::fdtd {

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;
constexpr bool fields_in_host_memory =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;

template <class T>
using View = Kokkos::View<T*, Mem>;
template <class T>
using HostUnmanaged = Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
using Range = std::pair<std::size_t, std::size_t>;

template <class T>
View<T> upload(const std::vector<T>& host, const std::string& label) {
  View<T> v(label, std::max<std::size_t>(1, host.size()));
  if (!host.empty())
    Kokkos::deep_copy(Kokkos::subview(v, Range(0, host.size())),
                      HostUnmanaged<const T>(host.data(), host.size()));
  return v;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Point sources of a set of nodes and the probes, with the device arrays
// behind their SourceProbeArgs.
struct SourceProbeSet {
  View<index_t> source_index, probe_index;
  View<std::int32_t> source_component, source_hard, probe_component;
  View<float> source_values, probe_values;
  SourceProbeArgs args{};
};

// One half step's halo: planes `send_plane` of fields a and b go to `to`, the
// neighbour's arrive in `receive_plane` from `from` (local plane indices).
struct Halo {
  int a, b;
  index_t send_plane, receive_plane;
  int to, from, tag;
  Kokkos::View<float*, PinnedHostSpace> send, receive;  // staged path only: [a plane | b plane]
  MPI_Request requests[4];
  int pending = 0;
};

// Collective: returns when `what` (setup, checkpoint, restore) succeeded on
// every rank of comm; otherwise every rank throws ppkit::Error with the
// message of the first failing rank, naming it (so no rank is left waiting
// in a collective for one that gave up).
void agree_on_outcome(MPI_Comm comm, const std::string* failure,
                      const std::string& what = "setup") {
  int rank = 0, first = INT_MAX;
  MPI_Comm_rank(comm, &rank);
  const int mine = failure ? rank : INT_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == INT_MAX) return;
  std::string message = failure ? *failure : std::string();
  int length = int(message.size());
  MPI_Bcast(&length, 1, MPI_INT, first, comm);
  message.resize(std::size_t(length));
  MPI_Bcast(message.data(), length, MPI_CHAR, first, comm);
  throw Error("MPI slab " + what + " failed on rank " + std::to_string(first) + ": " + message);
}

// Runs f() on every rank and agrees on the outcome (agree_on_outcome).
template <class F>
void on_every_rank(MPI_Comm comm, const std::string& what, F f) {
  std::string failure;
  bool failed = false;
  try {
    f();
  } catch (const std::exception& e) {
    failure = e.what();
    failed = true;
  }
  agree_on_outcome(comm, failed ? &failure : nullptr, what);
}

// The checkpoint file of one rank (MpiSlabSolver::write_checkpoint).
std::string rank_file(const std::string& path, int rank) {
  return path + ".rank" + std::to_string(rank);
}
constexpr char checkpoint_magic[] = "ppkit-mpi-slab-checkpoint";

// Makes the solver state on every rank, agreeing on the outcome.
template <class T, class Make>
std::unique_ptr<T> make_on_every_rank(MPI_Comm comm, Make make) {
  std::unique_ptr<T> made;
  on_every_rank(comm, "setup", [&] { made = make(); });
  return made;
}

}  // namespace

// A registered fdtd.step variant stepping this rank's slab (mpi_slabs.hpp).
struct MpiSlabSolver::VariantImpl {
  MPI_Comm comm;
  int rank = 0, ranks = 1;
  YeeGrid grid;  // the global grid
  std::int64_t total_steps = 0, done = 0;
  index_t plane = 0;               // nodes per x-plane
  index_t i_begin = 0, i_end = 0;  // global planes this rank owns
  index_t local_first = 0;         // global plane of local plane 0
  index_t local_nx = 0;
  int left = MPI_PROC_NULL, right = MPI_PROC_NULL;
  std::string name;
  YeeGrid local_grid;
  std::unique_ptr<PreparedRun<FdtdStep::Result>> run;
  StepApplier* applier = nullptr;
  std::vector<float> send_left, send_right, receive_left, receive_right;
  std::size_t n_probes = 0;
  std::vector<std::size_t> probe_rows;  // global probe number of each local probe
  std::vector<std::int64_t> energy_steps, energy_taken;
  std::size_t next_energy = 0;
  std::vector<double> energy;
  std::vector<float> eps, mu;  // per owned node
  double cell_volume = 0;
  PhasorConfig phasors;
  MpiSlabStats stats;
  bool overlap = false;  // edge planes first, halo sent while the rest is updated
  MPI_Request requests[4];

  VariantImpl(const FdtdStep::Problem& p, MPI_Comm c, const std::string& variant,
              bool overlap_requested);
  index_t owned_local(index_t i) const { return i - local_first; }
  // Plane `local` of each field in `components` to (into_field) or from
  // consecutive planes of `buffer`.
  void copy(const std::vector<int>& components, index_t local, std::vector<float>& buffer,
            bool into_field) {
    const std::size_t n = std::size_t(plane);
    for (std::size_t q = 0; q < components.size(); ++q)
      applier->copy_planes(components[q], local, 1, buffer.data() + q * n, into_field, local_grid);
  }
  void post_halo();
  void complete_halo();
  void step(std::int64_t n);
  // The owned x range of the phasor box on rank r: [first, end) global planes.
  std::pair<index_t, index_t> phasor_planes(const NodeBox& box, int r) const {
    const index_t planes = grid.nx + 1;
    const index_t b = planes * r / ranks, e = planes * (r + 1) / ranks;
    return {std::max(b, box.lo[0]), std::min(e, box.hi[0])};
  }
  FdtdStep::Result result(bool gather_fields, bool gather_phasors);
  SarMaps sar(const SarInput& input, bool gather_maps);
};

MpiSlabSolver::VariantImpl::VariantImpl(const FdtdStep::Problem& p, MPI_Comm c,
                                        const std::string& variant, bool overlap_requested)
    : comm(c), grid(p.grid), total_steps(p.steps), n_probes(p.probes.size()) {
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const StepSetup setup = make_step_setup(p);
  require(!p.periodic[0], "MPI slabs along x with periodic x",
          "periodic y only (the transverse axis; x is the slab axis), or one rank");
  require(p.plane_waves.empty() && p.snapshots.empty() && p.far_field.empty(),
          "MPI slabs do not run plane waves, snapshots or the near-to-far-field transform",
          "a single-rank variant for those");
  require(p.precision == Precision::fp32, "MPI slabs run fp32 only",
          "precision fp32, or a single-rank variant for fp64");
  require(ranks <= grid.nx + 1,
          std::to_string(ranks) + " MPI ranks for " + std::to_string(grid.nx + 1) +
              " node planes along x",
          "at most nx + 1 ranks (one plane each)");
  plane = grid.stride_x();
  cell_volume = setup.cell_volume;
  energy_steps = setup.energy_steps;
  phasors = p.phasors;
  const index_t planes = grid.nx + 1;
  i_begin = planes * rank / ranks;
  i_end = planes * (rank + 1) / ranks;
  left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  right = rank + 1 < ranks ? rank + 1 : MPI_PROC_NULL;
  // One halo plane on each side that is not a global face.
  local_first = i_begin - (rank > 0 ? 1 : 0);
  local_nx = i_end - 1 + (rank + 1 < ranks ? 1 : 0) - local_first;
  require(local_nx >= 1, "a grid of a single node plane along x", "nx >= 1");

  FdtdStep::Problem q;
  q.grid = grid;
  q.grid.nx = local_nx;
  local_grid = q.grid;
  q.slab.first_plane = local_first;
  q.slab.global_nx = grid.nx;
  q.materials = p.materials;
  const auto begin = std::ptrdiff_t(local_first * plane),
             end = std::ptrdiff_t((local_first + local_nx + 1) * plane);
  if (!p.material_id.empty())
    q.material_id.assign(p.material_id.begin() + begin, p.material_id.begin() + end);
  for (int f = 0; f < 6; ++f)
    if (!p.initial[f].empty())
      q.initial[f].assign(p.initial[f].begin() + begin, p.initial[f].begin() + end);
  q.cpml = p.cpml;
  q.steps = p.steps;
  q.energy_interval = 0;  // the variant's own energy (halo planes included) is not used
  q.periodic = p.periodic;
  q.precision = p.precision;
  auto owns = [&](index_t i) { return i >= i_begin && i < i_end; };
  for (const auto& src : p.sources)
    if (owns(src.i)) {
      q.sources.push_back(src);
      q.sources.back().i -= local_first;
    }
  for (std::size_t k = 0; k < p.probes.size(); ++k)
    if (owns(p.probes[k].i)) {
      q.probes.push_back(p.probes[k]);
      q.probes.back().i -= local_first;
      probe_rows.push_back(k);
    }
  if (p.phasors.enabled()) {
    // This rank's planes of the box, in local coordinates (empty: no phasors here).
    const NodeBox box = resolve_box(p.phasors, grid);
    const auto [first, last] = phasor_planes(box, rank);
    if (first < last) {
      q.phasors = p.phasors;
      q.phasors.box = box;
      q.phasors.box.lo[0] = first - local_first;
      q.phasors.box.hi[0] = last - local_first;
    }
  }
  // Material eps and mu of the owned nodes, for the energy.
  eps.resize(std::size_t((i_end - i_begin) * plane));
  mu.resize(eps.size());
  for (std::size_t n = 0; n < eps.size(); ++n) {
    const std::size_t id = setup.material_id[std::size_t(i_begin * plane) + n];
    eps[n] = setup.material_table[id * material_stride + coef_eps];
    mu[n] = setup.material_table[id * material_stride + coef_mu];
  }

  const Variant<FdtdStep>& v = slab_variant(variant, p);
  name = v.name;
  run = v.prepare(q);
  applier = dynamic_cast<StepApplier*>(run.get());
  require(applier != nullptr, "variant " + v.name + " cannot be stepped step by step",
          "a variant whose prepared run implements StepApplier: " + slab_variant_names());
  applier->restart();
  applier->wait(nullptr);
  overlap = overlap_requested && v.traits.slab_overlap && ranks > 1;
  send_left.resize(std::size_t(2 * plane));
  receive_right.resize(std::size_t(2 * plane));
  send_right.resize(std::size_t(3 * plane));
  receive_left.resize(std::size_t(3 * plane));
}

// The halo of a step: Ey, Ez of the first owned plane to the left
// neighbour's last plane, and Ex, Ey, Ez of the last owned plane to the
// right neighbour's plane 0. That is all the owned planes' next updates need
// (yee_grid.hpp stencils): H at plane i reads Ey, Ez at i + 1; E at i reads
// Hy, Hz at i - 1, and Hy, Hz of the halo plane i_begin - 1 are updated here
// from its E (Ex in-plane, Ey, Ez across), their own history and CPML memory,
// all of which equal the neighbour's; only Ex there can carry a source this
// rank does not apply, so it travels too. post_halo() copies the owned edge
// planes out (after the queued updates of this step's E there) and posts the
// messages; complete_halo() waits and writes the halo planes (after the
// queued updates of the rest of the step, which also wrote them).
void MpiSlabSolver::VariantImpl::post_halo() {
  static const std::vector<int> to_left{1, 2}, to_right{0, 1, 2};
  if (left != MPI_PROC_NULL) copy(to_left, owned_local(i_begin), send_left, false);
  if (right != MPI_PROC_NULL) copy(to_right, owned_local(i_end - 1), send_right, false);
  MPI_Irecv(receive_left.data(), int(receive_left.size()), MPI_FLOAT, left, 31, comm, &requests[0]);
  MPI_Irecv(receive_right.data(), int(receive_right.size()), MPI_FLOAT, right, 32, comm,
            &requests[1]);
  MPI_Isend(send_left.data(), int(send_left.size()), MPI_FLOAT, left, 32, comm, &requests[2]);
  MPI_Isend(send_right.data(), int(send_right.size()), MPI_FLOAT, right, 31, comm, &requests[3]);
}

void MpiSlabSolver::VariantImpl::complete_halo() {
  static const std::vector<int> to_left{1, 2}, to_right{0, 1, 2};
  MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
  if (left != MPI_PROC_NULL) {
    copy(to_right, 0, receive_left, true);
    stats.halo_bytes += double(send_left.size() * sizeof(float));
  }
  if (right != MPI_PROC_NULL) {
    copy(to_left, local_nx, receive_right, true);
    stats.halo_bytes += double(send_right.size() * sizeof(float));
  }
}

// With overlap, the owned edge planes' E is updated first (begin_step), sent,
// and the rest of the step runs while it travels (finish_step); otherwise the
// whole step, then the exchange. Both leave the same fields bit for bit.
void MpiSlabSolver::VariantImpl::step(std::int64_t n) {
  if (overlap) {
    std::vector<index_t> edges;
    if (left != MPI_PROC_NULL) edges.push_back(owned_local(i_begin));
    if (right != MPI_PROC_NULL) edges.push_back(owned_local(i_end - 1));
    applier->begin_step(edges);
    auto t0 = std::chrono::steady_clock::now();
    post_halo();
    stats.halo_seconds += seconds_since(t0);
    applier->finish_step();
    t0 = std::chrono::steady_clock::now();
    complete_halo();
    stats.halo_seconds += seconds_since(t0);
  } else {
    applier->advance(1, nullptr);
    const auto t0 = std::chrono::steady_clock::now();
    if (ranks > 1) {
      post_halo();
      complete_halo();
    }
    stats.halo_seconds += seconds_since(t0);
  }
  if (next_energy < energy_steps.size() && energy_steps[next_energy] == n) {
    // 1/2 sum(eps E^2 + mu H^2) dV over the owned nodes, in double as the reference.
    const std::size_t nodes = eps.size();
    std::vector<float> f(nodes);
    double local = 0;
    for (int c = 0; c < 6; ++c) {
      applier->copy_planes(c, owned_local(i_begin), i_end - i_begin, f.data(), false, local_grid);
      const std::vector<float>& coef = c < 3 ? eps : mu;
      for (std::size_t k = 0; k < nodes; ++k) local += 0.5 * double(coef[k]) * double(f[k]) * f[k];
    }
    double total = 0;
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
    energy_taken.push_back(n);
    energy.push_back(total * cell_volume);
    ++next_energy;
  }
}

FdtdStep::Result MpiSlabSolver::VariantImpl::result(bool gather_fields, bool gather_phasors) {
  FdtdStep::Result r;
  r.energy_steps = energy_taken;
  r.energy = energy;
  const std::size_t steps = std::size_t(total_steps);
  std::vector<float> mine(n_probes * steps, 0.0f);
  if (!probe_rows.empty()) {
    const std::vector<double> local = applier->probe_record();
    for (std::size_t q = 0; q < probe_rows.size(); ++q)
      for (std::size_t s = 0; s < steps; ++s)
        mine[probe_rows[q] * steps + s] = float(local[q * steps + s]);
  }
  r.probe_values.assign(mine.size(), 0.0f);
  require(mine.size() < std::size_t(INT_MAX), "too many probe values for one MPI reduction");
  if (!mine.empty())
    MPI_Allreduce(mine.data(), r.probe_values.data(), int(mine.size()), MPI_FLOAT, MPI_SUM, comm);

  if (phasors.enabled() && gather_phasors) {
    // Each rank's planes of the box are one block per frequency and component.
    const NodeBox box = resolve_box(phasors, grid);
    const PhasorSet local = applier->phasor_sums();
    const std::size_t per_plane = std::size_t((box.hi[1] - box.lo[1]) * (box.hi[2] - box.lo[2]));
    const std::size_t blocks = phasors.frequencies.size() * 6;
    if (rank == 0) {
      r.phasors = make_phasor_set(phasors, grid);
      const std::size_t box_nodes = std::size_t(r.phasors.box_nodes());
      for (int from = 0; from < ranks; ++from) {
        const auto [first, last] = phasor_planes(box, from);
        if (first >= last) continue;
        const std::size_t count = std::size_t(last - first) * per_plane;
        std::vector<float> re(blocks * count), im(blocks * count);
        if (from == 0) {
          re = local.re, im = local.im;
        } else {
          MPI_Recv(re.data(), int(re.size()), MPI_FLOAT, from, 41, comm, MPI_STATUS_IGNORE);
          MPI_Recv(im.data(), int(im.size()), MPI_FLOAT, from, 42, comm, MPI_STATUS_IGNORE);
        }
        const std::size_t offset = std::size_t(first - box.lo[0]) * per_plane;
        for (std::size_t b = 0; b < blocks; ++b) {
          std::copy(re.begin() + std::ptrdiff_t(b * count),
                    re.begin() + std::ptrdiff_t((b + 1) * count),
                    r.phasors.re.begin() + std::ptrdiff_t(b * box_nodes + offset));
          std::copy(im.begin() + std::ptrdiff_t(b * count),
                    im.begin() + std::ptrdiff_t((b + 1) * count),
                    r.phasors.im.begin() + std::ptrdiff_t(b * box_nodes + offset));
        }
      }
    } else if (!local.re.empty()) {
      require(local.re.size() < std::size_t(INT_MAX), "too many phasor sums for one MPI message");
      MPI_Send(local.re.data(), int(local.re.size()), MPI_FLOAT, 0, 41, comm);
      MPI_Send(local.im.data(), int(local.im.size()), MPI_FLOAT, 0, 42, comm);
    }
  }
  if (!gather_fields) return r;

  const std::size_t n = std::size_t(plane), owned = std::size_t(i_end - i_begin);
  std::vector<float> mine_planes(owned * n);
  for (int c = 0; c < 6; ++c) {
    applier->copy_planes(c, owned_local(i_begin), i_end - i_begin, mine_planes.data(), false,
                         local_grid);
    if (rank != 0) {
      for (std::size_t q = 0; q < owned; ++q)
        MPI_Send(mine_planes.data() + q * n, int(n), MPI_FLOAT, 0, c, comm);
      continue;
    }
    auto& field = r.fields[std::size_t(c)];
    field.resize(std::size_t(grid.nodes()));
    std::copy(mine_planes.begin(), mine_planes.end(), field.begin());
    for (int from = 1; from < ranks; ++from) {
      const index_t b = (grid.nx + 1) * from / ranks, e = (grid.nx + 1) * (from + 1) / ranks;
      for (index_t i = b; i < e; ++i)
        MPI_Recv(field.data() + std::size_t(i) * n, int(n), MPI_FLOAT, from, c, comm,
                 MPI_STATUS_IGNORE);
    }
  }
  return r;
}

struct MpiSlabSolver::Impl {
  MPI_Comm comm;
  int rank = 0, ranks = 1;
  MpiSlabOptions options;
  bool direct = false;
  std::string path_name;
  YeeGrid grid;
  std::int64_t total_steps = 0, done = 0;
  std::size_t n_probes = 0;
  double cell_volume = 0;
  std::vector<std::int64_t> energy_steps;  // global steps after which the energy is taken
  std::size_t next_energy = 0;
  std::vector<std::int64_t> energy_taken;
  std::vector<double> energy;

  index_t plane = 0, local_planes = 0;
  SlabRange range{};
  YeeKernelArgs args{};
  Exec exec;
  View<float> fields[6], table, profiles[3][6], psi[12];
  View<std::uint32_t> ids;
  View<std::int32_t> slots[3][2];
  SourceProbeSet seam, bulk;  // sources on the first owned plane; the others and the probes
  std::vector<std::size_t> probe_rows;  // global probe number of each local probe
  Halo h_halo{}, e_halo{};
  MpiSlabStats stats;

  Impl(const FdtdStep::Problem& p, MPI_Comm c, const MpiSlabOptions& o);
  bool owns(index_t i) const { return i >= range.i_begin && i < range.i_end; }
  void fill_sources_and_probes(const FdtdStep::Problem& p, const StepSetup& setup);
  void post(Halo& h);
  void complete(Halo& h);
  void update_h_planes(index_t begin, index_t end) {
    if (begin < end) update_h<Exec>(args, SlabRange{begin, end, range.i_origin});
  }
  void update_e_planes(index_t begin, index_t end) {
    if (begin < end) update_e<Exec>(args, SlabRange{begin, end, range.i_origin});
  }
  void step(std::int64_t n);
  std::vector<float> owned_planes(int c) const;
  // The slab's state in checkpoint order: fields, psi, probe record.
  std::vector<View<float>> state_views() const {
    std::vector<View<float>> v(fields, fields + 6);
    v.insert(v.end(), psi, psi + 12);
    v.push_back(bulk.probe_values);
    return v;
  }
  // What identifies the run a checkpoint belongs to.
  std::vector<std::int64_t> identity() const {
    return {ranks, rank, grid.nx, grid.ny, grid.nz, total_steps, range.i_begin, range.i_end};
  }
  void write_checkpoint(const std::string& path) const;
  void restore(const std::string& path);
};

void MpiSlabSolver::Impl::write_checkpoint(const std::string& path) const {
  exec.fence();
  if (rank == 0) {
    std::ofstream manifest(path);
    manifest << checkpoint_magic << "\nranks " << ranks << "\nsteps " << done << "\n";
    require(bool(manifest), "cannot write the checkpoint manifest " + path,
            "a writable path on a file system every rank sees");
  }
  std::ofstream out(rank_file(path, rank), std::ios::binary);
  auto put = [&](const void* data, std::size_t bytes) {
    out.write(static_cast<const char*>(data), std::streamsize(bytes));
  };
  const auto id = identity();
  put(checkpoint_magic, sizeof checkpoint_magic);
  put(id.data(), id.size() * sizeof(std::int64_t));
  put(&done, sizeof done);
  for (const auto& view : state_views()) {
    std::vector<float> host(view.extent(0));
    Kokkos::deep_copy(HostUnmanaged<float>(host.data(), host.size()), view);
    put(host.data(), host.size() * sizeof(float));
  }
  const std::int64_t taken = std::int64_t(energy_taken.size());
  put(&taken, sizeof taken);
  put(energy_taken.data(), energy_taken.size() * sizeof(std::int64_t));
  put(energy.data(), energy.size() * sizeof(double));
  require(bool(out), "cannot write the checkpoint " + rank_file(path, rank),
          "a writable path on a file system every rank sees");
}

void MpiSlabSolver::Impl::restore(const std::string& path) {
  std::ifstream manifest(path);
  std::string magic, key;
  int written_ranks = 0;
  manifest >> magic >> key >> written_ranks;
  require(bool(manifest) && magic == checkpoint_magic && key == "ranks",
          "cannot read " + path + " as an MPI slab checkpoint",
          "the path given to MpiSlabSolver::write_checkpoint()");
  require(written_ranks == ranks,
          "checkpoint " + path + " was written by " + std::to_string(written_ranks) +
              " MPI ranks, this run has " + std::to_string(ranks),
          "mpirun -np " + std::to_string(written_ranks) +
              " (each rank restores its own slab, so a restart keeps the rank count)");
  std::ifstream in(rank_file(path, rank), std::ios::binary);
  auto get = [&](void* data, std::size_t bytes) {
    in.read(static_cast<char*>(data), std::streamsize(bytes));
    require(bool(in), "checkpoint " + rank_file(path, rank) + " is truncated or unreadable",
            "the complete files write_checkpoint() wrote");
  };
  char file_magic[sizeof checkpoint_magic] = {};
  get(file_magic, sizeof file_magic);
  std::vector<std::int64_t> id(identity().size());
  get(id.data(), id.size() * sizeof(std::int64_t));
  require(std::string(file_magic) == checkpoint_magic && id == identity(),
          "checkpoint " + rank_file(path, rank) + " belongs to another problem or slab",
          "a checkpoint of the same grid, steps and rank count");
  std::int64_t steps_done = 0;
  get(&steps_done, sizeof steps_done);
  for (const auto& view : state_views()) {
    std::vector<float> host(view.extent(0));
    get(host.data(), host.size() * sizeof(float));
    Kokkos::deep_copy(view, HostUnmanaged<const float>(host.data(), host.size()));
  }
  std::int64_t taken = 0;
  get(&taken, sizeof taken);
  require(taken >= 0 && std::size_t(taken) <= energy_steps.size(),
          "checkpoint " + rank_file(path, rank) + " records " + std::to_string(taken) + " energies",
          "at most the problem's energy steps");
  energy_taken.resize(std::size_t(taken));
  energy.resize(std::size_t(taken));
  get(energy_taken.data(), energy_taken.size() * sizeof(std::int64_t));
  get(energy.data(), energy.size() * sizeof(double));
  next_energy = std::size_t(taken);
  done = steps_done;
  exec.fence();
}

MpiSlabSolver::Impl::Impl(const FdtdStep::Problem& p, MPI_Comm c, const MpiSlabOptions& o)
    : comm(c), options(o), grid(p.grid), total_steps(p.steps), n_probes(p.probes.size()) {
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const StepSetup setup = make_step_setup(p);
  require(!p.periodic[0] && !p.periodic[1] && !p.phasors.enabled(),
          "MPI slabs do not implement periodic boundaries or phasors",
          "a single-rank variant of fdtd.step for periodic columns and phasors");
  require(p.plane_waves.empty() && p.snapshots.empty() && p.far_field.empty(),
          "MPI slabs do not run plane waves, snapshots or the near-to-far-field transform",
          "a single-rank variant for those");
  require(p.precision == Precision::fp32, "MPI slabs run fp32 only",
          "precision fp32, or a single-rank kokkos-<space>/plain or /split variant for fp64");
  require(ranks <= grid.nx + 1,
          std::to_string(ranks) + " MPI ranks for " + std::to_string(grid.nx + 1) +
              " node planes along x",
          "at most nx + 1 ranks (one plane each)");
  plane = (grid.ny + 1) * (grid.nz + 1);
  require(plane < INT_MAX / 2, "an x-plane is too large for one MPI message",
          "(ny + 1)(nz + 1) < 2^30 nodes");
  cell_volume = setup.cell_volume;
  energy_steps = setup.energy_steps;

  const index_t planes = grid.nx + 1;
  range.i_begin = planes * rank / ranks;
  range.i_end = planes * (rank + 1) / ranks;
  range.i_origin = range.i_begin - 1;
  local_planes = range.i_end - range.i_begin + 2;
  const std::size_t local_nodes = std::size_t(local_planes * plane);
  args.nx = grid.nx;
  args.ny = grid.ny;
  args.nz = grid.nz;
  args.layers = 2 * setup.cpml.thickness;

  // Local copies of the per-node inputs over the stored planes that exist
  // (ghost planes included, so the halos start consistent).
  auto local_slice = [&](auto fill, const auto& global) {
    std::vector<std::decay_t<decltype(fill)>> out(local_nodes, fill);
    for (index_t li = 0; li < local_planes; ++li) {
      const index_t i = range.i_origin + li;
      if (i < 0 || i > grid.nx || global.empty()) continue;
      std::copy(global.begin() + std::ptrdiff_t(i * plane),
                global.begin() + std::ptrdiff_t((i + 1) * plane),
                out.begin() + std::ptrdiff_t(li * plane));
    }
    return out;
  };
  float** field_args[6] = {&args.ex, &args.ey, &args.ez, &args.hx, &args.hy, &args.hz};
  for (int f = 0; f < 6; ++f) {
    // Zero fields need no host copy (Kokkos zero-fills new views).
    fields[f] = p.initial[f].empty() ? View<float>("fdtd slab field", local_nodes)
                                     : upload(local_slice(0.0f, p.initial[f]), "fdtd slab field");
    *field_args[f] = fields[f].data();
  }
  ids = upload(local_slice(0u, setup.material_id), "fdtd slab material id");
  args.material_id = ids.data();
  table = upload(setup.material_table, "fdtd material table");
  args.material_table = table.data();
  for (int d = 0; d < 3; ++d) {
    const CpmlAxis& ax = setup.cpml.axis[d];
    CpmlAxisArgs& aa = args.axis[d];
    const std::vector<float>* parts[6] = {&ax.e_inv_kd, &ax.e_b, &ax.e_c_d,
                                          &ax.h_inv_kd, &ax.h_b, &ax.h_c_d};
    const float** targets[6] = {&aa.e_inv_kd, &aa.e_b, &aa.e_c_d, &aa.h_inv_kd, &aa.h_b, &aa.h_c_d};
    for (int s = 0; s < 6; ++s) {
      profiles[d][s] = upload(*parts[s], "fdtd cpml profile");
      *targets[s] = profiles[d][s].data();
    }
    slots[d][0] = upload(ax.e_slot, "fdtd cpml slot");
    slots[d][1] = upload(ax.h_slot, "fdtd cpml slot");
    aa.e_slot = slots[d][0].data();
    aa.h_slot = slots[d][1].data();
  }
  // x layers are indexed by the global slot, y and z layers by the local plane.
  const std::size_t layers = std::size_t(args.layers);
  const std::size_t sizes[3] = {layers * std::size_t(plane),
                                layers * std::size_t(local_planes * (grid.nz + 1)),
                                layers * std::size_t(local_planes * (grid.ny + 1))};
  float** psi_args[12] = {&args.psi_eyx, &args.psi_ezx, &args.psi_hyx, &args.psi_hzx,
                          &args.psi_exy, &args.psi_ezy, &args.psi_hxy, &args.psi_hzy,
                          &args.psi_exz, &args.psi_eyz, &args.psi_hxz, &args.psi_hyz};
  for (int q = 0; q < 12; ++q) {
    psi[q] = View<float>("fdtd psi", std::max<std::size_t>(1, sizes[q / 4]));
    *psi_args[q] = psi[q].data();
  }
  fill_sources_and_probes(p, setup);

  // Halo route. H: my last owned plane -> right neighbour's plane i_begin - 1.
  // E: my first owned plane -> left neighbour's plane i_end.
  direct = mpi::halo_is_direct(options.halo, fields_in_host_memory);
  path_name = mpi::halo_path_name(direct, fields_in_host_memory);
  const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  const int right = rank + 1 < ranks ? rank + 1 : MPI_PROC_NULL;
  h_halo.a = 4, h_halo.b = 5, h_halo.send_plane = local_planes - 2, h_halo.receive_plane = 0;
  h_halo.to = right, h_halo.from = left, h_halo.tag = 10;
  e_halo.a = 1, e_halo.b = 2, e_halo.send_plane = 1, e_halo.receive_plane = local_planes - 1;
  e_halo.to = left, e_halo.from = right, e_halo.tag = 20;
  if (!direct)
    for (Halo* h : {&h_halo, &e_halo}) {
      h->send = Kokkos::View<float*, PinnedHostSpace>("fdtd halo send", std::size_t(2 * plane));
      h->receive =
          Kokkos::View<float*, PinnedHostSpace>("fdtd halo receive", std::size_t(2 * plane));
    }
  exec.fence();
}

void MpiSlabSolver::Impl::fill_sources_and_probes(const FdtdStep::Problem& p,
                                                  const StepSetup& setup) {
  const std::size_t steps = std::size_t(p.steps);
  // Sources on the first owned plane apply right after that plane's E update
  // (before it is sent); all others after the rest of the slab.
  for (SourceProbeSet* set : {&seam, &bulk}) {
    std::vector<index_t> source_index, probe_index;
    std::vector<std::int32_t> source_component, source_hard, probe_component;
    std::vector<float> source_values;
    for (std::size_t s = 0; s < p.sources.size(); ++s) {
      const index_t i = p.sources[s].i;
      if (!owns(i) || (i == range.i_begin) != (set == &seam)) continue;
      source_index.push_back(setup.source_index[s] - range.i_origin * plane);
      source_component.push_back(setup.source_component[s]);
      source_hard.push_back(setup.source_hard[s]);
      source_values.insert(source_values.end(),
                           setup.source_values.begin() + std::ptrdiff_t(s * steps),
                           setup.source_values.begin() + std::ptrdiff_t((s + 1) * steps));
    }
    if (set == &bulk)
      for (std::size_t q = 0; q < p.probes.size(); ++q)
        if (owns(p.probes[q].i)) {
          probe_index.push_back(setup.probe_index[q] - range.i_origin * plane);
          probe_component.push_back(setup.probe_component[q]);
          probe_rows.push_back(q);
        }
    set->source_index = upload(source_index, "fdtd source index");
    set->source_component = upload(source_component, "fdtd source component");
    set->source_hard = upload(source_hard, "fdtd source hard");
    set->source_values = upload(source_values, "fdtd source values");
    set->probe_index = upload(probe_index, "fdtd probe index");
    set->probe_component = upload(probe_component, "fdtd probe component");
    set->probe_values =
        View<float>("fdtd probe values", std::max<std::size_t>(1, probe_index.size() * steps));
    SourceProbeArgs& a = set->args;
    a.n_sources = std::int64_t(source_index.size());
    a.n_probes = std::int64_t(probe_index.size());
    a.steps = p.steps;
    a.source_index = set->source_index.data();
    a.source_component = set->source_component.data();
    a.source_hard = set->source_hard.data();
    a.source_values = set->source_values.data();
    a.probe_index = set->probe_index.data();
    a.probe_component = set->probe_component.data();
    a.probe_values = set->probe_values.data();
  }
}

// Posts the receives and sends of one halo. The planes to send must be final
// on the device (the caller fenced). Staged: copied to pinned memory first.
void MpiSlabSolver::Impl::post(Halo& h) {
  const std::size_t n = std::size_t(plane);
  h.pending = 0;
  if (direct) {
    float* from_fields[2] = {fields[h.a].data(), fields[h.b].data()};
    for (int c = 0; c < 2; ++c)
      MPI_Irecv(from_fields[c] + std::size_t(h.receive_plane) * n, int(n), MPI_FLOAT, h.from,
                h.tag + c, comm, &h.requests[h.pending++]);
    for (int c = 0; c < 2; ++c)
      MPI_Isend(from_fields[c] + std::size_t(h.send_plane) * n, int(n), MPI_FLOAT, h.to, h.tag + c,
                comm, &h.requests[h.pending++]);
  } else {
    MPI_Irecv(h.receive.data(), int(2 * n), MPI_FLOAT, h.from, h.tag, comm,
              &h.requests[h.pending++]);
    if (h.to != MPI_PROC_NULL) {
      const Range plane_range(std::size_t(h.send_plane) * n, std::size_t(h.send_plane + 1) * n);
      Kokkos::deep_copy(exec, Kokkos::subview(h.send, Range(0, n)),
                        Kokkos::subview(fields[h.a], plane_range));
      Kokkos::deep_copy(exec, Kokkos::subview(h.send, Range(n, 2 * n)),
                        Kokkos::subview(fields[h.b], plane_range));
      exec.fence();
    }
    MPI_Isend(h.send.data(), int(2 * n), MPI_FLOAT, h.to, h.tag, comm, &h.requests[h.pending++]);
  }
  if (h.to != MPI_PROC_NULL) stats.halo_bytes += double(2 * n * sizeof(float));
}

// Waits for one halo; staged: the received planes are copied to the device in
// stream order (kernels launched later see them).
void MpiSlabSolver::Impl::complete(Halo& h) {
  MPI_Waitall(h.pending, h.requests, MPI_STATUSES_IGNORE);
  h.pending = 0;
  if (!direct && h.from != MPI_PROC_NULL) {
    const std::size_t n = std::size_t(plane);
    const Range plane_range(std::size_t(h.receive_plane) * n, std::size_t(h.receive_plane + 1) * n);
    Kokkos::deep_copy(exec, Kokkos::subview(fields[h.a], plane_range),
                      Kokkos::subview(h.receive, Range(0, n)));
    Kokkos::deep_copy(exec, Kokkos::subview(fields[h.b], plane_range),
                      Kokkos::subview(h.receive, Range(n, 2 * n)));
  }
}

// One leapfrog step n (0-based). On entry and on exit the ghost planes hold
// the neighbours' current Ey, Ez (plane i_end) and Hy, Hz (plane i_begin - 1).
void MpiSlabSolver::Impl::step(std::int64_t n) {
  using clock = std::chrono::steady_clock;
  const index_t first = range.i_begin, end = range.i_end;
  auto timed = [&](auto&& what) {
    const auto t0 = clock::now();
    what();
    stats.halo_seconds += seconds_since(t0);
  };
  if (options.overlap && ranks > 1) {
    // H: the plane the right neighbour needs, post, the rest while it travels, wait.
    update_h_planes(end - 1, end);
    exec.fence();
    timed([&] { post(h_halo); });
    update_h_planes(first, end - 1);
    timed([&] { complete(h_halo); });
    // E: the plane the left neighbour needs (and its sources), post, the rest, wait.
    update_e_planes(first, first + 1);
    apply_sources_and_probes<Exec>(args, seam.args, n);
    exec.fence();
    timed([&] { post(e_halo); });
    update_e_planes(first + 1, end);
    apply_sources_and_probes<Exec>(args, bulk.args, n);
    timed([&] { complete(e_halo); });
  } else {
    update_h_planes(first, end);
    exec.fence();
    timed([&] {
      post(h_halo);
      complete(h_halo);
      exec.fence();
    });
    update_e_planes(first, end);
    apply_sources_and_probes<Exec>(args, seam.args, n);
    apply_sources_and_probes<Exec>(args, bulk.args, n);
    exec.fence();
    timed([&] {
      post(e_halo);
      complete(e_halo);
      exec.fence();
    });
  }
  if (next_energy < energy_steps.size() && energy_steps[next_energy] == n) {
    const double local = field_energy<Exec>(args, range);
    double total = 0;
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
    energy_taken.push_back(n);
    energy.push_back(total * cell_volume);
    ++next_energy;
  }
}

std::vector<float> MpiSlabSolver::Impl::owned_planes(int c) const {
  const std::size_t n = std::size_t(plane), count = std::size_t(range.i_end - range.i_begin);
  std::vector<float> out(count * n);
  Kokkos::deep_copy(HostUnmanaged<float>(out.data(), out.size()),
                    Kokkos::subview(fields[c], Range(n, n + count * n)));
  return out;
}

MpiSlabSolver::MpiSlabSolver(const FdtdStep::Problem& problem, MPI_Comm comm,
                             const MpiSlabOptions& options) {
  if (options.variant.empty())
    impl_ = make_on_every_rank<Impl>(
        comm, [&] { return std::make_unique<Impl>(problem, comm, options); });
  else
    variant_ = make_on_every_rank<VariantImpl>(comm, [&] {
      return std::make_unique<VariantImpl>(problem, comm, options.variant, options.overlap);
    });
}

MpiSlabSolver::~MpiSlabSolver() = default;

void MpiSlabSolver::advance(std::int64_t steps) {
  if (variant_) {
    VariantImpl& s = *variant_;
    require(steps >= 0 && s.done + steps <= s.total_steps,
            "advance(" + std::to_string(steps) + ") after " + std::to_string(s.done) + " of " +
                std::to_string(s.total_steps) + " steps",
            "at most the problem's steps in all");
    const auto t0 = std::chrono::steady_clock::now();
    for (std::int64_t k = 0; k < steps; ++k) s.step(s.done++);
    s.applier->wait(nullptr);
    s.stats.seconds += seconds_since(t0);
    s.stats.steps += steps;
    return;
  }
  Impl& s = *impl_;
  require(steps >= 0 && s.done + steps <= s.total_steps,
          "advance(" + std::to_string(steps) + ") after " + std::to_string(s.done) + " of " +
              std::to_string(s.total_steps) + " steps",
          "at most the problem's steps in all");
  const auto t0 = std::chrono::steady_clock::now();
  for (std::int64_t k = 0; k < steps; ++k) s.step(s.done++);
  s.exec.fence();
  s.stats.seconds += seconds_since(t0);
  s.stats.steps += steps;
}

SarMaps MpiSlabSolver::VariantImpl::sar(const SarInput& input, bool gather_maps) {
  require(phasors.enabled(), "SAR of a run without phasors",
          "a problem with phasors (FdtdStep::Problem::phasors)");
  const NodeBox box = resolve_box(phasors, grid);
  // Every rank's first plane of the box, clipped to it (ranks outside hold none).
  std::vector<index_t> plane_begin(std::size_t(ranks) + 1);
  for (int r = 0; r <= ranks; ++r)
    plane_begin[std::size_t(r)] = std::clamp((grid.nx + 1) * r / ranks, box.lo[0], box.hi[0]);
  PhasorSet local;
  local.lo = {plane_begin[std::size_t(rank)], box.lo[1], box.lo[2]};
  local.extent = {plane_begin[std::size_t(rank) + 1] - plane_begin[std::size_t(rank)],
                  box.hi[1] - box.lo[1], box.hi[2] - box.lo[2]};
  local.frequencies = phasors.frequencies;
  if (local.extent[0] > 0) {
    // The variant's sums over the same planes in slab coordinates: the same layout.
    PhasorSet sums = applier->phasor_sums();
    require(sums.re.size() == std::size_t(6 * local.box_nodes()) * local.frequencies.size(),
            "distributed SAR: the rank's phasor sums do not cover its planes of the box");
    local.re = std::move(sums.re);
    local.im = std::move(sums.im);
  }
  return compute_sar_slabs(comm, local, plane_begin, input, gather_maps);
}

SarMaps MpiSlabSolver::sar(const SarInput& input, bool gather_maps) const {
  require(variant_ != nullptr, "SAR on the MPI slab kernels, which take no phasors",
          "MpiSlabOptions::variant (a registered variant whose traits say slab)");
  return variant_->sar(input, gather_maps);
}

FdtdStep::Result MpiSlabSolver::result(bool gather_fields, bool gather_phasors) const {
  if (variant_) return variant_->result(gather_fields, gather_phasors);
  const Impl& s = *impl_;
  FdtdStep::Result r;
  r.energy_steps = s.energy_taken;
  r.energy = s.energy;

  // Probes: each is owned by one rank; the sum over ranks assembles them.
  const std::size_t steps = std::size_t(s.total_steps);
  std::vector<float> mine(s.n_probes * steps, 0.0f);
  if (!s.probe_rows.empty()) {
    std::vector<float> local(s.bulk.probe_values.extent(0));
    Kokkos::deep_copy(HostUnmanaged<float>(local.data(), local.size()), s.bulk.probe_values);
    for (std::size_t q = 0; q < s.probe_rows.size(); ++q)
      std::copy(local.begin() + std::ptrdiff_t(q * steps),
                local.begin() + std::ptrdiff_t((q + 1) * steps),
                mine.begin() + std::ptrdiff_t(s.probe_rows[q] * steps));
  }
  r.probe_values.assign(mine.size(), 0.0f);
  require(mine.size() < std::size_t(INT_MAX), "too many probe values for one MPI reduction");
  if (!mine.empty())
    MPI_Allreduce(mine.data(), r.probe_values.data(), int(mine.size()), MPI_FLOAT, MPI_SUM, s.comm);
  if (!gather_fields) return r;

  // Fields: the owned planes of every rank, gathered on rank 0 plane by plane.
  const std::size_t n = std::size_t(s.plane);
  for (int c = 0; c < 6; ++c) {
    const auto owned = s.owned_planes(c);
    if (s.rank != 0) {
      for (std::size_t q = 0; q * n < owned.size(); ++q)
        MPI_Send(owned.data() + q * n, int(n), MPI_FLOAT, 0, c, s.comm);
      continue;
    }
    auto& field = r.fields[std::size_t(c)];
    field.resize(std::size_t(s.grid.nodes()));
    std::copy(owned.begin(), owned.end(), field.begin());
    for (int from = 1; from < s.ranks; ++from) {
      const index_t begin = (s.grid.nx + 1) * from / s.ranks,
                    end = (s.grid.nx + 1) * (from + 1) / s.ranks;
      for (index_t i = begin; i < end; ++i)
        MPI_Recv(field.data() + std::size_t(i) * n, int(n), MPI_FLOAT, from, c, s.comm,
                 MPI_STATUS_IGNORE);
    }
  }
  return r;
}

void MpiSlabSolver::write_checkpoint(const std::string& path) const {
  MPI_Comm comm = variant_ ? variant_->comm : impl_->comm;
  on_every_rank(comm, "checkpoint", [&] {
    require(!variant_, "checkpoints of MPI slabs over the variant " + variant(),
            "the Kokkos slab kernels (no MpiSlabOptions::variant)");
    impl_->write_checkpoint(path);
  });
}

void MpiSlabSolver::restore(const std::string& path) {
  MPI_Comm comm = variant_ ? variant_->comm : impl_->comm;
  on_every_rank(comm, "restore", [&] {
    require(!variant_, "restoring MPI slabs over the variant " + variant(),
            "the Kokkos slab kernels (no MpiSlabOptions::variant)");
    impl_->restore(path);
  });
}

const MpiSlabStats& MpiSlabSolver::stats() const {
  return variant_ ? variant_->stats : impl_->stats;
}
void MpiSlabSolver::reset_stats() { (variant_ ? variant_->stats : impl_->stats) = MpiSlabStats{}; }
// Variants: the planes go through copy_planes() into host buffers.
std::string MpiSlabSolver::halo_path() const {
  return variant_ ? std::string("staged") : impl_->path_name;
}
bool MpiSlabSolver::overlap() const {
  return variant_ ? variant_->overlap : impl_->options.overlap;
}
index_t MpiSlabSolver::first_plane() const {
  return variant_ ? variant_->i_begin : impl_->range.i_begin;
}
index_t MpiSlabSolver::end_plane() const { return variant_ ? variant_->i_end : impl_->range.i_end; }
std::string MpiSlabSolver::variant() const {
  return variant_ ? variant_->name : std::string("kokkos slab kernels");
}

FdtdStep::Result run_mpi_slabs(const FdtdStep::Problem& problem, MPI_Comm comm,
                               const MpiSlabOptions& options) {
  MpiSlabSolver solver(problem, comm, options);
  solver.advance(problem.steps);
  return solver.result(true);
}

}  // namespace ppkit::fdtd
