#pragma once
// Google Benchmark harness: one benchmark per registered variant of an
// operation, with the workload's throughput and its fraction of the roofline
// (compulsory bytes per run / time / copy bandwidth of the same backend,
// measured in the same process) as counters.
//
// Every benchmark verifies its variant's result once, after the warm-up run
// and before the timed loop, with the workload's CaseVerification (the check
// `ppkit compare` applies to the same problem: the serial reference at small
// sizes, sampled and independent checks at large ones). A wrong result marks
// the benchmark failed ("verification failed: ...") and publishes no figure.
#include <benchmark/benchmark.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "ppkit/core/compare.hpp"
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

// Marks the running benchmark failed with `why` and runs no timed iteration.
inline void fail_benchmark(benchmark::State& state, const std::string& why) {
  state.SkipWithError(why.c_str());
  for (auto _ : state) {
  }
}

// The text of a failed verification: the error, the tolerance and what the
// result was checked against (as the compare row records it).
std::string verification_failure(double error, double tolerance, const CompareRow& row);
// The label of a verified benchmark: "verified <error> vs <what>".
std::string verification_label(double error, const CompareRow& row);

// Checks `result` of `variant` with `verification`. On a wrong result (error
// above the tolerance, NaN, or the check throwing) marks the benchmark failed
// with "verification failed: ..." and returns false; otherwise labels the
// benchmark with the error and what it was checked against and returns true.
// Call it once, before the timed loop.
template <class Op>
bool verify_before_timing(benchmark::State& state, const Variant<Op>& variant,
                          const typename Op::Result& result,
                          const CaseVerification<Op>& verification) {
  CompareRow row;
  row.variant = variant.name;
  row.backend = variant.backend;
  double error = std::nan("");
  try {
    error = verification.check(variant, result, row);
  } catch (const std::exception& e) {
    fail_benchmark(state, std::string("verification failed: ") + e.what());
    return false;
  }
  if (!verification.passes(error)) {
    fail_benchmark(state, verification_failure(error, verification.tolerance, row));
    return false;
  }
  state.SetLabel(verification_label(error, row));
  return true;
}

struct BenchModel {
  double work_units = 0;        // per run, e.g. elements
  std::string work_counter;     // counter name, e.g. "elements/s"
  double bytes = std::nan("");  // compulsory DRAM bytes per run (roofline)
  double flops = std::nan("");  // flops per run
  // Optional: the workload's modelled traffic per run ("modelled GB/s").
  double modelled_bytes = std::nan("");
  // Optional: a variant's own compulsory bytes per run when they differ
  // (fdtd.step variants with several steps per pass); replaces `bytes`.
  std::function<double(const std::string& variant)> variant_bytes = nullptr;
};

// Sets the rate counters of a verified, timed benchmark from its model:
// work/s, GB/s and roofline from the compulsory bytes, modelled GB/s, GFLOP/s.
void set_model_counters(benchmark::State& state, const BenchModel& m, const std::string& backend);

namespace detail {
// The case whose variants are being benchmarked: its problem and verification
// are built once (on the first available variant) and shared by the variants
// of the case. Google Benchmark runs the variants of one case one after
// another, so one case is held at a time: the next case frees it.
template <class Op>
struct CurrentCase {
  std::string key;
  std::unique_ptr<const typename Op::Problem> problem;
  std::unique_ptr<const CaseVerification<Op>> verification;
  std::string failure;  // why the verification could not be built, if it could not
};
template <class Op>
CurrentCase<Op>& current_case() {
  static CurrentCase<Op> c;
  return c;
}
}  // namespace detail

// Registers "<prefix>/<variant>" for every variant of Op. make_problem is
// called once per prefix (lazily, when its first benchmark runs); verify
// builds the case's verification from the problem (once per prefix; it owns
// the references it compares with and may keep a reference to the problem,
// which outlives it). include (optional): only the variants for which it
// returns true (e.g. those with an fp64 path).
template <class Op>
void register_variant_benchmarks(
    const std::string& prefix, std::function<typename Op::Problem()> make_problem,
    std::function<BenchModel(const typename Op::Problem&)> model,
    std::function<CaseVerification<Op>(const typename Op::Problem&)> verify,
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
          auto& c = detail::current_case<Op>();
          if (c.key != prefix) {
            c.verification.reset();
            c.problem.reset();  // free the previous case before building the next
            c.failure.clear();
            c.problem = std::make_unique<const typename Op::Problem>(make_problem());
            c.key = prefix;
          }
          if (!c.verification && c.failure.empty()) {
            try {
              c.verification = std::make_unique<const CaseVerification<Op>>(verify(*c.problem));
            } catch (const std::exception& e) {
              c.failure = std::string("verification failed: no reference: ") + e.what();
            }
          }
          if (!c.verification) return fail_benchmark(state, c.failure);
          BenchModel m = model(*c.problem);
          if (m.variant_bytes) m.bytes = m.variant_bytes(name);
          std::unique_ptr<PreparedRun<typename Op::Result>> run;
          try {
            run = variant.prepare(*c.problem);
            run->run();  // warm-up; its result is verified before timing
            if (!verify_before_timing<Op>(state, variant, run->result(), *c.verification)) return;
          } catch (const std::exception& e) {
            // One failing variant is reported on its row; the others still run.
            return fail_benchmark(state, std::string("failed: ") + e.what());
          }
          for (auto _ : state) run->run();
          set_model_counters(state, m, variant.backend);
        })
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace ppkit::bench
