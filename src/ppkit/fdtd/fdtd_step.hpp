#pragma once
// Operation fdtd.step: advance Maxwell's equations on a Yee grid by n steps
// (leapfrog: H^{n+1/2} from E^n, then E^{n+1} from H^{n+1/2}), with materials,
// CPML, point sources, probes and the total field energy.
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "ppkit/core/registry.hpp"
#include "ppkit/fdtd/cpml.hpp"
#include "ppkit/fdtd/materials.hpp"
#include "ppkit/fdtd/ntff.hpp"
#include "ppkit/fdtd/plane_wave.hpp"
#include "ppkit/fdtd/snapshots.hpp"
#include "ppkit/fdtd/phasors.hpp"
#include "ppkit/fdtd/sources.hpp"
#include "ppkit/fdtd/yee_grid.hpp"

namespace ppkit::fdtd {

// Ex, Ey, Ez, Hx, Hy, Hz on grid.nodes() nodes each (yee_grid.hpp layout).
template <class Real>
using BasicFieldSet = std::array<std::vector<Real>, 6>;
using FieldSet = BasicFieldSet<float>;
using FieldSet64 = BasicFieldSet<double>;

// The arithmetic of a run: fields, psi, coefficients and source values in
// float (fp32, the default) or double (fp64). The variants whose traits say
// fp64 (FdtdStep::Traits) run it; the others refuse it in prepare().
enum class Precision { fp32, fp64 };

// A problem that is one x-slab of a larger grid (the rank-local problem of
// an MPI slab run, mpi_slabs.hpp): node plane i of this grid is plane
// first_plane + i of a grid of global_nx cells along x. The x CPML profiles
// and psi slots are those of the global grid (a layer may start or end
// inside the slab); the PEC faces and everything else are this grid's. The
// planes at a slab face that is not a global face are halo planes the caller
// overwrites after each step. global_nx = 0: not a slab.
struct SlabWindow {
  index_t first_plane = 0;
  index_t global_nx = 0;
  bool active() const { return global_nx > 0; }
};
const char* to_string(Precision p);
// "fp32" or "fp64"; anything else throws ppkit::Error naming the valid values.
Precision parse_precision(const std::string& text);

}  // namespace ppkit::fdtd

namespace ppkit {

struct FdtdStep {
  static constexpr const char* name = "fdtd.step";
  struct Problem {
    fdtd::YeeGrid grid;
    std::vector<fdtd::Material> materials{fdtd::Material{}};
    std::vector<std::uint32_t> material_id;  // per node; empty: material 0 everywhere
    fdtd::CpmlConfig cpml;
    std::vector<fdtd::PointSource> sources;
    std::vector<fdtd::Probe> probes;
    std::int64_t steps = 0;
    // Total energy every energy_interval steps (0: only after the last step).
    std::int64_t energy_interval = 0;
    fdtd::FieldSet initial;  // E^0 and H^{-1/2}; empty vectors: zero fields
    // fp64 problems only: initial fields in double; a component given here
    // replaces the same component of `initial` (float values widen exactly,
    // but a field rounded to float is no longer, e.g., one pure cavity mode).
    fdtd::FieldSet64 initial_fp64;
    // Periodic x and/or y (z must stay false): no PEC and no CPML on that
    // axis, period = its cell count (contract in yee_kernel_args.hpp).
    std::array<bool, 3> periodic{false, false, false};
    // Running DFTs accumulated during the steps (phasors.hpp); off when empty.
    fdtd::PhasorConfig phasors;
    // At most one plane wave through a total-field/scattered-field box (plane_wave.hpp).
    std::vector<fdtd::PlaneWaveSource> plane_waves;
    // Plane snapshots copied back every `every` steps (snapshots.hpp).
    std::vector<fdtd::PlaneSnapshot> snapshots;
    // At most one near-to-far-field transform (ntff.hpp).
    std::vector<fdtd::NearToFarField> far_field;
    // fp64 runs the fields, materials, PEC, CPML, sources, probes, energy,
    // periodic boundaries and snapshots; plane waves, phasors and the
    // near-to-far-field transform are fp32 only (validate() says so).
    fdtd::Precision precision = fdtd::Precision::fp32;
    // Set by slab runs only (SlabWindow); refuses plane waves, snapshots and
    // the far field, which need the whole grid.
    fdtd::SlabWindow slab;
  };
  struct Result {
    // E^n and H^{n-1/2} after n steps; for an fp64 problem, fields_fp64 as
    // computed and `fields` the same values rounded to float (so every
    // reader of `fields` works for both precisions).
    fdtd::FieldSet fields;
    fdtd::FieldSet64 fields_fp64;  // fp64 problems only, else empty
    // probe_values[p * steps + s]: probe p after step s (E at (s+1) dt, H at (s+1/2) dt);
    // fp64 problems also fill probe_values_fp64 (same layout).
    std::vector<float> probe_values;
    std::vector<double> probe_values_fp64;
    std::vector<std::int64_t> energy_steps;   // steps after which energy was taken
    std::vector<double> energy;               // J: 1/2 sum(eps E^2 + mu H^2) dV
    std::vector<fdtd::SnapshotFrame> frames;  // in the order of snapshot_schedule()
    // Radiation vectors {N_theta, N_phi, L_theta, L_phi} [f * directions + d].
    std::vector<fdtd::RadiationVectors> radiation;
    fdtd::PhasorSet phasors;  // when problem.phasors is enabled
  };
  // The Problem features a variant runs beyond what every variant runs
  // (materials, PEC, CPML, sources, probes, energy, phasors, snapshots and the
  // near-to-far-field transform in fp32), declared where it registers;
  // step_features.hpp reads them.
  struct Traits {
    bool plane_wave = false;  // TF/SF corrections between the H and the E update
    bool periodic = false;    // the periodic H copy between the half steps
    bool fp64 = false;        // Problem::precision fp64
    // Runs a slab of a larger grid (Problem::slab) as the rank-local step of
    // MPI slabs (mpi_slabs.hpp): its prepared run is a StepApplier whose
    // copy_planes() reads and writes halo planes between single steps.
    bool slab = false;
    // Features that read every node after every step; every variant that
    // advances the whole grid one step at a time runs them, a temporally
    // blocked one (several steps per pass over the grid) says it does not.
    bool phasors = true;    // Problem::phasors
    bool snapshots = true;  // Problem::snapshots
    bool far_field = true;  // Problem::far_field (NTFF)
    // Time steps advanced per pass over the grid (1: one sweep per step);
    // step_bytes(problem, steps_per_pass) is the traffic its roofline counts.
    int steps_per_pass = 1;
    // A slab variant whose prepared run can update the E field of a slab's
    // edge planes before the rest of a step (StepApplier::begin_step /
    // finish_step), so MPI slabs send the halo while the rest is updated.
    bool slab_overlap = false;
    TraitFields fields() const {
      return {{"plane_wave", plane_wave},
              {"periodic", periodic},
              {"fp64", fp64},
              {"slab", slab},
              {"phasors", phasors},
              {"snapshots", snapshots},
              {"far_field", far_field},
              {"steps_per_pass", std::to_string(steps_per_pass)},
              {"slab_overlap", slab_overlap}};
    }
  };
};

namespace fdtd {

// Everything the variants derive from a Problem on the host, validated once:
// coefficient table, CPML profiles, per-step source values, flat indices.
// Real: the precision of the update (float: StepSetup; double for fp64 runs).
template <class Real = float>
struct StepSetupT {
  std::vector<Real> material_table;        // material_stride values per material
  std::vector<std::uint32_t> material_id;  // per node (filled with 0 when the problem's is empty)
  CpmlProfilesT<Real> cpml;
  // Sources: node index, component, hard flag, and per-step values
  // source_values[s * steps + n]: soft: -cb I dl w((n+1/2) dt) / dV (added to E),
  // hard: amplitude w((n+1) dt) (assigned to E).
  std::vector<index_t> source_index;
  std::vector<int> source_component, source_hard;
  std::vector<Real> source_values;
  std::vector<index_t> probe_index;
  std::vector<int> probe_component;
  std::vector<std::int64_t> energy_steps;  // 0-based steps after which energy is taken
  double cell_volume = 0;
  // Phasor samples: after step s when (s + 1) % interval == 0 (phasors.hpp);
  // coefficients as phasor_coefficients(config, dt, 0, phasor_samples).
  std::int64_t phasor_samples = 0;
  // Plane-wave consistency corrections (empty without a plane wave).
  TfsfCorrections tfsf;
  // (step, snapshot) pairs: frames taken after those steps, in this order.
  std::vector<std::pair<std::int64_t, int>> snapshot_schedule;
  // Near-to-far-field surface samples and DFT factors (empty without a transform).
  NtffSurface ntff;
  std::vector<float> ntff_factors;  // [(step * F + f) * 4 + {Re E, Im E, Re H, Im H}]
};
using StepSetup = StepSetupT<float>;

// The phasor sample taken after 0-based step `step`, or -1 when none is.
inline std::int64_t phasor_sample_after(const FdtdStep::Problem& p, std::int64_t step) {
  if (!p.phasors.enabled() || (step + 1) % p.phasors.interval != 0) return -1;
  return (step + 1) / p.phasors.interval - 1;
}

// Initial field c (0..5) of the problem in Real: initial_fp64[c] when given,
// else initial[c]; empty: zero fields.
template <class Real>
std::vector<Real> initial_field(const FdtdStep::Problem& p, int c) {
  const auto& wide = p.initial_fp64[std::size_t(c)];
  if (!wide.empty()) return std::vector<Real>(wide.begin(), wide.end());
  const auto& narrow = p.initial[std::size_t(c)];
  return std::vector<Real>(narrow.begin(), narrow.end());
}

// Stores fields / probe values computed in Real in a Result: float as they
// are; double in fields_fp64 / probe_values_fp64 and rounded in fields /
// probe_values.
template <class Real>
void set_result_fields(FdtdStep::Result& r, BasicFieldSet<Real> fields) {
  if constexpr (std::is_same_v<Real, float>) {
    r.fields = std::move(fields);
  } else {
    for (std::size_t c = 0; c < 6; ++c) r.fields[c].assign(fields[c].begin(), fields[c].end());
    r.fields_fp64 = std::move(fields);
  }
}
template <class Real>
void set_result_probes(FdtdStep::Result& r, std::vector<Real> values) {
  if constexpr (std::is_same_v<Real, float>) {
    r.probe_values = std::move(values);
  } else {
    r.probe_values.assign(values.begin(), values.end());
    r.probe_values_fp64 = std::move(values);
  }
}

// What a run recorded besides fields and probes, as every variant stores it:
// the energies (all NaN when the run did not take every scheduled one),
// snapshot frames and far-field radiation vectors.
template <class Real>
void set_result_records(FdtdStep::Result& r, const StepSetupT<Real>& setup,
                        const std::vector<double>& energy,
                        const std::vector<SnapshotFrame>& frames = {},
                        const std::vector<RadiationVectors>& radiation = {}) {
  r.energy_steps = setup.energy_steps;
  r.energy = energy.size() == setup.energy_steps.size()
                 ? energy
                 : std::vector<double>(setup.energy_steps.size(), std::nan(""));
  r.frames = frames;
  r.radiation = radiation;
}

// Validates the problem (grid, Courant number, ids, sources, probes, CPML) and
// derives the StepSetup; throws ppkit::Error naming what is wrong.
// make_step_setup_as<Real> is instantiated for float and double, whatever the
// problem's precision says (the variants pick Real from it).
template <class Real>
StepSetupT<Real> make_step_setup_as(const FdtdStep::Problem& problem);
inline StepSetup make_step_setup(const FdtdStep::Problem& problem) {
  return make_step_setup_as<float>(problem);
}
void validate(const FdtdStep::Problem& problem);

// The serial reference: plain loops over each component, written for clarity,
// in the problem's precision.
FdtdStep::Result reference_step(const FdtdStep::Problem& problem);

// Relative L2 error of all six fields against a reference result, normalised
// per field group (E and H separately, because their magnitudes differ by eta0).
double fields_relative_error(const FieldSet& a, const FieldSet& reference);
double fields_relative_error(const FieldSet64& a, const FieldSet64& reference);

// Compulsory DRAM bytes of one run (docs/fdtd.md, "Performance model"): per
// node and step each of the six fields read once and written once (48 B in
// fp32: a fused E+H step, the new E of a plane still in cache for H), the
// narrowest material id read once (0 B with a single material), and each psi
// value in the CPML layers read and written once. The restart and the energy
// sums can be fused into the steps and are not counted: a lower bound for
// every variant that advances the fields one step per sweep.
double step_bytes(const FdtdStep::Problem& problem);
// The same for a variant advancing steps_per_pass steps per pass over the grid
// (FdtdStep::Traits::steps_per_pass): the compulsory traffic of one pass (the
// fields, ids and psi read and written once) times the ceil(steps /
// steps_per_pass) passes of a run; steps_per_pass 1 is step_bytes(problem).
double step_bytes(const FdtdStep::Problem& problem, int steps_per_pass);
// step_bytes(problem, steps_per_pass of the registered variant `variant`).
double step_bytes_of_variant(const FdtdStep::Problem& problem, const std::string& variant);
// The traffic of a scheme with separate E and H sweeps (the modelled figure):
// per node and step 72 B of fields (each half step reads the 3 fields it
// differentiates and the 3 it updates and writes the 3 it updates; neighbours
// served from cache), the material id twice, psi read + written, the restart
// of the fields and psi, and the energy sums.
double step_modelled_bytes(const FdtdStep::Problem& problem);
double step_flops(const FdtdStep::Problem& problem);

}  // namespace fdtd
}  // namespace ppkit
