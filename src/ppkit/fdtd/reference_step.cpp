// The serial reference of fdtd.step, written for clarity rather than speed:
// one loop nest per field component, psi kept on the whole grid (it stays zero
// outside the CPML, where b = 1 and c = 0), energy summed in double.
// Update equations: Taflove & Hagness 3rd ed. eq. 3.19 (E) and 3.18 (H), with
// the CPML derivative replacement of sec. 7.9 (see cpml.hpp).
#include <optional>

#include "ppkit/fdtd/fdtd_step.hpp"

namespace ppkit::fdtd {
namespace {

// The TF/SF consistency corrections written out term by term (Taflove sec.
// 5.8): every update whose stencil reaches across the box boundary gets the
// incident value of the neighbour it read, added when the updated node is in
// the total-field region (the neighbour held a scattered field) and
// subtracted otherwise. The incident field comes from this run's own 1D grid.
class ReferencePlaneWave {
 public:
  ReferencePlaneWave(const PlaneWaveSource& w, const YeeGrid& g)
      : w_(w),
        g_(g),
        layout_(aux_layout(w, g)),
        aux_(make_incident_wave(w, g)),
        e_dir_(unit_polarisation(w)),
        h_dir_(magnetic_direction(w)) {}

  // After the H update of a step (aux holds E^n), then advance, then after
  // the E update (aux holds H^{n+1/2}).
  void correct_h(FieldSet& f, const StepSetup& setup) { correct(f, setup, false); }
  void advance() { aux_.advance(); }
  void correct_e(FieldSet& f, const StepSetup& setup) { correct(f, setup, true); }

 private:
  // Doubled position of component c (0..5) at node (i, j, k).
  static std::array<index_t, 3> position(int c, const std::array<index_t, 3>& node) {
    std::array<index_t, 3> p{};
    for (int a = 0; a < 3; ++a)
      p[std::size_t(a)] = 2 * node[std::size_t(a)] + ((c < 3 ? a == c : a != c - 3) ? 1 : 0);
    return p;
  }
  double incident(int c, const std::array<index_t, 3>& node) const {
    const index_t p = node[std::size_t(w_.axis)];
    if (c < 3) return e_dir_[std::size_t(c)] * aux_.e(layout_.e_node(p));
    return h_dir_[std::size_t(c - 3)] * aux_.h(layout_.h_node(p));
  }

  void correct(FieldSet& f, const StepSetup& setup, bool electric) {
    const index_t n[3] = {g_.nx, g_.ny, g_.nz};
    for (int c = 0; c < 3; ++c) {
      const int target = electric ? c : 3 + c;
      const int a1 = (c + 1) % 3, a2 = (c + 2) % 3;
      // E_c: curl_c H = d_a1 H_a2 - d_a2 H_a1 (backward differences), updated
      // along c in [0, n_c) and along a1, a2 in [1, n); H_c: curl_c E with
      // forward differences, updated along c in [0, n_c] and a1, a2 in [0, n).
      index_t lo[3], hi[3];
      for (int a = 0; a < 3; ++a) {
        lo[a] = electric && a != c ? 1 : 0;
        hi[a] = electric ? n[a] - 1 : (a == c ? n[a] : n[a] - 1);
      }
      for (index_t i = lo[0]; i <= hi[0]; ++i)
        for (index_t j = lo[1]; j <= hi[1]; ++j)
          for (index_t k = lo[2]; k <= hi[2]; ++k) {
            const std::array<index_t, 3> node{i, j, k};
            const bool total = in_total_field(w_, g_, position(target, node));
            const std::size_t nn = std::size_t(g_.index(i, j, k));
            const float* coef =
                &setup.material_table[setup.material_id[nn] * std::size_t(material_stride)];
            // (neighbour component, node shift along axis, axis, sign in the curl)
            struct Term {
              int component, axis, shift;
              double sign;
            };
            // E_c: +H_a2[n]/d_a1 - H_a2[n - e_a1]/d_a1 - H_a1[n]/d_a2 + H_a1[n - e_a2]/d_a2
            // H_c: +E_a2[n + e_a1]/d_a1 - E_a2[n]/d_a1 - E_a1[n + e_a2]/d_a2 + E_a1[n]/d_a2
            const int h2 = electric ? 3 + a2 : a2, h1 = electric ? 3 + a1 : a1;
            const int near_shift = electric ? 0 : 1, far_shift = electric ? -1 : 0;
            const Term terms[4] = {{h2, a1, near_shift, 1.0},
                                   {h2, a1, far_shift, -1.0},
                                   {h1, a2, near_shift, -1.0},
                                   {h1, a2, far_shift, 1.0}};
            for (const Term& t : terms) {
              std::array<index_t, 3> nb = node;
              nb[std::size_t(t.axis)] += t.shift;
              if (in_total_field(w_, g_, position(t.component, nb)) == total) continue;
              const CpmlAxis& ax = setup.cpml.axis[t.axis];
              const double inv_d = electric ? ax.e_inv_kd[std::size_t(node[std::size_t(t.axis)])]
                                            : ax.h_inv_kd[std::size_t(node[std::size_t(t.axis)])];
              // E += cb curl H; H -= dh curl E.
              const double update = electric ? coef[coef_cb] : -coef[coef_dh];
              const double inc = incident(t.component, nb);
              f[std::size_t(target)][nn] += float(update * t.sign * inv_d * (total ? inc : -inc));
            }
          }
    }
  }

  const PlaneWaveSource& w_;
  const YeeGrid& g_;
  AuxLayout layout_;
  IncidentPlaneWave aux_;
  std::array<double, 3> e_dir_, h_dir_;
};

// A plane of component c at normal index, in frame layout (a fastest);
// frames are float in both precisions.
template <class Real>
std::vector<float> extract_plane(const YeeGrid& g, const std::vector<Real>& field,
                                 const PlaneSnapshot& s) {
  const auto size = plane_size(g, s.normal);
  std::vector<float> out(std::size_t(size[0] * size[1]));
  for (index_t ib = 0; ib < size[1]; ++ib)
    for (index_t ia = 0; ia < size[0]; ++ia) {
      index_t node[3];
      const auto ab = plane_axes(s.normal);
      node[s.normal] = s.index;
      node[ab[0]] = ia;
      node[ab[1]] = ib;
      out[std::size_t(ib * size[0] + ia)] =
          float(field[std::size_t(g.index(node[0], node[1], node[2]))]);
    }
  return out;
}

// The whole reference in precision Real (float: fp32, double: fp64).
template <class Real>
FdtdStep::Result reference_step_as(const FdtdStep::Problem& p) {
  constexpr bool fp32 = std::is_same_v<Real, float>;
  const StepSetupT<Real> setup = make_step_setup_as<Real>(p);
  const YeeGrid& g = p.grid;
  const std::size_t nodes = std::size_t(g.nodes());
  BasicFieldSet<Real> f;
  for (int c = 0; c < 6; ++c)
    f[c] = p.initial[c].empty() && p.initial_fp64[c].empty() ? std::vector<Real>(nodes, Real(0))
                                                             : initial_field<Real>(p, c);
  auto& ex = f[0];
  auto& ey = f[1];
  auto& ez = f[2];
  auto& hx = f[3];
  auto& hy = f[4];
  auto& hz = f[5];
  // psi_<field><axis>: the CPML memory of field's derivative along axis.
  std::vector<Real> psi_exy(nodes), psi_exz(nodes), psi_eyx(nodes), psi_eyz(nodes), psi_ezx(nodes),
      psi_ezy(nodes), psi_hxy(nodes), psi_hxz(nodes), psi_hyx(nodes), psi_hyz(nodes),
      psi_hzx(nodes), psi_hzy(nodes);
  const CpmlAxisT<Real>& X = setup.cpml.axis[0];
  const CpmlAxisT<Real>& Y = setup.cpml.axis[1];
  const CpmlAxisT<Real>& Z = setup.cpml.axis[2];
  auto id = [&](index_t i, index_t j, index_t k) { return std::size_t(g.index(i, j, k)); };
  auto coef = [&](std::size_t n, int which) {
    return setup.material_table[setup.material_id[n] * material_stride + which];
  };

  // Periodic x / y (yee_kernel_args.hpp): the face u = n is updated like an
  // interior node and u = 0 is its copy; last_* is the last updated E node.
  const bool periodic_x = p.periodic[0], periodic_y = p.periodic[1];
  const index_t last_i = periodic_x ? g.nx : g.nx - 1, last_j = periodic_y ? g.ny : g.ny - 1;
  auto copy_periodic_h = [&] {
    for (index_t i = 0; i <= g.nx && periodic_y; ++i)
      for (index_t k = 0; k <= g.nz; ++k) {
        hx[id(i, g.ny, k)] = hx[id(i, 0, k)];
        hz[id(i, g.ny, k)] = hz[id(i, 0, k)];
      }
    for (index_t j = 0; j <= g.ny && periodic_x; ++j)
      for (index_t k = 0; k <= g.nz; ++k) {
        hy[id(g.nx, j, k)] = hy[id(0, j, k)];
        hz[id(g.nx, j, k)] = hz[id(0, j, k)];
      }
  };
  auto copy_periodic_e = [&] {
    for (index_t i = 0; i <= g.nx && periodic_y; ++i)
      for (index_t k = 0; k <= g.nz; ++k) {
        ex[id(i, 0, k)] = ex[id(i, g.ny, k)];
        ez[id(i, 0, k)] = ez[id(i, g.ny, k)];
      }
    for (index_t j = 0; j <= g.ny && periodic_x; ++j)
      for (index_t k = 0; k <= g.nz; ++k) {
        ey[id(0, j, k)] = ey[id(g.nx, j, k)];
        ez[id(0, j, k)] = ez[id(g.nx, j, k)];
      }
  };
  FdtdStep::Result r;
  if (p.phasors.enabled()) r.phasors = make_phasor_set(p.phasors, g);
  const std::vector<float> phasor_coef =
      phasor_coefficients(p.phasors, g.dt, 0, setup.phasor_samples);
  const std::size_t steps = std::size_t(p.steps);
  std::vector<Real> probe_values(p.probes.size() * steps, Real(0));
  std::size_t next_energy = 0, next_frame = 0;
  std::optional<ReferencePlaneWave> plane_wave;
  // Near-to-far-field: running DFT per surface sample and frequency, in double.
  const std::size_t frequencies = p.far_field.empty() ? 0 : p.far_field[0].frequencies.size();
  std::vector<std::vector<double>> dft_re(frequencies, std::vector<double>(setup.ntff.size())),
      dft_im = dft_re;
  if constexpr (fp32)  // fp64 problems have no plane wave (validate())
    if (!p.plane_waves.empty()) plane_wave.emplace(p.plane_waves[0], g);

  for (std::size_t step = 0; step < steps; ++step) {
    // ---- H^{n+1/2} = H^{n-1/2} - dh curl E^n -----------------------------
    for (index_t i = 0; i <= g.nx; ++i)
      for (index_t j = 0; j < g.ny; ++j)
        for (index_t k = 0; k < g.nz; ++k) {
          const std::size_t n = id(i, j, k);
          const Real dez = ez[id(i, j + 1, k)] - ez[n], dey = ey[id(i, j, k + 1)] - ey[n];
          psi_hxy[n] = Y.h_b[j] * psi_hxy[n] + Y.h_c_d[j] * dez;
          psi_hxz[n] = Z.h_b[k] * psi_hxz[n] + Z.h_c_d[k] * dey;
          const Real curl = (dez * Y.h_inv_kd[j] + psi_hxy[n]) - (dey * Z.h_inv_kd[k] + psi_hxz[n]);
          hx[n] -= coef(n, coef_dh) * curl;
        }
    for (index_t i = 0; i < g.nx; ++i)
      for (index_t j = 0; j <= g.ny; ++j)
        for (index_t k = 0; k < g.nz; ++k) {
          const std::size_t n = id(i, j, k);
          const Real dex = ex[id(i, j, k + 1)] - ex[n], dez = ez[id(i + 1, j, k)] - ez[n];
          psi_hyz[n] = Z.h_b[k] * psi_hyz[n] + Z.h_c_d[k] * dex;
          psi_hyx[n] = X.h_b[i] * psi_hyx[n] + X.h_c_d[i] * dez;
          const Real curl = (dex * Z.h_inv_kd[k] + psi_hyz[n]) - (dez * X.h_inv_kd[i] + psi_hyx[n]);
          hy[n] -= coef(n, coef_dh) * curl;
        }
    for (index_t i = 0; i < g.nx; ++i)
      for (index_t j = 0; j < g.ny; ++j)
        for (index_t k = 0; k <= g.nz; ++k) {
          const std::size_t n = id(i, j, k);
          const Real dey = ey[id(i + 1, j, k)] - ey[n], dex = ex[id(i, j + 1, k)] - ex[n];
          psi_hzx[n] = X.h_b[i] * psi_hzx[n] + X.h_c_d[i] * dey;
          psi_hzy[n] = Y.h_b[j] * psi_hzy[n] + Y.h_c_d[j] * dex;
          const Real curl = (dey * X.h_inv_kd[i] + psi_hzx[n]) - (dex * Y.h_inv_kd[j] + psi_hzy[n]);
          hz[n] -= coef(n, coef_dh) * curl;
        }
    if constexpr (fp32)
      if (plane_wave) {
        plane_wave->correct_h(f, setup);
        plane_wave->advance();
      }
    copy_periodic_h();
    // ---- E^{n+1} = ca E^n + cb curl H^{n+1/2} (tangential E on the faces stays 0) ----
    for (index_t i = 0; i < g.nx; ++i)
      for (index_t j = 1; j <= last_j; ++j)
        for (index_t k = 1; k < g.nz; ++k) {
          const std::size_t n = id(i, j, k);
          const Real dhz = hz[n] - hz[id(i, j - 1, k)], dhy = hy[n] - hy[id(i, j, k - 1)];
          psi_exy[n] = Y.e_b[j] * psi_exy[n] + Y.e_c_d[j] * dhz;
          psi_exz[n] = Z.e_b[k] * psi_exz[n] + Z.e_c_d[k] * dhy;
          const Real curl = (dhz * Y.e_inv_kd[j] + psi_exy[n]) - (dhy * Z.e_inv_kd[k] + psi_exz[n]);
          ex[n] = coef(n, coef_ca) * ex[n] + coef(n, coef_cb) * curl;
        }
    for (index_t i = 1; i <= last_i; ++i)
      for (index_t j = 0; j < g.ny; ++j)
        for (index_t k = 1; k < g.nz; ++k) {
          const std::size_t n = id(i, j, k);
          const Real dhx = hx[n] - hx[id(i, j, k - 1)], dhz = hz[n] - hz[id(i - 1, j, k)];
          psi_eyz[n] = Z.e_b[k] * psi_eyz[n] + Z.e_c_d[k] * dhx;
          psi_eyx[n] = X.e_b[i] * psi_eyx[n] + X.e_c_d[i] * dhz;
          const Real curl = (dhx * Z.e_inv_kd[k] + psi_eyz[n]) - (dhz * X.e_inv_kd[i] + psi_eyx[n]);
          ey[n] = coef(n, coef_ca) * ey[n] + coef(n, coef_cb) * curl;
        }
    for (index_t i = 1; i <= last_i; ++i)
      for (index_t j = 1; j <= last_j; ++j)
        for (index_t k = 0; k < g.nz; ++k) {
          const std::size_t n = id(i, j, k);
          const Real dhy = hy[n] - hy[id(i - 1, j, k)], dhx = hx[n] - hx[id(i, j - 1, k)];
          psi_ezx[n] = X.e_b[i] * psi_ezx[n] + X.e_c_d[i] * dhy;
          psi_ezy[n] = Y.e_b[j] * psi_ezy[n] + Y.e_c_d[j] * dhx;
          const Real curl = (dhy * X.e_inv_kd[i] + psi_ezx[n]) - (dhx * Y.e_inv_kd[j] + psi_ezy[n]);
          ez[n] = coef(n, coef_ca) * ez[n] + coef(n, coef_cb) * curl;
        }
    if constexpr (fp32)
      if (plane_wave) plane_wave->correct_e(f, setup);
    // ---- sources, probes, snapshots, energy ----------------------------------
    for (std::size_t s = 0; s < p.sources.size(); ++s) {
      Real& e = f[std::size_t(setup.source_component[s])][std::size_t(setup.source_index[s])];
      const Real value = setup.source_values[s * steps + step];
      e = setup.source_hard[s] ? value : e + value;
    }
    copy_periodic_e();
    for (std::size_t q = 0; q < p.probes.size(); ++q)
      probe_values[q * steps + step] =
          f[std::size_t(setup.probe_component[q])][std::size_t(setup.probe_index[q])];
    if constexpr (fp32)  // fp64 problems have no phasors (validate())
      if (const std::int64_t sample = phasor_sample_after(p, std::int64_t(step)); sample >= 0)
        accumulate_phasors_host(
            r.phasors, g, {ex.data(), ey.data(), ez.data(), hx.data(), hy.data(), hz.data()},
            &phasor_coef[std::size_t(sample) * p.phasors.frequencies.size() * 4]);
    for (; next_frame < setup.snapshot_schedule.size() &&
           setup.snapshot_schedule[next_frame].first == std::int64_t(step);
         ++next_frame) {
      const int snap = setup.snapshot_schedule[next_frame].second;
      const PlaneSnapshot& s = p.snapshots[std::size_t(snap)];
      r.frames.push_back(
          {snap, std::int64_t(step), extract_plane(g, f[std::size_t(s.component)], s)});
    }
    for (std::size_t fr = 0; fr < frequencies; ++fr) {
      const float* factor = &setup.ntff_factors[(step * frequencies + fr) * 4];
      for (std::size_t q = 0; q < setup.ntff.size(); ++q) {
        const auto& field = f[std::size_t(setup.ntff.component[q])];
        const double value = 0.5 * (double(field[std::size_t(setup.ntff.node_a[q])]) +
                                    double(field[std::size_t(setup.ntff.node_b[q])]));
        const bool electric = setup.ntff.component[q] < 3;
        dft_re[fr][q] += value * factor[electric ? 0 : 2];
        dft_im[fr][q] += value * factor[electric ? 1 : 3];
      }
    }
    if (next_energy < setup.energy_steps.size() &&
        setup.energy_steps[next_energy] == std::int64_t(step)) {
      double sum = 0;
      for (std::size_t n = 0; n < nodes; ++n) {
        const double e2 = double(ex[n]) * ex[n] + double(ey[n]) * ey[n] + double(ez[n]) * ez[n];
        const double h2 = double(hx[n]) * hx[n] + double(hy[n]) * hy[n] + double(hz[n]) * hz[n];
        sum += 0.5 * (coef(n, coef_eps) * e2 + coef(n, coef_mu) * h2);
      }
      r.energy_steps.push_back(std::int64_t(step));
      r.energy.push_back(sum * setup.cell_volume);
      ++next_energy;
    }
  }
  for (std::size_t fr = 0; fr < frequencies; ++fr)
    for (std::size_t d = 0; d < p.far_field[0].directions.size(); ++d)
      r.radiation.push_back(radiation_vectors(setup.ntff, dft_re[fr], dft_im[fr],
                                              ntff_direction(p.far_field[0], fr, d)));
  set_result_fields(r, std::move(f));
  set_result_probes(r, std::move(probe_values));
  return r;
}

}  // namespace

FdtdStep::Result reference_step(const FdtdStep::Problem& p) {
  return p.precision == Precision::fp64 ? reference_step_as<double>(p)
                                        : reference_step_as<float>(p);
}

}  // namespace ppkit::fdtd
