#include <benchmark/benchmark.h>

#include "harness/bench_harness.hpp"
#include "ppkit/core/runtime.hpp"

int main(int argc, char** argv) {
  ppkit::Runtime runtime(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  ppkit::bench::register_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
