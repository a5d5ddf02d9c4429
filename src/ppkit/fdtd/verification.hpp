#pragma once
// Verification of fdtd.step and fdtd.phasor_update at any size against the
// serial reference, without stepping the whole grid serially.
//
// Light cone. One Yee step updates H from E at the node and its +1
// neighbours, then E from H at the node and its -1 neighbours, and the CPML
// psi, the material id and the sources are local to a node. So after n steps
// a node's fields depend only on the initial fields within n nodes along each
// axis. A box of sample nodes is therefore checked by stepping, serially, the
// window "box grown by n nodes on each side, clipped at the grid", with the
// grid's own coefficients (global CPML profiles, material ids, PEC faces and
// sources): a node whose stencil leaves the window is not updated, which
// spoils one node per step from each cut face inward and never reaches the
// box. Where the window meets the grid's faces the real boundary conditions
// apply unchanged.
//
// The verification problem (make_verification_problem) starts from random
// fields on every node, so every node, the whole CPML (psi is non-zero from
// the first half step on) and the material-id path carry data; the sample
// boxes (verification_boxes) cover every depth of the CPML on all six faces,
// the corners and edges, pencils through the whole grid along each axis (the
// CPML/interior boundaries where the split variants change kernels, tile and
// chunk boundaries), the last x-planes (the highest linear indices), the node
// pairs where linear indices and byte offsets pass 2^31 and 2^32, and the
// sources.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/phasors.hpp"

namespace ppkit::fdtd {

// Nodes [lo, hi) per axis and what the box guards (named in failure messages).
struct SampleBox {
  std::array<index_t, 3> lo{0, 0, 0}, hi{0, 0, 0};
  std::string where;
  index_t nodes() const { return (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]); }
  bool contains(index_t i, index_t j, index_t k) const {
    return i >= lo[0] && i < hi[0] && j >= lo[1] && j < hi[1] && k >= lo[2] && k < hi[2];
  }
};

// One box of every node of the grid ("whole grid").
SampleBox whole_grid_box(const YeeGrid& grid);

// The window the reference steps for a box: the box grown by `margin` nodes
// on each side (margin = steps), clipped to the grid's nodes.
SampleBox light_cone_window(const YeeGrid& grid, const SampleBox& box, std::int64_t margin);

// The sample boxes of a grid with a CPML of `thickness` cells and point
// sources at `sources` (nodes), positions drawn from `seed`. Pure geometry:
// no field is allocated, so the placement is tested at any size.
std::vector<SampleBox> verification_boxes(const YeeGrid& grid, int thickness,
                                          const std::vector<std::array<index_t, 3>>& sources,
                                          std::uint64_t seed = 1);
// The boxes for a problem: verification_boxes() when their light-cone windows
// hold fewer nodes than the grid, else one box of the whole grid (the full
// serial reference is cheaper then).
std::vector<SampleBox> verification_boxes(const FdtdStep::Problem& problem, std::uint64_t seed = 1);
// Nodes the reference steps for the boxes, summed over their windows (per step).
double window_nodes(const YeeGrid& grid, const std::vector<SampleBox>& boxes, std::int64_t margin);

// The verification problem of `ppkit compare` and the benchmarks: a cube of
// n^3 cells (1 mm, Courant 0.99) with a CPML of `thickness` cells (kappa_max 2,
// alpha_max 0.05 S/m), four materials (vacuum, a lossy dielectric, a magnetic
// dielectric, a dense dielectric) drawn per node, E and H uniform random in
// [-1, 1) V/m and [-1, 1) / eta0 A/m on every node, a soft Ricker Ez dipole
// and a hard modulated-Gaussian Ex source whose pulses peak mid-run. Values
// come from a hash of (seed, component, node), so any node can be regenerated.
// materials: how many of the four (1: vacuum everywhere, no material ids).
FdtdStep::Problem make_verification_problem(index_t n, int thickness, std::int64_t steps,
                                            std::uint64_t seed = 1, int materials = 4);

// The serial reference's fields on the sample boxes: values[b][c][q], box b,
// component c (Ex..Hz), node q of the box (z fastest, then y, then x), in the
// problem's precision (widened to double). scale: the RMS of the E and of the
// H values over all samples (the error's normalisation).
struct SampledFields {
  YeeGrid grid;
  std::vector<SampleBox> boxes;
  std::vector<std::array<std::vector<double>, 6>> values;
  std::array<double, 2> scale{1, 1};
  index_t nodes() const;
};
// Steps every box's light-cone window serially (plain loops written for
// clarity, the update equations of reference_step.cpp). Refuses (ppkit::Error)
// problems with plane waves or periodic axes, whose fields do not follow the
// local light cone of the point-source update. Probes, energy, snapshots,
// phasors and the far field do not change the fields and are ignored.
SampledFields sampled_reference(const FdtdStep::Problem& problem,
                                const std::vector<SampleBox>& boxes);

// The check of a result on the samples: the largest |result - reference| over
// the sampled nodes divided by the RMS of its group (E or H), and where it is.
// NaN or a missing field gives an infinite error.
struct SampledError {
  double error = 0;
  std::string worst;  // "ez at node (i, j, k) in <box>: result ... reference ..."
};
SampledError sampled_error(const FdtdStep::Result& result, const SampledFields& reference);
// The largest sampled_error a correct variant shows after the compare's and
// benchmarks' steps: fp32 / fp64 rounding of differently ordered and
// contracted sums on another device, far below a wrong update.
inline double sampled_tolerance(Precision precision) {
  return precision == Precision::fp64 ? 1e-10 : 1e-4;
}

// fdtd.phasor_update at size: the reference sums on the sample nodes (a
// phasor depends only on its own node's fields) and the check, as above,
// normalised by the RMS of the reference sums over the samples.
struct SampledPhasors {
  PhasorSet shape;               // the phasor box and frequencies (no sums)
  std::vector<SampleBox> boxes;  // the sample boxes cut to the phasor box
  // [b][(f * 6 + c) * box nodes + q]: box b, frequency f, component c, node q.
  std::vector<std::vector<double>> re, im;
  double scale = 1;
  index_t nodes() const;
};
SampledPhasors sampled_phasor_reference(const FdtdPhasorUpdate::Problem& problem,
                                        const std::vector<SampleBox>& boxes);
SampledError sampled_phasor_error(const FdtdPhasorUpdate::Result& result,
                                  const SampledPhasors& reference);

}  // namespace ppkit::fdtd
