// What calling ppkit's axhelm through each embedding API costs over the
// registry's timed run() of the same variant (docs/embedding.md), at N = 7
// on one element (the per-call overhead) and on nekBench's 32,768 elements:
//   registry      variant.prepare(problem) once, run() per iteration
//   cpp-operator  ppkit::sem::Axhelm::apply + wait on arrays in its memory
//   c-handle      ppkit_sem_axhelm_apply(PPKIT_MEM_DEVICE) + ppkit_sem_axhelm_wait
//   c-oneshot     ppkit_sem_axhelm on host arrays: the copying one-shot call
//                 (create, copy in, apply, copy out, destroy), today's entry point
// Each API's result is checked once against the serial reference before
// timing; a wrong result fails the benchmark instead of timing it.
// PPKIT_SEM_EMBED_VARIANTS: comma-separated variant names (default: the one
// "auto" picks); PPKIT_SEM_EMBED_LARGE=0 skips the 32,768-element case.
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "harness/bench_harness.hpp"
#include "ppkit.h"
#include "ppkit/core/device_memory.hpp"
#include "ppkit/sem/axhelm_operator.hpp"
#include "ppkit/sem/sem_cases.hpp"
#include "ppkit_sem.h"

namespace {
using namespace ppkit::sem;

struct Case {
  AxhelmProblem problem;
  std::vector<double> reference;
};

const Case& case_of(int elements_per_side) {
  static std::unique_ptr<Case> cached;
  static int cached_side = -1;
  if (!cached || cached_side != elements_per_side) {
    cached.reset();
    BoxMeshSpec spec;
    spec.order = 7;
    spec.ex = spec.ey = spec.ez = elements_per_side;
    spec.deformation = Deformation::trilinear;
    auto c = std::make_unique<Case>();
    c->problem = make_axhelm_problem(make_box_mesh(spec), AxhelmSettings{}, 7u);
    c->reference = axhelm_reference(c->problem);
    cached = std::move(c);
    cached_side = elements_per_side;
  }
  return *cached;
}

// Relative l2 error of y against the reference; fails the benchmark above 1e-12.
bool verified(benchmark::State& state, const std::vector<double>& y, const Case& c) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    diff += (y[i] - c.reference[i]) * (y[i] - c.reference[i]);
    norm += c.reference[i] * c.reference[i];
  }
  const double error = std::sqrt(diff / norm);
  state.counters["error"] = error;
  if (error <= 1e-12) return true;
  state.SkipWithError(("verification failed: relative error " + std::to_string(error)).c_str());
  return false;
}

std::vector<std::string> variants_to_measure() {
  std::vector<std::string> out;
  if (const char* s = std::getenv("PPKIT_SEM_EMBED_VARIANTS")) {
    std::stringstream list(s);
    for (std::string name; std::getline(list, name, ',');)
      if (!name.empty()) out.push_back(name);
  }
  if (out.empty()) out.push_back("auto");
  return out;
}

AxhelmMesh mesh_of(const AxhelmProblem& p) {
  return {p.order, p.elements, p.vertices.data(), p.factors.data(), p.trilinear.data()};
}

void register_api(const std::string& api, const std::string& variant, int side) {
  const std::string label =
      "sem_embedding/N=7/E=" + std::to_string(side * side * side) + "/" + api + "/" + variant;
  benchmark::RegisterBenchmark(
      label.c_str(),
      [=](benchmark::State& state) {
        const Case& c = case_of(side);
        const AxhelmProblem& p = c.problem;
        const std::size_t n = p.x.size(), bytes = n * sizeof(double);
        std::unique_ptr<Axhelm> op;
        try {
          AxhelmOptions o;
          o.variant = variant;
          op = std::make_unique<Axhelm>(mesh_of(p), o);
        } catch (const std::exception& e) {
          return ppkit::bench::skip_benchmark(state, e.what());
        }
        state.SetLabel(op->variant());
        const ppkit::DataLocation where = op->memory();
        ppkit::ArrayIn<double> x(where, n), y(where, n);
        ppkit::copy_to(where, x.data(), p.x.data(), bytes);
        std::vector<double> out(n);
        auto fetch = [&] {
          ppkit::copy_from(where, out.data(), y.data(), bytes);
          return out;
        };
        if (api == "registry") {
          const auto& v = ppkit::Registry<SemAxhelm>::find(op->variant());
          op.reset();
          auto run = v.prepare(p);
          run->run();
          if (!verified(state, run->result(), c)) return;
          for (auto _ : state) run->run();
        } else if (api == "cpp-operator") {
          op->apply(x.data(), y.data());
          op->wait();
          if (!verified(state, fetch(), c)) return;
          for (auto _ : state) {
            op->apply(x.data(), y.data());
            op->wait();
          }
        } else if (api == "c-handle") {
          op.reset();
          ppkit_sem_axhelm_mesh m{p.order,
                                  p.elements,
                                  1,
                                  0,
                                  p.vertices.data(),
                                  p.factors.data(),
                                  p.trilinear.data(),
                                  variant.c_str()};
          ppkit_sem_axhelm_handle h = nullptr;
          if (ppkit_sem_axhelm_create(&m, &h) != 0)
            return ppkit::bench::skip_benchmark(state, ppkit_last_error());
          bool ok =
              ppkit_sem_axhelm_apply(h, x.data(), y.data(), PPKIT_MEM_DEVICE, 1, 1, nullptr) == 0 &&
              ppkit_sem_axhelm_wait(h, nullptr) == 0;
          if (ok && verified(state, fetch(), c))
            for (auto _ : state) {
              ppkit_sem_axhelm_apply(h, x.data(), y.data(), PPKIT_MEM_DEVICE, 1, 1, nullptr);
              ppkit_sem_axhelm_wait(h, nullptr);
            }
          else if (!ok)
            state.SkipWithError(ppkit_last_error());
          ppkit_sem_axhelm_destroy(h);
        } else {  // c-oneshot: host arrays, everything per call
          op.reset();
          std::vector<double> host_y(n);
          ppkit_sem_axhelm_args a{};
          a.order = p.order;
          a.elements = p.elements;
          a.ncol = 1;
          a.vertices = p.vertices.data();
          a.factors = p.factors.data();
          a.trilinear = p.trilinear.data();
          a.x = p.x.data();
          a.y = host_y.data();
          a.variant = variant.c_str();
          if (ppkit_sem_axhelm(&a) != 0)
            return ppkit::bench::skip_benchmark(state, ppkit_last_error());
          if (!verified(state, host_y, c)) return;
          for (auto _ : state) ppkit_sem_axhelm(&a);
        }
      })
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace

void ppkit::bench::register_benchmarks() {
  ppkit_init();  // the C API's runtime (Kokkos is already initialised by the harness)
  const char* large = std::getenv("PPKIT_SEM_EMBED_LARGE");
  std::vector<int> sides = {1};
  if (!large || std::string(large) != "0") sides.push_back(32);
  for (int side : sides)
    for (const auto& variant : variants_to_measure())
      for (const char* api : {"registry", "cpp-operator", "c-handle", "c-oneshot"})
        register_api(api, variant, side);
}
