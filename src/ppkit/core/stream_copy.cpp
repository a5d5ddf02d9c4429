#include "ppkit/core/stream_copy.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <utility>

#include "ppkit/core/copy_probe.hpp"

#include "ppkit/core/timing.hpp"

namespace ppkit {
namespace {
std::size_t& probe_doubles() {
  static std::size_t n = kCopyProbeMaxDoubles;
  return n;
}
}  // namespace

std::size_t copy_probe_doubles() { return probe_doubles(); }

void size_copy_probe_to(double case_bytes) {
  const double doubles = case_bytes / sizeof(double);
  probe_doubles() =
      doubles >= double(kCopyProbeMaxDoubles)
          ? kCopyProbeMaxDoubles
          : std::max(kCopyProbeMinDoubles, static_cast<std::size_t>(std::max(0.0, doubles)));
}

StreamCopy::Problem make_stream_copy_problem(std::size_t n, unsigned seed) {
  StreamCopy::Problem p;
  p.source.resize(n);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(1.0, 2.0);
  for (auto& x : p.source) x = dist(rng);
  return p;
}

double measure_copy_bandwidth(const Variant<StreamCopy>& variant, std::size_t n_doubles,
                              int repeats) {
  const auto problem = make_stream_copy_problem(n_doubles, 12345u);
  auto run = variant.prepare(problem);
  const auto t = time_repeats([&] { run->run(); }, repeats, 2);
  return StreamCopy::bytes_moved(problem) / t.median_s;
}

double backend_copy_bandwidth(const std::string& backend, std::size_t n_doubles) {
  static std::map<std::pair<std::string, std::size_t>, double> measured;
  const auto known = measured.find({backend, n_doubles});
  if (known != measured.end()) return known->second;
  double bw = std::nan("");
  for (const auto& v : Registry<StreamCopy>::all()) {
    if (v.backend != backend || !v.availability().available) continue;
    try {
      bw = measure_copy_bandwidth(v, n_doubles, 5);
    } catch (const std::exception&) {
      bw = std::nan("");
    }
    break;
  }
  measured[{backend, n_doubles}] = bw;
  return bw;
}

}  // namespace ppkit
