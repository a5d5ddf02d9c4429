#pragma once
// Operation fdtd.phasor_update: running discrete Fourier transforms (phasors)
// of Ex, Ey, Ez, Hx, Hy, Hz at chosen frequencies over a box of nodes,
// accumulated on the fly while the fields are stepped (Taflove & Hagness,
// "Computational Electrodynamics", 3rd ed., sec. 5.7: the running DFT costs
// one multiply-add per component, frequency and sample and no stored history).
//
// Definition. A sample is taken after step s (0-based) whenever
// (s + 1) % interval == 0; E^{s+1} lives at t_E = (s + 1) dt and H^{s+1/2} at
// t_H = (s + 1/2) dt. For each frequency f and component F:
//   P_F(f) += w F(t) exp(-i 2 pi f t),   w = interval dt,
// so P approximates the continuous Fourier transform integral of F(t). A
// sinusoid A cos(2 pi f t + phi) sampled over an integer number of periods T
// gives P = (A T / 2) exp(i phi): the peak amplitude is 2 |P| / T.
#include <array>
#include <cstdint>
#include <vector>

#include "ppkit/core/registry.hpp"
#include "ppkit/fdtd/yee_grid.hpp"

namespace ppkit::fdtd {

// Nodes [lo, hi) per axis; hi <= lo on every axis (the default) means the whole grid.
struct NodeBox {
  std::array<index_t, 3> lo{0, 0, 0}, hi{0, 0, 0};
  bool whole_grid() const { return hi[0] <= lo[0] && hi[1] <= lo[1] && hi[2] <= lo[2]; }
};

struct PhasorConfig {
  std::vector<double> frequencies;  // Hz; empty: no phasors
  NodeBox box;                      // default: every node
  std::int64_t interval = 1;        // sample every interval steps
  bool enabled() const { return !frequencies.empty(); }
};

// Running sums on the host, in the natural layout of the Kokkos and CUDA
// variants: re[(f * 6 + c) * box_nodes + b], im likewise, with c = 0..5 for
// Ex..Hz and b = ((i - lo0) * ny_box + (j - lo1)) * nz_box + (k - lo2).
struct PhasorSet {
  std::array<index_t, 3> lo{0, 0, 0}, extent{0, 0, 0};  // the resolved box
  std::vector<double> frequencies;
  std::vector<float> re, im;
  index_t box_nodes() const { return extent[0] * extent[1] * extent[2]; }
  index_t at(int frequency, int component, index_t i, index_t j, index_t k) const {
    return (index_t(frequency) * 6 + component) * box_nodes() +
           ((i - lo[0]) * extent[1] + (j - lo[1])) * extent[2] + (k - lo[2]);
  }
};

// The box of a configuration resolved against a grid (whole grid when
// unset); throws ppkit::Error when it leaves the grid or is empty, or when a
// frequency is not positive or the interval is < 1.
NodeBox resolve_box(const PhasorConfig& config, const YeeGrid& grid);
PhasorSet make_phasor_set(const PhasorConfig& config, const YeeGrid& grid);  // zero sums

// Per sample u (0-based), frequency f: w exp(-i 2 pi f t) at t_E and t_H as
// four floats {re_E, im_E, re_H, im_H} at [(u * F + f) * 4]; the sample is
// taken after step (u + 1) * interval - 1 + first_step.
std::vector<float> phasor_coefficients(const PhasorConfig& config, double dt,
                                       std::int64_t first_step, std::int64_t samples);

}  // namespace ppkit::fdtd

namespace ppkit {

struct FdtdPhasorUpdate {
  static constexpr const char* name = "fdtd.phasor_update";
  struct Problem {
    fdtd::YeeGrid grid;
    std::array<std::vector<float>, 6> fields;  // Ex..Hz on grid.nodes() (yee_grid.hpp layout)
    fdtd::PhasorConfig config;
    // Samples taken of these (frozen) fields, as after the steps
    // first_step + interval - 1, first_step + 2 interval - 1, ...
    std::int64_t first_step = 0;
    std::int64_t samples = 1;
    fdtd::PhasorSet initial;  // running sums to start from; empty vectors: zero
  };
  struct Result {
    fdtd::PhasorSet phasors;
  };
};

namespace fdtd {

// The serial reference: one loop per frequency, component and node.
FdtdPhasorUpdate::Result reference_phasor_update(const FdtdPhasorUpdate::Problem& problem);
void validate(const FdtdPhasorUpdate::Problem& problem);

// Accumulates one sample of the fields into sums (host code shared by the
// reference and the serial fdtd.step reference). coefficients: 4 floats per frequency.
void accumulate_phasors_host(PhasorSet& sums, const YeeGrid& grid,
                             const std::array<const float*, 6>& fields, const float* coefficients);

// The benchmark problem: a cube of n^3 cells (1 mm), fields filled with a
// cheap deterministic pseudo-random pattern, the whole grid as the box,
// `frequencies` frequencies between 1 and 10 GHz, `samples` samples per run.
FdtdPhasorUpdate::Problem make_phasor_benchmark_problem(index_t n, int frequencies,
                                                        std::int64_t samples);

// Relative L2 error of the real and imaginary sums together.
double phasors_relative_error(const PhasorSet& a, const PhasorSet& reference);

// Bytes one sample moves per box node: 6 field reads (24 B) + 12 running sums
// read and written per frequency (96 B per frequency). Flops: 24 per frequency.
double phasor_sample_bytes(const FdtdPhasorUpdate::Problem& problem);
double phasor_sample_flops(const FdtdPhasorUpdate::Problem& problem);

}  // namespace fdtd
}  // namespace ppkit
