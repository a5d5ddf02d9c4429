// Copy bandwidth of every backend: the roofline basis of all other benchmarks.
#include "harness/bench_harness.hpp"
#include "ppkit/core/stream_copy.hpp"

void ppkit::bench::register_benchmarks() {
  for (std::size_t mib : {64, 512}) {
    register_variant_benchmarks<StreamCopy>(
        "stream_copy/" + std::to_string(mib) + "MiB",
        [mib] { return make_stream_copy_problem(mib * (1u << 20) / sizeof(double), 7u); },
        [](const StreamCopy::Problem& p) {
          return BenchModel{double(p.source.size()), "doubles/s", StreamCopy::bytes_moved(p),
                            std::nan("")};
        });
  }
}
