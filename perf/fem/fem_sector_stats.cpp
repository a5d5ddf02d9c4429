// ppkit_fem_sector_stats: the 32-byte sectors that strategy (f)'s atomic adds
// touch (factored-atomic and factored-atomic-runs, ke_entry_order.hpp), from
// the layout alone (host, no GPU), on the benchmark's box and on the
// scrambled box (make_scrambled_box_mesh: nodes and elements renumbered at
// random, element node orders rotated, graded and twisted): per element, the
// sum over the warp's add instructions of the distinct sectors each touches
// (the L2 reduction sectors the SMs issue, Nsight Compute's
// lts__t_sectors_srcunit_tex_op_red.sum), with the CSR values 32-byte
// aligned. docs/fem.md, "General meshes", quotes it:
//
//   ppkit_fem_sector_stats 64
//   ppkit_fem_sector_stats 64 --scrambled 1
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "ppkit/fem/factored_layout.hpp"
#include "ppkit/fem/ke_entry_order.hpp"

namespace {

int usage(const char* message) {
  std::fprintf(stderr,
               "ppkit_fem_sector_stats: %s\n"
               "usage: ppkit_fem_sector_stats N [--scrambled 0|1]\n"
               "  N: elements per side of the box (1..256)\n",
               message);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ppkit::fem;
  if (argc < 2) return usage("missing N");
  const int n = std::atoi(argv[1]);
  if (n < 1 || n > 256) return usage("N is out of range");
  bool scrambled = false;
  for (int k = 2; k < argc; k += 2) {
    if (k + 1 >= argc) return usage((std::string("missing the value of ") + argv[k]).c_str());
    if (std::string(argv[k]) == "--scrambled")
      scrambled = std::atoi(argv[k + 1]) != 0;
    else
      return usage((std::string("unknown option ") + argv[k]).c_str());
  }
  try {
    BoxMeshSpec spec;
    spec.elements = {n, n, n};
    spec.perturbation = 0.15;
    spec.seed = 2019;
    const AssemblyProblem problem = make_assembly_problem(
        scrambled ? make_scrambled_box_mesh(spec) : make_box_mesh(spec), Material{});
    const FactoredLayout L = make_factored_layout(problem, FactoredOrder::morton_atomic);
    const auto& offsets = problem.pattern.row_offsets;
    std::printf("%sbox %d^3, %lld elements\n", scrambled ? "scrambled " : "", n,
                (long long)L.num_elements());
    for (const KeEntryOrder order : {KeEntryOrder::row_major, KeEntryOrder::node_pair_runs}) {
      long long sectors = 0;
      for (std::int64_t k = 0; k < L.num_elements(); ++k)
        for (int round = 0; round < ke_entry_rounds(order); ++round) {
          std::int64_t seen[32];
          int distinct = 0;
          for (int lane = 0; lane < 32; ++lane) {
            const KeEntry entry = ke_entry(order, round, lane);
            if (!entry.active) continue;
            const int a = entry.row / 3, i = entry.row % 3, b = entry.column / 3,
                      j = entry.column % 3;
            const std::int64_t position = offsets[3 * std::int64_t(L.nodes[8 * k + a]) + i] +
                                          L.column_offsets[64 * k + 8 * a + b] + j;
            const std::int64_t sector = position / 4;  // 4 doubles per 32-byte sector
            bool found = false;
            for (int s = 0; s < distinct && !found; ++s) found = seen[s] == sector;
            if (!found) seen[distinct++] = sector;
          }
          sectors += distinct;
        }
      std::printf("%-15s %2d instructions per element, %.1f sectors per element\n",
                  order == KeEntryOrder::row_major ? "row_major" : "node_pair_runs",
                  ke_entry_rounds(order), double(sectors) / double(L.num_elements()));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ppkit_fem_sector_stats: %s\n", e.what());
    return 1;
  }
  return 0;
}
