// Host side of fdtd.phasor_update: box resolution, per-sample DFT
// coefficients, the serial reference and the byte model (phasors.hpp).
#include <cmath>
#include <limits>
#include <string>

#include "ppkit/core/error.hpp"
#include "ppkit/fdtd/phasors.hpp"

namespace ppkit::fdtd {

NodeBox resolve_box(const PhasorConfig& config, const YeeGrid& grid) {
  if (config.interval < 1)
    throw Error("phasor interval " + std::to_string(config.interval) + " is invalid",
                "a sample every >= 1 steps");
  for (double f : config.frequencies)
    if (!(f > 0) || !std::isfinite(f))
      throw Error("phasor frequency " + std::to_string(f) + " Hz is invalid", "a frequency > 0");
  const index_t nodes[3] = {grid.nx + 1, grid.ny + 1, grid.nz + 1};
  NodeBox box = config.box;
  if (box.whole_grid()) {
    box.lo = {0, 0, 0};
    box.hi = {nodes[0], nodes[1], nodes[2]};
  }
  for (int a = 0; a < 3; ++a)
    if (box.lo[a] < 0 || box.hi[a] > nodes[a] || box.hi[a] <= box.lo[a])
      throw Error("phasor box [" + std::to_string(box.lo[a]) + ", " + std::to_string(box.hi[a]) +
                      ") along axis " + std::string(1, char('x' + a)) + " is invalid",
                  "node ranges [lo, hi) with 0 <= lo < hi <= " + std::to_string(nodes[a]));
  return box;
}

PhasorSet make_phasor_set(const PhasorConfig& config, const YeeGrid& grid) {
  const NodeBox box = resolve_box(config, grid);
  PhasorSet set;
  set.frequencies = config.frequencies;
  for (int a = 0; a < 3; ++a) {
    set.lo[std::size_t(a)] = box.lo[std::size_t(a)];
    set.extent[std::size_t(a)] = box.hi[std::size_t(a)] - box.lo[std::size_t(a)];
  }
  const std::size_t size = config.frequencies.size() * 6 * std::size_t(set.box_nodes());
  set.re.assign(size, 0.0f);
  set.im.assign(size, 0.0f);
  return set;
}

std::vector<float> phasor_coefficients(const PhasorConfig& config, double dt,
                                       std::int64_t first_step, std::int64_t samples) {
  const std::size_t frequencies = config.frequencies.size();
  std::vector<float> out(std::size_t(samples) * frequencies * 4);
  const double w = double(config.interval) * dt;
  const double pi = std::acos(-1.0);
  for (std::int64_t u = 0; u < samples; ++u) {
    const std::int64_t step = first_step + (u + 1) * config.interval - 1;  // 0-based
    const double t_e = double(step + 1) * dt, t_h = (double(step) + 0.5) * dt;
    for (std::size_t f = 0; f < frequencies; ++f) {
      const double omega = 2 * pi * config.frequencies[f];
      float* c = &out[(std::size_t(u) * frequencies + f) * 4];
      // Reduce the phase modulo 2 pi in double before the float conversion.
      const double phase_e = std::fmod(omega * t_e, 2 * pi),
                   phase_h = std::fmod(omega * t_h, 2 * pi);
      c[0] = float(w * std::cos(phase_e));
      c[1] = float(-w * std::sin(phase_e));
      c[2] = float(w * std::cos(phase_h));
      c[3] = float(-w * std::sin(phase_h));
    }
  }
  return out;
}

void accumulate_phasors_host(PhasorSet& sums, const YeeGrid& grid,
                             const std::array<const float*, 6>& fields, const float* coefficients) {
  const index_t nodes = sums.box_nodes();
  for (std::size_t f = 0; f < sums.frequencies.size(); ++f)
    for (int c = 0; c < 6; ++c) {
      const float cr = coefficients[f * 4 + (c < 3 ? 0 : 2)];
      const float ci = coefficients[f * 4 + (c < 3 ? 1 : 3)];
      for (index_t i = sums.lo[0]; i < sums.lo[0] + sums.extent[0]; ++i)
        for (index_t j = sums.lo[1]; j < sums.lo[1] + sums.extent[1]; ++j)
          for (index_t k = sums.lo[2]; k < sums.lo[2] + sums.extent[2]; ++k) {
            const float value = fields[std::size_t(c)][grid.index(i, j, k)];
            const std::size_t b = std::size_t(sums.at(int(f), c, i, j, k));
            sums.re[b] += cr * value;
            sums.im[b] += ci * value;
          }
    }
  (void)nodes;
}

void validate(const FdtdPhasorUpdate::Problem& p) {
  const YeeGrid& g = p.grid;
  if (g.nx < 1 || g.ny < 1 || g.nz < 1 || !(g.dt > 0))
    throw Error("phasor grid is invalid", ">= 1 cell per axis and dt > 0");
  if (p.config.frequencies.empty())
    throw Error("phasor update without frequencies", "at least one frequency in Hz");
  for (int c = 0; c < 6; ++c)
    if (p.fields[std::size_t(c)].size() != std::size_t(g.nodes()))
      throw Error("phasor field " + std::to_string(c) + " has " +
                      std::to_string(p.fields[std::size_t(c)].size()) + " values",
                  std::to_string(g.nodes()) + " (one per node)");
  if (p.samples < 1 || p.first_step < 0)
    throw Error("phasor samples/first step are invalid", "samples >= 1, first_step >= 0");
  const PhasorSet shape = make_phasor_set(p.config, g);
  if (!p.initial.re.empty() &&
      (p.initial.re.size() != shape.re.size() || p.initial.im.size() != shape.im.size() ||
       p.initial.lo != shape.lo || p.initial.extent != shape.extent))
    throw Error("initial phasor sums do not match the box and frequencies",
                "empty sums or sums of make_phasor_set(config, grid)");
}

FdtdPhasorUpdate::Result reference_phasor_update(const FdtdPhasorUpdate::Problem& p) {
  validate(p);
  FdtdPhasorUpdate::Result r;
  r.phasors = p.initial.re.empty() ? make_phasor_set(p.config, p.grid) : p.initial;
  const std::vector<float> coef = phasor_coefficients(p.config, p.grid.dt, p.first_step, p.samples);
  const std::array<const float*, 6> fields{p.fields[0].data(), p.fields[1].data(),
                                           p.fields[2].data(), p.fields[3].data(),
                                           p.fields[4].data(), p.fields[5].data()};
  const std::size_t per_sample = p.config.frequencies.size() * 4;
  for (std::int64_t u = 0; u < p.samples; ++u)
    accumulate_phasors_host(r.phasors, p.grid, fields, &coef[std::size_t(u) * per_sample]);
  return r;
}

FdtdPhasorUpdate::Problem make_phasor_benchmark_problem(index_t n, int frequencies,
                                                        std::int64_t samples) {
  require(n >= 1 && frequencies >= 1 && samples >= 1, "phasor benchmark sizes are invalid",
          "n >= 1 cells, >= 1 frequency, >= 1 sample");
  FdtdPhasorUpdate::Problem p;
  p.grid = make_grid(n, n, n, double(n) * 1e-3, double(n) * 1e-3, double(n) * 1e-3, 0.99);
  for (int f = 0; f < frequencies; ++f)
    p.config.frequencies.push_back(1e9 + 9e9 * double(f) / double(std::max(1, frequencies - 1)));
  p.samples = samples;
  std::uint64_t state = 0x9E3779B97F4A7C15ull;  // xorshift64: values in [-1, 1)
  for (int c = 0; c < 6; ++c) {
    auto& field = p.fields[std::size_t(c)];
    field.resize(std::size_t(p.grid.nodes()));
    const float scale = c < 3 ? 1.0f : float(1 / eta0);
    for (auto& v : field) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      v = scale * (float(state >> 40) * (2.0f / 16777216.0f) - 1.0f);
    }
  }
  return p;
}

double phasors_relative_error(const PhasorSet& a, const PhasorSet& reference) {
  if (a.re.size() != reference.re.size() || a.im.size() != reference.im.size())
    return std::numeric_limits<double>::infinity();
  double diff = 0, norm = 0;
  for (std::size_t n = 0; n < reference.re.size(); ++n) {
    const double dr = double(a.re[n]) - reference.re[n], di = double(a.im[n]) - reference.im[n];
    diff += dr * dr + di * di;
    norm += double(reference.re[n]) * reference.re[n] + double(reference.im[n]) * reference.im[n];
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

double phasor_sample_bytes(const FdtdPhasorUpdate::Problem& p) {
  const PhasorSet shape = make_phasor_set(p.config, p.grid);
  const double per_node = 24.0 + 96.0 * double(p.config.frequencies.size());
  return per_node * double(shape.box_nodes()) * double(p.samples);
}

double phasor_sample_flops(const FdtdPhasorUpdate::Problem& p) {
  const PhasorSet shape = make_phasor_set(p.config, p.grid);
  return 24.0 * double(p.config.frequencies.size()) * double(shape.box_nodes()) * double(p.samples);
}

}  // namespace ppkit::fdtd
