#include "harness/bench_harness.hpp"

#include <map>

#include "ppkit/core/compare.hpp"

namespace ppkit::bench {

double backend_bandwidth(const std::string& backend) {
  // One CompareContext owns the per-backend measurement, as in `ppkit compare`.
  static CompareContext ctx{CompareOptions{}};
  return ctx.bandwidth(backend);
}

}  // namespace ppkit::bench
