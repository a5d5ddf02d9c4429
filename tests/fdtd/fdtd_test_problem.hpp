#pragma once
// Pieces of the randomised fdtd.step test problems shared by the test files.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "ppkit/fdtd/fdtd_step.hpp"

namespace ppkit::fdtd::test_problem {

// A soft Ricker Ez dipole (20 GHz, 1e-8 A m) at `soft_at` and a hard
// modulated-Gaussian Ex source (0.5 V/m) at `hard_at`.
inline void add_soft_and_hard_sources(FdtdStep::Problem& p, std::array<index_t, 3> soft_at,
                                      std::array<index_t, 3> hard_at) {
  PointSource soft;
  soft.component = Component::ez;
  soft.i = soft_at[0], soft.j = soft_at[1], soft.k = soft_at[2];
  soft.waveform = Waveform::ricker;
  soft.frequency = 2e10;
  soft.amplitude = 1e-8;
  p.sources.push_back(soft);
  PointSource hard = soft;
  hard.component = Component::ex;
  hard.i = hard_at[0], hard.j = hard_at[1], hard.k = hard_at[2];
  hard.hard = true;
  hard.waveform = Waveform::modulated_gaussian;
  hard.amplitude = 0.5;
  p.sources.push_back(hard);
}

// E^0 and H^{-1/2} uniform in [-1, 1] V/m and [-1, 1] / eta0 A/m on every
// node (CPML included), so every update and every psi recursion has work.
inline void randomize_fields(FdtdStep::Problem& p, std::mt19937& rng) {
  std::uniform_real_distribution<double> unit(-1, 1);
  for (int c = 0; c < 6; ++c) {
    p.initial[c].resize(std::size_t(p.grid.nodes()));
    for (auto& v : p.initial[c]) v = float((c < 3 ? 1.0 : 1.0 / eta0) * unit(rng));
  }
}

// Probes of Ex, Ez, Hy and Hz at random nodes (1 + rng() % extent[d] along d).
inline void add_random_probes(FdtdStep::Problem& p, std::mt19937& rng,
                              std::array<unsigned, 3> extent) {
  for (Component c : {Component::ex, Component::ez, Component::hy, Component::hz}) {
    Probe pr;
    pr.component = c;
    pr.i = 1 + rng() % extent[0], pr.j = 1 + rng() % extent[1], pr.k = 1 + rng() % extent[2];
    p.probes.push_back(pr);
  }
}

// A value in 3-digit scientific notation for failure messages.
// The largest |a - b| over the largest |b| (1 when the sizes differ; entries
// NaN in both are skipped): one wrong value anywhere shows, unlike an L2 norm.
template <class T>
double max_relative(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return 1;
  double scale = 0, worst = 0;
  for (T v : b) scale = std::max(scale, std::abs(double(v)));
  for (std::size_t n = 0; n < a.size(); ++n) {
    if (std::isnan(double(a[n])) && std::isnan(double(b[n]))) continue;
    worst = std::max(worst, std::abs(double(a[n]) - double(b[n])) / (scale > 0 ? scale : 1));
  }
  return worst;
}

inline std::string sci(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3e", v);
  return text;
}

}  // namespace ppkit::fdtd::test_problem
