// `ppkit compare --workloads fem` on a scrambled box (make_scrambled_box_mesh:
// graded, twisted, nodes and elements renumbered, element node orders
// rotated): every CPU variant verifies against the full serial reference, and
// every passing row carries its set-up beside its timing, consistently, in
// the row and in the JSON and CSV reports. `ppkit compare --workloads
// embedding --quick`: the FEM rows (assembly through each embedding API) and
// the SEM rows of the same workload pass against the serial references, with
// the overhead figures of each row and the progress count of the workload.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <set>

#include "fem_test_problems.hpp"
#include "harness/variant_test.hpp"
#include "ppkit/core/results.hpp"
#include "ppkit/fem/assembly_checks.hpp"

namespace ppkit::fem {
namespace {

AssemblyProblem scrambled_problem(std::array<int, 3> n, unsigned seed) {
  std::mt19937_64 rng(seed);
  BoxMeshSpec spec;
  spec.elements = n;
  spec.size = {1.3, 0.9, 1.1};
  spec.perturbation = 0.15;
  spec.seed = seed;
  return make_assembly_problem(make_scrambled_box_mesh(spec), inputs::random_material(rng));
}

double number(const CompareRow& row, const char* key) {
  const auto it = row.extra.find(key);
  return it != row.extra.end() && it->is_number() ? it->get<double>() : std::nan("");
}

TEST(FemCompare, ScrambledBoxRowsVerifyAndCarryTheirSetUp) {
  const unsigned seed = ppkit::testing::test_seed();
  const auto problem = scrambled_problem({4, 3, 5}, seed);
  CompareOptions options;
  options.repeats = 2;
  options.variant_glob = "kokkos-*";
  options.measure_bandwidth = false;
  CompareContext ctx(options);
  const auto rows = compare_assembly_case(ctx, problem, "scrambled box 4x3x5", true, seed);
  std::size_t cpu_variants = 0;
  for (const auto& v : Registry<FemAssemble>::all())
    if (v.model == ProgrammingModel::kokkos) ++cpu_variants;
  ASSERT_GT(cpu_variants, 0u);
  ASSERT_EQ(rows.size(), cpu_variants);
  const std::string csv = results_csv(rows);
  for (const auto& row : rows) {
    SCOPED_TRACE(row.variant);
    EXPECT_EQ(row.status, "PASS") << row.message << " error " << row.error;
    EXPECT_LE(row.error, 1e-12);
    EXPECT_EQ(row.extra.value("verified_against", std::string()), "serial reference (full)");
    const double prepare = number(row, "prepare_s"), first = number(row, "first_run_s");
    const double total_1 = number(row, "total_1_s"), total_10 = number(row, "total_10_s");
    EXPECT_GE(prepare, 0);
    EXPECT_GT(first, 0);
    EXPECT_GE(total_1, prepare);
    EXPECT_GE(total_10, total_1);
    EXPECT_DOUBLE_EQ(total_1, prepare + first);
    EXPECT_NEAR(total_10, total_1 + 9 * row.timing.median_s, 1e-12 * total_10);
    const auto json = to_json(row);
    EXPECT_DOUBLE_EQ(json["extra"]["prepare_s"].get<double>(), prepare);
    EXPECT_DOUBLE_EQ(json["extra"]["total_10_s"].get<double>(), total_10);
    EXPECT_NE(csv.find(fmt::format(",{:.6g},{:.6g},{:.6g}\n", prepare, total_1, total_10)),
              std::string::npos);
  }
}

const Workload& workload_named(const std::string& name) {
  for (const auto& w : workloads())
    if (w.name == name) return w;
  throw Error("no workload " + name);
}

TEST(FemCompare, EmbeddingRowsOfEveryApiPassAtQuickSize) {
  CompareOptions options;
  options.size = ProblemSize::quick;
  options.repeats = 2;
  options.variant_glob = "kokkos-*";
  options.measure_bandwidth = false;
  CompareContext ctx(options);
  const Workload& embedding = workload_named("embedding");
  const int expected = embedding.count_cases(ctx);
  const auto rows = embedding.run(ctx);
  EXPECT_EQ(int(rows.size()), expected);  // the progress count is the rows' number
  std::set<std::string> kokkos_backends;  // each gets its preferred available variant
  for (const auto& v : Registry<FemAssemble>::all())
    if (v.model == ProgrammingModel::kokkos && v.availability().available)
      kokkos_backends.insert(v.backend);
  ASSERT_FALSE(kokkos_backends.empty());
  const std::vector<std::string> apis = {"registry", "cpp-operator", "c-handle", "c-oneshot"};
  std::map<std::string, int> fem_rows_per_api;
  std::size_t sem_rows = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const CompareRow& row = rows[i];
    SCOPED_TRACE(row.case_name + " " + row.variant);
    EXPECT_EQ(row.workload, "embedding");
    EXPECT_EQ(row.status, "PASS") << row.message << " error " << row.error;
    EXPECT_LE(row.error, 1e-12);
    const std::string api = row.extra.value("api", std::string());
    ASSERT_NE(std::find(apis.begin(), apis.end(), api), apis.end()) << api;
    EXPECT_NE(row.case_name.find("via " + api), std::string::npos);
    if (row.case_name.rfind("fem assemble", 0) != 0) {
      ++sem_rows;
      continue;
    }
    ++fem_rows_per_api[api];
    EXPECT_EQ(row.extra.value("verified_against", std::string()), "serial reference (full)");
    EXPECT_GT(row.throughput, 0);
    // The rows of one case and variant come registry first: every row's
    // figures are over that row's time.
    const std::size_t first =
        i - std::size_t(std::find(apis.begin(), apis.end(), api) - apis.begin());
    const CompareRow& registry = rows[first];
    ASSERT_EQ(registry.extra.value("api", std::string()), "registry");
    EXPECT_EQ(registry.variant, row.variant);
    const double t = row.timing.median_s, t0 = registry.timing.median_s;
    EXPECT_NEAR(row.speedup, t0 / t, 1e-12 * t0 / t);
    EXPECT_NEAR(number(row, "overhead"), t / t0 - 1, 1e-12);
    EXPECT_NEAR(number(row, "overhead_us"), (t - t0) * 1e6, 1e-9);
  }
  // Two cases (1 element and the 8^3 box) per backend.
  for (const auto& api : apis)
    EXPECT_EQ(fem_rows_per_api[api], int(2 * kokkos_backends.size())) << api;
  EXPECT_GT(sem_rows, 0u);
}

// "auto" on host spaces: node-gather, the fastest CPU variant on the box and
// on the scrambled box (docs/fem.md, "General meshes and set-up"); every
// host variant ranks below every device variant, so a build with a GPU space
// picks a GPU variant.
TEST(FemCompare, AutoPicksNodeGatherOnTheHostAndDevicesFirst) {
  auto on_host = [](const Variant<FemAssemble>& v) { return v.memory == MemoryKind::host; };
  const Variant<FemAssemble>* best_host = nullptr;
  const Variant<FemAssemble>* lowest_device = nullptr;
  for (const auto& v : Registry<FemAssemble>::all()) {
    if (on_host(v)) {
      if (!best_host || best_host->preference < v.preference) best_host = &v;
    } else if (!lowest_device || v.preference < lowest_device->preference) {
      lowest_device = &v;
    }
  }
  ASSERT_NE(best_host, nullptr);
  EXPECT_EQ(best_host->strategy, "node-gather");
  if (lowest_device) {
    EXPECT_TRUE(best_host->preference < lowest_device->preference);
  }
  const auto& chosen = Registry<FemAssemble>::find("auto");
  if (on_host(chosen)) {
    EXPECT_EQ(chosen.strategy, "node-gather");
  }
}

}  // namespace
}  // namespace ppkit::fem
