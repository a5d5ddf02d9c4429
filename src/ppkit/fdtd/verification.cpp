// Sampled verification of fdtd.step and fdtd.phasor_update (verification.hpp):
// the verification problem, the placement of the sample boxes, the serial
// light-cone reference on their windows and the checks.
#include "ppkit/fdtd/verification.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ppkit/core/error.hpp"

namespace ppkit::fdtd {
namespace {

// SplitMix64 (Steele, Lea & Flood, OOPSLA 2014): a bijective 64-bit mix, used
// as a counter-based generator so that any node's value is one call.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in [-1, 1) with 24 random bits (exact in float).
float unit_value(std::uint64_t stream, std::uint64_t node) {
  return float(mix(stream + node) >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

// A sequence of draws for the box positions.
class Draws {
 public:
  explicit Draws(std::uint64_t seed) : state_(mix(seed)) {}
  // Uniform in [lo, hi] (hi >= lo).
  index_t in(index_t lo, index_t hi) {
    state_ = mix(state_);
    return lo + index_t(state_ % std::uint64_t(hi - lo + 1));
  }

 private:
  std::uint64_t state_;
};

}  // namespace

SampleBox whole_grid_box(const YeeGrid& g) {
  SampleBox whole;
  whole.hi = {g.nx + 1, g.ny + 1, g.nz + 1};
  whole.where = "whole grid";
  return whole;
}

SampleBox light_cone_window(const YeeGrid& g, const SampleBox& box, std::int64_t margin) {
  const index_t nodes[3] = {g.nx + 1, g.ny + 1, g.nz + 1};
  SampleBox w = box;
  for (int a = 0; a < 3; ++a) {
    w.lo[std::size_t(a)] = std::max<index_t>(0, box.lo[std::size_t(a)] - margin);
    w.hi[std::size_t(a)] = std::min<index_t>(nodes[a], box.hi[std::size_t(a)] + margin);
  }
  return w;
}

std::vector<SampleBox> verification_boxes(const YeeGrid& g, int thickness,
                                          const std::vector<std::array<index_t, 3>>& sources,
                                          std::uint64_t seed) {
  const index_t n[3] = {g.nx, g.ny, g.nz};
  const index_t t = thickness;
  Draws draw(seed);
  std::vector<SampleBox> boxes;
  using Range = std::array<index_t, 2>;
  // Adds the box clipped to the grid's nodes, if anything is left of it.
  auto add = [&](const std::array<Range, 3>& r, std::string where) {
    SampleBox b;
    for (std::size_t a = 0; a < 3; ++a) {
      b.lo[a] = std::max<index_t>(0, r[a][0]);
      b.hi[a] = std::min<index_t>(n[a] + 1, r[a][1]);
      if (b.hi[a] <= b.lo[a]) return;
    }
    b.where = std::move(where);
    boxes.push_back(std::move(b));
  };
  // Along axis a, side 0 (low) or 1 (high): the PEC face, every CPML depth
  // (E psi at u < t and u > n - t, H psi at u < t and u >= n - t), the
  // layer's inner edge (where the split variants' interior box starts) and
  // two interior nodes past it.
  auto layer = [&](int a, int side) -> Range {
    return side == 0 ? Range{0, t + 3} : Range{n[a] - t - 2, n[a] + 1};
  };
  // w nodes from a random start in the CPML-free interior along a (anywhere
  // on a grid without one).
  auto interior = [&](int a, index_t w) -> Range {
    index_t lo = t + 1, hi = n[a] - t - w;
    if (hi < lo) lo = 0, hi = std::max<index_t>(0, n[a] + 1 - w);
    const index_t s = draw.in(lo, hi);
    return {s, s + w};
  };
  // w nodes straddling a multiple of `period` in the interior along a (tile
  // and chunk edges: 16 x-planes per chunk of cuda/register-x, tiles of 8 y
  // rows and 32 z nodes in the split and wavefront variants).
  auto straddle = [&](int a, index_t period, index_t w) -> Range {
    const index_t first = (t + 1 + period) / period, last = (n[a] - t - w / 2) / period;
    if (last < first) return interior(a, w);
    const index_t edge = period * draw.in(first, last);
    return {edge - w / 2, edge - w / 2 + w};
  };
  const char* axis_name = "xyz";
  const char* side_name[2] = {"low", "high"};

  // Faces: two boxes through each face's CPML, away from the other layers.
  for (int a = 0; a < 3; ++a)
    for (int side = 0; side < 2; ++side)
      for (int rep = 0; rep < 2; ++rep) {
        std::array<Range, 3> r;
        for (int b = 0; b < 3; ++b) r[std::size_t(b)] = b == a ? layer(a, side) : interior(b, 4);
        add(r, fmt::format("CPML of the {} {} face", side_name[side], axis_name[a]));
      }
  // Edges: where two layers overlap, a random stretch along the third axis.
  for (int a = 0; a < 3; ++a)
    for (int side_b = 0; side_b < 2; ++side_b)
      for (int side_c = 0; side_c < 2; ++side_c) {
        const int b = (a + 1) % 3, c = (a + 2) % 3;
        std::array<Range, 3> r;
        r[std::size_t(a)] = interior(a, 4);
        r[std::size_t(b)] = layer(b, side_b);
        r[std::size_t(c)] = layer(c, side_c);
        add(r, fmt::format("CPML edge along {} ({} {}, {} {})", axis_name[a], side_name[side_b],
                           axis_name[b], side_name[side_c], axis_name[c]));
      }
  // Corners: all three layers.
  for (int corner = 0; corner < 8; ++corner) {
    std::array<Range, 3> r;
    for (int a = 0; a < 3; ++a) r[std::size_t(a)] = layer(a, (corner >> a) & 1);
    add(r, fmt::format("CPML corner ({} x, {} y, {} z)", side_name[corner & 1],
                       side_name[(corner >> 1) & 1], side_name[(corner >> 2) & 1]));
  }
  // Pencils of 2 x 2 nodes through the whole grid along each axis: every
  // position along it (both PEC faces, every CPML depth, the split's slab
  // faces, every tile and chunk edge along the axis), across tile edges of
  // the other two axes, at random, and inside the layers of the other two.
  const index_t period[3] = {16, 8, 32};
  for (int a = 0; a < 3; ++a) {
    const int b = (a + 1) % 3, c = (a + 2) % 3;
    const Range along{0, n[a] + 1};
    std::array<Range, 3> r;
    r[std::size_t(a)] = along;
    r[std::size_t(b)] = straddle(b, period[b], 2);
    r[std::size_t(c)] = straddle(c, period[c], 2);
    add(r, fmt::format("pencil along {} across tile edges", axis_name[a]));
    r[std::size_t(b)] = interior(b, 2);
    r[std::size_t(c)] = interior(c, 2);
    add(r, fmt::format("pencil along {}", axis_name[a]));
    r[std::size_t(b)] = {t / 2, t / 2 + 2};
    r[std::size_t(c)] = {n[c] - t / 2 - 1, n[c] - t / 2 + 1};
    add(r, fmt::format("pencil along {} in the {} and {} layers", axis_name[a], axis_name[b],
                       axis_name[c]));
  }
  // Interior boxes: at random and across chunk/tile edges on all axes.
  for (int rep = 0; rep < 4; ++rep)
    add({interior(0, 4), interior(1, 4), interior(2, 4)}, "interior");
  for (int rep = 0; rep < 2; ++rep)
    add({straddle(0, period[0], 4), straddle(1, period[1], 4), straddle(2, period[2], 4)},
        "interior across tile edges");
  // Whole x-planes: the last two (the highest linear indices of every
  // layout) and an interior pair across a chunk edge (the y and z layers
  // and faces of a whole plane).
  add({Range{n[0] - 1, n[0] + 1}, Range{0, n[1] + 1}, Range{0, n[2] + 1}}, "last x-planes");
  add({straddle(0, period[0], 2), Range{0, n[1] + 1}, Range{0, n[2] + 1}}, "interior x-planes");
  // Where a linear node index L passes 2^28 .. 2^32: 8- and 4-byte offsets
  // past 2^31 and 2^32, indices past 2^31 (int) and 2^32 (unsigned). The box
  // holds nodes L - 1 and L (and their neighbours along z).
  const index_t total = g.nodes();
  for (int bits = 28; bits <= 32; ++bits) {
    const index_t node = index_t(1) << bits;
    if (node >= total) break;
    for (const index_t q : {node - 1, node}) {
      const index_t i = q / g.stride_x(), j = (q / g.stride_y()) % (g.ny + 1), k = q % (g.nz + 1);
      add({Range{i, i + 1}, Range{j, j + 1}, Range{k - 1, k + 2}},
          fmt::format("linear index 2^{}{}", bits, q < node ? " - 1" : ""));
    }
  }
  for (const auto& s : sources)
    add({Range{s[0] - 2, s[0] + 2}, Range{s[1] - 2, s[1] + 2}, Range{s[2] - 2, s[2] + 2}},
        fmt::format("source at ({}, {}, {})", s[0], s[1], s[2]));
  return boxes;
}

double window_nodes(const YeeGrid& g, const std::vector<SampleBox>& boxes, std::int64_t margin) {
  double sum = 0;
  for (const auto& b : boxes) sum += double(light_cone_window(g, b, margin).nodes());
  return sum;
}

std::vector<SampleBox> verification_boxes(const FdtdStep::Problem& p, std::uint64_t seed) {
  std::vector<std::array<index_t, 3>> sources;
  for (const auto& s : p.sources) sources.push_back({s.i, s.j, s.k});
  auto boxes = verification_boxes(p.grid, p.cpml.thickness, sources, seed);
  if (window_nodes(p.grid, boxes, p.steps) < double(p.grid.nodes())) return boxes;
  return {whole_grid_box(p.grid)};
}

FdtdStep::Problem make_verification_problem(index_t n, int thickness, std::int64_t steps,
                                            std::uint64_t seed, int materials) {
  require(materials >= 1 && materials <= 4,
          "verification problem with " + std::to_string(materials) + " materials", "1 to 4");
  FdtdStep::Problem p;
  const double dx = 1e-3;
  p.grid = make_grid(n, n, n, double(n) * dx, double(n) * dx, double(n) * dx, 0.99);
  p.cpml.thickness = thickness;
  p.cpml.kappa_max = 2;
  p.cpml.alpha_max = 0.05;
  p.steps = steps;
  const std::size_t nodes = std::size_t(p.grid.nodes());
  const std::uint64_t base = mix(seed);
  p.materials = {Material{}, Material{4.0, 1.0, 0.02, false}, Material{2.5, 1.5, 0, false},
                 Material{9.0, 1.0, 0.005, false}};
  p.materials.resize(std::size_t(materials));
  if (materials > 1) {
    p.material_id.resize(nodes);
    const std::uint64_t stream = mix(base + 6);
    for (std::size_t q = 0; q < nodes; ++q)
      p.material_id[q] = std::uint32_t((mix(stream + q) >> 32) % std::uint64_t(materials));
  }
  for (std::uint64_t c = 0; c < 6; ++c) {
    auto& field = p.initial[c];
    field.resize(nodes);
    const float scale = c < 3 ? 1.0f : float(1 / eta0);
    const std::uint64_t stream = mix(base + c);
    for (std::size_t q = 0; q < nodes; ++q) field[q] = scale * unit_value(stream, q);
  }
  // Pulses centred on the middle of the run, so every step's source value
  // matters: waveform chi + delay = steps / 2 dt.
  const double middle = 0.5 * double(steps) * p.grid.dt;
  PointSource soft;
  soft.component = Component::ez;
  soft.i = n / 2, soft.j = n / 3, soft.k = n / 2;
  soft.waveform = Waveform::ricker;
  soft.frequency = speed_of_light / (20 * dx);
  soft.delay = middle - std::sqrt(2.0) / soft.frequency;
  soft.amplitude = 1e-8;  // I dl: about 2 V/m per step at the peak, like the random fields
  p.sources.push_back(soft);
  PointSource hard;
  hard.component = Component::ex;
  hard.i = n / 3, hard.j = n / 2, hard.k = 2 * n / 3;
  hard.waveform = Waveform::modulated_gaussian;
  hard.frequency = soft.frequency;
  hard.delay = middle - 3 / hard.frequency;
  hard.amplitude = 1;  // V/m
  hard.hard = true;
  p.sources.push_back(hard);
  return p;
}

index_t SampledFields::nodes() const {
  index_t sum = 0;
  for (const auto& b : boxes) sum += b.nodes();
  return sum;
}

namespace {

// The fields of the problem stepped on one window, as reference_step_as
// computes them (same update formulas and operation order), written on the
// window's own arrays: node (i, j, k) of the grid at local index
// ((i - lo0) * W1 + (j - lo1)) * W2 + (k - lo2). At step s only the nodes of
// the box grown by (steps - s) are updated (the part of the light cone still
// needed); a node whose stencil leaves that range keeps a stale value, which
// never reaches the box (verification.hpp).
template <class Real>
BasicFieldSet<Real> step_window(const FdtdStep::Problem& p, const StepSetupT<Real>& setup,
                                const SampleBox& box) {
  const YeeGrid& g = p.grid;
  const SampleBox w = light_cone_window(g, box, p.steps);
  const index_t W1 = w.hi[1] - w.lo[1], W2 = w.hi[2] - w.lo[2];
  auto id = [&](index_t i, index_t j, index_t k) {
    return std::size_t(((i - w.lo[0]) * W1 + (j - w.lo[1])) * W2 + (k - w.lo[2]));
  };
  const std::size_t nodes = std::size_t(w.nodes());
  BasicFieldSet<Real> f;
  for (std::size_t c = 0; c < 6; ++c) {
    f[c].assign(nodes, Real(0));
    const auto& wide = p.initial_fp64[c];
    const auto& narrow = p.initial[c];
    if (wide.empty() && narrow.empty()) continue;
    for (index_t i = w.lo[0]; i < w.hi[0]; ++i)
      for (index_t j = w.lo[1]; j < w.hi[1]; ++j)
        for (index_t k = w.lo[2]; k < w.hi[2]; ++k) {
          const std::size_t q = std::size_t(g.index(i, j, k));
          f[c][id(i, j, k)] = wide.empty() ? Real(narrow[q]) : Real(wide[q]);
        }
  }
  auto& ex = f[0];
  auto& ey = f[1];
  auto& ez = f[2];
  auto& hx = f[3];
  auto& hy = f[4];
  auto& hz = f[5];
  std::vector<Real> psi_exy(nodes), psi_exz(nodes), psi_eyx(nodes), psi_eyz(nodes), psi_ezx(nodes),
      psi_ezy(nodes), psi_hxy(nodes), psi_hxz(nodes), psi_hyx(nodes), psi_hyz(nodes),
      psi_hzx(nodes), psi_hzy(nodes);
  const CpmlAxisT<Real>& X = setup.cpml.axis[0];
  const CpmlAxisT<Real>& Y = setup.cpml.axis[1];
  const CpmlAxisT<Real>& Z = setup.cpml.axis[2];
  // Coefficient `which` of the material at grid node (i, j, k).
  auto coef = [&](index_t i, index_t j, index_t k, int which) {
    return setup
        .material_table[setup.material_id[std::size_t(g.index(i, j, k))] * material_stride + which];
  };
  const std::size_t steps = std::size_t(p.steps);
  for (std::size_t step = 0; step < steps; ++step) {
    // The nodes still needed: the box grown by (steps - step), within the window.
    const SampleBox a = light_cone_window(g, box, std::int64_t(steps - step));
    // Update ranges [from, to) per axis: the reference's range for the
    // component, cut to the nodes of `a` whose stencil stays in `a` (H reads
    // +1 neighbours, E reads -1 neighbours).
    auto h_to = [&](int axis, bool along) {  // along: the component's own axis
      const index_t n = axis == 0 ? g.nx : axis == 1 ? g.ny : g.nz;
      return along ? std::min(a.hi[std::size_t(axis)], n + 1)
                   : std::min(a.hi[std::size_t(axis)] - 1, n);
    };
    auto e_from = [&](int axis, bool along) {
      return along ? a.lo[std::size_t(axis)] : std::max<index_t>(a.lo[std::size_t(axis)] + 1, 1);
    };
    auto e_to = [&](int axis) {  // E_c along c: u < n; tangential: u <= n - 1
      const index_t n = axis == 0 ? g.nx : axis == 1 ? g.ny : g.nz;
      return std::min(a.hi[std::size_t(axis)], n);
    };
    // ---- H^{n+1/2} = H^{n-1/2} - dh curl E^n -----------------------------
    for (index_t i = a.lo[0]; i < h_to(0, true); ++i)
      for (index_t j = a.lo[1]; j < h_to(1, false); ++j)
        for (index_t k = a.lo[2]; k < h_to(2, false); ++k) {
          const std::size_t n = id(i, j, k);
          const Real dez = ez[id(i, j + 1, k)] - ez[n], dey = ey[id(i, j, k + 1)] - ey[n];
          psi_hxy[n] = Y.h_b[j] * psi_hxy[n] + Y.h_c_d[j] * dez;
          psi_hxz[n] = Z.h_b[k] * psi_hxz[n] + Z.h_c_d[k] * dey;
          const Real curl = (dez * Y.h_inv_kd[j] + psi_hxy[n]) - (dey * Z.h_inv_kd[k] + psi_hxz[n]);
          hx[n] -= coef(i, j, k, coef_dh) * curl;
        }
    for (index_t i = a.lo[0]; i < h_to(0, false); ++i)
      for (index_t j = a.lo[1]; j < h_to(1, true); ++j)
        for (index_t k = a.lo[2]; k < h_to(2, false); ++k) {
          const std::size_t n = id(i, j, k);
          const Real dex = ex[id(i, j, k + 1)] - ex[n], dez = ez[id(i + 1, j, k)] - ez[n];
          psi_hyz[n] = Z.h_b[k] * psi_hyz[n] + Z.h_c_d[k] * dex;
          psi_hyx[n] = X.h_b[i] * psi_hyx[n] + X.h_c_d[i] * dez;
          const Real curl = (dex * Z.h_inv_kd[k] + psi_hyz[n]) - (dez * X.h_inv_kd[i] + psi_hyx[n]);
          hy[n] -= coef(i, j, k, coef_dh) * curl;
        }
    for (index_t i = a.lo[0]; i < h_to(0, false); ++i)
      for (index_t j = a.lo[1]; j < h_to(1, false); ++j)
        for (index_t k = a.lo[2]; k < h_to(2, true); ++k) {
          const std::size_t n = id(i, j, k);
          const Real dey = ey[id(i + 1, j, k)] - ey[n], dex = ex[id(i, j + 1, k)] - ex[n];
          psi_hzx[n] = X.h_b[i] * psi_hzx[n] + X.h_c_d[i] * dey;
          psi_hzy[n] = Y.h_b[j] * psi_hzy[n] + Y.h_c_d[j] * dex;
          const Real curl = (dey * X.h_inv_kd[i] + psi_hzx[n]) - (dex * Y.h_inv_kd[j] + psi_hzy[n]);
          hz[n] -= coef(i, j, k, coef_dh) * curl;
        }
    // ---- E^{n+1} = ca E^n + cb curl H^{n+1/2} (tangential E on the faces stays) ----
    for (index_t i = e_from(0, true); i < e_to(0); ++i)
      for (index_t j = e_from(1, false); j < e_to(1); ++j)
        for (index_t k = e_from(2, false); k < e_to(2); ++k) {
          const std::size_t n = id(i, j, k);
          const Real dhz = hz[n] - hz[id(i, j - 1, k)], dhy = hy[n] - hy[id(i, j, k - 1)];
          psi_exy[n] = Y.e_b[j] * psi_exy[n] + Y.e_c_d[j] * dhz;
          psi_exz[n] = Z.e_b[k] * psi_exz[n] + Z.e_c_d[k] * dhy;
          const Real curl = (dhz * Y.e_inv_kd[j] + psi_exy[n]) - (dhy * Z.e_inv_kd[k] + psi_exz[n]);
          ex[n] = coef(i, j, k, coef_ca) * ex[n] + coef(i, j, k, coef_cb) * curl;
        }
    for (index_t i = e_from(0, false); i < e_to(0); ++i)
      for (index_t j = e_from(1, true); j < e_to(1); ++j)
        for (index_t k = e_from(2, false); k < e_to(2); ++k) {
          const std::size_t n = id(i, j, k);
          const Real dhx = hx[n] - hx[id(i, j, k - 1)], dhz = hz[n] - hz[id(i - 1, j, k)];
          psi_eyz[n] = Z.e_b[k] * psi_eyz[n] + Z.e_c_d[k] * dhx;
          psi_eyx[n] = X.e_b[i] * psi_eyx[n] + X.e_c_d[i] * dhz;
          const Real curl = (dhx * Z.e_inv_kd[k] + psi_eyz[n]) - (dhz * X.e_inv_kd[i] + psi_eyx[n]);
          ey[n] = coef(i, j, k, coef_ca) * ey[n] + coef(i, j, k, coef_cb) * curl;
        }
    for (index_t i = e_from(0, false); i < e_to(0); ++i)
      for (index_t j = e_from(1, false); j < e_to(1); ++j)
        for (index_t k = e_from(2, true); k < e_to(2); ++k) {
          const std::size_t n = id(i, j, k);
          const Real dhy = hy[n] - hy[id(i - 1, j, k)], dhx = hx[n] - hx[id(i, j - 1, k)];
          psi_ezx[n] = X.e_b[i] * psi_ezx[n] + X.e_c_d[i] * dhy;
          psi_ezy[n] = Y.e_b[j] * psi_ezy[n] + Y.e_c_d[j] * dhx;
          const Real curl = (dhy * X.e_inv_kd[i] + psi_ezx[n]) - (dhx * Y.e_inv_kd[j] + psi_ezy[n]);
          ez[n] = coef(i, j, k, coef_ca) * ez[n] + coef(i, j, k, coef_cb) * curl;
        }
    // ---- point sources in the window ----------------------------------------
    for (std::size_t s = 0; s < p.sources.size(); ++s) {
      const PointSource& src = p.sources[s];
      if (!w.contains(src.i, src.j, src.k)) continue;
      Real& e = f[std::size_t(setup.source_component[s])][id(src.i, src.j, src.k)];
      const Real value = setup.source_values[s * steps + step];
      e = setup.source_hard[s] ? value : e + value;
    }
  }
  return f;
}

template <class Real>
SampledFields sampled_reference_as(const FdtdStep::Problem& p,
                                   const std::vector<SampleBox>& boxes) {
  const StepSetupT<Real> setup = make_step_setup_as<Real>(p);
  SampledFields out;
  out.grid = p.grid;
  out.boxes = boxes;
  double sum[2] = {0, 0};
  index_t count = 0;
  for (const SampleBox& box : boxes) {
    const BasicFieldSet<Real> f = step_window<Real>(p, setup, box);
    const SampleBox w = light_cone_window(p.grid, box, p.steps);
    const index_t W1 = w.hi[1] - w.lo[1], W2 = w.hi[2] - w.lo[2];
    std::array<std::vector<double>, 6> values;
    for (std::size_t c = 0; c < 6; ++c) {
      values[c].reserve(std::size_t(box.nodes()));
      for (index_t i = box.lo[0]; i < box.hi[0]; ++i)
        for (index_t j = box.lo[1]; j < box.hi[1]; ++j)
          for (index_t k = box.lo[2]; k < box.hi[2]; ++k) {
            const double v = double(
                f[c][std::size_t(((i - w.lo[0]) * W1 + (j - w.lo[1])) * W2 + (k - w.lo[2]))]);
            values[c].push_back(v);
            sum[c / 3] += v * v;
          }
    }
    count += box.nodes();
    out.values.push_back(std::move(values));
  }
  for (int group = 0; group < 2; ++group) {
    const double rms = count > 0 ? std::sqrt(sum[group] / (3.0 * double(count))) : 0.0;
    out.scale[std::size_t(group)] = rms > 0 ? rms : 1.0;
  }
  return out;
}

}  // namespace

SampledFields sampled_reference(const FdtdStep::Problem& p, const std::vector<SampleBox>& boxes) {
  require(p.plane_waves.empty() && !p.periodic[0] && !p.periodic[1],
          "the sampled fdtd.step reference steps point-source problems only",
          "no plane wave and no periodic axis");
  for (const auto& b : boxes)
    for (std::size_t a = 0; a < 3; ++a) {
      const index_t nodes = (a == 0 ? p.grid.nx : a == 1 ? p.grid.ny : p.grid.nz) + 1;
      require(b.lo[a] >= 0 && b.hi[a] <= nodes && b.lo[a] < b.hi[a],
              "sample box '" + b.where + "' is empty or leaves the grid",
              "node ranges [lo, hi) with 0 <= lo < hi <= nodes per axis");
    }
  return p.precision == Precision::fp64 ? sampled_reference_as<double>(p, boxes)
                                        : sampled_reference_as<float>(p, boxes);
}

namespace {

const char* component_name(std::size_t c) { return to_string(Component(int(c))); }

// The running maximum of |a - r| / scale; NaN counts as infinite.
struct Worst {
  double error = 0;
  std::string where;
  template <class Describe>
  void see(double a, double r, double scale, const Describe& describe) {
    const double e = std::abs(a - r) / scale;
    const double value = std::isnan(e) ? std::numeric_limits<double>::infinity() : e;
    if (value > error) {
      error = value;
      where = describe(a, r);
    }
  }
};

}  // namespace

SampledError sampled_error(const FdtdStep::Result& result, const SampledFields& ref) {
  const bool wide = !result.fields_fp64[0].empty();
  const std::size_t nodes = std::size_t(ref.grid.nodes());
  Worst worst;
  for (std::size_t c = 0; c < 6; ++c) {
    const std::size_t size = wide ? result.fields_fp64[c].size() : result.fields[c].size();
    if (size != nodes)
      return {
          std::numeric_limits<double>::infinity(),
          fmt::format("{} has {} values, not one per node ({})", component_name(c), size, nodes)};
  }
  for (std::size_t b = 0; b < ref.boxes.size(); ++b) {
    const SampleBox& box = ref.boxes[b];
    for (std::size_t c = 0; c < 6; ++c) {
      const double scale = ref.scale[c / 3];
      std::size_t q = 0;
      for (index_t i = box.lo[0]; i < box.hi[0]; ++i)
        for (index_t j = box.lo[1]; j < box.hi[1]; ++j)
          for (index_t k = box.lo[2]; k < box.hi[2]; ++k, ++q) {
            const std::size_t n = std::size_t(ref.grid.index(i, j, k));
            const double a = wide ? result.fields_fp64[c][n] : double(result.fields[c][n]);
            worst.see(a, ref.values[b][c][q], scale, [&](double got, double expected) {
              return fmt::format("{} at node ({}, {}, {}) in the {} box: {:.7g}, reference {:.7g}",
                                 component_name(c), i, j, k, box.where, got, expected);
            });
          }
    }
  }
  return {worst.error, worst.where};
}

index_t SampledPhasors::nodes() const {
  index_t sum = 0;
  for (const auto& b : boxes) sum += b.nodes();
  return sum;
}

SampledPhasors sampled_phasor_reference(const FdtdPhasorUpdate::Problem& p,
                                        const std::vector<SampleBox>& boxes) {
  validate(p);
  const PhasorSet shape = make_phasor_set(p.config, p.grid);
  const std::vector<float> coef = phasor_coefficients(p.config, p.grid.dt, p.first_step, p.samples);
  const std::size_t frequencies = p.config.frequencies.size();
  SampledPhasors out;
  double sum = 0;
  index_t count = 0;
  for (const SampleBox& sample : boxes) {
    // Only the part of the box inside the phasor box has sums.
    SampleBox box = sample;
    bool empty = false;
    for (std::size_t a = 0; a < 3; ++a) {
      box.lo[a] = std::max(box.lo[a], shape.lo[a]);
      box.hi[a] = std::min(box.hi[a], shape.lo[a] + shape.extent[a]);
      empty = empty || box.hi[a] <= box.lo[a];
    }
    if (empty) continue;
    const std::size_t size = std::size_t(box.nodes());
    std::vector<double> re(frequencies * 6 * size), im(re.size());
    // The reference's own arithmetic (accumulate_phasors_host): float sums,
    // starting from the initial sums, one sample after the other.
    for (std::size_t f = 0; f < frequencies; ++f)
      for (std::size_t c = 0; c < 6; ++c) {
        std::size_t q = 0;
        for (index_t i = box.lo[0]; i < box.hi[0]; ++i)
          for (index_t j = box.lo[1]; j < box.hi[1]; ++j)
            for (index_t k = box.lo[2]; k < box.hi[2]; ++k, ++q) {
              const std::size_t at = std::size_t(shape.at(int(f), int(c), i, j, k));
              float sum_re = p.initial.re.empty() ? 0.0f : p.initial.re[at];
              float sum_im = p.initial.im.empty() ? 0.0f : p.initial.im[at];
              const float value = p.fields[c][std::size_t(p.grid.index(i, j, k))];
              for (std::int64_t u = 0; u < p.samples; ++u) {
                const float* w = &coef[(std::size_t(u) * frequencies + f) * 4];
                sum_re += w[c < 3 ? 0 : 2] * value;
                sum_im += w[c < 3 ? 1 : 3] * value;
              }
              re[(f * 6 + c) * size + q] = sum_re;
              im[(f * 6 + c) * size + q] = sum_im;
              sum += double(sum_re) * sum_re + double(sum_im) * sum_im;
            }
      }
    count += index_t(re.size());
    out.boxes.push_back(box);
    out.re.push_back(std::move(re));
    out.im.push_back(std::move(im));
  }
  out.shape = shape;
  out.shape.re.clear();
  out.shape.im.clear();
  const double rms = count > 0 ? std::sqrt(sum / double(2 * count)) : 0.0;
  out.scale = rms > 0 ? rms : 1.0;
  return out;
}

SampledError sampled_phasor_error(const FdtdPhasorUpdate::Result& result,
                                  const SampledPhasors& ref) {
  const PhasorSet& r = result.phasors;
  if (r.lo != ref.shape.lo || r.extent != ref.shape.extent ||
      r.frequencies != ref.shape.frequencies ||
      r.re.size() != r.frequencies.size() * 6 * std::size_t(r.box_nodes()) ||
      r.im.size() != r.re.size())
    return {std::numeric_limits<double>::infinity(), "the sums do not match the phasor box"};
  Worst worst;
  for (std::size_t b = 0; b < ref.boxes.size(); ++b) {
    const SampleBox& box = ref.boxes[b];
    const std::size_t size = std::size_t(box.nodes());
    for (std::size_t f = 0; f < r.frequencies.size(); ++f)
      for (std::size_t c = 0; c < 6; ++c) {
        std::size_t q = 0;
        for (index_t i = box.lo[0]; i < box.hi[0]; ++i)
          for (index_t j = box.lo[1]; j < box.hi[1]; ++j)
            for (index_t k = box.lo[2]; k < box.hi[2]; ++k, ++q) {
              const std::size_t at = std::size_t(r.at(int(f), int(c), i, j, k));
              const std::size_t s = (f * 6 + c) * size + q;
              auto describe = [&](const char* part) {
                return [&, part](double got, double expected) {
                  return fmt::format(
                      "{} {} at node ({}, {}, {}), {} Hz, in the {} box: {:.7g}, reference {:.7g}",
                      part, component_name(c), i, j, k, r.frequencies[f], box.where, got, expected);
                };
              };
              worst.see(r.re[at], ref.re[b][s], ref.scale, describe("Re"));
              worst.see(r.im[at], ref.im[b][s], ref.scale, describe("Im"));
            }
      }
  }
  return {worst.error, worst.where};
}

}  // namespace ppkit::fdtd
