#include "ppkit/fdtd/plane_wave.hpp"

#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "ppkit/core/error.hpp"
#include "ppkit/fdtd/materials.hpp"

namespace ppkit::fdtd {
namespace {
constexpr index_t absorber_cells = 64;  // graded lossy layer behind the stored aux nodes
constexpr double absorber_reflection = 1e-9;

std::string axis_name(int a) { return a == 0 ? "x" : a == 1 ? "y" : "z"; }
}  // namespace

// ---- 1D auxiliary grid -------------------------------------------------------

IncidentPlaneWave::IncidentPlaneWave(index_t cells, double d, double dt, Waveform waveform,
                                     double frequency, double amplitude, double delay)
    : cells_(cells),
      dt_(dt),
      waveform_(waveform),
      frequency_(frequency),
      amplitude_(amplitude),
      delay_(delay) {
  require(cells >= 2, "incident plane wave grid needs at least 2 cells", ">= 2");
  const std::size_t total = std::size_t(cells + absorber_cells + 1);
  e_.assign(total, 0.0);
  h_.assign(total, 0.0);
  ca_.assign(total, 1.0);
  cb_.assign(total, dt / (eps0 * d));
  da_.assign(total, 1.0);
  db_.assign(total, dt / (mu0 * d));
  // Matched lossy layer (sigma* / mu0 = sigma / eps0: no reflection at normal
  // incidence in the continuum), cubic grading; Taflove sec. 3.12 / eq. 7.61.
  const double sigma_max =
      -4.0 * std::log(absorber_reflection) / (2.0 * eta0 * double(absorber_cells) * d);
  auto loss = [&](double position) {  // sigma dt / (2 eps0) at a position (aux cells)
    const double depth = (position - double(cells)) / double(absorber_cells);
    if (depth <= 0) return 0.0;
    return sigma_max * depth * depth * depth * dt / (2 * eps0);
  };
  for (std::size_t m = 0; m < total; ++m) {
    const double le = loss(double(m)), lh = loss(double(m) + 0.5);
    ca_[m] = (1 - le) / (1 + le);
    cb_[m] = dt / (eps0 * d) / (1 + le);
    da_[m] = (1 - lh) / (1 + lh);
    db_[m] = dt / (mu0 * d) / (1 + lh);
  }
  e_[0] = amplitude_ * waveform_value(waveform_, frequency_, -delay_);
}

void IncidentPlaneWave::advance() {
  const std::size_t total = e_.size();
  // H^{n+1/2} at m + 1/2 (eq. 3.18 in 1D): dH/dt = -(1/mu0) dE/du.
  for (std::size_t m = 0; m + 1 < total; ++m) h_[m] = da_[m] * h_[m] - db_[m] * (e_[m + 1] - e_[m]);
  // E^{n+1} at m: dE/dt = -(1/eps0) dH/du; the last node is a PEC wall behind the absorber.
  for (std::size_t m = 1; m + 1 < total; ++m) e_[m] = ca_[m] * e_[m] - cb_[m] * (h_[m] - h_[m - 1]);
  ++n_;
  e_[0] = amplitude_ * waveform_value(waveform_, frequency_, double(n_) * dt_ - delay_);  // hard
}

// ---- geometry ------------------------------------------------------------------

std::size_t TfsfCorrections::entries() const {
  std::size_t n = 0;
  for (const auto& v : node) n += v.size();
  return n;
}

std::array<double, 3> unit_polarisation(const PlaneWaveSource& w) {
  const double norm =
      std::sqrt(w.polarisation[0] * w.polarisation[0] + w.polarisation[1] * w.polarisation[1] +
                w.polarisation[2] * w.polarisation[2]);
  return {w.polarisation[0] / norm, w.polarisation[1] / norm, w.polarisation[2] / norm};
}

std::array<double, 3> magnetic_direction(const PlaneWaveSource& w) {
  const auto e = unit_polarisation(w);
  std::array<double, 3> u{0, 0, 0};
  u[std::size_t(w.axis)] = double(w.direction);
  return {u[1] * e[2] - u[2] * e[1], u[2] * e[0] - u[0] * e[2], u[0] * e[1] - u[1] * e[0]};
}

void validate(const PlaneWaveSource& w, const YeeGrid& g, int cpml_thickness) {
  require(w.axis >= 0 && w.axis <= 2, "plane wave axis " + std::to_string(w.axis) + " is invalid",
          "x, y or z");
  require(w.direction == 1 || w.direction == -1, "plane wave direction must be +1 or -1",
          "+x, -x, +y, -y, +z, -z");
  const double norm =
      std::sqrt(w.polarisation[0] * w.polarisation[0] + w.polarisation[1] * w.polarisation[1] +
                w.polarisation[2] * w.polarisation[2]);
  require(norm > 0 && std::isfinite(norm), "plane wave polarisation is a zero vector",
          "a non-zero vector transverse to the propagation axis");
  require(std::abs(w.polarisation[std::size_t(w.axis)]) <= 1e-12 * norm,
          "plane wave polarisation has a component along the propagation axis " + axis_name(w.axis),
          "a vector with " + axis_name(w.axis) + " component 0");
  require(w.frequency > 0, "plane wave frequency must be positive", "> 0 Hz");
  const index_t n[3] = {g.nx, g.ny, g.nz};
  for (int a = 0; a < 3; ++a) {
    const index_t lo = w.box_min[std::size_t(a)], hi = w.box_max[std::size_t(a)];
    const std::string range = "total-field box along " + axis_name(a) + " [" + std::to_string(lo) +
                              ", " + std::to_string(hi) + "]";
    require(lo < hi && hi > 0 && lo < n[a], range + " is empty or outside the grid",
            "min < max, overlapping 0.." + std::to_string(n[a]));
    const index_t inner_lo = cpml_thickness + 1, inner_hi = n[a] - cpml_thickness - 1;
    require(lo <= 0 || lo >= inner_lo, range + ": its lower face lies in the CPML or next to it",
            "min <= 0 (face left out) or min >= " + std::to_string(inner_lo));
    require(hi >= n[a] || hi <= inner_hi, range + ": its upper face lies in the CPML or next to it",
            "max >= " + std::to_string(n[a]) +
                " (face left out) or max <= " + std::to_string(inner_hi));
  }
}

AuxLayout aux_layout(const PlaneWaveSource& w, const YeeGrid& g) {
  const index_t n[3] = {g.nx, g.ny, g.nz};
  const index_t lo = std::max<index_t>(0, w.box_min[std::size_t(w.axis)]);
  const index_t hi = std::min<index_t>(n[w.axis], w.box_max[std::size_t(w.axis)]);
  AuxLayout l;
  l.direction = w.direction;
  // Aux node 0 two cells before the entry face; nodes reach one cell past the
  // exit face (the scattered-field neighbours of the faces).
  l.origin = w.direction > 0 ? lo - 2 : hi + 2;
  l.cells = (hi - lo) + 5;
  return l;
}

IncidentPlaneWave make_incident_wave(const PlaneWaveSource& w, const YeeGrid& g) {
  const double d[3] = {g.dx, g.dy, g.dz};
  const AuxLayout l = aux_layout(w, g);
  // The entry face is 2 aux cells from the source node: the pulse leaves the
  // source that much earlier.
  const double lead = 2 * d[w.axis] / speed_of_light;
  return IncidentPlaneWave(l.cells, d[w.axis], g.dt, w.waveform, w.frequency, w.amplitude,
                           w.delay - lead);
}

bool in_total_field(const PlaneWaveSource& w, const YeeGrid& g, const std::array<index_t, 3>& p2) {
  const index_t n[3] = {g.nx, g.ny, g.nz};
  for (int a = 0; a < 3; ++a) {
    const index_t lo = w.box_min[std::size_t(a)], hi = w.box_max[std::size_t(a)];
    if (lo > 0 && p2[std::size_t(a)] < 2 * lo) return false;
    if (hi < n[a] && p2[std::size_t(a)] > 2 * hi) return false;
  }
  return true;
}

// ---- consistency corrections --------------------------------------------------------

TfsfCorrections make_tfsf_corrections(const PlaneWaveSource& w, const YeeGrid& g,
                                      std::int64_t steps, const std::vector<float>& table,
                                      const std::vector<std::uint32_t>& material_id,
                                      const std::array<const std::vector<float>*, 3>& e_inv_kd,
                                      const std::array<const std::vector<float>*, 3>& h_inv_kd) {
  TfsfCorrections t;
  const AuxLayout layout = aux_layout(w, g);
  const index_t L = layout.cells;
  t.row = 2 * L;
  // Incident table: E^s and H^{s+1/2} of the aux grid.
  IncidentPlaneWave aux = make_incident_wave(w, g);
  t.incident.resize(std::size_t(steps * t.row));
  for (std::int64_t s = 0; s < steps; ++s) {
    float* row = t.incident.data() + s * t.row;
    for (index_t m = 0; m < L; ++m) row[m] = float(aux.e(m));
    aux.advance();
    for (index_t m = 0; m < L; ++m) row[L + m] = float(aux.h(m));
  }

  const auto e_dir = unit_polarisation(w), h_dir = magnetic_direction(w);
  const index_t n[3] = {g.nx, g.ny, g.nz};
  const int ax = w.axis;
  // Terms per (component, node), at most two (one per derivative direction).
  std::array<std::map<index_t, std::vector<std::pair<float, std::int32_t>>>, 6> terms;

  // The update of target component c at node (i, j, k) reads neighbour
  // component nc at node nb with stencil factor `factor` (incl. cb or -dh and
  // 1/(kappa d)). If target and neighbour lie in different regions, the
  // neighbour's incident value is added (target total, neighbour scattered)
  // or subtracted (target scattered, neighbour total).
  auto consider = [&](int c, const std::array<index_t, 3>& node, int nc,
                      const std::array<index_t, 3>& nb, double factor) {
    const bool target_e = c < 3, neighbour_e = nc < 3;
    std::array<index_t, 3> pt{}, pn{};
    for (int a = 0; a < 3; ++a) {
      const index_t unit_t = (target_e ? a == c : a != c - 3) ? 1 : 0;
      const index_t unit_n = (neighbour_e ? a == nc : a != nc - 3) ? 1 : 0;
      pt[std::size_t(a)] = 2 * node[std::size_t(a)] + unit_t;
      pn[std::size_t(a)] = 2 * nb[std::size_t(a)] + unit_n;
    }
    const bool tf_target = in_total_field(w, g, pt), tf_neighbour = in_total_field(w, g, pn);
    if (tf_target == tf_neighbour) return;
    const double direction = neighbour_e ? e_dir[std::size_t(nc)] : h_dir[std::size_t(nc - 3)];
    if (direction == 0) return;
    const index_t p = nb[std::size_t(ax)];
    const index_t m = neighbour_e ? layout.e_node(p) : layout.h_node(p);
    if (m < 0 || m >= L)
      throw Error("internal: plane-wave aux node " + std::to_string(m) + " outside 0.." +
                  std::to_string(L - 1));
    const double weight = (tf_target ? 1.0 : -1.0) * factor * direction;
    terms[std::size_t(c)][g.index(node[0], node[1], node[2])].push_back(
        {float(weight), std::int32_t(neighbour_e ? m : L + m)});
  };

  // Nodes within one cell of a face: the shell of the (clipped) box.
  index_t lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = std::max<index_t>(0, w.box_min[std::size_t(a)] - 1);
    hi[a] = std::min<index_t>(n[a], w.box_max[std::size_t(a)] + 1);
  }
  auto near_face = [&](int a, index_t v) {
    const index_t b0 = w.box_min[std::size_t(a)], b1 = w.box_max[std::size_t(a)];
    return std::abs(v - b0) <= 1 || std::abs(v - b1) <= 1;
  };
  for (index_t i = lo[0]; i <= hi[0]; ++i)
    for (index_t j = lo[1]; j <= hi[1]; ++j)
      for (index_t k = lo[2]; k <= hi[2]; ++k) {
        if (!near_face(0, i) && !near_face(1, j) && !near_face(2, k)) {
          if (k < w.box_max[2] - 1) k = std::max(k, w.box_max[2] - 2);  // skip the interior
          continue;
        }
        const std::array<index_t, 3> node{i, j, k};
        const float* coef =
            &table[std::size_t(material_id[std::size_t(g.index(i, j, k))]) * material_stride];
        for (int c = 0; c < 3; ++c) {
          const int a1 = (c + 1) % 3, a2 = (c + 2) % 3;
          // E_c updated: along c in [0, n_c - 1], along the others in [1, n - 1].
          bool updated_e = node[std::size_t(c)] <= n[c] - 1;
          for (int a : {a1, a2})
            updated_e = updated_e && node[std::size_t(a)] >= 1 && node[std::size_t(a)] <= n[a] - 1;
          if (updated_e) {
            // E_c += cb [ (H_{a2}[n] - H_{a2}[n - e_a1]) / d_a1 - (H_{a1}[n] - H_{a1}[n - e_a2]) /
            // d_a2 ]
            const double cb = coef[coef_cb];
            const double inv1 = (*e_inv_kd[std::size_t(a1)])[std::size_t(node[std::size_t(a1)])];
            const double inv2 = (*e_inv_kd[std::size_t(a2)])[std::size_t(node[std::size_t(a2)])];
            auto back1 = node, back2 = node;
            back1[std::size_t(a1)] -= 1;
            back2[std::size_t(a2)] -= 1;
            consider(c, node, 3 + a2, node, cb * inv1);
            consider(c, node, 3 + a2, back1, -cb * inv1);
            consider(c, node, 3 + a1, node, -cb * inv2);
            consider(c, node, 3 + a1, back2, cb * inv2);
          }
          // H_c updated: along c in [0, n_c], along the others in [0, n - 1].
          bool updated_h = true;
          for (int a : {a1, a2}) updated_h = updated_h && node[std::size_t(a)] <= n[a] - 1;
          if (updated_h) {
            // H_c -= dh [ (E_{a2}[n + e_a1] - E_{a2}[n]) / d_a1 - (E_{a1}[n + e_a2] - E_{a1}[n]) /
            // d_a2 ]
            const double dh = coef[coef_dh];
            const double inv1 = (*h_inv_kd[std::size_t(a1)])[std::size_t(node[std::size_t(a1)])];
            const double inv2 = (*h_inv_kd[std::size_t(a2)])[std::size_t(node[std::size_t(a2)])];
            auto fwd1 = node, fwd2 = node;
            fwd1[std::size_t(a1)] += 1;
            fwd2[std::size_t(a2)] += 1;
            consider(3 + c, node, a2, fwd1, -dh * inv1);
            consider(3 + c, node, a2, node, dh * inv1);
            consider(3 + c, node, a1, fwd2, dh * inv2);
            consider(3 + c, node, a1, node, -dh * inv2);
          }
        }
      }
  for (int c = 0; c < 6; ++c)
    for (const auto& [node, list] : terms[std::size_t(c)]) {
      if (list.size() > 2)
        throw Error("internal: " + std::to_string(list.size()) + " plane-wave terms on one node");
      t.node[std::size_t(c)].push_back(node);
      t.weight0[std::size_t(c)].push_back(list[0].first);
      t.slot0[std::size_t(c)].push_back(list[0].second);
      t.weight1[std::size_t(c)].push_back(list.size() > 1 ? list[1].first : 0.0f);
      t.slot1[std::size_t(c)].push_back(list.size() > 1 ? list[1].second : 0);
    }
  return t;
}

}  // namespace ppkit::fdtd
