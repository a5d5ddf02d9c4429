// The sem rows of `ppkit compare`'s workload "embedding"
// (ppkit/core/embedding_compare.hpp): what a host code pays for calling
// ppkit's axhelm through each embedding API (docs/embedding.md), against the
// registry's run() of the same variant, on one element (the per-call cost)
// and on a box (quick 4^3, default 16^3, large nekBench's 32^3 elements), at
// N = 7, for the preferred available variant of each backend:
//   registry      the variant's prepared run (the other workloads' rows)
//   cpp-operator  ppkit::sem::Axhelm::apply + wait on arrays in its memory
//   c-handle      ppkit_sem_axhelm_apply(PPKIT_MEM_DEVICE) + ppkit_sem_axhelm_wait
//   c-oneshot     ppkit_sem_axhelm on host arrays: set-up and copies per call
// Every row's result is checked against the serial reference; "speedup" is
// the registry row's time over this row's (1 = no overhead), extra.overhead
// the relative extra time.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "ppkit.h"
#include "ppkit/core/compare.hpp"
#include "ppkit/core/embedding_compare.hpp"
#include "ppkit/core/device_memory.hpp"
#include "ppkit/sem/axhelm_operator.hpp"
#include "ppkit/sem/sem_cases.hpp"
#include "ppkit_sem.h"

namespace ppkit::sem {
namespace {

int box_side(ProblemSize size) {
  switch (size) {
    case ProblemSize::quick:
      return 4;
    case ProblemSize::standard:
      return 16;
    case ProblemSize::large:
      return 32;
  }
  return 4;
}

// The preferred available variant of each backend, among the selected ones.
std::vector<const Variant<SemAxhelm>*> variants_to_measure(const CompareContext& ctx) {
  std::map<std::string, const Variant<SemAxhelm>*> best;
  for (const auto& v : Registry<SemAxhelm>::all()) {
    if (!ctx.variant_selected(v.name) || !v.availability().available) continue;
    const auto* b = best[v.backend];
    if (!b || b->preference < v.preference) best[v.backend] = &v;
  }
  std::vector<const Variant<SemAxhelm>*> out;
  for (const auto& [backend, v] : best) out.push_back(v);
  return out;
}

std::vector<CompareRow> run_case(CompareContext& ctx, int side) {
  BoxMeshSpec spec;
  spec.order = 7;
  spec.ex = spec.ey = spec.ez = side;
  spec.deformation = Deformation::trilinear;
  const AxhelmProblem p = make_axhelm_problem(make_box_mesh(spec), AxhelmSettings{}, 11u);
  const std::vector<double> reference = axhelm_reference(p);
  const std::size_t n = p.x.size(), bytes = n * sizeof(double);
  const AxhelmCost cost = axhelm_cost_stored(p);
  std::vector<CompareRow> rows;
  for (const auto* v : variants_to_measure(ctx)) {
    double registry_time = std::nan("");
    for (const char* api : kEmbeddingApis) {
      CompareRow row;
      row.workload = "embedding";
      row.case_name = fmt::format("axhelm N=7 E={} via {}", p.elements, api);
      row.size = fmt::format("{} DOF", std::int64_t(cost.dofs));
      row.variant = v->name;
      row.backend = v->backend;
      row.device = v->device();
      row.throughput_unit = "GDOF/s";
      row.tolerance = 1e-12;
      row.extra["api"] = api;
      ctx.on_progress(row.case_name + " " + row.variant);
      try {
        std::vector<double> y(n);
        const std::string api_name = api;
        if (api_name == "registry") {
          auto run = v->prepare(p);
          run->run();
          y = run->result();
          row.timing = time_calls([&] { run->run(); }, ctx.options().repeats);
        } else if (api_name == "cpp-operator" || api_name == "c-handle") {
          AxhelmOptions o;
          o.variant = v->name;
          const AxhelmMesh mesh{p.order, p.elements, p.vertices.data(), p.factors.data(),
                                p.trilinear.data()};
          Axhelm op(mesh, o);
          ArrayIn<double> x(op.memory(), n), out(op.memory(), n);
          copy_to(op.memory(), x.data(), p.x.data(), bytes);
          std::function<void()> call;
          ppkit_sem_axhelm_handle handle = nullptr;
          if (api_name == "cpp-operator") {
            call = [&] {
              op.apply(x.data(), out.data());
              op.wait();
            };
          } else {
            ppkit_sem_axhelm_mesh m{p.order,
                                    p.elements,
                                    1,
                                    0,
                                    p.vertices.data(),
                                    p.factors.data(),
                                    p.trilinear.data(),
                                    v->name.c_str()};
            require(ppkit_sem_axhelm_create(&m, &handle) == 0, ppkit_last_error());
            call = [&] {
              if (ppkit_sem_axhelm_apply(handle, x.data(), out.data(), PPKIT_MEM_DEVICE, 1, 1,
                                         nullptr) != 0 ||
                  ppkit_sem_axhelm_wait(handle, nullptr) != 0)
                throw Error(ppkit_last_error());
            };
          }
          try {
            call();
            copy_from(op.memory(), y.data(), out.data(), bytes);
            row.timing = time_calls(call, ctx.options().repeats);
          } catch (...) {
            ppkit_sem_axhelm_destroy(handle);
            throw;
          }
          ppkit_sem_axhelm_destroy(handle);
        } else {
          ppkit_sem_axhelm_args a{};
          a.order = p.order;
          a.elements = p.elements;
          a.ncol = 1;
          a.vertices = p.vertices.data();
          a.factors = p.factors.data();
          a.trilinear = p.trilinear.data();
          a.x = p.x.data();
          a.y = y.data();
          a.variant = v->name.c_str();
          auto call = [&] {
            if (ppkit_sem_axhelm(&a) != 0) throw Error(ppkit_last_error());
          };
          call();
          row.timing = time_calls(call, ctx.options().repeats);
        }
        row.error = relative_error(y, reference);
        finish_embedding_row(row, cost.dofs * 1e-9, &registry_time);
      } catch (const std::exception& e) {
        row.status = "ERROR";
        row.message = e.what();
      }
      ctx.on_row(row);
      rows.push_back(row);
    }
  }
  return rows;
}

std::vector<CompareRow> run_embedding(CompareContext& ctx) {
  ppkit_init();  // the C API's runtime beside the caller's (Kokkos is not re-initialised)
  auto rows = run_case(ctx, 1);
  auto box = run_case(ctx, box_side(ctx.options().size));
  rows.insert(rows.end(), box.begin(), box.end());
  return rows;
}

int count_embedding(const CompareContext& ctx) {
  return int(2 * std::size(kEmbeddingApis) * variants_to_measure(ctx).size());
}

}  // namespace
}  // namespace ppkit::sem

namespace ppkit::registration {
void register_sem_embedding_rows() {
  register_embedding_rows({"sem", ppkit::sem::count_embedding, ppkit::sem::run_embedding});
}
}  // namespace ppkit::registration
