// fem.assemble: generation + assembly of every element of a distorted box
// (fp64), per variant: elements/s, GB/s and roofline fraction from
// assembly_cost (the paper's data layout: coordinates, connectivity, 64-bit
// CSR block positions, row lengths, read-modify-write of 576 matrix + 24 load
// values per element, plus zeroing the CSR values and load vector once per
// assembly), GFLOP/s (B^T D B entry by entry). docs/fem.md derives the memory
// floor these figures should be read against.
// Boxes: 16^3 (CPU-sized), 64^3 (823,875 DOF), 128^3 (6.44 M DOF, the paper's
// ~6.5 M); pick with --benchmark_filter=fem_assemble/box128. Speedup over (a):
// divide by the same box's */thread-per-element row of the same run.
#include <map>
#include <memory>
#include <mutex>

#include "harness/bench_harness.hpp"
#include "ppkit/fem/assemble.hpp"

namespace {

// One problem per box, built once and shared by every variant's benchmark
// (building the 128^3 CSR pattern and block positions takes far longer than
// copying them).
const ppkit::fem::AssemblyProblem& box_problem(int n) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<ppkit::fem::AssemblyProblem>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = cache[n];
  if (!slot) {
    ppkit::fem::BoxMeshSpec spec;
    spec.elements = {n, n, n};
    spec.perturbation = 0.15;
    spec.seed = 2019;
    slot = std::make_unique<ppkit::fem::AssemblyProblem>(ppkit::fem::make_assembly_problem(
        ppkit::fem::make_box_mesh(spec), ppkit::fem::Material{2.0e11, 0.3, {0, 0, -7.7e4}}));
  }
  return *slot;
}

}  // namespace

void ppkit::bench::register_benchmarks() {
  for (int n : {16, 64, 128}) {
    register_variant_benchmarks<fem::FemAssemble>(
        "fem_assemble/box" + std::to_string(n), [n] { return box_problem(n); },
        [](const fem::AssemblyProblem& p) {
          const auto cost = fem::assembly_cost(p);
          return BenchModel{double(p.mesh.num_elements()), "elements/s", cost.bytes, cost.flops};
        });
  }
}
