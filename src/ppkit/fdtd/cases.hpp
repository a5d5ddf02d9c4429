#pragma once
// Built-in fdtd.step problems: the PEC cavity, the CPML-bounded Hertzian
// dipole, the benchmark cube, and problems read from a JSON case file.
#include <array>
#include <nlohmann/json.hpp>
#include <string>

#include "ppkit/fdtd/fdtd_step.hpp"

namespace ppkit::fdtd {

// A PEC box of lx x ly x lz metres in nx x ny x nz cells, excited by a soft
// broadband (gaussian) Ez dipole at an off-centre node, with Ex, Ey, Ez probes
// at off-symmetric nodes so that every low mode shows up.
FdtdStep::Problem make_cavity_problem(const std::array<double, 3>& size,
                                      const std::array<index_t, 3>& cells, std::int64_t steps);

// Lowest resonances of a PEC box: continuum f = c/2 sqrt((m/a)^2 + (n/b)^2 + (p/c)^2)
// and the discrete Yee value, sin(w dt/2) / (c dt) = sqrt(sum_u (sin(k_u du/2) / du)^2)
// (Taflove eq. 4.12 with the box's standing-wave wavenumbers k_u = pi m_u / L_u).
double cavity_frequency_continuum(const std::array<double, 3>& size,
                                  const std::array<int, 3>& mode);
double cavity_frequency_yee(const YeeGrid& grid, const std::array<int, 3>& mode);

// A z-directed Hertzian dipole (soft Ez source, I dl = amplitude) at the centre
// of a cube of n cells of size dx, bounded by a CPML of `thickness` cells, with
// Ez probes on the equatorial line +x at the given distances (cells).
FdtdStep::Problem make_dipole_problem(index_t n, double dx, int thickness, std::int64_t steps,
                                      const std::vector<index_t>& probe_distances);

// A cube of n^3 cells (1 mm) with a CPML of `thickness` cells, one soft
// Ricker dipole and no probes: the benchmark problem.
FdtdStep::Problem make_benchmark_problem(index_t n, int thickness, std::int64_t steps);

// Reads a case (see docs/fdtd.md "Case files"); throws ppkit::Error on unknown
// keys, missing values, probes or sources outside the grid, a Courant number
// above the 3D limit, and other mistakes. `where` names the file in messages.
FdtdStep::Problem problem_from_json(const nlohmann::json& j, const std::string& where);

// CSV: header "time" then one column per probe ("ez(10,4,7)"), rows per step.
std::string probes_csv(const FdtdStep::Problem& problem, const FdtdStep::Result& result);

}  // namespace ppkit::fdtd
