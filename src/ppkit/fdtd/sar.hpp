#pragma once
// Specific absorption rate from E phasors (phasors.hpp):
//   point SAR = sigma |E|^2 / (2 rho)     (W/kg; E the peak amplitude phasor)
// with E interpolated to the cell centres (each component averaged over the
// four Yee edges of the cell that carry it), the whole-body average SAR
// (absorbed power / tissue mass) and the peak spatial-average SAR over 1 g
// and 10 g cubes.
//
// Averaging cubes follow the rules of IEEE/IEC 62704-1 (2017) sec. 6.3 with
// these simplifications:
//  - one cube per tissue cell, centred on it, with (2m + 1)^3 cells; the
//    outermost shell of the smallest cube reaching the target mass enters
//    with the fraction that makes the mass exactly 1 g or 10 g (the standard
//    grows the side continuously; this is its linear interpolation in mass);
//  - a cube is valid when at most 10 % of its cells are background
//    (rho <= 0) and it stays inside the grid (periodic axes wrap around);
//    cells without a valid centred cube get no averaged value (NaN): the
//    standard's search for a shifted cube with a face on the surface is not done;
//  - cells must be cubes (dx = dy = dz to 1 %).
#include <array>
#include <string>
#include <vector>

#include "ppkit/fdtd/phasors.hpp"

namespace ppkit::fdtd {

struct SarInput {
  const PhasorSet* phasors = nullptr;
  int frequency = 0;           // index into phasors->frequencies
  double amplitude_scale = 1;  // E peak amplitude (V/m) = amplitude_scale * |P|
  double dx = 0, dy = 0, dz = 0;
  // Per cell of the phasor box ((extent - 1) cells per axis, z fastest):
  // conductivity (S/m) and mass density (kg/m^3; <= 0: background, no tissue).
  std::vector<float> sigma, rho;
  std::array<bool, 3> periodic{false, false, false};  // wrap the averaging cubes
};

struct SarMaps {
  std::array<index_t, 3> cells{0, 0, 0};
  std::array<index_t, 3> origin{0, 0, 0};  // global cell of the first map cell
  std::vector<float> e_peak;               // |E| at the cell centres (V/m, peak)
  std::vector<float> point_sar;            // W/kg, 0 in background cells
  std::vector<float> sar_1g, sar_10g;      // W/kg, NaN where no valid cube
  double tissue_mass = 0;                  // kg
  double absorbed_power = 0;               // W
  double whole_body_sar = 0;               // W/kg
  double peak_point = 0;                   // W/kg, the largest point SAR
  double peak_1g = 0, peak_10g = 0;        // W/kg (0 when no valid cube)
  double cell_size = 0;                    // m (cubic cells)
  double frequency = 0;                    // Hz
  index_t cell(index_t i, index_t j, index_t k) const { return (i * cells[1] + j) * cells[2] + k; }
};

// |E|^2 (peak amplitude squared) at the centres of the box's cells.
std::vector<double> cell_centre_e_squared(const PhasorSet& phasors, int frequency,
                                          double amplitude_scale);

// Spatial-average SAR of every cell over cubes of target_mass kg (rules above).
std::vector<float> averaged_sar(const std::vector<float>& point_sar, const std::vector<float>& rho,
                                std::array<index_t, 3> cells, double cell_size, double target_mass,
                                std::array<bool, 3> periodic);

// The same for the cells of rows [row_begin, row_end) along x of a window
// of a larger map (point_sar and rho over the window's `cells`, x not
// periodic). An open side is one where the map goes on past the window: a
// cube that reaches past it sets `incomplete` (the row needs a wider window)
// instead of counting as leaving the grid. Returns the rows' values.
struct SarRows {
  index_t row_begin = 0, row_end = 0;
  bool open_low = false, open_high = false;
};
std::vector<float> averaged_sar_rows(const std::vector<float>& point_sar,
                                     const std::vector<float>& rho, std::array<index_t, 3> cells,
                                     double cell_size, double target_mass,
                                     std::array<bool, 3> periodic, const SarRows& rows,
                                     bool& incomplete);

SarMaps compute_sar(const SarInput& input);

// VTK ImageData (.vti, point data at the cell centres, origin = centre of
// the first map cell in metres): |E| (V/m peak), SAR, SAR_1g, SAR_10g (W/kg;
// NaN where no valid cube).
void write_sar_vti(const std::string& path, const SarMaps& maps, double cell_size,
                   std::array<double, 3> origin);
// PNG figure (image_figure.hpp) of the point SAR on the x-z slice through the
// middle y cell: viridis from 0 to the slice's peak in W/kg, axes in grid
// coordinates (cell centres, maps.origin and maps.cell_size).
void write_sar_png(const std::string& path, const SarMaps& maps);

// Key,value CSV: frequency, whole-body SAR, peak 1 g and 10 g SAR, mass, power.
void write_sar_summary(const std::string& path, const SarMaps& maps, double frequency);

}  // namespace ppkit::fdtd
