// fem.assemble: generation + assembly of every element of a distorted box
// (fp64), per variant: elements/s, GB/s and roofline fraction from
// assembly_cost (coordinates, connectivity, CSR block positions, row lengths,
// read-modify-write of 576 matrix + 24 load values per element), GFLOP/s.
// Boxes: 16^3 (CPU-sized), 64^3, 128^3 (6.44 M DOF, the paper's size); pick
// with --benchmark_filter=fem_assemble/box128.
#include "harness/bench_harness.hpp"
#include "ppkit/fem/assemble.hpp"

void ppkit::bench::register_benchmarks() {
  for (int n : {16, 64, 128}) {
    register_variant_benchmarks<fem::FemAssemble>(
        "fem_assemble/box" + std::to_string(n),
        [n] {
          fem::BoxMeshSpec spec;
          spec.elements = {n, n, n};
          spec.perturbation = 0.15;
          spec.seed = 2019;
          return fem::make_assembly_problem(fem::make_box_mesh(spec),
                                            fem::Material{2.0e11, 0.3, {0, 0, -7.7e4}});
        },
        [](const fem::AssemblyProblem& p) {
          const auto cost = fem::assembly_cost(p);
          return BenchModel{double(p.mesh.num_elements()), "elements/s", cost.bytes, cost.flops};
        });
  }
}
