// fdtd.step per variant on CPML-bounded cubes: cells/s for full E+H steps,
// GB/s and roofline from fdtd::step_bytes() (fields read and written once,
// material ids, psi in the layers). Sizes: 64^3 and 128^3, or the
// comma-separated edge lengths in PPKIT_FDTD_BENCH_SIZES (e.g. 256,512,768 on a GPU).
#include <cstdlib>
#include <sstream>

#include "harness/bench_harness.hpp"
#include "ppkit/fdtd/cases.hpp"

void ppkit::bench::register_benchmarks() {
  std::vector<long> sizes{64, 128};
  if (const char* env = std::getenv("PPKIT_FDTD_BENCH_SIZES")) {
    sizes.clear();
    std::stringstream list(env);
    for (std::string item; std::getline(list, item, ',');)
      if (!item.empty()) sizes.push_back(std::stol(item));
  }
  for (long n : sizes) {
    const std::int64_t steps = n <= 128 ? 5 : 20;
    register_variant_benchmarks<FdtdStep>(
        "fdtd_step/" + std::to_string(n) + "^3",
        [n, steps] { return fdtd::make_benchmark_problem(n, 10, steps); },
        [](const FdtdStep::Problem& p) {
          return BenchModel{double(p.grid.cells()) * double(p.steps), "cells/s",
                            fdtd::step_bytes(p), fdtd::step_flops(p)};
        });
  }
}
