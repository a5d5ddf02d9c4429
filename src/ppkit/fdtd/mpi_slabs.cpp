#include "ppkit/fdtd/mpi_slabs.hpp"

#include <Kokkos_Core.hpp>
#include <chrono>
#include <climits>
#include <cmath>

#include "ppkit/core/error.hpp"
#include "ppkit/core/kokkos_spaces.hpp"
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

}  // namespace

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
};

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
                             const MpiSlabOptions& options)
    : impl_(std::make_unique<Impl>(problem, comm, options)) {}

MpiSlabSolver::~MpiSlabSolver() = default;

void MpiSlabSolver::advance(std::int64_t steps) {
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

FdtdStep::Result MpiSlabSolver::result(bool gather_fields) const {
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

const MpiSlabStats& MpiSlabSolver::stats() const { return impl_->stats; }
void MpiSlabSolver::reset_stats() { impl_->stats = MpiSlabStats{}; }
std::string MpiSlabSolver::halo_path() const { return impl_->path_name; }
bool MpiSlabSolver::overlap() const { return impl_->options.overlap; }
index_t MpiSlabSolver::first_plane() const { return impl_->range.i_begin; }
index_t MpiSlabSolver::end_plane() const { return impl_->range.i_end; }

FdtdStep::Result run_mpi_slabs(const FdtdStep::Problem& problem, MPI_Comm comm,
                               const MpiSlabOptions& options) {
  MpiSlabSolver solver(problem, comm, options);
  solver.advance(problem.steps);
  return solver.result(true);
}

}  // namespace ppkit::fdtd
