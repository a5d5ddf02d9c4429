// fem.assemble: generation + assembly of every element of a distorted box
// (fp64), per variant: elements/s, GB/s and roofline fraction from
// assembly_cost's compulsory bytes (coordinates and connectivity read once,
// CSR values and load vector written once), "modelled GB/s" from the paper
// layout's traffic (every one of the 576 updates a DRAM read-modify-write,
// plus the zeroing pass), GFLOP/s (B^T D B entry by entry), and speedup_vs_a:
// the median time of the same backend's thread-per-element (strategy (a)) on
// the same box, measured in the same process and verified, over this
// variant's time per assembly.
// Every variant's result is verified before it is timed, by `ppkit compare`'s
// check (assembly_verification): the full serial reference on boxes 16^3 and
// 64^3, the sampled checks (serial load, 256 serial rows, symmetry,
// rigid-body modes, the Kokkos baseline) on 128^3.
// docs/fem.md derives the memory floor these figures should be read against.
// Boxes: 16^3 (CPU-sized), 64^3 (823,875 DOF), 128^3 (6.44 M DOF, the paper's
// ~6.5 M); pick with --benchmark_filter=fem_assemble/box128.
#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>

#include "harness/bench_harness.hpp"
#include "ppkit/fem/assemble.hpp"
#include "ppkit/fem/assembly_checks.hpp"

namespace {
using ppkit::fem::AssemblyProblem;
using ppkit::fem::FemAssemble;

// One problem per box, built once and shared by every variant's benchmark
// (building the 128^3 CSR pattern and block positions takes seconds).
const AssemblyProblem& box_problem(int n) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<AssemblyProblem>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = cache[n];
  if (!slot) {
    ppkit::fem::BoxMeshSpec spec;
    spec.elements = {n, n, n};
    spec.perturbation = 0.15;
    spec.seed = 2019;
    slot = std::make_unique<AssemblyProblem>(ppkit::fem::make_assembly_problem(
        ppkit::fem::make_box_mesh(spec), ppkit::fem::Material{2.0e11, 0.3, {0, 0, -7.7e4}}));
  }
  return *slot;
}

// The verification of box n, built on first use; one box's at a time (a full
// reference at 64^3 holds 518 MB of values).
const ppkit::CaseVerification<FemAssemble>& box_verification(int n) {
  static int cached_n = -1;
  static std::unique_ptr<const ppkit::CaseVerification<FemAssemble>> cached;
  if (!cached || cached_n != n) {
    cached.reset();
    cached = std::make_unique<const ppkit::CaseVerification<FemAssemble>>(
        ppkit::fem::assembly_verification(box_problem(n), n <= 64, 256, 2019u + unsigned(n)));
    cached_n = n;
  }
  return *cached;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Median seconds per assembly of the backend's baseline variant
// (VariantRole::baseline: thread-per-element) on box n (5 timed runs after a
// verified warm-up), measured once per box and backend; NaN if the backend
// has no such variant, or it is not available or wrong.
double baseline_seconds(int n, const std::string& backend) {
  static std::map<std::pair<int, std::string>, double> cache;
  const auto key = std::make_pair(n, backend);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  double seconds = std::nan("");
  for (const auto& v : ppkit::Registry<FemAssemble>::all())
    if (v.backend == backend && v.role == ppkit::VariantRole::baseline &&
        v.availability().available) {
      auto run = v.prepare(box_problem(n));
      run->run();
      ppkit::CompareRow row;
      const auto& verification = box_verification(n);
      if (!verification.passes(verification.check(v, run->result(), row))) break;  // no baseline
      std::vector<double> times;
      for (int r = 0; r < 5; ++r) {
        const auto start = std::chrono::steady_clock::now();
        run->run();
        times.push_back(seconds_since(start));
      }
      std::nth_element(times.begin(), times.begin() + 2, times.end());
      seconds = times[2];
    }
  cache[key] = seconds;
  return seconds;
}

}  // namespace

void ppkit::bench::register_benchmarks() {
  for (int n : {16, 64, 128})
    for (const auto& v : Registry<FemAssemble>::all()) {
      const std::string name = v.name, backend = v.backend;
      benchmark::RegisterBenchmark(
          ("fem_assemble/box" + std::to_string(n) + "/" + name).c_str(),
          [n, name, backend](benchmark::State& state) {
            const auto& variant = Registry<FemAssemble>::find(name);
            const Availability a = variant.availability();
            if (!a.available) return ppkit::bench::skip_benchmark(state, a.reason);
            const AssemblyProblem& problem = box_problem(n);
            const auto cost = fem::assembly_cost(problem);
            std::unique_ptr<PreparedRun<FemAssemble::Result>> run;
            double baseline = std::nan("");
            try {
              const auto& verification = box_verification(n);
              baseline = baseline_seconds(n, backend);  // before this variant holds device memory
              run = variant.prepare(problem);
              run->run();  // warm-up; its result is verified before timing
              if (!verify_before_timing<FemAssemble>(state, variant, run->result(), verification))
                return;
            } catch (const std::exception& e) {
              return fail_benchmark(state, std::string("failed: ") + e.what());
            }
            const auto start = std::chrono::steady_clock::now();
            for (auto _ : state) run->run();
            const double iterations = double(state.iterations());
            const double per_run = seconds_since(start) / iterations;
            set_model_counters(state,
                               BenchModel{double(problem.mesh.num_elements()), "elements/s",
                                          cost.bytes, cost.flops, cost.modelled_bytes},
                               backend);
            if (!std::isnan(baseline)) state.counters["speedup_vs_a"] = baseline / per_run;
          })
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
    }
}
