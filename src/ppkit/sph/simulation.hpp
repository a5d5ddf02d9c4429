#pragma once
// Drives a Solver to an end time: probes at a fixed interval (CSV), VTK
// snapshots, checkpoints, restart, and a progress line (simulated time,
// steps/s, ETA). Used by `ppkit sph dambreak` and the tests.
#include <functional>
#include <string>
#include <vector>

#include "ppkit/core/progress.hpp"
#include "ppkit/sph/cases.hpp"
#include "ppkit/sph/operations.hpp"
#include "ppkit/sph/probes.hpp"

namespace ppkit::sph {

struct RunOptions {
  double t_end = 1.0;
  double probe_interval = 0.01;  // s; probes are sampled at the first step end past each multiple
  std::string probes_csv;        // empty: no CSV
  std::string vtk_dir;           // empty: no VTK
  double vtk_every = 0.05;
  std::string checkpoint_file;  // empty: no checkpoints
  double checkpoint_every = 0.1;
  std::string restart_file;  // empty: start from the case's initial state
  // Progress line on stderr (core/progress.hpp): simulated time, steps/s, ETA.
  ProgressMode progress = ProgressMode::never;
  std::int64_t max_steps = -1;  // stop early after this many steps (< 0: no limit)
};

struct RunSummary {
  std::int64_t steps = 0;  // steps done in this run (not counting before a restart)
  double time = 0;         // simulated time reached
  std::int64_t escaped = 0;
  double wall_seconds = 0;
  std::vector<ProbeSample> probes;
};

void validate(const RunOptions& o);

RunSummary run_simulation(Solver& solver, const Case& c, const ProbeLayout& layout,
                          const RunOptions& o);

// Legacy VTK (binary) of the non-escaped particles: velocity, density, pressure, kind, id.
void write_vtk(const std::string& path, const Parameters& p, const Particles& s);

// Creates the solver of the named sph.step variant ("auto" = preferred) for a case.
std::unique_ptr<Solver> make_solver(const std::string& variant, const Case& c,
                                    ReorderPolicy reorder);

}  // namespace ppkit::sph
