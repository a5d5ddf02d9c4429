#include "ppkit/fdtd/materials.hpp"

#include "ppkit/core/error.hpp"

namespace ppkit::fdtd {

std::vector<float> material_table(const std::vector<Material>& materials, double dt) {
  require(!materials.empty(), "no materials given", "at least one material (id 0)");
  std::vector<float> table(materials.size() * material_stride, 0.0f);
  for (std::size_t m = 0; m < materials.size(); ++m) {
    const Material& mat = materials[m];
    require(mat.eps_r >= 1 && mat.mu_r > 0 && mat.sigma >= 0,
            "material " + std::to_string(m) + " has eps_r " + std::to_string(mat.eps_r) +
                ", mu_r " + std::to_string(mat.mu_r) + ", sigma " + std::to_string(mat.sigma),
            "eps_r >= 1, mu_r > 0, sigma >= 0");
    const double eps = mat.eps_r * eps0, mu = mat.mu_r * mu0;
    const double loss = mat.sigma * dt / (2 * eps);
    float* t = &table[m * material_stride];
    t[coef_ca] = mat.pec ? 0.0f : float((1 - loss) / (1 + loss));
    t[coef_cb] = mat.pec ? 0.0f : float((dt / eps) / (1 + loss));
    t[coef_dh] = float(dt / mu);
    t[coef_eps] = float(eps);
    t[coef_mu] = float(mu);
  }
  return table;
}

}  // namespace ppkit::fdtd
