// Validation of an fdtd.step problem and the host-side data every variant uploads.
#include <cmath>
#include <string>
#include <type_traits>

#include "ppkit/core/error.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"

namespace ppkit::fdtd {
namespace {

std::string node_text(index_t i, index_t j, index_t k) {
  return "(" + std::to_string(i) + "," + std::to_string(j) + "," + std::to_string(k) + ")";
}

std::string extent_text(const YeeGrid& g) {
  return "i in 0.." + std::to_string(g.nx) + ", j in 0.." + std::to_string(g.ny) + ", k in 0.." +
         std::to_string(g.nz) + " on the component's own extent";
}

// Sources drive E nodes that are updated: not on the PEC faces (on a
// periodic axis the face nodes u = 0 and u = n are one node, updated).
bool updated_e_node(const YeeGrid& g, Component c, index_t i, index_t j, index_t k,
                    const std::array<bool, 3>& periodic) {
  const bool ix = i >= (periodic[0] ? 0 : 1) && i <= g.nx - (periodic[0] ? 0 : 1),
             jy = j >= (periodic[1] ? 0 : 1) && j <= g.ny - (periodic[1] ? 0 : 1),
             kz = k >= 1 && k <= g.nz - 1;
  switch (c) {
    case Component::ex:
      return i >= 0 && i < g.nx && jy && kz;
    case Component::ey:
      return j >= 0 && j < g.ny && ix && kz;
    case Component::ez:
      return k >= 0 && k < g.nz && ix && jy;
    default:
      return false;
  }
}

// The grid the CPML profiles are made for: the problem's, or for a slab the
// global grid along x (SlabWindow, fdtd_step.hpp).
YeeGrid cpml_grid(const FdtdStep::Problem& p) {
  YeeGrid g = p.grid;
  if (p.slab.active()) g.nx = p.slab.global_nx;
  return g;
}

}  // namespace

const char* to_string(Precision p) { return p == Precision::fp64 ? "fp64" : "fp32"; }

Precision parse_precision(const std::string& text) {
  if (text == "fp32") return Precision::fp32;
  if (text == "fp64") return Precision::fp64;
  throw Error("unknown precision \"" + text + "\"", "fp32 (float, the default) or fp64 (double)");
}

void validate(const FdtdStep::Problem& p) {
  const YeeGrid& g = p.grid;
  require(g.nx >= 2 && g.ny >= 2 && g.nz >= 2, "grid needs at least 2 cells per axis",
          "nx, ny, nz >= 2");
  require(g.dx > 0 && g.dy > 0 && g.dz > 0, "cell sizes must be positive", "dx, dy, dz > 0");
  require(g.dt > 0, "time step must be positive", "0 < dt <= Courant limit");
  require(g.courant_number() <= 1.0 + 1e-12,
          "time step " + std::to_string(g.dt) + " s gives Courant number " +
              std::to_string(g.courant_number()) + ", above the 3D stability limit",
          "dt <= " + std::to_string(g.courant_limit()) + " s (Courant number <= 1)");
  require(p.steps >= 1, "steps must be at least 1", ">= 1");
  require(p.energy_interval >= 0, "energy interval must not be negative",
          "0 (last step only) or >= 1");
  if (p.precision == Precision::fp64) {
    // The plane-wave tables, phasor coefficients and NTFF factors are float.
    require(p.plane_waves.empty(), "a plane wave was given to an fp64 problem",
            "plane waves with precision fp32, or fp64 without plane waves");
    require(!p.phasors.enabled(), "phasors were requested in an fp64 problem",
            "phasors with precision fp32, or fp64 without phasors");
    require(p.far_field.empty(), "a near-to-far-field transform was given to an fp64 problem",
            "the transform with precision fp32, or fp64 without it");
  }
  require(p.material_id.empty() || index_t(p.material_id.size()) == g.nodes(),
          "material id array has " + std::to_string(p.material_id.size()) + " entries",
          std::to_string(g.nodes()) + " (one per node) or none");
  for (std::size_t n = 0; n < p.material_id.size(); ++n)
    if (p.material_id[n] >= p.materials.size())
      throw Error("material id " + std::to_string(p.material_id[n]) + " at node " +
                      std::to_string(n) + " has no material",
                  "ids 0.." + std::to_string(p.materials.size() - 1));
  for (int c = 0; c < 6; ++c)
    require(p.initial[c].empty() || index_t(p.initial[c].size()) == g.nodes(),
            std::string("initial field ") + to_string(Component(c)) + " has the wrong size",
            std::to_string(g.nodes()) + " nodes or empty");
  for (int c = 0; c < 6; ++c) {
    if (p.initial_fp64[c].empty()) continue;
    require(p.precision == Precision::fp64,
            std::string("initial_fp64 field ") + to_string(Component(c)) +
                " was given to an fp32 problem",
            "initial fields in `initial` for fp32, or precision fp64");
    require(index_t(p.initial_fp64[c].size()) == g.nodes(),
            std::string("initial_fp64 field ") + to_string(Component(c)) + " has the wrong size",
            std::to_string(g.nodes()) + " nodes or empty");
  }
  require(!p.periodic[2], "periodic z is not supported",
          "periodic x and/or y (z carries the CPML of a plane-wave column)");
  if (p.slab.active()) {
    require(p.slab.first_plane >= 0 && p.slab.first_plane + g.nx <= p.slab.global_nx,
            "slab planes " + std::to_string(p.slab.first_plane) + ".." +
                std::to_string(p.slab.first_plane + g.nx) + " leave a grid of " +
                std::to_string(p.slab.global_nx) + " cells along x",
            "0 <= first_plane and first_plane + nx <= global_nx");
    require(!p.periodic[0], "a slab of a grid with periodic x",
            "periodic y only: x is the slab axis");
    require(p.plane_waves.empty() && p.snapshots.empty() && p.far_field.empty(),
            "a slab problem with a plane wave, snapshots or a far-field transform",
            "none of them: they need the whole grid on one rank");
  }
  validate(p.cpml, cpml_grid(p), p.periodic);
  if (p.phasors.enabled()) resolve_box(p.phasors, g);
  for (const auto& s : p.sources) {
    require(is_electric(s.component),
            std::string("source component ") + to_string(s.component) + " is not electric",
            "ex, ey, ez");
    require(updated_e_node(g, s.component, s.i, s.j, s.k, p.periodic),
            std::string("source ") + to_string(s.component) + " at node " +
                node_text(s.i, s.j, s.k) + " is outside the grid or on its PEC boundary",
            "an interior node: " + extent_text(g));
    require(s.frequency > 0, "source frequency must be positive", "> 0 Hz");
  }
  require(p.plane_waves.size() <= 1, std::to_string(p.plane_waves.size()) + " plane waves given",
          "at most one");
  for (const auto& w : p.plane_waves) validate(w, g, p.cpml.thickness);
  for (const auto& s : p.snapshots) validate(s, g);
  require(p.far_field.size() <= 1,
          std::to_string(p.far_field.size()) + " near-to-far-field transforms given",
          "at most one");
  for (const auto& n : p.far_field) validate(n, g, p.cpml.thickness);
  for (const auto& pr : p.probes)
    require(g.holds(pr.component, pr.i, pr.j, pr.k),
            std::string("probe ") + to_string(pr.component) + " at node " +
                node_text(pr.i, pr.j, pr.k) + " is outside the grid",
            extent_text(g));
}

template <class Real>
StepSetupT<Real> make_step_setup_as(const FdtdStep::Problem& p) {
  validate(p);
  const YeeGrid& g = p.grid;
  StepSetupT<Real> s;
  s.material_table = material_table_as<Real>(p.materials, g.dt);
  s.material_id = p.material_id.empty() ? std::vector<std::uint32_t>(std::size_t(g.nodes()), 0u)
                                        : p.material_id;
  s.cpml = make_cpml_profiles_as<Real>(cpml_grid(p), p.cpml, p.periodic);
  if (p.slab.active()) {
    // The slab's x profiles: planes first_plane .. first_plane + nx of the global ones.
    CpmlAxisT<Real>& x = s.cpml.axis[0];
    const auto first = std::ptrdiff_t(p.slab.first_plane), count = std::ptrdiff_t(g.nx + 1);
    auto slice = [&](auto& v) {
      v = std::decay_t<decltype(v)>(v.begin() + first, v.begin() + first + count);
    };
    for (auto* v : {&x.e_inv_kd, &x.e_b, &x.e_c_d, &x.h_inv_kd, &x.h_b, &x.h_c_d}) slice(*v);
    slice(x.e_slot);
    slice(x.h_slot);
  }
  s.cell_volume = g.dx * g.dy * g.dz;
  const std::size_t steps = std::size_t(p.steps);
  s.source_values.resize(p.sources.size() * steps);
  for (std::size_t n = 0; n < p.sources.size(); ++n) {
    const PointSource& src = p.sources[n];
    // On a periodic axis the face node 0 of a component tangential to that
    // face is a copy of node n (yee_kernel_args.hpp): drive the source at n.
    const bool move_x = p.periodic[0] && src.i == 0 && src.component != Component::ex;
    const bool move_y = p.periodic[1] && src.j == 0 && src.component != Component::ey;
    const index_t node = g.index(move_x ? g.nx : src.i, move_y ? g.ny : src.j, src.k);
    s.source_index.push_back(node);
    s.source_component.push_back(int(src.component));
    s.source_hard.push_back(src.hard ? 1 : 0);
    const double cb =
        s.material_table[s.material_id[std::size_t(node)] * material_stride + coef_cb];
    for (std::size_t step = 0; step < steps; ++step) {
      double value;
      if (src.hard) {
        value = src.amplitude *
                waveform_value(src.waveform, src.frequency, double(step + 1) * g.dt - src.delay);
      } else {  // J at (n + 1/2) dt, as in E^{n+1} = ca E^n + cb (curl H^{n+1/2} - J^{n+1/2})
        const double t = (double(step) + 0.5) * g.dt - src.delay;
        value =
            -cb * src.amplitude * waveform_value(src.waveform, src.frequency, t) / s.cell_volume;
      }
      s.source_values[n * steps + step] = Real(value);
    }
  }
  for (const auto& pr : p.probes) {
    s.probe_index.push_back(g.index(pr.i, pr.j, pr.k));
    s.probe_component.push_back(int(pr.component));
  }
  if (p.energy_interval > 0)
    for (std::int64_t step = p.energy_interval - 1; step < p.steps; step += p.energy_interval)
      s.energy_steps.push_back(step);
  if (s.energy_steps.empty() || s.energy_steps.back() != p.steps - 1)
    s.energy_steps.push_back(p.steps - 1);
  if (p.phasors.enabled()) s.phasor_samples = p.steps / p.phasors.interval;
  // Plane waves are fp32 only (validate()): the corrections use the float setup.
  if constexpr (std::is_same_v<Real, float>)
    if (!p.plane_waves.empty()) {
      const CpmlAxis* a = s.cpml.axis;
      s.tfsf = make_tfsf_corrections(p.plane_waves[0], g, p.steps, s.material_table, s.material_id,
                                     {&a[0].e_inv_kd, &a[1].e_inv_kd, &a[2].e_inv_kd},
                                     {&a[0].h_inv_kd, &a[1].h_inv_kd, &a[2].h_inv_kd});
    }
  s.snapshot_schedule = snapshot_schedule(p.snapshots, p.steps);
  if (!p.far_field.empty()) {
    s.ntff = make_ntff_surface(p.far_field[0], g);
    s.ntff_factors = ntff_dft_factors(p.far_field[0], g, p.steps);
  }
  return s;
}

template StepSetupT<float> make_step_setup_as<float>(const FdtdStep::Problem&);
template StepSetupT<double> make_step_setup_as<double>(const FdtdStep::Problem&);

namespace {
template <class Real>
double relative_error(const BasicFieldSet<Real>& a, const BasicFieldSet<Real>& ref) {
  double worst = 0;
  for (int group = 0; group < 2; ++group) {
    double diff = 0, norm = 0;
    for (int c = 3 * group; c < 3 * group + 3; ++c) {
      if (a[c].size() != ref[c].size()) return std::nan("");
      for (std::size_t n = 0; n < a[c].size(); ++n) {
        const double d = double(a[c][n]) - double(ref[c][n]);
        diff += d * d;
        norm += double(ref[c][n]) * double(ref[c][n]);
      }
    }
    if (std::isnan(diff)) return std::nan("");
    worst = std::max(worst, norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff));
  }
  return worst;
}
}  // namespace

double fields_relative_error(const FieldSet& a, const FieldSet& ref) {
  return relative_error(a, ref);
}
double fields_relative_error(const FieldSet64& a, const FieldSet64& ref) {
  return relative_error(a, ref);
}

namespace {
// Nodes in the psi layers of all three axes, times the 4 psi arrays per axis.
double psi_nodes(const FdtdStep::Problem& p) {
  const YeeGrid& g = p.grid;
  const double t2 = 2.0 * p.cpml.thickness;
  return 4 * t2 *
         (double(g.ny + 1) * double(g.nz + 1) + double(g.nx + 1) * double(g.nz + 1) +
          double(g.nx + 1) * double(g.ny + 1));
}
}  // namespace

double step_bytes(const FdtdStep::Problem& p) { return step_bytes(p, 1); }

double step_bytes(const FdtdStep::Problem& p, int steps_per_pass) {
  require(steps_per_pass >= 1, "steps_per_pass " + std::to_string(steps_per_pass),
          "a whole number of steps per pass >= 1");
  // Compulsory DRAM traffic of one run() (see docs/fdtd.md, "Performance model"):
  const double nodes = double(p.grid.nodes());
  const std::size_t materials = p.materials.size();
  const double id_bytes = materials <= 1 ? 0 : materials <= 256 ? 1 : materials <= 65536 ? 2 : 4;
  const double value = p.precision == Precision::fp64 ? sizeof(double) : sizeof(float);
  // each step reads and writes the six fields once and reads the id once;
  // each psi value in the CPML layers is read and written once.
  const double per_pass = nodes * (12 * value + id_bytes) + psi_nodes(p) * 2 * value;
  // A pass advances steps_per_pass steps (the last one of a run the rest).
  const double passes = double((p.steps + steps_per_pass - 1) / steps_per_pass);
  return passes * per_pass;
}

double step_modelled_bytes(const FdtdStep::Problem& p) {
  // Two sweeps per step (E, then H):
  const double nodes = double(p.grid.nodes());
  const std::size_t materials = p.materials.size();
  const double id_bytes = materials <= 1 ? 0 : materials <= 256 ? 1 : materials <= 65536 ? 2 : 4;
  // value: 4 B (fp32) or 8 B (fp64) per field and psi value;
  const double value = p.precision == Precision::fp64 ? sizeof(double) : sizeof(float);
  // each half step reads the 3 fields it differentiates and the 3 it updates,
  // writes the 3 it updates (9 values), and reads one material id;
  double per_step = nodes * (2 * 9 * value + 2 * id_bytes);
  // each psi value in the CPML layers is read and written once per step;
  per_step += psi_nodes(p) * 2 * value;
  // the restart: fields zeroed (1 value) or copied from the initial state (2), psi zeroed;
  double restart = psi_nodes(p) * value;
  for (int c = 0; c < 6; ++c)
    restart += nodes * (p.initial[c].empty() && p.initial_fp64[c].empty() ? value : 2 * value);
  // every energy sum reads the six fields and the ids.
  const double energy_sums =
      p.energy_interval > 0 ? double((p.steps + p.energy_interval - 1) / p.energy_interval) : 1.0;
  const double energy = energy_sums * nodes * (6 * value + id_bytes);
  return double(p.steps) * per_step + restart + energy;
}

double step_flops(const FdtdStep::Problem& p) {
  // E: 3 x (2 differences, 2 scalings, 1 subtraction, ca E + cb curl = 3) = 24;
  // H: 3 x (2 + 2 + 1 + 2) = 21; each psi update b psi + c d plus its add: 4.
  return double(p.steps) * (double(p.grid.nodes()) * 45 + psi_nodes(p) * 4);
}

}  // namespace ppkit::fdtd
