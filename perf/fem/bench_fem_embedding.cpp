// What assembling the hex8 stiffness matrix and load vector through each
// embedding API costs over the registry's timed run() of the same variant
// (docs/embedding.md), on one element (the per-call overhead) and on a
// distorted box (64^3 elements, 823,875 DOF, by default):
//   registry      variant.prepare(problem) once, run() per iteration
//   cpp-operator  ppkit::fem::Assembler::assemble + wait into arrays in its memory
//   c-handle      ppkit_fem_assembler_assemble(PPKIT_MEM_DEVICE) + ppkit_fem_assembler_wait
//   c-oneshot     ppkit_fem_assemble on host arrays: the copying one-shot call
//                 (create: pattern and set-up, assemble, copy the pattern,
//                 values and load back, destroy), the convenience entry point
// Each API's CSR values and load vector are checked once against the full
// serial reference (assembly_verification, as `ppkit compare` does) before
// timing, the output arrays poisoned with NaN first; a wrong result fails the
// benchmark ("verification failed: ...") instead of timing it.
// PPKIT_FEM_EMBED_VARIANTS: comma-separated variant names or strategies
// (default "auto"); PPKIT_FEM_EMBED_BOX: the box's elements per edge
// (default 64; 0 skips the box).
#include <cstdlib>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "harness/bench_harness.hpp"
#include "ppkit.h"
#include "ppkit/core/device_memory.hpp"
#include "ppkit/fem/assemble.hpp"
#include "ppkit/fem/assembler.hpp"
#include "ppkit/fem/assembly_checks.hpp"
#include "ppkit_fem.h"

namespace {
using namespace ppkit::fem;

struct Case {
  std::unique_ptr<const AssemblyProblem> problem;
  std::unique_ptr<const ppkit::CaseVerification<FemAssemble>> verification;
};

// One case at a time (the full reference at 64^3 holds 534 MB of values).
const Case& case_of(int edge) {
  static Case cached;
  static int cached_edge = -1;
  if (!cached.problem || cached_edge != edge) {
    cached = Case{};
    BoxMeshSpec spec;
    spec.elements = {edge, edge, edge};
    spec.perturbation = 0.15;
    spec.seed = 2019;
    cached.problem = std::make_unique<const AssemblyProblem>(
        make_assembly_problem(make_box_mesh(spec), Material{2.0e11, 0.3, {0, 0, -7.7e4}}));
    cached.verification = std::make_unique<const ppkit::CaseVerification<FemAssemble>>(
        assembly_verification(*cached.problem, true, 0, 2019u + unsigned(edge)));
    cached_edge = edge;
  }
  return cached;
}

std::vector<std::string> variants_to_measure() {
  std::vector<std::string> out;
  if (const char* s = std::getenv("PPKIT_FEM_EMBED_VARIANTS")) {
    std::stringstream list(s);
    for (std::string name; std::getline(list, name, ',');)
      if (!name.empty()) out.push_back(name);
  }
  if (out.empty()) out.push_back("auto");
  return out;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void poison(const ppkit::DataLocation& where, double* p, std::size_t n) {
  const std::vector<double> nan(n, kNaN);
  ppkit::copy_to(where, p, nan.data(), n * sizeof(double));
}

std::vector<double> fetch(const ppkit::DataLocation& where, const double* p, std::size_t n) {
  std::vector<double> host(n);
  ppkit::copy_from(where, host.data(), p, n * sizeof(double));
  return host;
}

void register_api(const std::string& api, const std::string& variant, int edge) {
  const std::string label =
      "fem_embedding/E=" + std::to_string(edge * edge * edge) + "/" + api + "/" + variant;
  benchmark::RegisterBenchmark(
      label.c_str(),
      [=](benchmark::State& state) {
        const Case& c = case_of(edge);
        const AssemblyProblem& p = *c.problem;
        const Material& m = p.material;
        const std::size_t nnz = std::size_t(p.pattern.num_nonzeros()),
                          rows = std::size_t(p.pattern.num_rows);
        const AssemblerMesh mesh{p.mesh.num_nodes(), p.mesh.coordinates.data(),
                                 p.mesh.num_elements(), p.mesh.elements.data()};
        std::unique_ptr<Assembler> op;
        try {
          AssemblerOptions o;
          o.variant = variant;
          op = std::make_unique<Assembler>(mesh, o);
        } catch (const std::exception& e) {
          return ppkit::bench::skip_benchmark(state, e.what());
        }
        const auto& v = ppkit::Registry<FemAssemble>::find(op->variant());
        auto verified = [&](const AssemblyResult& result) {
          return ppkit::bench::verify_before_timing<FemAssemble>(state, v, result, *c.verification);
        };
        const ppkit::DataLocation where = op->memory();
        if (api == "registry") {
          op.reset();
          auto run = v.prepare(p);
          run->run();
          if (!verified(run->result())) return;
          for (auto _ : state) run->run();
        } else if (api == "cpp-operator") {
          ppkit::ArrayIn<double> values(where, nnz), load(where, rows);
          poison(where, values.data(), nnz);
          poison(where, load.data(), rows);
          op->assemble(m.youngs_modulus, m.poisson_ratio, m.body_force, values.data(), load.data());
          op->wait();
          if (!verified({fetch(where, values.data(), nnz), fetch(where, load.data(), rows)}))
            return;
          for (auto _ : state) {
            op->assemble(m.youngs_modulus, m.poisson_ratio, m.body_force, values.data(),
                         load.data());
            op->wait();
          }
        } else if (api == "c-handle") {
          op.reset();
          const ppkit_fem_mesh c_mesh{mesh.num_nodes, mesh.coordinates, mesh.num_elements,
                                      mesh.connectivity};
          ppkit_fem_assembler_handle h = nullptr;
          if (ppkit_fem_assembler_create(&c_mesh, variant.c_str(), &h) != 0)
            return ppkit::bench::skip_benchmark(state, ppkit_last_error());
          ppkit::ArrayIn<double> values(where, nnz), load(where, rows);
          poison(where, values.data(), nnz);
          poison(where, load.data(), rows);
          auto call = [&] {
            return ppkit_fem_assembler_assemble(h, m.youngs_modulus, m.poisson_ratio,
                                                m.body_force.data(), values.data(), load.data(),
                                                PPKIT_MEM_DEVICE, nullptr) == 0 &&
                   ppkit_fem_assembler_wait(h, nullptr) == 0;
          };
          if (!call())
            ppkit::bench::fail_benchmark(state, ppkit_last_error());
          else if (verified({fetch(where, values.data(), nnz), fetch(where, load.data(), rows)}))
            for (auto _ : state) call();
          ppkit_fem_assembler_destroy(h);
        } else {  // c-oneshot: host arrays, everything per call
          op.reset();
          std::vector<std::int64_t> offsets(rows + 1, -1);
          std::vector<std::int32_t> columns(nnz, -1);
          AssemblyResult result{std::vector<double>(nnz, kNaN), std::vector<double>(rows, kNaN)};
          auto call = [&] {
            return ppkit_fem_assemble(mesh.num_nodes, mesh.coordinates, mesh.num_elements,
                                      mesh.connectivity, m.youngs_modulus, m.poisson_ratio,
                                      m.body_force.data(), variant.c_str(), offsets.data(),
                                      columns.data(), result.values.data(),
                                      result.load.data()) == 0;
          };
          if (!call()) return ppkit::bench::fail_benchmark(state, ppkit_last_error());
          if (offsets != p.pattern.row_offsets || columns != p.pattern.column_indices)
            return ppkit::bench::fail_benchmark(
                state, "verification failed: the CSR pattern differs from the mesh's");
          if (!verified(result)) return;
          for (auto _ : state) call();
        }
        state.counters["elements/s"] = benchmark::Counter(
            double(p.mesh.num_elements()), benchmark::Counter::kIsIterationInvariantRate);
      })
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace

void ppkit::bench::register_benchmarks() {
  ppkit_init();  // the C API's runtime (Kokkos is already initialised by the harness)
  std::vector<int> edges = {1};
  const char* box = std::getenv("PPKIT_FEM_EMBED_BOX");
  const int edge = box ? std::atoi(box) : 64;
  if (edge > 0) edges.push_back(edge);
  for (int e : edges)
    for (const auto& variant : variants_to_measure())
      for (const char* api : {"registry", "cpp-operator", "c-handle", "c-oneshot"})
        register_api(api, variant, e);
}
