#include "harness/bench_harness.hpp"

#include <fmt/format.h>

#include <map>

#include "ppkit/core/compare.hpp"

namespace ppkit::bench {

double backend_bandwidth(const std::string& backend) {
  // One CompareContext owns the per-backend measurement, as in `ppkit compare`.
  static CompareContext ctx{CompareOptions{}};
  return ctx.bandwidth(backend);
}

namespace {
std::string against(const CompareRow& row) {
  const auto it = row.extra.find("verified_against");
  return it != row.extra.end() && it->is_string() ? it->get<std::string>()
                                                  : std::string("the workload's reference");
}
}  // namespace

std::string verification_failure(double error, double tolerance, const CompareRow& row) {
  std::string why =
      fmt::format("verification failed: error {:.3g} above tolerance {:.3g} against {}", error,
                  tolerance, against(row));
  const auto it = row.extra.find("conservation_violation");
  if (it != row.extra.end() && it->is_string()) why += " (" + it->get<std::string>() + ")";
  return why;
}

std::string verification_label(double error, const CompareRow& row) {
  return fmt::format("verified {:.1e} vs {}", error, against(row));
}

void set_model_counters(benchmark::State& state, const BenchModel& m, const std::string& backend) {
  using C = benchmark::Counter;
  const double iterations = double(state.iterations());
  state.counters[m.work_counter] = C(m.work_units * iterations, C::kIsRate);
  if (!std::isnan(m.bytes)) {
    state.counters["GB/s"] = C(m.bytes * iterations * 1e-9, C::kIsRate);
    const double bw = backend_bandwidth(backend);
    // kIsRate divides by seconds: bytes*it/seconds/bw is the fraction of the copy roofline.
    if (!std::isnan(bw)) state.counters["roofline"] = C(m.bytes * iterations / bw, C::kIsRate);
  }
  if (!std::isnan(m.modelled_bytes))
    state.counters["modelled GB/s"] = C(m.modelled_bytes * iterations * 1e-9, C::kIsRate);
  if (!std::isnan(m.flops)) state.counters["GFLOP/s"] = C(m.flops * iterations * 1e-9, C::kIsRate);
}

}  // namespace ppkit::bench
