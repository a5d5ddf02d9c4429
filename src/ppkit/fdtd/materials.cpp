#include "ppkit/fdtd/materials.hpp"

#include "ppkit/core/error.hpp"

namespace ppkit::fdtd {

template <class Real>
std::vector<Real> material_table_as(const std::vector<Material>& materials, double dt) {
  require(!materials.empty(), "no materials given", "at least one material (id 0)");
  std::vector<Real> table(materials.size() * material_stride, Real(0));
  for (std::size_t m = 0; m < materials.size(); ++m) {
    const Material& mat = materials[m];
    require(mat.eps_r >= 1 && mat.mu_r > 0 && mat.sigma >= 0,
            "material " + std::to_string(m) + " has eps_r " + std::to_string(mat.eps_r) +
                ", mu_r " + std::to_string(mat.mu_r) + ", sigma " + std::to_string(mat.sigma),
            "eps_r >= 1, mu_r > 0, sigma >= 0");
    const double eps = mat.eps_r * eps0, mu = mat.mu_r * mu0;
    const double loss = mat.sigma * dt / (2 * eps);
    Real* t = &table[m * material_stride];
    t[coef_ca] = mat.pec ? Real(0) : Real((1 - loss) / (1 + loss));
    t[coef_cb] = mat.pec ? Real(0) : Real((dt / eps) / (1 + loss));
    t[coef_dh] = Real(dt / mu);
    t[coef_eps] = Real(eps);
    t[coef_mu] = Real(mu);
  }
  return table;
}

template std::vector<float> material_table_as<float>(const std::vector<Material>&, double);
template std::vector<double> material_table_as<double>(const std::vector<Material>&, double);

}  // namespace ppkit::fdtd
