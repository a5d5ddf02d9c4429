#include "ppkit/fdtd/mpi_slabs.hpp"

#include <Kokkos_Core.hpp>
#include <climits>
#include <cmath>

#include "ppkit/core/error.hpp"
#include "ppkit/fdtd/yee_kokkos_kernels.hpp"

namespace ppkit::fdtd {
namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;
template <class T>
using View = Kokkos::View<T*, Mem>;
using HostFloats = Kokkos::View<float*, Kokkos::HostSpace>;

template <class T>
View<T> upload(const std::vector<T>& host) {
  View<T> v("fdtd slab", std::max<std::size_t>(1, host.size()));
  if (!host.empty()) {
    Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(
        host.data(), host.size());
    Kokkos::deep_copy(Kokkos::subview(v, std::make_pair(std::size_t(0), host.size())), h);
  }
  return v;
}

// One rank's slab: global planes [i_begin, i_end) owned, [i_begin - 1, i_end] stored.
class Slab {
 public:
  Slab(const FdtdStep::Problem& p, const StepSetup& setup, int rank, int ranks)
      : grid_(p.grid), plane_((p.grid.ny + 1) * (p.grid.nz + 1)) {
    const index_t planes = grid_.nx + 1;
    range_.i_begin = planes * rank / ranks;
    range_.i_end = planes * (rank + 1) / ranks;
    range_.i_origin = range_.i_begin - 1;
    local_planes_ = range_.i_end - range_.i_begin + 2;
    const std::size_t local_nodes = std::size_t(local_planes_ * plane_);
    args_.nx = grid_.nx;
    args_.ny = grid_.ny;
    args_.nz = grid_.nz;
    args_.layers = 2 * setup.cpml.thickness;

    // Local copies of the per-node inputs over the stored planes that exist.
    auto local_slice = [&](auto fill, const auto& global) {
      std::vector<std::decay_t<decltype(fill)>> out(local_nodes, fill);
      for (index_t li = 0; li < local_planes_; ++li) {
        const index_t i = range_.i_origin + li;
        if (i < 0 || i > grid_.nx || global.empty()) continue;
        std::copy(global.begin() + std::ptrdiff_t(i * plane_),
                  global.begin() + std::ptrdiff_t((i + 1) * plane_),
                  out.begin() + std::ptrdiff_t(li * plane_));
      }
      return out;
    };
    float** fields[6] = {&args_.ex, &args_.ey, &args_.ez, &args_.hx, &args_.hy, &args_.hz};
    for (int c = 0; c < 6; ++c) {
      fields_[c] = upload(local_slice(0.0f, p.initial[c]));
      *fields[c] = fields_[c].data();
    }
    ids_ = upload(local_slice(0u, setup.material_id));
    args_.material_id = ids_.data();
    table_ = upload(setup.material_table);
    args_.material_table = table_.data();
    for (int d = 0; d < 3; ++d) {
      const CpmlAxis& ax = setup.cpml.axis[d];
      CpmlAxisArgs& aa = args_.axis[d];
      const std::vector<float>* parts[6] = {&ax.e_inv_kd, &ax.e_b, &ax.e_c_d,
                                            &ax.h_inv_kd, &ax.h_b, &ax.h_c_d};
      const float** targets[6] = {&aa.e_inv_kd, &aa.e_b, &aa.e_c_d,
                                  &aa.h_inv_kd, &aa.h_b, &aa.h_c_d};
      for (int s = 0; s < 6; ++s) {
        profiles_[d][s] = upload(*parts[s]);
        *targets[s] = profiles_[d][s].data();
      }
      slots_[d][0] = upload(ax.e_slot);
      slots_[d][1] = upload(ax.h_slot);
      aa.e_slot = slots_[d][0].data();
      aa.h_slot = slots_[d][1].data();
    }
    // x layers are indexed by the global slot, y and z layers by the local plane.
    const std::size_t layers = std::size_t(args_.layers);
    const std::size_t sizes[3] = {layers * std::size_t(plane_),
                                  layers * std::size_t(local_planes_ * (grid_.nz + 1)),
                                  layers * std::size_t(local_planes_ * (grid_.ny + 1))};
    float** psi[12] = {&args_.psi_eyx, &args_.psi_ezx, &args_.psi_hyx, &args_.psi_hzx,
                       &args_.psi_exy, &args_.psi_ezy, &args_.psi_hxy, &args_.psi_hzy,
                       &args_.psi_exz, &args_.psi_eyz, &args_.psi_hxz, &args_.psi_hyz};
    for (int q = 0; q < 12; ++q) {
      psi_[q] = View<float>("psi", std::max<std::size_t>(1, sizes[q / 4]));
      *psi[q] = psi_[q].data();
    }
    // Sources and probes in owned planes, at local indices.
    std::vector<index_t> source_index, probe_index;
    std::vector<std::int32_t> source_component, source_hard, probe_component;
    std::vector<float> source_values;
    const std::size_t steps = std::size_t(p.steps);
    for (std::size_t s = 0; s < p.sources.size(); ++s)
      if (owns(p.sources[s].i)) {
        source_index.push_back(setup.source_index[s] - range_.i_origin * plane_);
        source_component.push_back(setup.source_component[s]);
        source_hard.push_back(setup.source_hard[s]);
        source_values.insert(source_values.end(),
                             setup.source_values.begin() + std::ptrdiff_t(s * steps),
                             setup.source_values.begin() + std::ptrdiff_t((s + 1) * steps));
      }
    for (std::size_t q = 0; q < p.probes.size(); ++q)
      if (owns(p.probes[q].i)) {
        probe_index.push_back(setup.probe_index[q] - range_.i_origin * plane_);
        probe_component.push_back(setup.probe_component[q]);
        probe_rows_.push_back(q);
      }
    io_.n_sources = std::int64_t(source_index.size());
    io_.n_probes = std::int64_t(probe_index.size());
    io_.steps = p.steps;
    source_index_ = upload(source_index);
    source_component_ = upload(source_component);
    source_hard_ = upload(source_hard);
    source_values_ = upload(source_values);
    probe_index_ = upload(probe_index);
    probe_component_ = upload(probe_component);
    probe_values_ =
        View<float>("probe values", std::max<std::size_t>(1, probe_index.size() * steps));
    io_.source_index = source_index_.data();
    io_.source_component = source_component_.data();
    io_.source_hard = source_hard_.data();
    io_.source_values = source_values_.data();
    io_.probe_index = probe_index_.data();
    io_.probe_component = probe_component_.data();
    io_.probe_values = probe_values_.data();
    send_ = HostFloats("halo send", std::size_t(2 * plane_));
    receive_ = HostFloats("halo receive", std::size_t(2 * plane_));
  }

  bool owns(index_t i) const { return i >= range_.i_begin && i < range_.i_end; }
  const SlabRange& range() const { return range_; }
  const YeeKernelArgs& args() const { return args_; }
  const SourceProbeArgs& io() const { return io_; }
  index_t plane() const { return plane_; }

  // Sends the planes `send_plane` of fields a and b (local indices) to `to` and
  // receives the neighbour's into `receive_plane` from `from`.
  void exchange(int a, int b, index_t send_plane, index_t receive_plane, int to, int from,
                MPI_Comm comm) {
    const std::size_t n = std::size_t(plane_);
    auto plane_of = [&](int c, index_t li) {
      return Kokkos::subview(fields_[c],
                             std::make_pair(std::size_t(li) * n, std::size_t(li + 1) * n));
    };
    if (to != MPI_PROC_NULL) {
      Kokkos::deep_copy(Kokkos::subview(send_, std::make_pair(std::size_t(0), n)),
                        plane_of(a, send_plane));
      Kokkos::deep_copy(Kokkos::subview(send_, std::make_pair(n, 2 * n)), plane_of(b, send_plane));
    }
    MPI_Sendrecv(send_.data(), int(2 * n), MPI_FLOAT, to, 0, receive_.data(), int(2 * n), MPI_FLOAT,
                 from, 0, comm, MPI_STATUS_IGNORE);
    if (from != MPI_PROC_NULL) {
      Kokkos::deep_copy(plane_of(a, receive_plane),
                        Kokkos::subview(receive_, std::make_pair(std::size_t(0), n)));
      Kokkos::deep_copy(plane_of(b, receive_plane),
                        Kokkos::subview(receive_, std::make_pair(n, 2 * n)));
    }
  }

  index_t local_planes() const { return local_planes_; }
  std::vector<float> owned_planes(int c) const {
    const std::size_t n = std::size_t(plane_), count = std::size_t(range_.i_end - range_.i_begin);
    std::vector<float> out(count * n);
    Kokkos::View<float*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(out.data(),
                                                                                       out.size());
    Kokkos::deep_copy(h, Kokkos::subview(fields_[c], std::make_pair(n, n + count * n)));
    return out;
  }
  std::vector<float> probe_values() const {
    std::vector<float> out(probe_values_.extent(0));
    Kokkos::View<float*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(out.data(),
                                                                                       out.size());
    Kokkos::deep_copy(h, probe_values_);
    return out;
  }
  const std::vector<std::size_t>& probe_rows() const { return probe_rows_; }

 private:
  YeeGrid grid_;
  index_t plane_, local_planes_ = 0;
  SlabRange range_{};
  YeeKernelArgs args_{};
  SourceProbeArgs io_{};
  View<float> fields_[6], table_, profiles_[3][6], psi_[12], source_values_, probe_values_;
  View<std::uint32_t> ids_;
  View<std::int32_t> slots_[3][2], source_component_, source_hard_, probe_component_;
  View<index_t> source_index_, probe_index_;
  HostFloats send_, receive_;
  std::vector<std::size_t> probe_rows_;
};

}  // namespace

FdtdStep::Result run_mpi_slabs(const FdtdStep::Problem& p, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const StepSetup setup = make_step_setup(p);
  require(!p.periodic[0] && !p.periodic[1] && !p.phasors.enabled(),
          "MPI slabs do not implement periodic boundaries or phasors",
          "a single-rank variant of fdtd.step for periodic columns and phasors");
  require(ranks <= p.grid.nx + 1,
          std::to_string(ranks) + " MPI ranks for " + std::to_string(p.grid.nx + 1) +
              " node planes along x",
          "at most nx + 1 ranks (one plane each)");
  require(p.plane_waves.empty() && p.snapshots.empty() && p.far_field.empty(),
          "MPI slabs do not run plane waves, snapshots or the near-to-far-field transform",
          "a single-rank variant for those");
  require(p.grid.ny * p.grid.nz < INT_MAX / 4, "an x-plane is too large for one MPI message",
          "(ny + 1)(nz + 1) < 2^29 nodes");
  Slab slab(p, setup, rank, ranks);
  const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL,
            right = rank + 1 < ranks ? rank + 1 : MPI_PROC_NULL;
  const index_t last_local = slab.local_planes() - 1;

  FdtdStep::Result r;
  std::size_t next_energy = 0;
  for (std::int64_t step = 0; step < p.steps; ++step) {
    // Ey, Ez of my first owned plane are the left neighbour's ghost at its i_end.
    slab.exchange(1, 2, 1, last_local, left, right, comm);
    update_h<Exec>(slab.args(), slab.range());
    // Hy, Hz of my last owned plane are the right neighbour's ghost at its i_begin - 1.
    slab.exchange(4, 5, last_local - 1, 0, right, left, comm);
    update_e<Exec>(slab.args(), slab.range());
    apply_sources_and_probes<Exec>(slab.args(), slab.io(), step);
    if (next_energy < setup.energy_steps.size() && setup.energy_steps[next_energy] == step) {
      const double local = field_energy<Exec>(slab.args(), slab.range());
      double total = 0;
      MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
      r.energy_steps.push_back(step);
      r.energy.push_back(total * setup.cell_volume);
      ++next_energy;
    }
  }
  Exec().fence();

  // Probes: each is owned by one rank; the sum over ranks assembles them.
  const std::size_t steps = std::size_t(p.steps);
  std::vector<float> mine(p.probes.size() * steps, 0.0f);
  const auto local_values = slab.probe_values();
  for (std::size_t q = 0; q < slab.probe_rows().size(); ++q)
    std::copy(local_values.begin() + std::ptrdiff_t(q * steps),
              local_values.begin() + std::ptrdiff_t((q + 1) * steps),
              mine.begin() + std::ptrdiff_t(slab.probe_rows()[q] * steps));
  r.probe_values.assign(mine.size(), 0.0f);
  if (!mine.empty())
    MPI_Allreduce(mine.data(), r.probe_values.data(), int(mine.size()), MPI_FLOAT, MPI_SUM, comm);

  // Fields: the owned planes of every rank, gathered on rank 0 in plane order.
  const index_t plane = slab.plane();
  for (int c = 0; c < 6; ++c) {
    const auto owned = slab.owned_planes(c);
    if (rank != 0) {
      MPI_Send(owned.data(), int(owned.size()), MPI_FLOAT, 0, c, comm);
      continue;
    }
    auto& field = r.fields[std::size_t(c)];
    field.resize(std::size_t(p.grid.nodes()));
    std::copy(owned.begin(), owned.end(), field.begin());
    for (int from = 1; from < ranks; ++from) {
      const index_t begin = (p.grid.nx + 1) * from / ranks,
                    end = (p.grid.nx + 1) * (from + 1) / ranks;
      require((end - begin) * plane < INT_MAX, "a slab is too large to gather in one MPI message");
      MPI_Recv(field.data() + begin * plane, int((end - begin) * plane), MPI_FLOAT, from, c, comm,
               MPI_STATUS_IGNORE);
    }
  }
  return r;
}

}  // namespace ppkit::fdtd
