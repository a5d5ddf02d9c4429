#pragma once
// Built-in fdtd.step problems: the PEC cavity, the CPML-bounded Hertzian
// dipole, the benchmark cube, and problems read from a JSON case file.
#include <array>
#include <complex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/sar.hpp"

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

// The "sar" section of a case file (docs/fdtd.md, "SAR from a case"): the
// specific absorption rate (sar.hpp) at one frequency over a node box, from
// the phasors the run accumulates there (problem_from_json sets
// problem.phasors from the section), for the case's soft sources running as
// continuous sinusoids at that frequency, in phase, with their amplitudes
// (peak I dl).
struct CaseSar {
  double frequency = 0;           // Hz
  std::vector<double> density;    // kg/m^3 per material id (0: no tissue; id 0 is vacuum)
  std::string summary, vtk, png;  // output files; empty: not written
};

// Reads the "sar" section (nullopt without one) and checks, before any
// step, what the SAR needs: cubic cells, soft sources sharing one waveform,
// frequency and delay whose spectrum reaches the SAR frequency, and tissue
// (a material with a density) in the box.
std::optional<CaseSar> case_sar_from_json(const nlohmann::json& j, const FdtdStep::Problem& p,
                                          const std::string& where);

// W(f) = sum over the run's steps n of dt w((n + 1/2) dt - delay)
// exp(-i 2 pi f (n + 1/2) dt): the running DFT of the first source's unit
// waveform at the times soft sources inject J (step_setup.cpp), the same
// transform the phasors take of E (phasors.hpp). With E(f) = W(f) sum_s
// amplitude_s H_s(f) for the run, the field of the sources running as
// sinusoids of their amplitudes is E(f) / W(f): steady state, whatever the
// pulse, once the run has rung down.
std::complex<double> source_spectrum(const FdtdStep::Problem& p, double frequency);

// compute_sar's input for a case's run: sigma and density per cell of the
// phasor box and amplitude_scale = 1 / |W(f)|. A cell whose eight corner
// nodes all hold tissue (a material with a density) takes the tissue on most
// of them; any other cell is background: materials belong to nodes, so a
// tissue's surface is its last node plane. phasors may be null
// (MpiSlabSolver::sar).
SarInput case_sar_input(const FdtdStep::Problem& p, const CaseSar& sar, const PhasorSet* phasors);

// Prints the SAR summary on `out` and writes the files the section asks for
// (maps from compute_sar, or MpiSlabSolver::sar gathered when vtk or png is set).
void write_case_sar(const CaseSar& sar, const SarMaps& maps, std::ostream& out);

// A case file read and checked whole before anything runs: the problem, the
// "outputs" paths ("" when absent) and the "sar" section. Every output file
// of the case is checked writable (its directory created) here. Throws
// ppkit::Error naming the file and what is wrong.
struct CaseFile {
  FdtdStep::Problem problem;
  std::string probes_path, energy_path;
  std::optional<CaseSar> sar;
};
CaseFile read_case_file(const std::string& path);
// The pieces of read_case_file: the file's text (or an error naming it), the
// case parsed and checked from a text (no file access; `where` names it in
// messages), and the outputs' check.
std::string read_case_text(const std::string& path);
CaseFile case_from_text(const std::string& text, const std::string& where);
void check_case_outputs(const CaseFile& c);

// CSV: header "step,time,energy", a row per energy sample (E time).
std::string energy_csv(const FdtdStep::Problem& problem, const FdtdStep::Result& result);

// CSV: header "time" then one column per probe ("ez(10,4,7)"), rows per step.
std::string probes_csv(const FdtdStep::Problem& problem, const FdtdStep::Result& result);

}  // namespace ppkit::fdtd
