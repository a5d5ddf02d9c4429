// The plane-wave half-space column and its SAR profile (halfspace.hpp).
#include "ppkit/fdtd/halfspace.hpp"

#include <cmath>
#include <complex>

#include "ppkit/core/error.hpp"

namespace ppkit::fdtd {
namespace {

std::complex<double> medium_gamma(const HalfspaceSpec& s) {
  // gamma = sqrt(j w mu (sigma + j w eps)) = alpha + j beta
  const double w = 2 * std::acos(-1.0) * s.frequency;
  const std::complex<double> j(0, 1);
  return std::sqrt(j * w * mu0 * (s.sigma + j * w * eps0 * s.eps_r));
}

}  // namespace

double lossy_alpha(const HalfspaceSpec& s) { return medium_gamma(s).real(); }
double lossy_wavelength(const HalfspaceSpec& s) {
  return 2 * std::acos(-1.0) / medium_gamma(s).imag();
}

double halfspace_sar_analytic(const HalfspaceSpec& s, double depth) {
  const double w = 2 * std::acos(-1.0) * s.frequency;
  const std::complex<double> j(0, 1);
  const std::complex<double> eta = std::sqrt(j * w * mu0 / (s.sigma + j * w * eps0 * s.eps_r));
  const std::complex<double> t = 2.0 * eta / (eta + eta0);
  const double e = std::abs(t) * std::exp(-lossy_alpha(s) * depth);
  return s.sigma * e * e / (2 * s.rho);
}

HalfspaceModel make_halfspace(const HalfspaceSpec& s) {
  require(s.eps_r >= 1, "--eps-r " + std::to_string(s.eps_r) + " is below 1", ">= 1");
  require(s.sigma > 0, "--sigma " + std::to_string(s.sigma) + " is not positive",
          "a conductivity > 0 S/m (a lossy medium)");
  require(s.rho > 0, "--rho " + std::to_string(s.rho) + " is not positive",
          "a mass density > 0 kg/m^3 (e.g. 1000)");
  require(s.frequency > 0, "--freq must be positive", "> 0 Hz");
  require(s.cells_per_wavelength >= 8,
          "--cells-per-wavelength " + std::to_string(s.cells_per_wavelength) + " is too coarse",
          ">= 8 (20 for a few percent)");
  require(s.lateral_cells >= 2 && s.cpml >= 4,
          "column needs >= 2 lateral cells and >= 4 CPML cells", "lateral_cells >= 2, cpml >= 4");
  const double dz = lossy_wavelength(s) / s.cells_per_wavelength;
  const index_t gap = 12;  // free-space cells between the sheet and z = 0
  const index_t sheet_k = s.cpml + 4;
  const index_t interface_k = sheet_k + gap;
  const index_t medium_cells =
      std::max<index_t>(index_t(std::ceil(s.depth_in_penetration_depths / lossy_alpha(s) / dz)),
                        2 * s.cells_per_wavelength);
  const index_t last_cell_k = interface_k + medium_cells - 1;
  const index_t nz = last_cell_k + 1 + s.cpml;
  const index_t n = s.lateral_cells;

  FdtdStep::Problem p;
  p.grid = make_grid(n, n, nz, double(n) * dz, double(n) * dz, double(nz) * dz, 0.99);
  p.periodic = {true, true, false};
  p.cpml.thickness = s.cpml;
  p.materials = {Material{}, Material{(1 + s.eps_r) / 2, 1, s.sigma / 2, false},
                 Material{s.eps_r, 1, s.sigma, false}};
  p.material_id.assign(std::size_t(p.grid.nodes()), 0u);
  for (index_t i = 0; i <= n; ++i)
    for (index_t j = 0; j <= n; ++j)
      for (index_t k = interface_k; k <= nz; ++k)
        p.material_id[std::size_t(p.grid.index(i, j, k))] = k == interface_k ? 1u : 2u;
  // Soft Ex sheet: every Ex node of the plane (j = 0 is the periodic copy of j = n).
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 1; j <= n; ++j) {
      PointSource src;
      src.component = Component::ex;
      src.i = i, src.j = j, src.k = sheet_k;
      src.waveform = Waveform::modulated_gaussian;
      src.frequency = s.frequency;
      src.amplitude = 1e-3 * dz * dz;  // any scale: the phasors are normalised
      p.sources.push_back(src);
    }
  // Long enough for the pulse (about 6 periods) to pass and the column to ring down.
  const double transit = double(nz) * dz * std::sqrt(s.eps_r) / speed_of_light;
  p.steps = std::int64_t(std::ceil((14 / s.frequency + 2 * transit) / p.grid.dt));
  p.phasors.frequencies = {s.frequency};
  p.phasors.box.lo = {0, 0, interface_k};
  p.phasors.box.hi = {n + 1, n + 1, last_cell_k + 2};

  FdtdStep::Problem incident = p;
  incident.materials.assign(1, Material{});
  incident.material_id.clear();
  incident.phasors.box.lo = {0, 0, interface_k};
  incident.phasors.box.hi = {n + 1, n + 1, interface_k + 1};
  return HalfspaceModel{s, std::move(p), std::move(incident), interface_k, last_cell_k};
}

HalfspaceSar halfspace_sar(const HalfspaceModel& m, const FdtdStep::Result& medium,
                           const FdtdStep::Result& incident) {
  const PhasorSet& inc = incident.phasors;
  require(!inc.re.empty() && !medium.phasors.re.empty(), "half-space runs returned no phasors",
          "results of make_halfspace's problems");
  // Incident Ex at z = 0, averaged over the plane's Ex nodes (they are equal).
  std::complex<double> sum = 0;
  const index_t n = m.spec.lateral_cells;
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) {
      const std::size_t q = std::size_t(inc.at(0, 0, i, j, m.interface_k));
      sum += std::complex<double>(inc.re[q], inc.im[q]);
    }
  HalfspaceSar out;
  out.incident_amplitude = std::abs(sum) / double(n * n);
  require(out.incident_amplitude > 0, "the incident run carries no field at z = 0",
          "a source that reaches the interface");
  const YeeGrid& g = m.medium.grid;
  SarInput in;
  in.phasors = &medium.phasors;
  in.amplitude_scale = 1.0 / out.incident_amplitude;  // 1 V/m peak incident
  in.dx = g.dx, in.dy = g.dy, in.dz = g.dz;
  const std::size_t cells = std::size_t(n * n * (m.last_cell_k - m.interface_k + 1));
  in.sigma.assign(cells, float(m.spec.sigma));
  in.rho.assign(cells, float(m.spec.rho));
  in.periodic = {true, true, false};
  out.maps = compute_sar(in);
  const index_t nk = out.maps.cells[2];
  for (index_t k = 0; k < nk; ++k) {
    double mean = 0;  // the column is uniform across x and y; average the cells
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j)
        mean += out.maps.point_sar[std::size_t(out.maps.cell(i, j, k))];
    out.depth.push_back((double(k) + 0.5) * g.dz);
    out.sar.push_back(mean / double(n * n));
  }
  return out;
}

}  // namespace ppkit::fdtd
