// Checkpoints, restart and the numerical health message of long fdtd.step runs
// (fdtd_run.hpp). A checkpoint is an HDF5 file of kind "fdtd"
// (ppkit/core/checkpoint.hpp): attributes step, steps, nx, ny, nz, dx, dy, dz,
// dt, cpml_thickness, sources, probes, energy_interval; datasets ex ey ez hx hy
// hz (float32, one value per node, yee_grid.hpp layout), psi_eyx ... psi_hyz
// (float32, CPML layer layout of yee_kernel_args.hpp), probe_values (float32,
// [probe * steps + step]) and energy (float64, the energies already taken).
// A checkpoint continues a run of the same problem with another number of
// steps (at least the steps it has done): the probe records are laid out for
// the new length and the energies kept are those of the new schedule.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "ppkit/core/checkpoint.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/fdtd/fdtd_run.hpp"

namespace ppkit::fdtd {
namespace {

constexpr const char* kPsiNames[12] = {"psi_eyx", "psi_ezx", "psi_hyx", "psi_hzx",
                                       "psi_exy", "psi_ezy", "psi_hxy", "psi_hzy",
                                       "psi_exz", "psi_eyz", "psi_hxz", "psi_hyz"};

std::string grid_text(std::int64_t nx, std::int64_t ny, std::int64_t nz, double dt) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%lldx%lldx%lld cells, dt %.9g s", (long long)nx, (long long)ny,
                (long long)nz, dt);
  return buf;
}

// The steps after which a run of `steps` steps takes the energy (as
// step_setup.cpp): every `interval` steps, and after the last one.
std::vector<std::int64_t> energy_schedule(std::int64_t steps, std::int64_t interval) {
  std::vector<std::int64_t> out;
  if (interval > 0)
    for (std::int64_t step = interval - 1; step < steps; step += interval) out.push_back(step);
  if (out.empty() || out.back() != steps - 1) out.push_back(steps - 1);
  return out;
}

std::string magnitude_text(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", double(v));
  return buf;
}

}  // namespace

const char* psi_name(int q) { return kPsiNames[q]; }

FieldFault find_field_fault(const FieldSet& fields, float bound) {
  FieldFault f;
  std::size_t nodes = 0;
  for (const auto& v : fields) nodes = std::max(nodes, v.size());
  for (std::size_t n = 0; n < nodes; ++n)
    for (int c = 0; c < 6; ++c) {
      if (n >= fields[c].size()) continue;
      const float v = fields[c][n];
      if (!(v <= bound && v >= -bound)) {
        f.found = true;
        f.component = Component(c);
        f.node = index_t(n);
        f.value = v;
        return f;
      }
    }
  return f;
}

void throw_if_faulty(const FdtdStep::Problem& p, std::int64_t step, const FieldFault& f) {
  if (!f.found) return;
  const YeeGrid& g = p.grid;
  const index_t i = f.node / g.stride_x(), j = (f.node / g.stride_y()) % (g.ny + 1),
                k = f.node % g.stride_y();
  // Staggered positions (yee_grid.hpp): E is offset by half a cell along itself,
  // H by half a cell along the two other axes.
  const int c = int(f.component);
  const double half[6][3] = {{0.5, 0, 0},   {0, 0.5, 0},   {0, 0, 0.5},
                             {0, 0.5, 0.5}, {0.5, 0, 0.5}, {0.5, 0.5, 0}};
  const double x = (double(i) + half[c][0]) * g.dx, y = (double(j) + half[c][1]) * g.dy,
               z = (double(k) + half[c][2]) * g.dz;
  const std::string what = std::isnan(f.value)   ? "NaN"
                           : std::isinf(f.value) ? "infinite"
                                                 : "blown up to " + magnitude_text(f.value);
  char where[200];
  std::snprintf(where, sizeof where, " at node (%lld,%lld,%lld), position (%.6g, %.6g, %.6g) m",
                (long long)i, (long long)j, (long long)k, x, y, z);
  throw Error(
      "fdtd step " + std::to_string(step) + ": " + to_string(f.component) + " is " + what + where,
      "finite fields: check dt against the Courant limit, material values and source "
      "amplitudes");
}

void write_run_checkpoint(const std::string& path, const FdtdStep::Problem& p, const RunState& s) {
  checkpoint::Content c("fdtd");
  const YeeGrid& g = p.grid;
  c.put_scalar("step", s.step);
  c.put_scalar("steps", p.steps);
  c.put_scalar("nx", g.nx);
  c.put_scalar("ny", g.ny);
  c.put_scalar("nz", g.nz);
  c.put_scalar("dx", g.dx);
  c.put_scalar("dy", g.dy);
  c.put_scalar("dz", g.dz);
  c.put_scalar("dt", g.dt);
  c.put_scalar("time", double(s.step) * g.dt);
  c.put_scalar("cpml_thickness", std::int64_t(p.cpml.thickness));
  c.put_scalar("sources", std::int64_t(p.sources.size()));
  c.put_scalar("probes", std::int64_t(p.probes.size()));
  c.put_scalar("energy_interval", p.energy_interval);
  for (int f = 0; f < 6; ++f) c.put(to_string(Component(f)), s.fields[f]);
  for (int q = 0; q < 12; ++q) c.put(kPsiNames[q], s.psi[q]);
  c.put("probe_values", s.probe_values);
  c.put("energy", s.energy);
  checkpoint::write(path, c);
}

RunState read_run_checkpoint(const std::string& path, const FdtdStep::Problem& p) {
  const checkpoint::Content c = checkpoint::read(path, "fdtd");
  const YeeGrid& g = p.grid;
  const std::string theirs =
      grid_text(c.get_integer("nx"), c.get_integer("ny"), c.get_integer("nz"), c.get_double("dt"));
  const std::string ours = grid_text(g.nx, g.ny, g.nz, g.dt);
  // Checkpoints written before the energy interval was recorded took this run's.
  const std::int64_t interval =
      c.integers().count("energy_interval") ? c.get_integer("energy_interval") : p.energy_interval;
  require(theirs == ours && c.get_integer("cpml_thickness") == p.cpml.thickness &&
              c.get_integer("sources") == std::int64_t(p.sources.size()) &&
              c.get_integer("probes") == std::int64_t(p.probes.size()) &&
              interval == p.energy_interval,
          "checkpoint '" + path + "' is of another problem (" + theirs + ", CPML " +
              std::to_string(c.get_integer("cpml_thickness")) + ", energy every " +
              std::to_string(interval) + " steps)",
          "a checkpoint of this problem (" + ours + ", CPML " + std::to_string(p.cpml.thickness) +
              ", energy every " + std::to_string(p.energy_interval) + " steps)");
  RunState s;
  s.step = c.get_integer("step");
  const std::int64_t steps = c.get_integer("steps");
  require(s.step <= p.steps,
          "checkpoint '" + path + "' is at step " + std::to_string(s.step) + ", past this run's " +
              std::to_string(p.steps) + " steps",
          "--steps >= " + std::to_string(s.step) + " to continue it");
  for (int f = 0; f < 6; ++f) s.fields[f] = c.get<float>(to_string(Component(f)));
  for (int q = 0; q < 12; ++q) s.psi[q] = c.get<float>(kPsiNames[q]);
  // Probe records [probe * steps + step] for this run's length, the steps done kept.
  const std::vector<float> recorded = c.get<float>("probe_values");
  s.probe_values.assign(p.probes.size() * std::size_t(p.steps), 0.0f);
  for (std::size_t probe = 0; probe < p.probes.size(); ++probe)
    for (std::int64_t step = 0; step < s.step; ++step)
      s.probe_values[probe * std::size_t(p.steps) + std::size_t(step)] =
          recorded.at(probe * std::size_t(steps) + std::size_t(step));
  // The energies taken so far that this run's schedule also takes (a run of
  // other length takes its final energy elsewhere).
  const std::vector<double> taken = c.get<double>("energy");
  const auto before = energy_schedule(steps, interval), after = energy_schedule(p.steps, interval);
  for (std::size_t k = 0; k < taken.size() && k < before.size(); ++k)
    if (std::binary_search(after.begin(), after.end(), before[k])) s.energy.push_back(taken[k]);
  const auto due = std::lower_bound(after.begin(), after.end(), s.step) - after.begin();
  require(
      std::int64_t(s.energy.size()) == due,
      "checkpoint '" + path + "' has not taken the energy after step " +
          std::to_string(after[s.energy.size()]) + ", which a run of " + std::to_string(p.steps) +
          " steps reports",
      "--steps > " + std::to_string(s.step) + ", or the checkpoint's own " + std::to_string(steps));
  return s;
}

std::int64_t checkpoint_energy_interval(const std::string& path, std::int64_t fallback) {
  const checkpoint::Content c = checkpoint::read(path, "fdtd");
  return c.integers().count("energy_interval") ? c.get_integer("energy_interval") : fallback;
}

FdtdStep::Result run_with_checkpoints(Stepper& stepper, const FdtdStep::Problem& p,
                                      const CheckpointOptions& o) {
  require(o.checkpoint_file.empty() || o.checkpoint_every > 0,
          "--checkpoint-every " + std::to_string(o.checkpoint_every), ">= 1 step");
  require(o.health_every > 0, "health check interval " + std::to_string(o.health_every),
          ">= 1 step");
  if (!o.restart_file.empty()) stepper.restore(read_run_checkpoint(o.restart_file, p));
  const std::int64_t chunk = o.checkpoint_file.empty() ? o.health_every : o.checkpoint_every;
  while (stepper.step() < p.steps) {
    stepper.advance(chunk - stepper.step() % chunk);  // ends on multiples of the interval
    if (!o.checkpoint_file.empty()) write_run_checkpoint(o.checkpoint_file, p, stepper.state());
    if (o.on_chunk) o.on_chunk(stepper.step());
  }
  return stepper.result();
}

}  // namespace ppkit::fdtd
