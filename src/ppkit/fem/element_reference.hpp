#pragma once
// Serial reference for one hex8 linear-elasticity element, written for
// clarity (Kiran et al. 2019, eqs. 1-6): Ke = sum_q B^T D B |J| w_q and
// Fe = sum_q N^T b |J| w_q with the strain-displacement matrix B (6 x 24, Voigt
// order xx, yy, zz, yz, xz, xy) and the isotropic constitutive matrix D.
#include <array>

namespace ppkit::fem {

struct Material {
  double youngs_modulus = 1.0;                // E, Pa
  double poisson_ratio = 0.3;                 // nu, -1 < nu < 0.5
  std::array<double, 3> body_force{0, 0, 0};  // b, force per volume (e.g. rho g)
  double lambda() const {
    return youngs_modulus * poisson_ratio / ((1 + poisson_ratio) * (1 - 2 * poisson_ratio));
  }
  double mu() const { return youngs_modulus / (2 * (1 + poisson_ratio)); }
};

// Throws ppkit::Error unless E > 0 and -1 < nu < 0.5.
void validate_material(const Material& m);

using ElementCoordinates = std::array<double, 24>;  // x,y,z of the 8 nodes
using ElementMatrix = std::array<double, 576>;      // row-major 24 x 24, DOF 3*a + component
using ElementVector = std::array<double, 24>;

// The 6 x 6 isotropic constitutive matrix D (Voigt, engineering shear strains).
std::array<std::array<double, 6>, 6> constitutive_matrix(const Material& m);

ElementMatrix element_stiffness_reference(const ElementCoordinates& x, const Material& m);
ElementVector element_body_force_reference(const ElementCoordinates& x, const Material& m);

// Strain (Voigt, engineering shear) at natural point xi for element
// displacements u (24 values).
std::array<double, 6> element_strain(const ElementCoordinates& x, const ElementVector& u,
                                     const std::array<double, 3>& xi);

}  // namespace ppkit::fem
