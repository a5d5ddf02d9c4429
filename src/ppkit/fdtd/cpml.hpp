#pragma once
// Convolutional PML (Roden & Gedney, Microw. Opt. Technol. Lett. 27 (2000) 334;
// Taflove & Hagness 3rd ed. sec. 7.9). In a layer of `thickness` cells at each
// of the six faces, a spatial derivative d/du becomes
//   (1/kappa_u) d/du + psi_u,   psi_u^{n+1} = b_u psi_u^n + c_u (d/du)^{n+1/2}
//   b_u = exp(-(sigma_u/kappa_u + alpha_u) dt / eps0)
//   c_u = sigma_u (b_u - 1) / (sigma_u kappa_u + kappa_u^2 alpha_u)
// with polynomial grading over the depth d / delta (Taflove eq. 7.60, 7.79):
//   sigma = sigma_max (d/delta)^m,  kappa = 1 + (kappa_max - 1) (d/delta)^m,
//   alpha = alpha_max (1 - d/delta)^ma,
//   sigma_max = -(m + 1) ln(R0) / (2 eta0 delta)                (eq. 7.61).
// The layer is backed by the PEC outer boundary.
#include <array>
#include <cstdint>
#include <vector>

#include "ppkit/fdtd/yee_grid.hpp"

namespace ppkit::fdtd {

struct CpmlConfig {
  int thickness = 0;         // cells per face; 0: a bare PEC box
  double grading_order = 3;  // m
  double reflection = 1e-6;  // R0, the theoretical normal-incidence reflection
  double kappa_max = 1;      // >= 1
  double alpha_max = 0;      // S/m (complex-frequency shift)
  double alpha_order = 1;    // ma
};

// Coefficients along one axis of n cells, at the E nodes (integer positions
// u = 0..n, derivatives of H) and the H nodes (u + 1/2, derivatives of E).
// inv_kd = 1 / (kappa du), c_d = c / du, b; slot = index of the node's psi
// layer in [0, 2 thickness) or -1 outside the layer. Sizes n + 1.
// Real: the precision of the run (float for fp32 problems, double for fp64);
// the coefficients are computed in double and rounded once.
template <class Real = float>
struct CpmlAxisT {
  std::vector<Real> e_inv_kd, e_b, e_c_d, h_inv_kd, h_b, h_c_d;
  std::vector<std::int32_t> e_slot, h_slot;
};

template <class Real = float>
struct CpmlProfilesT {
  CpmlAxisT<Real> axis[3];  // x, y, z
  int thickness = 0;        // psi layers per axis: 2 * thickness
};
using CpmlAxis = CpmlAxisT<float>;
using CpmlProfiles = CpmlProfilesT<float>;

// Throws ppkit::Error when the configuration does not fit the grid.
// Axes flagged in without_layers (periodic axes) get no layer (slot -1,
// b = 1, c = 0) and are left out of the size check.
// Instantiated for float and double.
template <class Real>
CpmlProfilesT<Real> make_cpml_profiles_as(const YeeGrid& grid, const CpmlConfig& config,
                                          std::array<bool, 3> without_layers = {false, false,
                                                                                false});
inline CpmlProfiles make_cpml_profiles(const YeeGrid& grid, const CpmlConfig& config,
                                       std::array<bool, 3> without_layers = {false, false, false}) {
  return make_cpml_profiles_as<float>(grid, config, without_layers);
}
void validate(const CpmlConfig& config, const YeeGrid& grid,
              std::array<bool, 3> without_layers = {false, false, false});

}  // namespace ppkit::fdtd
