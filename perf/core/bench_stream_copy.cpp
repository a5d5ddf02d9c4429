// Copy bandwidth of every backend: the roofline basis of all other benchmarks.
// Each variant's copy is verified (bitwise equal to the source) before it is timed.
#include <memory>

#include "harness/bench_harness.hpp"
#include "ppkit/core/stream_copy.hpp"

namespace {
// The copy must equal the source bit for bit: the error is the fraction of
// values that differ (any difference fails at tolerance 0).
ppkit::CaseVerification<ppkit::StreamCopy> copy_verification(const ppkit::StreamCopy::Problem& p) {
  ppkit::CaseVerification<ppkit::StreamCopy> v;
  v.tolerance = 0;
  v.check = [&p](const ppkit::Variant<ppkit::StreamCopy>&, const std::vector<double>& r,
                 ppkit::CompareRow& row) {
    row.extra["verified_against"] = "the source, bit for bit";
    if (r.size() != p.source.size()) return 1.0;
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < r.size(); ++i) wrong += r[i] != p.source[i];
    return double(wrong) / double(r.size());
  };
  return v;
}
}  // namespace

void ppkit::bench::register_benchmarks() {
  for (std::size_t mib : {64, 512}) {
    register_variant_benchmarks<StreamCopy>(
        "stream_copy/" + std::to_string(mib) + "MiB",
        [mib] { return make_stream_copy_problem(mib * (1u << 20) / sizeof(double), 7u); },
        [](const StreamCopy::Problem& p) {
          return BenchModel{double(p.source.size()), "doubles/s", StreamCopy::bytes_moved(p),
                            std::nan("")};
        },
        copy_verification);
  }
}
