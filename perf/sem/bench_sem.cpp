// sem.axhelm at N = 3, 5, 7, 9 on a trilinear mesh of about PPKIT_SEM_BENCH_DOFS
// degrees of freedom (default 4.2 M = E N^3), Poisson and one field (the
// paper's Table 3 setting), at N = 7 on nekBench's 32768 elements (32^3), plus
// Nekbone (Helmholtz, fixed 100 iterations) on nekBench's 8000 elements of order 7.
// Counters (docs/sem.md): DOF/s; GFLOP/s = F_ax / T (P_eff); GFLOP/s_tot =
// (F_ax + F_geo) / T (P_tot); GB/s and roofline from the bytes this variant
// must move at least (its inputs read once, Y written once); GB/s_nekrs from
// nekRS's stored-factor byte count, the figure nekBench prints. Nekbone: GB/s
// and roofline from the compulsory bytes per iteration, "modelled GB/s" from
// the loops' traffic (nekbone_cost).
// Verification before timing, by `ppkit compare`'s checks (sem_cases.hpp):
// axhelm against the serial reference; Nekbone, whose timed runs stop after a
// fixed 100 iterations, by a converged solve of the same problem with the
// same variant (relative residual 1e-8, as `ppkit compare`) against the
// manufactured solution, and the timed run's own result must have done its
// 100 iterations with a finite residual below the initial one.
#include <cstdlib>
#include <memory>
#include <string>

#include "harness/bench_harness.hpp"
#include "ppkit/sem/axhelm.hpp"
#include "ppkit/sem/nekbone.hpp"
#include "ppkit/sem/sem_cases.hpp"
#include "ppkit/core/compare.hpp"

namespace {
using namespace ppkit::sem;

// The problem of the case being measured. Google Benchmark runs the
// variants of one case one after another, so the last case built is kept:
// its mesh and geometric factors (seconds of host work at 32,768 elements)
// are built once per case instead of once per variant, and at most one
// case is held in memory.
template <class Problem, class Make>
const Problem& problem_of_case(const std::string& key, Make make) {
  static std::string cached_key;
  static std::unique_ptr<const Problem> cached;
  if (!cached || cached_key != key) {
    cached.reset();  // free the previous case before building the next
    cached = std::make_unique<const Problem>(make());
    cached_key = key;
  }
  return *cached;
}

// The verification of the case being measured, kept with it (as problem_of_case).
template <class Op, class Make>
const ppkit::CaseVerification<Op>& verification_of_case(const std::string& key, Make make) {
  static std::string cached_key;
  static std::unique_ptr<const ppkit::CaseVerification<Op>> cached;
  if (!cached || cached_key != key) {
    cached.reset();
    cached = std::make_unique<const ppkit::CaseVerification<Op>>(make());
    cached_key = key;
  }
  return *cached;
}

double bench_dofs() {
  if (const char* s = std::getenv("PPKIT_SEM_BENCH_DOFS")) return std::atof(s);
  return 4.2e6;
}

// mesh: the box of the case; tag: the label's size part ("N=7", "N=7/E=32768").
void register_axhelm(const BoxMeshSpec& spec, const std::string& tag) {
  for (const auto& v : ppkit::Registry<SemAxhelm>::all()) {
    const std::string name = v.name, backend = v.backend;
    const std::string label = "sem_axhelm/" + tag + "/" + name;
    benchmark::RegisterBenchmark(
        label.c_str(),
        [=](benchmark::State& state) {
          const auto& variant = ppkit::Registry<SemAxhelm>::find(name);
          const ppkit::Availability a = variant.availability();
          if (!a.available) return ppkit::bench::skip_benchmark(state, a.reason);
          const AxhelmProblem& problem = problem_of_case<AxhelmProblem>(
              tag, [&] { return make_axhelm_problem(make_box_mesh(spec), AxhelmSettings{}, 7u); });
          const auto& verification =
              verification_of_case<SemAxhelm>(tag, [&] { return axhelm_verification(problem); });
          std::unique_ptr<ppkit::PreparedRun<SemAxhelm::Result>> run;
          try {
            run = variant.prepare(problem);
          } catch (const ppkit::Error& e) {
            return ppkit::bench::skip_benchmark(state, e.what());
          }
          const AxhelmCost nekrs = axhelm_cost_stored(problem);
          const AxhelmCost cost = axhelm_cost_for(problem, variant.traits.geometry);
          try {
            run->run();  // warm-up; its result is verified before timing
            if (!ppkit::bench::verify_before_timing<SemAxhelm>(state, variant, run->result(),
                                                               verification))
              return;
          } catch (const std::exception& e) {
            return ppkit::bench::fail_benchmark(state, std::string("failed: ") + e.what());
          }
          for (auto _ : state) run->run();
          const double it = double(state.iterations());
          using C = benchmark::Counter;
          state.counters["DOF/s"] = C(cost.dofs * it, C::kIsRate);
          state.counters["GFLOP/s"] = C(cost.flops_ax * it * 1e-9, C::kIsRate);
          state.counters["GFLOP/s_tot"] =
              C((cost.flops_ax + cost.flops_geo) * it * 1e-9, C::kIsRate);
          state.counters["GB/s"] = C(cost.bytes * it * 1e-9, C::kIsRate);
          state.counters["GB/s_nekrs"] = C(nekrs.bytes * it * 1e-9, C::kIsRate);
          const double bw = ppkit::bench::backend_bandwidth(backend);
          if (std::isfinite(bw)) state.counters["roofline"] = C(cost.bytes * it / bw, C::kIsRate);
          state.counters["elements"] = double(problem.elements);
        })
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
}

void register_nekbone(const BoxMeshSpec& spec) {
  const int order = spec.order;
  const std::string case_key = "sem_nekbone/N=" + std::to_string(order);
  for (const auto& v : ppkit::Registry<SemNekbone>::all()) {
    const std::string name = v.name, backend = v.backend;
    const std::string label = case_key + "/" + name;
    benchmark::RegisterBenchmark(
        label.c_str(),
        [=](benchmark::State& state) {
          const auto& variant = ppkit::Registry<SemNekbone>::find(name);
          const ppkit::Availability a = variant.availability();
          if (!a.available) return ppkit::bench::skip_benchmark(state, a.reason);
          NekboneSettings s;
          s.equation = Equation::helmholtz;
          s.tolerance = 0;  // Nekbone's benchmark mode: a fixed number of iterations
          s.max_iterations = 100;
          const NekboneProblem& problem = problem_of_case<NekboneProblem>(
              case_key, [&] { return make_nekbone_problem(make_box_mesh(spec), s); });
          // The converged solve of the same mesh that verifies the variant.
          const NekboneProblem& converged =
              problem_of_case<NekboneProblem>(case_key + "/converged", [&] {
                NekboneProblem p = problem;
                p.tolerance = 1e-8;
                p.max_iterations = 2000;
                return p;
              });
          const auto& verification = verification_of_case<SemNekbone>(
              case_key, [&] { return nekbone_verification(converged); });
          std::unique_ptr<ppkit::PreparedRun<SemNekbone::Result>> run;
          try {
            {
              auto solve = variant.prepare(converged);
              solve->run();
              if (!ppkit::bench::verify_before_timing<SemNekbone>(state, variant, solve->result(),
                                                                  verification))
                return;
            }
            run = variant.prepare(problem);
            run->run();  // warm-up; its result must be a complete, finite solve
            const NekboneResult r = run->result();
            if (r.iterations != s.max_iterations || !std::isfinite(r.final_residual) ||
                !(r.final_residual < r.initial_residual))
              return ppkit::bench::fail_benchmark(
                  state, "verification failed: " + std::to_string(r.iterations) +
                             " iterations, residual " + std::to_string(r.final_residual) +
                             " from " + std::to_string(r.initial_residual));
          } catch (const std::exception& e) {
            return ppkit::bench::fail_benchmark(state, std::string("failed: ") + e.what());
          }
          for (auto _ : state) run->run();
          const double it = double(state.iterations()) * s.max_iterations;
          const NekboneCost cost =
              nekbone_cost(problem, variant.traits.geometry, variant.traits.layout);
          const double dofs = double(problem.op.elements) * order * order * order;
          using C = benchmark::Counter;
          state.counters["DOF_iter/s"] = C(dofs * it, C::kIsRate);
          state.counters["GFLOP/s"] = C(cost.flops_per_iteration * it * 1e-9, C::kIsRate);
          state.counters["GB/s"] = C(cost.bytes_per_iteration * it * 1e-9, C::kIsRate);
          state.counters["modelled GB/s"] =
              C(cost.modelled_bytes_per_iteration * it * 1e-9, C::kIsRate);
          const double bw = ppkit::bench::backend_bandwidth(backend);
          if (std::isfinite(bw))
            state.counters["roofline"] = C(cost.bytes_per_iteration * it / bw, C::kIsRate);
        })
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
}
}  // namespace

void ppkit::bench::register_benchmarks() {
  for (int order : {3, 5, 7, 9})
    register_axhelm(box_for_dofs(order, bench_dofs(), Deformation::trilinear),
                    "N=" + std::to_string(order));
  // nekBench's axhelm problem: 32768 elements of order 7 (11.2 M DOF).
  BoxMeshSpec nekbench;
  nekbench.order = 7;
  nekbench.ex = nekbench.ey = nekbench.ez = 32;
  nekbench.deformation = Deformation::trilinear;
  register_axhelm(nekbench, "N=7/E=32768");
  // Nekbone: nekBench's 8000 elements of order 7 (20^3, 2.74 M DOF).
  BoxMeshSpec nekbone = nekbench;
  nekbone.ex = nekbone.ey = nekbone.ez = 20;
  register_nekbone(nekbone);
}
