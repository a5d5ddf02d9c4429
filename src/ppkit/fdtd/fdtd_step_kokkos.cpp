// kokkos-<space>/plain: fdtd.step through the kernels of yee_kokkos_kernels.hpp
// (one Kokkos::parallel_for per half step, Kokkos::parallel_reduce for the
// total field energy) on the whole grid.
// kokkos-<space>/split: the same buffers with rows pitched to 32 nodes, run
// through yee_kokkos_split_kernels.hpp (interior RangePolicy numbered in
// 32 x 8 tiles + thin CPML/boundary shell per half step, 1-byte material ids,
// no id read with a single material).
// Both prepared runs are also StepAppliers (step_applier.hpp): fdtd::Solver
// steps the same buffers in chunks through the same kernels.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <type_traits>

#include "ppkit/core/kokkos_instances.hpp"
#include "ppkit/core/kokkos_spaces.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/phasor_kokkos.hpp"
#include "ppkit/fdtd/step_applier.hpp"
#include "ppkit/fdtd/ntff_kokkos.hpp"
#include "ppkit/fdtd/yee_kernel_args.hpp"
#include "ppkit/fdtd/yee_kokkos_kernels.hpp"
#include "ppkit/fdtd/yee_kokkos_split_kernels.hpp"

namespace ppkit::fdtd {
namespace {

// Plane-wave consistency corrections of one component (plane_wave.hpp):
// field[node] += w0 row[slot0] + w1 row[slot1], no node twice in a list.
template <class Exec>
void apply_tfsf(float* field, const index_t* node, const float* w0, const float* w1,
                const std::int32_t* s0, const std::int32_t* s1, const float* row, index_t count) {
  Kokkos::parallel_for(
      "fdtd tfsf correction", Kokkos::RangePolicy<Exec>(0, count),
      KOKKOS_LAMBDA(index_t q) { field[node[q]] += w0[q] * row[s0[q]] + w1[q] * row[s1[q]]; });
}

// Copies one plane of a field into plane[ib * na + ia] (snapshots.hpp); frames are float.
template <class Exec, class Real>
void extract_plane(const Real* field, float* plane, index_t na, index_t nb, int normal,
                   index_t index, index_t stride_x, index_t stride_y) {
  Kokkos::parallel_for(
      "fdtd snapshot plane", Kokkos::RangePolicy<Exec>(0, na * nb), KOKKOS_LAMBDA(index_t q) {
        const index_t ia = q % na, ib = q / na;
        const index_t i = normal == 0 ? index : ia;
        const index_t j = normal == 1 ? index : normal == 0 ? ia : ib;
        const index_t k = normal == 2 ? index : ib;
        plane[q] = float(field[i * stride_x + j * stride_y + k]);
      });
}

// Real: float for fp32 problems, double for fp64 ones (same kernels, templates).
template <class Exec, class Real>
class KokkosStep final : public PreparedRun<FdtdStep::Result>, public StepApplier {
  static constexpr bool fp32 = std::is_same_v<Real, float>;
  using Mem = typename Exec::memory_space;
  template <class T>
  using View = Kokkos::View<T*, Mem>;

  template <class T>
  View<T> upload(const std::string& label, const std::vector<T>& host) {
    View<T> v(label, host.size());
    Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(
        host.data(), host.size());
    Kokkos::deep_copy(v, h);
    views_keepalive_.push_back(std::make_shared<View<T>>(v));
    return v;
  }

 public:
  KokkosStep(const FdtdStep::Problem& p, bool split)
      : problem_(p), setup_(make_step_setup_as<Real>(p)), split_(split) {
    const YeeGrid& g = p.grid;
    args_.nx = g.nx;
    args_.ny = g.ny;
    args_.nz = g.nz;
    args_.layers = 2 * setup_.cpml.thickness;
    // kokkos/split pads rows to 32 nodes (128 bytes, aligned with the 32-wide
    // z tiles of its interior launch); padding holds zeros and is never updated.
    sy_ = split ? (g.nz + 1 + 31) / 32 * 32 : g.nz + 1;
    const std::size_t nodes = std::size_t((g.nx + 1) * (g.ny + 1) * sy_);
    args_.periodic_x = p.periodic[0] ? 1 : 0;
    args_.periodic_y = p.periodic[1] ? 1 : 0;
    Real** fields[6] = {&args_.ex, &args_.ey, &args_.ez, &args_.hx, &args_.hy, &args_.hz};
    for (int c = 0; c < 6; ++c) {
      fields_[c] = View<Real>(std::string("field ") + to_string(Component(c)), nodes);
      *fields[c] = fields_[c].data();
      if (!p.initial[c].empty() || !p.initial_fp64[c].empty())
        initial_[c] = upload(std::string("initial ") + to_string(Component(c)),
                             pitched(initial_field<Real>(p, c), Real(0)));
    }
    args_.material_table = upload("material table", setup_.material_table).data();
    if (!split) {
      args_.material_id = upload("material id", setup_.material_id).data();
    } else {
      // kokkos/split: ids narrowed to 1 byte when they fit; none with one material.
      const Real* t = setup_.material_table.data();
      lookup8_ = {nullptr,    args_.material_table, t[coef_ca], t[coef_cb],
                  t[coef_dh], t[coef_eps],          t[coef_mu]};
      lookup32_ = lookup8_32(lookup8_);
      if (p.materials.size() > 256) {
        lookup32_.ids = upload("material id", pitched(setup_.material_id, 0u)).data();
      } else if (p.materials.size() > 1) {
        lookup8_.ids =
            upload("material id", pitched(std::vector<std::uint8_t>(setup_.material_id.begin(),
                                                                    setup_.material_id.end()),
                                          std::uint8_t(0)))
                .data();
      }
    }
    for (int d = 0; d < 3; ++d) {
      const CpmlAxisT<Real>& ax = setup_.cpml.axis[d];
      CpmlAxisArgsT<Real>& aa = args_.axis[d];
      aa.e_inv_kd = upload("cpml", ax.e_inv_kd).data();
      aa.e_b = upload("cpml", ax.e_b).data();
      aa.e_c_d = upload("cpml", ax.e_c_d).data();
      aa.h_inv_kd = upload("cpml", ax.h_inv_kd).data();
      aa.h_b = upload("cpml", ax.h_b).data();
      aa.h_c_d = upload("cpml", ax.h_c_d).data();
      aa.e_slot = upload("cpml", ax.e_slot).data();
      aa.h_slot = upload("cpml", ax.h_slot).data();
    }
    const std::size_t layers = std::size_t(args_.layers);
    const std::size_t px = layers * std::size_t((g.ny + 1) * sy_);  // x, y psi: z pitch sy_
    const std::size_t py = layers * std::size_t((g.nx + 1) * sy_);
    const std::size_t pz = layers * std::size_t((g.nx + 1) * (g.ny + 1));
    Real** psi[12] = {&args_.psi_eyx, &args_.psi_ezx, &args_.psi_hyx, &args_.psi_hzx,
                      &args_.psi_exy, &args_.psi_ezy, &args_.psi_hxy, &args_.psi_hzy,
                      &args_.psi_exz, &args_.psi_eyz, &args_.psi_hxz, &args_.psi_hyz};
    for (int q = 0; q < 12; ++q) {
      psi_[q] = View<Real>("psi", q < 4 ? px : q < 8 ? py : pz);
      *psi[q] = psi_[q].data();
    }
    for (int half = 0; half < 2; ++half) {
      const bool electric = half == 1;
      split::InteriorT<Real>& in = interior_[half];
      in.box = split::interior_box(args_, electric);
      for (int d = 0; d < 3; ++d) {
        const CpmlAxisT<Real>& ax = setup_.cpml.axis[d];
        in.inv_d[d] = (electric ? ax.e_inv_kd : ax.h_inv_kd)[std::size_t(in.box.lo[d])];
      }
      shell_[half] = split::shell_around(args_, in.box);
    }
    std::vector<std::int32_t> component(setup_.source_component.begin(),
                                        setup_.source_component.end());
    std::vector<std::int32_t> hard(setup_.source_hard.begin(), setup_.source_hard.end());
    std::vector<std::int32_t> probe_component(setup_.probe_component.begin(),
                                              setup_.probe_component.end());
    io_.n_sources = std::int64_t(p.sources.size());
    io_.n_probes = std::int64_t(p.probes.size());
    io_.steps = p.steps;
    io_.source_index = upload("source index", pitched_indices(setup_.source_index)).data();
    io_.source_component = upload("source component", component).data();
    io_.source_hard = upload("source hard", hard).data();
    io_.source_values = upload("source values", setup_.source_values).data();
    io_.probe_index = upload("probe index", pitched_indices(setup_.probe_index)).data();
    io_.probe_component = upload("probe component", probe_component).data();
    probe_values_ = View<Real>("probe values", std::size_t(io_.n_probes * p.steps));
    io_.probe_values = probe_values_.data();
    Kokkos::deep_copy(probe_values_, Real(std::nan("")));  // poison
    for (int c = 0; c < 6; ++c) Kokkos::deep_copy(fields_[c], Real(std::nan("")));
    // Plane wave: corrections per component and the incident table.
    const TfsfCorrections& t = setup_.tfsf;
    if (t.row > 0) incident_ = upload("incident", t.incident);
    for (int c = 0; c < 6; ++c) {
      tfsf_count_[c] = index_t(t.node[std::size_t(c)].size());
      if (tfsf_count_[c] == 0) continue;
      tfsf_node_[c] = upload("tfsf node", pitched_indices(t.node[std::size_t(c)]));
      tfsf_w0_[c] = upload("tfsf weight", t.weight0[std::size_t(c)]);
      tfsf_w1_[c] = upload("tfsf weight", t.weight1[std::size_t(c)]);
      tfsf_s0_[c] = upload("tfsf slot", t.slot0[std::size_t(c)]);
      tfsf_s1_[c] = upload("tfsf slot", t.slot1[std::size_t(c)]);
    }
    // Near-to-far-field surface samples and DFT accumulators.
    const NtffSurface& surface = setup_.ntff;
    if (surface.size() > 0) {  // fp32 only (validate())
      if constexpr (fp32)
        for (int c = 0; c < 6; ++c) ntff_.field[c] = fields_[c].data();
      ntff_.component = upload("ntff component", surface.component).data();
      ntff_.current = upload("ntff current", surface.current).data();
      ntff_.magnetic = upload("ntff magnetic", surface.magnetic).data();
      ntff_.node_a = upload("ntff node", pitched_indices(surface.node_a)).data();
      ntff_.node_b = upload("ntff node", pitched_indices(surface.node_b)).data();
      ntff_.weight = upload("ntff weight", surface.weight).data();
      ntff_.x = upload("ntff x", surface.x).data();
      ntff_.y = upload("ntff y", surface.y).data();
      ntff_.z = upload("ntff z", surface.z).data();
      ntff_.samples = std::int64_t(surface.size());
      ntff_.frequencies = std::int64_t(p.far_field[0].frequencies.size());
      ntff_dft_ = View<double>("ntff dft", std::size_t(2 * ntff_.samples * ntff_.frequencies));
      ntff_.re = ntff_dft_.data();
      ntff_.im = ntff_dft_.data() + ntff_.samples * ntff_.frequencies;
      ntff_factors_ = upload("ntff factors", setup_.ntff_factors);
    }
    for (const auto& snap : p.snapshots) {
      const auto size = plane_size(g, snap.normal);
      planes_.push_back(View<float>("snapshot plane", std::size_t(size[0] * size[1])));
    }
    if constexpr (fp32)  // fp64 problems have no phasors (validate())
      if (p.phasors.enabled()) {
        phasors_ = std::make_unique<KokkosPhasors<Exec>>(p.phasors, g, 0, setup_.phasor_samples);
        phasors_->set_fields({args_.ex, args_.ey, args_.ez, args_.hx, args_.hy, args_.hz}, sy_);
      }
    Exec().fence();
  }

  // Starts from the problem's initial state each time, so repeated runs agree.
  void run() override {
    restart();
    steps_until(problem_.steps);
    // Far field: one parallel_reduce per (frequency, direction).
    if (ntff_.samples > 0)
      for (std::int64_t f = 0; f < ntff_.frequencies; ++f)
        for (std::size_t d = 0; d < problem_.far_field[0].directions.size(); ++d)
          radiation_.push_back(ntff_radiation<Exec>(
              ntff_, f, ntff_direction(problem_.far_field[0], std::size_t(f), d)));
    Exec().fence();
  }

  // ---- StepApplier (fdtd::Solver): the same state, stepped in chunks ----------
  void restart() override {
    for (int c = 0; c < 6; ++c) {
      if (initial_[c].size() == 0)
        Kokkos::deep_copy(Exec(), fields_[c], Real(0));
      else
        Kokkos::deep_copy(Exec(), fields_[c], initial_[c]);
    }
    for (auto& v : psi_) Kokkos::deep_copy(Exec(), v, Real(0));
    energy_.clear();
    frames_.clear();
    radiation_.clear();
    if (ntff_.samples > 0) Kokkos::deep_copy(Exec(), ntff_dft_, 0.0);
    next_energy_ = next_frame_ = 0;
    step_ = 0;
    edge_steps_.reset();
    if (phasors_) phasors_->reset(PhasorSet{});
  }

  // The kernels run on the default instance (as in run()); a caller's stream
  // is waited for before and the steps are waited for after.
  void advance(std::int64_t n, void* stream) override {
    if (stream) streams_.on(stream).fence();
    steps_until(step_ + n);
    if (stream) Exec().fence();
  }
  std::int64_t step() const override { return step_; }
  index_t pitch() const override { return sy_; }
  void* field_address(int c) override { return fields_[c].data(); }

  void copy_field(int c, void* array, bool array_on_host, bool into_field, void* stream) override {
    const YeeGrid& g = problem_.grid;
    const std::size_t rows = std::size_t((g.nx + 1) * (g.ny + 1)), len = std::size_t(g.nz + 1);
    Real* values = static_cast<Real*>(array);
    if (array_on_host) {
      Exec().fence();
      if (into_field) {
        const std::vector<Real> host(values, values + rows * len);
        Kokkos::deep_copy(fields_[c], unmanaged_host(pitched(host, Real(0))));
      } else {
        const std::vector<Real> host = unpitched(download(fields_[c]));
        std::copy(host.begin(), host.end(), values);
      }
      return;
    }
    if (stream) streams_.on(stream).fence();
    using Grid =
        Kokkos::View<Real**, Kokkos::LayoutRight, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    const Grid stored(fields_[c].data(), rows, std::size_t(sy_)), user(values, rows, len);
    const auto part = Kokkos::subview(stored, Kokkos::ALL, std::make_pair(std::size_t(0), len));
    if (into_field)
      Kokkos::deep_copy(Exec(), part, user);
    else
      Kokkos::deep_copy(Exec(), user, part);
    if (stream) Exec().fence();
  }

  // The pitched block of the planes (contiguous in any memory space) through
  // a host buffer: one deep_copy each way, the rows repacked on the host.
  void copy_planes(int c, index_t first, index_t count, float* host, bool into_field,
                   const YeeGrid& g) override {
    if constexpr (!std::is_same_v<Real, float>) {
      throw Error("copy_planes of an fp64 run", "an fp32 problem (MPI slabs run fp32)");
    } else {
      require(first >= 0 && count >= 0 && first + count <= g.nx + 1,
              "planes " + std::to_string(first) + ".." + std::to_string(first + count) +
                  " of a grid with " + std::to_string(g.nx + 1) + " x-planes",
              "planes inside the grid");
      const std::size_t rows = std::size_t(count * (g.ny + 1)), len = std::size_t(g.nz + 1);
      const std::size_t pitch = std::size_t(sy_), begin = std::size_t(first * (g.ny + 1)) * pitch;
      const auto block = Kokkos::subview(fields_[c], std::make_pair(begin, begin + rows * pitch));
      std::vector<float> staged(rows * pitch, 0.0f);
      Kokkos::View<float*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(
          staged.data(), staged.size());
      Exec().fence();
      if (into_field) {
        for (std::size_t r = 0; r < rows; ++r)
          std::copy(host + r * len, host + (r + 1) * len,
                    staged.begin() + std::ptrdiff_t(r * pitch));
        Kokkos::deep_copy(block, h);  // padding written as the zeros it holds
      } else {
        Kokkos::deep_copy(h, block);
        for (std::size_t r = 0; r < rows; ++r)
          std::copy(staged.begin() + std::ptrdiff_t(r * pitch),
                    staged.begin() + std::ptrdiff_t(r * pitch + len), host + r * len);
      }
    }
  }

  std::vector<double> probe_record() override {
    Exec().fence();
    const std::vector<Real> values = download(probe_values_);
    return std::vector<double>(values.begin(), values.end());
  }
  PhasorSet phasor_sums() override {
    Exec().fence();
    return phasors_ ? phasors_->download() : PhasorSet{};
  }
  void wait(void* stream) override {
    if (stream) streams_.on(stream).fence();
    Exec().fence();
  }
  std::optional<DataLocation> memory() const override { return kokkos_data_location<Exec>(); }

  FdtdStep::Result result() override {
    FdtdStep::Result r;
    BasicFieldSet<Real> fields;
    for (int c = 0; c < 6; ++c) fields[c] = unpitched(download(fields_[c]));
    set_result_fields(r, std::move(fields));
    set_result_probes(r, download(probe_values_));
    if (phasors_) r.phasors = phasors_->download();
    set_result_records(r, setup_, energy_, frames_, radiation_);
    return r;
  }

 private:
  // Host layout (rows of nz + 1) <-> device layout (rows of sy_, zero padding).
  template <class T>
  std::vector<T> pitched(const std::vector<T>& host, T fill) const {
    const std::size_t len = std::size_t(args_.nz + 1), pitch = std::size_t(sy_);
    if (pitch == len) return host;
    const std::size_t rows = host.size() / len;
    std::vector<T> out(rows * pitch, fill);
    for (std::size_t r = 0; r < rows; ++r)
      std::copy(host.begin() + std::ptrdiff_t(r * len),
                host.begin() + std::ptrdiff_t((r + 1) * len),
                out.begin() + std::ptrdiff_t(r * pitch));
    return out;
  }
  template <class T>
  std::vector<T> unpitched(const std::vector<T>& device) const {
    const std::size_t len = std::size_t(args_.nz + 1), pitch = std::size_t(sy_);
    if (pitch == len) return device;
    const std::size_t rows = device.size() / pitch;
    std::vector<T> out(rows * len);
    for (std::size_t r = 0; r < rows; ++r)
      std::copy(device.begin() + std::ptrdiff_t(r * pitch),
                device.begin() + std::ptrdiff_t(r * pitch + len),
                out.begin() + std::ptrdiff_t(r * len));
    return out;
  }
  template <class I>
  std::vector<I> pitched_indices(const std::vector<I>& nodes) const {
    std::vector<I> out;
    for (I node : nodes) {
      const std::int64_t n = std::int64_t(node), len = args_.nz + 1;
      out.push_back(I((n / len) * sy_ + n % len));
    }
    return out;
  }

  // Corrections of the three E (first = 0) or H (first = 3) components after their update.
  void tfsf(float* const* fields, int first, std::int64_t step) {
    const float* row = incident_.data() + step * setup_.tfsf.row;
    for (int c = first; c < first + 3; ++c)
      if (tfsf_count_[c] > 0)
        apply_tfsf<Exec>(fields[c], tfsf_node_[c].data(), tfsf_w0_[c].data(), tfsf_w1_[c].data(),
                         tfsf_s0_[c].data(), tfsf_s1_[c].data(), row, tfsf_count_[c]);
  }

  // Copies a snapshot plane back (the solver runs in chunks between frames).
  void take_frame(Real* const* fields, int snapshot, std::int64_t step) {
    const PlaneSnapshot& s = problem_.snapshots[std::size_t(snapshot)];
    const YeeGrid& g = problem_.grid;
    const auto size = plane_size(g, s.normal);
    View<float>& plane = planes_[std::size_t(snapshot)];
    extract_plane<Exec>(fields[int(s.component)], plane.data(), size[0], size[1], s.normal, s.index,
                        (g.ny + 1) * sy_, sy_);
    frames_.push_back({snapshot, step, download(plane)});
  }

  // Steps step_ .. end - 1, as run() does them.
  void steps_until(std::int64_t end) {
    edge_steps_.require_between_steps();
    while (step_ < end) {
      h_half_step();
      e_planes(0, args_.nx + 1);
      after_e_update();
    }
  }

  // The first part of a step: H everywhere, then E on the edge planes.
  void begin_step(const std::vector<index_t>& edges) override {
    edge_steps_.begin(edges, args_.nx + 1, step_, problem_.steps,
                      incident_.size() == 0 && ntff_.samples == 0 &&
                          setup_.snapshot_schedule.empty() && !problem_.periodic[0],
                      "a plane wave, the NTFF, snapshots or periodic x");
    h_half_step();
    for (index_t e : edge_steps_.edges()) e_planes(e, e + 1);
  }

  // The rest: E on the other planes, then what follows the E update.
  void finish_step() override {
    for (const auto& [first, end] : edge_steps_.finish()) e_planes(first, end);
    after_e_update();
  }

  Real** field_pointers() {
    fields_now_[0] = args_.ex, fields_now_[1] = args_.ey, fields_now_[2] = args_.ez;
    fields_now_[3] = args_.hx, fields_now_[4] = args_.hy, fields_now_[5] = args_.hz;
    return fields_now_;
  }

  // H^{n+1/2} on every plane, the plane wave's H correction and the periodic H copy.
  void h_half_step() {
    const bool narrow = lookup32_.ids == nullptr;
    if (!split_)
      update_h<Exec>(args_, whole_grid(args_));
    else if (narrow)
      split::update_h_split<Exec>(args_, lookup8_, interior_[0], shell_[0], sy_);
    else
      split::update_h_split<Exec>(args_, lookup32_, interior_[0], shell_[0], sy_);
    if constexpr (fp32)
      if (incident_.size() > 0) tfsf(field_pointers(), 3, step_);
    periodic_copy<Exec>(args_, whole_grid(args_), false, sy_);
  }

  // E^{n+1} on the planes [i0, i1) with the sources there and their periodic
  // E copy; on every plane also the plane wave's E correction (before the
  // sources, as on one sweep).
  void e_planes(std::int64_t i0, std::int64_t i1) {
    if (i1 <= i0) return;
    const bool whole = i0 == 0 && i1 == args_.nx + 1, narrow = lookup32_.ids == nullptr;
    const SlabRange range{i0, i1, 0};
    if (!split_) {
      update_e<Exec>(args_, range);
    } else {
      split::InteriorT<Real> in = interior_[1];
      const split::Shell shell = whole ? shell_[1] : split::clip_x(shell_[1], i0, i1);
      in.box = split::clip_x(in.box, i0, i1);
      if (narrow)
        split::update_e_split<Exec>(args_, lookup8_, in, shell, sy_);
      else
        split::update_e_split<Exec>(args_, lookup32_, in, shell, sy_);
    }
    if constexpr (fp32)
      if (whole && incident_.size() > 0) tfsf(field_pointers(), 0, step_);
    const std::int64_t plane = (args_.ny + 1) * sy_;
    if (whole)
      apply_sources<Exec>(args_, io_, step_);
    else
      apply_sources<Exec>(args_, io_, step_, i0 * plane, i1 * plane);
    periodic_copy<Exec>(args_, range, true, sy_);
  }

  // Probes, phasors, frames, the NTFF and the energy of step_, then step_ + 1.
  void after_e_update() {
    const std::int64_t step = step_, sy = sy_;
    const bool narrow = lookup32_.ids == nullptr;
    record_probes<Exec>(args_, io_, step);
    if (phasors_) phasors_->accumulate(phasor_sample_after(problem_, step));
    for (; next_frame_ < setup_.snapshot_schedule.size() &&
           setup_.snapshot_schedule[next_frame_].first == step;
         ++next_frame_)
      take_frame(field_pointers(), setup_.snapshot_schedule[next_frame_].second, step);
    if (ntff_.samples > 0)
      ntff_accumulate<Exec>(ntff_, ntff_factors_.data() + step * ntff_.frequencies * 4);
    if (next_energy_ < setup_.energy_steps.size() && setup_.energy_steps[next_energy_] == step) {
      const double e = !split_  ? field_energy<Exec>(args_, whole_grid(args_))
                       : narrow ? split::field_energy_split<Exec>(args_, lookup8_, sy)
                                : split::field_energy_split<Exec>(args_, lookup32_, sy);
      energy_.push_back(e * setup_.cell_volume);
      ++next_energy_;
    }
    ++step_;
  }

  template <class T>
  static Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
  unmanaged_host(const std::vector<T>& host) {
    return Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
        host.data(), host.size());
  }

  template <class T>
  static std::vector<T> download(const View<T>& v) {
    std::vector<T> out(v.extent(0));
    Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(out.data(),
                                                                                   out.size());
    Kokkos::deep_copy(h, v);
    return out;
  }

  static split::MaterialLookup<std::uint32_t, Real> lookup8_32(
      const split::MaterialLookup<std::uint8_t, Real>& m) {
    return {nullptr, m.table, m.ca0, m.cb0, m.dh0, m.eps0, m.mu0};
  }

  FdtdStep::Problem problem_;
  StepSetupT<Real> setup_;
  bool split_ = false;
  std::int64_t sy_ = 0;  // z pitch of the device arrays
  split::MaterialLookup<std::uint8_t, Real> lookup8_{};
  split::MaterialLookup<std::uint32_t, Real> lookup32_{};
  split::InteriorT<Real> interior_[2]{};  // H, E
  split::Shell shell_[2]{};
  YeeKernelArgsT<Real> args_{};
  SourceProbeArgsT<Real> io_{};
  View<Real> fields_[6], initial_[6], psi_[12], probe_values_;
  View<float> incident_;
  View<index_t> tfsf_node_[6];
  View<float> tfsf_w0_[6], tfsf_w1_[6];
  View<std::int32_t> tfsf_s0_[6], tfsf_s1_[6];
  index_t tfsf_count_[6] = {0, 0, 0, 0, 0, 0};
  std::vector<View<float>> planes_;
  std::vector<SnapshotFrame> frames_;
  NtffDeviceArgs ntff_{};
  View<double> ntff_dft_;
  View<float> ntff_factors_;
  std::vector<RadiationVectors> radiation_;
  std::vector<std::shared_ptr<void>> views_keepalive_;
  std::vector<double> energy_;
  std::unique_ptr<KokkosPhasors<Exec>> phasors_;
  std::int64_t step_ = 0;  // steps done since restart()
  std::size_t next_energy_ = 0, next_frame_ = 0;
  EdgePlaneSteps edge_steps_;
  Real* fields_now_[6] = {};
  StreamInstance<Exec> streams_;
};

}  // namespace
}  // namespace ppkit::fdtd

namespace ppkit::registration {
void register_fdtd_kokkos_variants() {
  for_each_kokkos_space([](auto space) {
    using Exec = typename decltype(space)::execution_space;
    // Both variants run every feature, in fp32 and fp64 (step_features.hpp),
    // and step slabs of MPI runs (copy_planes above) with the edge planes
    // first (begin_step/finish_step above).
    // Ranks 6 and 7: on a device space above OpenCL's 4 and 5 (same tier),
    // below every CUDA variant (native tier). plain is the baseline of the
    // comparison (Taflove's update as written).
    FdtdStep::Traits every_feature{true, true, true, true};
    every_feature.slab_overlap = true;
    auto v = kokkos_variant<FdtdStep>(space, "plain", 6);
    v.role = VariantRole::baseline;
    v.traits = every_feature;
    v.prepare = [](const FdtdStep::Problem& p) -> std::unique_ptr<PreparedRun<FdtdStep::Result>> {
      if (p.precision == fdtd::Precision::fp64)
        return std::make_unique<fdtd::KokkosStep<Exec, double>>(p, false);
      return std::make_unique<fdtd::KokkosStep<Exec, float>>(p, false);
    };
    Registry<FdtdStep>::add(std::move(v));
    auto s = kokkos_variant<FdtdStep>(space, "split", 7);
    s.traits = every_feature;
    s.prepare = [](const FdtdStep::Problem& p) -> std::unique_ptr<PreparedRun<FdtdStep::Result>> {
      if (p.precision == fdtd::Precision::fp64)
        return std::make_unique<fdtd::KokkosStep<Exec, double>>(p, true);
      return std::make_unique<fdtd::KokkosStep<Exec, float>>(p, true);
    };
    Registry<FdtdStep>::add(std::move(s));
  });
}
}  // namespace ppkit::registration
