// fdtd.phasor_update alone and fdtd.step with phasors on, per variant.
// Phasors: cells/s = box nodes x samples per second; bytes per node and
// sample = 24 (six field reads) + 96 per frequency (12 running sums read and
// written): compulsory, pure streaming, no reuse (phasor_sample_bytes()).
// Step with phasors: make_verification_problem (random fields, four
// materials, CPML, two sources) with one frequency sampled every step over the
// whole grid; the step's compulsory step_bytes() plus 96 B per node,
// frequency and step for the running sums (the fields' reads are the step's);
// "modelled GB/s": step_modelled_bytes() plus the phasor update's 24 + 96 B
// per frequency as a separate sweep.
// Each variant's result is verified before it is timed by `ppkit compare`'s
// checks (phasor_verification, step_verification; fdtd_verification.hpp)
// against the serial reference: on every node up to 128^3, on the sample
// boxes above (the step's check compares the fields).
// Sizes: 64 and 128 (cells per side), or PPKIT_FDTD_BENCH_SIZES (e.g. 256,512).
#include <cstdlib>
#include <sstream>

#include "harness/bench_harness.hpp"
#include "ppkit/fdtd/fdtd_verification.hpp"
#include "ppkit/fdtd/phasors.hpp"
#include "ppkit/fdtd/step_features.hpp"
#include "ppkit/fdtd/verification.hpp"

void ppkit::bench::register_benchmarks() {
  std::vector<long> sizes{64, 128};
  if (const char* env = std::getenv("PPKIT_FDTD_BENCH_SIZES")) {
    sizes.clear();
    std::stringstream list(env);
    for (std::string item; std::getline(list, item, ',');)
      if (!item.empty()) sizes.push_back(std::stol(item));
  }
  for (long n : sizes) {
    const ProblemSize size = n <= 128 ? ProblemSize::quick : ProblemSize::large;
    for (int frequencies : {1, 3}) {
      const std::int64_t samples = n <= 128 ? 5 : 20;
      register_variant_benchmarks<FdtdPhasorUpdate>(
          "fdtd_phasors/" + std::to_string(n) + "^3/" + std::to_string(frequencies) + "f",
          [n, frequencies, samples] {
            return fdtd::make_phasor_benchmark_problem(n, frequencies, samples);
          },
          [](const FdtdPhasorUpdate::Problem& p) {
            const double nodes = double(p.grid.nodes()) * double(p.samples);
            return BenchModel{nodes, "cells/s", fdtd::phasor_sample_bytes(p),
                              fdtd::phasor_sample_flops(p)};
          },
          [size](const FdtdPhasorUpdate::Problem& p) {
            return fdtd::phasor_verification(p, size);
          });
    }
    const std::int64_t steps = n <= 128 ? 5 : 20;
    register_variant_benchmarks<FdtdStep>(
        "fdtd_step_phasors/" + std::to_string(n) + "^3/1f",
        [n, steps] {
          auto p = fdtd::make_verification_problem(n, 10, steps);
          p.phasors.frequencies = {3e9};
          p.phasors.interval = 1;
          return p;
        },
        [](const FdtdStep::Problem& p) {
          const double f = double(p.phasors.frequencies.size());
          const double node_steps = double(p.grid.nodes()) * double(p.steps);
          const double phasor_flops = 24.0 * f * node_steps;
          return BenchModel{double(p.grid.cells()) * double(p.steps), "cells/s",
                            fdtd::step_bytes(p) + 96.0 * f * node_steps,
                            fdtd::step_flops(p) + phasor_flops,
                            fdtd::step_modelled_bytes(p) + (24.0 + 96.0 * f) * node_steps};
        },
        [size](const FdtdStep::Problem& p) { return fdtd::step_verification(p, size); },
        [](const std::string& variant) {  // not the variants that refuse phasors
          return fdtd::step_variant_supports(variant, fdtd::StepFeature::phasors);
        });
  }
}
