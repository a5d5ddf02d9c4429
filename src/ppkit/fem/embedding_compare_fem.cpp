// The fem rows of `ppkit compare`'s workload "embedding"
// (ppkit/core/embedding_compare.hpp): what a host code pays for assembling
// its stiffness matrix and load vector through each embedding API
// (docs/embedding.md), against the registry's run() of the same variant, on
// one element (the per-call cost) and on a distorted box (quick 8^3, default
// 32^3, large 64^3 elements), for the preferred available variant of each
// backend:
//   registry      the variant's prepared run (the "fem" workload's rows)
//   cpp-operator  ppkit::fem::Assembler::assemble + wait into arrays in its memory
//   c-handle      ppkit_fem_assembler_assemble(PPKIT_MEM_DEVICE) + ppkit_fem_assembler_wait
//   c-oneshot     ppkit_fem_assemble on host arrays: pattern, set-up and
//                 copies per call
// Every row's CSR values and load vector are checked against the full serial
// reference (assembly_verification, the check of the "fem" workload), the
// output arrays poisoned with NaN before, so an entry left unwritten fails;
// the one-shot call's CSR pattern is compared with the problem's too.
#include <fmt/format.h>

#include <limits>
#include <map>

#include "ppkit.h"
#include "ppkit/core/compare.hpp"
#include "ppkit/core/device_memory.hpp"
#include "ppkit/core/embedding_compare.hpp"
#include "ppkit/fem/assemble.hpp"
#include "ppkit/fem/assembler.hpp"
#include "ppkit/fem/assembly_checks.hpp"
#include "ppkit_fem.h"

namespace ppkit::fem {
namespace {

int box_edge(ProblemSize size) {
  switch (size) {
    case ProblemSize::quick:
      return 8;
    case ProblemSize::standard:
      return 32;
    case ProblemSize::large:
      return 64;
  }
  return 8;
}

// The preferred available variant of each backend, among the selected ones.
std::vector<const Variant<FemAssemble>*> variants_to_measure(const CompareContext& ctx) {
  std::map<std::string, const Variant<FemAssemble>*> best;
  for (const auto& v : Registry<FemAssemble>::all()) {
    if (!ctx.variant_selected(v.name) || !v.availability().available) continue;
    const auto* b = best[v.backend];
    if (!b || b->preference < v.preference) best[v.backend] = &v;
  }
  std::vector<const Variant<FemAssemble>*> out;
  for (const auto& [backend, v] : best) out.push_back(v);
  return out;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// n NaNs at p in `where` (so an entry an API leaves unwritten fails the check).
void poison(const DataLocation& where, double* p, std::size_t n) {
  const std::vector<double> nan(n, kNaN);
  copy_to(where, p, nan.data(), n * sizeof(double));
}

std::vector<double> fetch(const DataLocation& where, const double* p, std::size_t n) {
  std::vector<double> host(n);
  copy_from(where, host.data(), p, n * sizeof(double));
  return host;
}

// Assembles `result` through `api` once (checked by the caller), then times
// it; *pattern_differs: the CSR pattern the one-shot call returned is not the
// problem's (the other APIs use the problem's or the operator's, which
// tests/fem/test_assembler.cpp compares with it).
TimingSummary measure(CompareContext& ctx, const std::string& api, const Variant<FemAssemble>& v,
                      const AssemblyProblem& p, AssemblyResult& result, bool* pattern_differs) {
  const std::size_t nnz = std::size_t(p.pattern.num_nonzeros()),
                    rows = std::size_t(p.pattern.num_rows);
  const Material& m = p.material;
  const int repeats = ctx.options().repeats;
  if (api == "registry") {
    auto run = v.prepare(p);
    run->run();
    result = run->result();
    return time_calls([&] { run->run(); }, repeats);
  }
  const AssemblerMesh mesh{p.mesh.num_nodes(), p.mesh.coordinates.data(), p.mesh.num_elements(),
                           p.mesh.elements.data()};
  if (api == "cpp-operator") {
    AssemblerOptions o;
    o.variant = v.name;
    const Assembler op(mesh, o);
    const DataLocation where = op.memory();
    ArrayIn<double> values(where, nnz), load(where, rows);
    poison(where, values.data(), nnz);
    poison(where, load.data(), rows);
    auto call = [&] {
      op.assemble(m.youngs_modulus, m.poisson_ratio, m.body_force, values.data(), load.data());
      op.wait();
    };
    call();
    result = {fetch(where, values.data(), nnz), fetch(where, load.data(), rows)};
    return time_calls(call, repeats);
  }
  if (api == "c-handle") {
    const ppkit_fem_mesh c_mesh{mesh.num_nodes, mesh.coordinates, mesh.num_elements,
                                mesh.connectivity};
    ppkit_fem_assembler_handle h = nullptr;
    require(ppkit_fem_assembler_create(&c_mesh, v.name.c_str(), &h) == 0, ppkit_last_error());
    try {
      int kind = 0, device = -1;
      require(ppkit_fem_assembler_info(h, &kind, &device, nullptr, 0) == 0, ppkit_last_error());
      const DataLocation where{MemoryKind(kind), device};  // 0 host, 1 CUDA, 2 HIP
      ArrayIn<double> values(where, nnz), load(where, rows);
      poison(where, values.data(), nnz);
      poison(where, load.data(), rows);
      auto call = [&] {
        if (ppkit_fem_assembler_assemble(h, m.youngs_modulus, m.poisson_ratio, m.body_force.data(),
                                         values.data(), load.data(), PPKIT_MEM_DEVICE,
                                         nullptr) != 0 ||
            ppkit_fem_assembler_wait(h, nullptr) != 0)
          throw Error(ppkit_last_error());
      };
      call();
      result = {fetch(where, values.data(), nnz), fetch(where, load.data(), rows)};
      const TimingSummary t = time_calls(call, repeats);
      ppkit_fem_assembler_destroy(h);
      return t;
    } catch (...) {
      ppkit_fem_assembler_destroy(h);
      throw;
    }
  }
  // c-oneshot: host arrays; the pattern, the variant's set-up and the copies every call.
  std::vector<std::int64_t> offsets(rows + 1, -1);
  std::vector<std::int32_t> columns(nnz, -1);
  result.values.assign(nnz, kNaN);
  result.load.assign(rows, kNaN);
  auto call = [&] {
    if (ppkit_fem_assemble(mesh.num_nodes, mesh.coordinates, mesh.num_elements, mesh.connectivity,
                           m.youngs_modulus, m.poisson_ratio, m.body_force.data(), v.name.c_str(),
                           offsets.data(), columns.data(), result.values.data(),
                           result.load.data()) != 0)
      throw Error(ppkit_last_error());
  };
  call();
  *pattern_differs = offsets != p.pattern.row_offsets || columns != p.pattern.column_indices;
  return time_calls(call, repeats);
}

std::vector<CompareRow> run_case(CompareContext& ctx, int edge) {
  BoxMeshSpec spec;
  spec.elements = {edge, edge, edge};
  spec.perturbation = 0.15;
  spec.seed = 2019;
  const Material material{2.0e11, 0.3, {0.0, 0.0, -7850 * 9.81}};  // steel under gravity
  const AssemblyProblem p = make_assembly_problem(make_box_mesh(spec), material);
  const auto verification = assembly_verification(p, true, 0, 2019u + unsigned(edge));
  std::vector<CompareRow> rows;
  for (const auto* v : variants_to_measure(ctx)) {
    double registry_time = std::nan("");
    for (const char* api : kEmbeddingApis) {
      CompareRow row;
      row.workload = "embedding";
      row.case_name = fmt::format("fem assemble E={} via {}", p.mesh.num_elements(), api);
      row.size = fmt::format("{} DOF", p.mesh.num_dofs());
      row.variant = v->name;
      row.backend = v->backend;
      row.device = v->device();
      row.throughput_unit = "elements/s";
      row.tolerance = verification.tolerance;
      row.extra["api"] = api;
      ctx.on_progress(row.case_name + " " + row.variant);
      try {
        AssemblyResult result;
        bool pattern_differs = false;
        row.timing = measure(ctx, api, *v, p, result, &pattern_differs);
        row.error = pattern_differs ? kNaN : verification.check(*v, result, row);
        finish_embedding_row(row, double(p.mesh.num_elements()), &registry_time);
        if (pattern_differs) row.message = "the CSR pattern differs from the mesh's";
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
  auto box = run_case(ctx, box_edge(ctx.options().size));
  rows.insert(rows.end(), box.begin(), box.end());
  return rows;
}

int count_embedding(const CompareContext& ctx) {
  return int(2 * std::size(kEmbeddingApis) * variants_to_measure(ctx).size());
}

}  // namespace
}  // namespace ppkit::fem

namespace ppkit::registration {
void register_fem_embedding_rows() {
  register_embedding_rows({"fem", ppkit::fem::count_embedding, ppkit::fem::run_embedding});
}
}  // namespace ppkit::registration
