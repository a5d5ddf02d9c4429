#pragma once
// Materials per node through a material id and a coefficient table in global
// memory (a table in constant memory overflows past a few thousand materials).
// Update coefficients of a lossy dielectric (Taflove eq. 3.29-3.30):
//   ca = (1 - sigma dt / (2 eps)) / (1 + sigma dt / (2 eps))
//   cb = (dt / eps) / (1 + sigma dt / (2 eps)),   dh = dt / mu
// A perfect electric conductor has ca = cb = 0, so its E stays zero.
#include <cstdint>
#include <vector>

#include "ppkit/fdtd/yee_grid.hpp"

namespace ppkit::fdtd {

struct Material {
  double eps_r = 1, mu_r = 1;  // relative permittivity and permeability
  double sigma = 0;            // electric conductivity (S/m)
  bool pec = false;
};

// Entries per material in the coefficient table (padded to 8 floats so a
// float4 load fetches ca, cb, dh at once).
constexpr int material_stride = 8;
enum MaterialCoefficient : int { coef_ca = 0, coef_cb = 1, coef_dh = 2, coef_eps = 3, coef_mu = 4 };

// The coefficient table in the precision of the run (computed in double and
// rounded once): material_table for fp32, material_table_as<double> for fp64.
template <class Real>
std::vector<Real> material_table_as(const std::vector<Material>& materials, double dt);
inline std::vector<float> material_table(const std::vector<Material>& materials, double dt) {
  return material_table_as<float>(materials, dt);
}

}  // namespace ppkit::fdtd
