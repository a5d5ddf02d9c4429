#include "ppkit/sph/simulation.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ppkit/core/error.hpp"
#include "ppkit/core/timing.hpp"
#include "ppkit/sph/checkpoint.hpp"
#include "ppkit/sph/sph_pair.hpp"

namespace ppkit::sph {
namespace {

// Keeps the rows of an existing probe CSV up to `time` (a restart continues it).
std::vector<std::string> probe_rows_until(const std::string& path, double time) {
  std::vector<std::string> rows;
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line) || line != probe_csv_header()) return rows;
  while (std::getline(in, line)) {
    if (std::strtod(line.c_str(), nullptr) <= time + 1e-6) rows.push_back(line);  // 6 decimals
  }
  return rows;
}

template <class T>
void put_big_endian(std::ofstream& f, T value) {
  char b[sizeof(T)];
  std::memcpy(b, &value, sizeof(T));
  for (std::size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(b[i], b[sizeof(T) - 1 - i]);
  f.write(b, sizeof(T));
}

}  // namespace

void validate(const RunOptions& o) {
  require(o.t_end > 0 && std::isfinite(o.t_end), "--t-end " + std::to_string(o.t_end), "> 0 s");
  require(o.probe_interval > 0, "probe interval " + std::to_string(o.probe_interval), "> 0 s");
  require(o.vtk_dir.empty() || o.vtk_every > 0, "--vtk-every " + std::to_string(o.vtk_every),
          "> 0 s");
  require(o.checkpoint_file.empty() || o.checkpoint_every > 0,
          "--checkpoint-every " + std::to_string(o.checkpoint_every), "> 0 s");
}

void write_vtk(const std::string& path, const Parameters& p, const Particles& s) {
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s.kind[i] != kEscaped) keep.push_back(i);
  std::ofstream f(path, std::ios::binary);
  require(bool(f), "cannot write '" + path + "'", "a writable --vtk directory");
  f << "# vtk DataFile Version 3.0\nppkit sph particles\nBINARY\nDATASET POLYDATA\n";
  f << "POINTS " << keep.size() << " float\n";
  for (std::size_t i : keep) {
    put_big_endian(f, s.x[i]);
    put_big_endian(f, s.y[i]);
    put_big_endian(f, s.z[i]);
  }
  f << "\nVERTICES " << keep.size() << " " << 2 * keep.size() << "\n";
  for (std::size_t k = 0; k < keep.size(); ++k) {
    put_big_endian(f, std::int32_t(1));
    put_big_endian(f, std::int32_t(k));
  }
  f << "\nPOINT_DATA " << keep.size() << "\nVECTORS velocity float\n";
  for (std::size_t i : keep) {
    put_big_endian(f, s.vx[i]);
    put_big_endian(f, s.vy[i]);
    put_big_endian(f, s.vz[i]);
  }
  const KernelConstants k = make_kernel_constants(p);
  f << "\nSCALARS density float 1\nLOOKUP_TABLE default\n";
  for (std::size_t i : keep) put_big_endian(f, s.rho[i]);
  f << "\nSCALARS pressure float 1\nLOOKUP_TABLE default\n";
  for (std::size_t i : keep) put_big_endian(f, tait_pressure(k, s.rho[i]));
  f << "\nSCALARS kind int 1\nLOOKUP_TABLE default\n";
  for (std::size_t i : keep) put_big_endian(f, std::int32_t(s.kind[i]));
  f << "\nSCALARS id int 1\nLOOKUP_TABLE default\n";
  for (std::size_t i : keep) put_big_endian(f, s.id[i]);
  f << "\n";
  require(bool(f), "writing '" + path + "' failed");
}

std::unique_ptr<Solver> make_solver(const std::string& variant, const Case& c,
                                    ReorderPolicy reorder) {
  const auto& v = Registry<Step>::find_available(variant);
  Step::Problem problem{c.params, c.particles, 0, reorder};
  auto run = v.prepare(problem);
  auto* solver = dynamic_cast<Solver*>(run.get());
  require(solver != nullptr, "variant '" + v.name + "' is not a time-stepping solver");
  run.release();
  return std::unique_ptr<Solver>(solver);
}

RunSummary run_simulation(Solver& solver, const Case& c, const ProbeLayout& layout,
                          const RunOptions& o) {
  validate(o);
  const auto start = std::chrono::steady_clock::now();
  if (!o.restart_file.empty()) {
    const Checkpoint ck = read_checkpoint(o.restart_file);
    require(ck.particles.size() == c.particles.size() && std::abs(ck.dp - c.params.dp) < 1e-12,
            "checkpoint '" + o.restart_file + "' holds " + std::to_string(ck.particles.size()) +
                " particles at dp " + std::to_string(ck.dp),
            "a checkpoint of the same case (" + std::to_string(c.particles.size()) +
                " particles, dp " + std::to_string(c.params.dp) + ")");
    solver.restore(ck.particles, ck.time, ck.step);
  }
  RunSummary summary;
  std::ofstream csv;
  if (!o.probes_csv.empty()) {
    const auto kept = o.restart_file.empty() ? std::vector<std::string>{}
                                             : probe_rows_until(o.probes_csv, solver.time());
    csv.open(o.probes_csv, std::ios::trunc);
    require(bool(csv), "cannot write '" + o.probes_csv + "'", "a writable --probes path");
    csv << probe_csv_header() << "\n";
    for (const auto& row : kept) csv << row << "\n";
  }
  if (!o.vtk_dir.empty()) std::filesystem::create_directories(o.vtk_dir);

  auto sample = [&] {
    const Particles s = solver.state();
    const ProbeSample p = measure_probes(layout, c.params, s, solver.time());
    summary.probes.push_back(p);
    if (csv.is_open()) csv << probe_csv_row(p) << "\n" << std::flush;
  };
  auto next_multiple = [&](double interval) {
    return (std::floor(solver.time() / interval + 1e-9) + 1) * interval;
  };
  if (o.restart_file.empty()) sample();
  double next_probe = next_multiple(o.probe_interval);
  double next_vtk = o.vtk_dir.empty() ? INFINITY : solver.time();
  double next_checkpoint = o.checkpoint_file.empty() ? INFINITY : next_multiple(o.checkpoint_every);
  std::int64_t checkpointed_step = -1;
  int vtk_index = static_cast<int>(std::floor(solver.time() / o.vtk_every + 0.5));
  const double t0 = solver.time();
  RunProgress progress(o.t_end - t0, "s", o.progress);
  const double n = double(c.particles.size());
  while (solver.time() < o.t_end - 1e-12) {
    if (o.max_steps >= 0 && summary.steps >= o.max_steps) break;
    if (solver.time() >= next_vtk) {
      char name[64];
      std::snprintf(name, sizeof name, "/sph_%05d.vtk", vtk_index++);
      write_vtk(o.vtk_dir + name, c.params, solver.state());
      next_vtk = vtk_index * o.vtk_every;
    }
    solver.step();
    ++summary.steps;
    if (solver.time() >= next_probe) {
      sample();
      next_probe = next_multiple(o.probe_interval);
    }
    if (solver.time() >= next_checkpoint) {
      write_checkpoint(o.checkpoint_file, Checkpoint{solver.state(), solver.time(),
                                                     solver.steps_done(), c.params.dp, c.params.h});
      next_checkpoint = next_multiple(o.checkpoint_every);
      checkpointed_step = solver.steps_done();
    }
    if (progress.active()) {
      const double wall = seconds_since(start);
      const double rate = summary.steps / wall;
      char text[200];
      std::snprintf(text, sizeof text,
                    "t = %.4f / %.4f s, step %lld, %.1f steps/s, %.2f M particle-steps/s, "
                    "escaped %lld",
                    solver.time(), o.t_end, static_cast<long long>(solver.steps_done()), rate,
                    rate * n * 1e-6, static_cast<long long>(solver.escaped()));
      progress.show((solver.time() - t0) / (o.t_end - t0), text);
    }
  }
  progress.finish();
  if (!o.checkpoint_file.empty() && checkpointed_step != solver.steps_done())  // the final state
    write_checkpoint(o.checkpoint_file, Checkpoint{solver.state(), solver.time(),
                                                   solver.steps_done(), c.params.dp, c.params.h});
  summary.time = solver.time();
  summary.escaped = solver.escaped();
  summary.wall_seconds = seconds_since(start);
  return summary;
}

}  // namespace ppkit::sph
