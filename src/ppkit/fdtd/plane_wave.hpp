#pragma once
// Plane wave through a total-field/scattered-field (TF/SF) box (Taflove &
// Hagness, "Computational Electrodynamics", 3rd ed., ch. 5: sec. 5.6-5.9).
//
// Inside the box (the total-field region) the grid carries total fields; outside
// it, scattered fields only. The E and H updates next to the box faces read one
// neighbour from the other region; the consistency corrections add (or
// subtract) the incident field there (eqs. 5.41-5.50 for the six faces), so the
// plane wave exists only inside the box. The incident field comes from a 1D
// auxiliary FDTD grid along the propagation direction (sec. 5.9) run with the
// same cell size and time step, which for axis-aligned incidence reproduces the
// 3D grid's own numerical dispersion exactly: the leakage into the scattered
// region is only rounding.
//
// Incidence here is axis-aligned (propagation along +-x, +-y or +-z) with any
// polarisation transverse to it. Faces of the box on or outside the grid
// boundary are left out (the total-field region then reaches the boundary), so
// a box spanning the whole x-y extent illuminates a half-space from one face.
#include <array>
#include <cstdint>
#include <vector>

#include "ppkit/fdtd/sources.hpp"
#include "ppkit/fdtd/yee_grid.hpp"

namespace ppkit::fdtd {

struct PlaneWaveSource {
  // Total-field region: node positions x with box_min <= x / d <= box_max per axis
  // (cells; E and H at half-cell offsets count by their own position). A
  // box_min <= 0 or box_max >= cells leaves that face out.
  std::array<index_t, 3> box_min{0, 0, 0}, box_max{0, 0, 0};
  int axis = 2;       // propagation axis: 0 x, 1 y, 2 z
  int direction = 1;  // +1: towards increasing coordinate, -1: decreasing
  // Direction of E (normalised here; its component along the axis must be 0).
  std::array<double, 3> polarisation{1, 0, 0};
  Waveform waveform = Waveform::gaussian;
  double frequency = 1e9;  // Hz
  double amplitude = 1;    // V/m (peak of E)
  // s: the waveform's value w(t - delay) enters at the entry face of the box
  // (the incident E on the face plane at distance 0).
  double delay = 0;
};

// The 1D auxiliary grid that generates the incident field (Taflove sec. 5.9):
// E at nodes m (position m d along the propagation direction), H at m + 1/2,
// a hard E source at node 0, a matched graded lossy layer (sigma* = sigma
// mu0 / eps0, cubic grading) behind the last reported node, backed by PEC. The
// scalar fields are E = e.E_inc and H = h.H_inc with h = u x e (u: the
// propagation direction), so a forward wave has H = E / eta0.
class IncidentPlaneWave {
 public:
  // Nodes 0..cells-1 are reported; the source sets E^n at node 0 to
  // amplitude w(n dt - delay); d and dt as in the 3D grid.
  IncidentPlaneWave(index_t cells, double d, double dt, Waveform waveform, double frequency,
                    double amplitude, double delay);
  // E^{n+1} from H^{n+1/2} from E^n: advances the stored time by dt.
  void advance();
  double e(index_t m) const { return e_[std::size_t(m)]; }  // E^n at m
  double h(index_t m) const { return h_[std::size_t(m)]; }  // H^{n-1/2} at m + 1/2
  index_t cells() const { return cells_; }
  std::int64_t time_step() const { return n_; }

 private:
  index_t cells_;
  double dt_;
  Waveform waveform_;
  double frequency_, amplitude_, delay_;
  std::int64_t n_ = 0;
  std::vector<double> e_, h_, ca_, cb_, da_, db_;
};

// What the variants apply after their H and E updates: per target field
// component, a list of nodes and up to two incident terms each,
//   field[node] += weight0 * incident[step][slot0] + weight1 * incident[step][slot1]
// where the row of step s holds E_inc^s at aux nodes 0..L-1 (slots 0..L-1) and
// H_inc^{s+1/2} (slots L..2L-1). H targets (components 3..5) are corrected after
// the H update of step s, E targets after the E update (before the sources).
// No node appears twice in one component's list, so the lists run in parallel.
struct TfsfCorrections {
  std::int64_t row = 0;         // 2 L floats per step
  std::vector<float> incident;  // [step * row + slot]
  std::array<std::vector<index_t>, 6> node;
  std::array<std::vector<float>, 6> weight0, weight1;
  std::array<std::vector<std::int32_t>, 6> slot0, slot1;
  std::size_t entries() const;
};

// Throws ppkit::Error when the box, axis, direction or polarisation are invalid
// (faces inside the grid must lie outside the CPML layers of `cpml_thickness`).
void validate(const PlaneWaveSource& wave, const YeeGrid& grid, int cpml_thickness);

// The aux grid layout shared by the corrections and the reference: the aux node
// of a position p (cells, integer for transverse E, p + 1/2 for H) along the axis.
struct AuxLayout {
  index_t origin = 0;  // 3D node index along the axis where aux node 0 sits
  index_t cells = 0;   // aux nodes reported (L)
  int direction = 1;
  index_t e_node(index_t p) const { return direction > 0 ? p - origin : origin - p; }
  index_t h_node(index_t p) const { return direction > 0 ? p - origin : origin - p - 1; }
};
AuxLayout aux_layout(const PlaneWaveSource& wave, const YeeGrid& grid);
// The aux grid of a wave: its delay is shifted so that w(t - delay) reaches the
// box's entry face at t = delay.
IncidentPlaneWave make_incident_wave(const PlaneWaveSource& wave, const YeeGrid& grid);

// Unit polarisation e and h = u x e of the incident E and H fields.
std::array<double, 3> unit_polarisation(const PlaneWaveSource& wave);
std::array<double, 3> magnetic_direction(const PlaneWaveSource& wave);

// Whether a doubled position (2 x cells: E_c at 2n + unit_c, H_c at 2n + 1 - unit_c)
// is in the total-field region.
bool in_total_field(const PlaneWaveSource& wave, const YeeGrid& grid,
                    const std::array<index_t, 3>& doubled_position);

// The corrections of a wave over `steps` steps; material_table/material_id give
// the cb and dh coefficients at each target node, e_inv_kd/h_inv_kd per axis the
// 1 / (kappa d) the kernels use.
TfsfCorrections make_tfsf_corrections(const PlaneWaveSource& wave, const YeeGrid& grid,
                                      std::int64_t steps, const std::vector<float>& material_table,
                                      const std::vector<std::uint32_t>& material_id,
                                      const std::array<const std::vector<float>*, 3>& e_inv_kd,
                                      const std::array<const std::vector<float>*, 3>& h_inv_kd);

}  // namespace ppkit::fdtd
