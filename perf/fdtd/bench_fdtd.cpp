// fdtd.step per variant on CPML-bounded cubes (make_verification_problem: 1 mm
// cells, 10-cell CPML, random E and H on every node, four materials drawn per
// node, a soft and a hard source; the problem `ppkit compare` verifies at
// every size, verification.hpp): cells/s for full E+H steps,
// GB/s and the roofline fraction from fdtd::step_bytes(), the compulsory
// traffic of a run (48 B of fields per node and step: each field read and
// written once; the narrowest material id once, psi read + written in the
// layers; per pass of k steps for the variants with steps_per_pass k), and
// "modelled GB/s" from step_modelled_bytes() (72 B of fields per node and
// step for separate E and H sweeps, the id twice, the restart and the energy
// sum; docs/fdtd.md "Performance model").
// Each variant's result is verified before it is timed by `ppkit compare`'s
// check (step_verification, fdtd_verification.hpp) against the serial
// reference: on every node up to 128^3, on the light-cone sample boxes above.
//
// Environment (all optional; --benchmark_filter=<regex> picks variants):
//   PPKIT_FDTD_BENCH_SIZES=256,512,768  cube edges in cells (default 64,128)
//   PPKIT_FDTD_BENCH_STEPS=20           steps per run (default 5 up to 128^3, else 20)
//   PPKIT_FDTD_BENCH_MATERIALS=4        materials drawn per node (default 4; 1: vacuum,
//                                       no material id is needed; 2..256 exercise the
//                                       1-byte id path, more 2 bytes; the case name says
//                                       the count when it is not 4)
//   PPKIT_FDTD_BENCH_FP64_SIZES=256     cube edges of the fp64 cases (default 64),
//                                       registered only for the variants with an
//                                       fp64 path (step_features.hpp); 8-byte bytes model
#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "harness/bench_harness.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/fdtd/fdtd_verification.hpp"
#include "ppkit/fdtd/step_features.hpp"
#include "ppkit/fdtd/verification.hpp"

namespace {

long env_long(const char* name, long fallback) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 1)
    throw ppkit::Error(std::string(name) + "=" + text + " is not a positive integer",
                       "a whole number >= 1");
  return value;
}

constexpr long default_materials = 4;

// More than the verification problem's four materials: materials 4..m-1 are
// lossless dielectrics (eps_r 1.5, 2, ...); node n gets a pseudo-random id
// from a multiplicative hash, so neighbouring nodes differ.
void spread_materials(ppkit::FdtdStep::Problem& p, long materials) {
  if (materials <= default_materials) return;
  for (long m = default_materials; m < materials; ++m)
    p.materials.push_back(ppkit::fdtd::Material{1.0 + 0.5 * double(m % 16), 1.0, 0.0, false});
  p.material_id.resize(std::size_t(p.grid.nodes()));
  for (std::size_t n = 0; n < p.material_id.size(); ++n)
    p.material_id[n] = std::uint32_t(((n * 2654435761u) >> 13) % std::size_t(materials));
}

std::vector<long> sizes_from_env(const char* name, std::vector<long> fallback) {
  const char* env = std::getenv(name);
  if (!env) return fallback;
  std::vector<long> sizes;
  std::stringstream list(env);
  for (std::string item; std::getline(list, item, ',');)
    if (!item.empty()) sizes.push_back(std::stol(item));
  return sizes;
}

}  // namespace

void ppkit::bench::register_benchmarks() {
  const long materials = env_long("PPKIT_FDTD_BENCH_MATERIALS", default_materials);
  const auto register_cases = [materials](const std::vector<long>& sizes,
                                          fdtd::Precision precision) {
    const bool fp64 = precision == fdtd::Precision::fp64;
    for (long n : sizes) {
      const std::int64_t steps = env_long("PPKIT_FDTD_BENCH_STEPS", n <= 128 ? 5 : 20);
      const std::string name =
          "fdtd_step/" + std::to_string(n) + "^3" +
          (materials != default_materials ? "/" + std::to_string(materials) + "-materials" : "") +
          (fp64 ? "/fp64" : "");
      register_variant_benchmarks<FdtdStep>(
          name,
          [n, steps, materials, precision] {
            auto p = fdtd::make_verification_problem(n, 10, steps, 1,
                                                     int(std::min(materials, default_materials)));
            p.precision = precision;
            spread_materials(p, materials);
            return p;
          },
          [](const FdtdStep::Problem& p) {
            BenchModel m{double(p.grid.cells()) * double(p.steps), "cells/s", fdtd::step_bytes(p)};
            // Several steps per pass (blocked-k*): one pass's traffic per k steps.
            m.variant_bytes = [&p](const std::string& v) {
              return fdtd::step_bytes_of_variant(p, v);
            };
            m.flops = fdtd::step_flops(p);
            m.modelled_bytes = fdtd::step_modelled_bytes(p);
            return m;
          },
          [n](const FdtdStep::Problem& p) {
            return fdtd::step_verification(p, n <= 128 ? ProblemSize::quick : ProblemSize::large);
          },
          [fp64](const std::string& variant) {
            return !fp64 || fdtd::step_variant_supports(variant, fdtd::StepFeature::fp64);
          });
    }
  };
  register_cases(sizes_from_env("PPKIT_FDTD_BENCH_SIZES", {64, 128}), fdtd::Precision::fp32);
  register_cases(sizes_from_env("PPKIT_FDTD_BENCH_FP64_SIZES", {64}), fdtd::Precision::fp64);
}
