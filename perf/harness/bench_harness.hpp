#pragma once
// Google Benchmark harness: one benchmark per registered variant of an
// operation, with the workload's throughput and its fraction of the roofline
// (bytes moved per run / time / copy bandwidth of the same backend, measured
// in the same process) as counters.
#include <benchmark/benchmark.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "ppkit/core/registry.hpp"

namespace ppkit::bench {

// Defined by each benchmark executable's sources.
void register_benchmarks();

// Copy bandwidth (bytes/s) of a backend's device, measured once per process.
double backend_bandwidth(const std::string& backend);

// Marks the running benchmark skipped with `why` (the variant cannot run
// here, or refuses the problem): it reports the reason and no figures.
inline void skip_benchmark(benchmark::State& state, const std::string& why) {
  state.SkipWithError(("skipped: " + why).c_str());
  for (auto _ : state) {
  }
}

struct BenchModel {
  double work_units = 0;        // per run, e.g. elements
  std::string work_counter;     // counter name, e.g. "elements/s"
  double bytes = std::nan("");  // bytes moved per run
  double flops = std::nan("");  // flops per run
};

// Registers "<prefix>/<variant>" for every variant of Op. make_problem is
// called once per benchmark (lazily, when it runs). include (optional): only
// the variants for which it returns true (e.g. those with an fp64 path).
template <class Op>
void register_variant_benchmarks(const std::string& prefix,
                                 std::function<typename Op::Problem()> make_problem,
                                 std::function<BenchModel(const typename Op::Problem&)> model,
                                 std::function<bool(const std::string&)> include = nullptr) {
  for (const auto& v : Registry<Op>::all()) {
    const std::string name = v.name;
    if (include && !include(name)) continue;
    benchmark::RegisterBenchmark(
        (prefix + "/" + name).c_str(),
        [=](benchmark::State& state) {
          const auto& variant = Registry<Op>::find(name);
          const Availability a = variant.availability();
          if (!a.available) return skip_benchmark(state, a.reason);
          const auto problem = make_problem();
          const BenchModel m = model(problem);
          std::unique_ptr<PreparedRun<typename Op::Result>> run;
          try {
            run = variant.prepare(problem);
            run->run();  // warm-up
          } catch (const std::exception& e) {
            // One failing variant is reported on its row; the others still run.
            state.SkipWithError((std::string("failed: ") + e.what()).c_str());
            for (auto _ : state) {
            }
            return;
          }
          for (auto _ : state) run->run();
          const double iterations = double(state.iterations());
          state.counters[m.work_counter] =
              benchmark::Counter(m.work_units * iterations, benchmark::Counter::kIsRate);
          if (!std::isnan(m.bytes)) {
            state.counters["GB/s"] =
                benchmark::Counter(m.bytes * iterations * 1e-9, benchmark::Counter::kIsRate);
            const double bw = backend_bandwidth(variant.backend);
            if (!std::isnan(bw)) {
              // kIsRate divides by seconds: bytes*it/seconds/bw is the fraction of the copy
              // roofline.
              state.counters["roofline"] =
                  benchmark::Counter(m.bytes * iterations / bw, benchmark::Counter::kIsRate);
            }
          }
          if (!std::isnan(m.flops))
            state.counters["GFLOP/s"] =
                benchmark::Counter(m.flops * iterations * 1e-9, benchmark::Counter::kIsRate);
        })
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace ppkit::bench
