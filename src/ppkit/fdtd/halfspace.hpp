#pragma once
// A plane wave of 1 V/m peak amplitude in free space, normally incident on a
// lossy half-space z >= 0, in a thin periodic column (periodic x and y, CPML
// on both z faces), and its SAR profile against the analytic solution.
//
// Excitation: a soft current sheet of Ex at one z plane (every Ex node of the
// plane, J = K / dz) radiates plane waves towards both z faces; with periodic
// lateral walls the field depends on z only. The sheet is transparent to the
// wave reflected by the half-space, which leaves through the upper CPML. The
// sheet carries a modulated Gaussian pulse centred on the frequency; the
// phasors of the running DFT are normalised by those of a second run of the
// same column without the medium (the incident field at z = 0), so the ratio
// is the response to a 1 V/m incident wave at that frequency whatever the
// pulse spectrum (linearity).
//
// Analytic solution (e.g. Balanis, "Advanced Engineering Electromagnetics",
// 2nd ed., sec. 4.3 and 5.3; Pozar, "Microwave Engineering", sec. 1.4-1.5):
//   eta = sqrt(j w mu0 / (sigma + j w eps0 eps_r)),   T = 2 eta / (eta + eta0)
//   alpha = w sqrt(mu0 eps / 2) [sqrt(1 + (sigma / (w eps))^2) - 1]^(1/2)
//   |E(z)| = |T| E0 exp(-alpha z),   SAR(z) = sigma |E(z)|^2 / (2 rho).
// The Ex nodes on the interface plane z = 0 take the arithmetic mean of the
// two media's eps and sigma (the usual Yee interface average).
#include <string>
#include <vector>

#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/sar.hpp"

namespace ppkit::fdtd {

struct HalfspaceSpec {
  double eps_r = 50, sigma = 1, rho = 1000;  // medium: relative permittivity, S/m, kg/m^3
  double frequency = 900e6;                  // Hz
  int cells_per_wavelength = 20;             // in the medium
  int lateral_cells = 2;                     // nx = ny
  int cpml = 10;                             // cells on each z face
  double depth_in_penetration_depths = 3;    // medium depth before its CPML, in 1 / alpha
};

struct HalfspaceModel {
  HalfspaceSpec spec;
  FdtdStep::Problem medium;    // column with the half-space
  FdtdStep::Problem incident;  // the same column in vacuum (normalisation)
  index_t interface_k = 0;     // node plane at z = 0
  index_t last_cell_k = 0;     // last medium cell before the CPML
};

// Throws ppkit::Error for non-physical inputs (eps_r < 1, sigma <= 0, rho <= 0,
// frequency <= 0, fewer than 8 cells per wavelength).
HalfspaceModel make_halfspace(const HalfspaceSpec& spec);

struct HalfspaceSar {
  std::vector<double> depth, sar;  // cell centres inside the medium (m), W/kg
  double incident_amplitude = 0;   // |P| of the incident Ex at z = 0 (V/m s)
  SarMaps maps;                    // point, 1 g and 10 g SAR of the medium's cells
};

HalfspaceSar halfspace_sar(const HalfspaceModel& model, const FdtdStep::Result& medium,
                           const FdtdStep::Result& incident);

// The analytic SAR at depth z >= 0 for a 1 V/m peak incident wave.
double halfspace_sar_analytic(const HalfspaceSpec& spec, double depth);
// Attenuation constant alpha (1/m) and the medium wavelength 2 pi / beta (m).
double lossy_alpha(const HalfspaceSpec& spec);
double lossy_wavelength(const HalfspaceSpec& spec);

}  // namespace ppkit::fdtd
