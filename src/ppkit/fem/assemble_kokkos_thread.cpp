// kokkos-<space>/thread-per-element: strategy (a), the established baseline
// (Cecka, Lew & Darve 2011): one thread integrates a whole element, the 24x24
// Ke in thread-local memory, outer loop over the Gauss points, then adds Ke
// through the 64 CSR block positions.
#include "ppkit/fem/assemble_kokkos.hpp"

namespace ppkit::fem::kokkos_assembly {
namespace {

template <class Space>
struct ThreadPerElementKernel {
  DeviceAssembly<Space> d;
  std::int64_t first;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const {
    const std::int64_t e = first + k;
    double x[24], Ke[576], fe[24];
    for (int m = 0; m < 24; ++m) {
      x[m] = d.coordinates(24 * e + m);
      fe[m] = 0;
    }
    for (int m = 0; m < 576; ++m) Ke[m] = 0;
    for (int q = 0; q < 8; ++q) {
      double J[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
      for (int a = 0; a < 8; ++a)
        for (int kk = 0; kk < 3; ++kk)
          for (int i = 0; i < 3; ++i) J[3 * kk + i] += d.dN(q, a, kk) * x[3 * a + i];
      double inv[9];
      const double s = invert3(J, inv) * kGaussWeight;
      double g[24];
      for (int a = 0; a < 8; ++a)
        for (int i = 0; i < 3; ++i)
          g[3 * a + i] = inv[3 * i] * d.dN(q, a, 0) + inv[3 * i + 1] * d.dN(q, a, 1) +
                         inv[3 * i + 2] * d.dN(q, a, 2);
      for (int a = 0; a < 8; ++a)
        for (int b = 0; b < 8; ++b) {
          const double* ga = g + 3 * a;
          const double* gb = g + 3 * b;
          const double dot = ga[0] * gb[0] + ga[1] * gb[1] + ga[2] * gb[2];
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
              Ke[24 * (3 * a + i) + 3 * b + j] +=
                  s *
                  (d.lambda * ga[i] * gb[j] + d.mu * ga[j] * gb[i] + (i == j ? d.mu * dot : 0.0));
        }
      for (int a = 0; a < 8; ++a)
        for (int i = 0; i < 3; ++i) fe[3 * a + i] += d.shape_values(8 * q + a) * s * d.body(i);
    }
    for (int a = 0; a < 8; ++a) {
      const std::int32_t node = d.nodes(8 * e + a);
      const std::int64_t stride = d.row_length(node);
      for (int b = 0; b < 8; ++b) {
        const std::int64_t base = d.block_positions(64 * e + 8 * a + b);
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            d.values(base + i * stride + j) += Ke[24 * (3 * a + i) + 3 * b + j];
      }
      for (int i = 0; i < 3; ++i) d.load(3 * std::int64_t(node) + i) += fe[3 * a + i];
    }
  }
};

template <class Space>
class ThreadPerElementRun final : public KokkosAssemblyRun<Space> {
 public:
  explicit ThreadPerElementRun(const AssemblyProblem& p)
      : KokkosAssemblyRun<Space>(p, canonical_block_order()) {}

 private:
  void assemble_colour(const Space& exec, std::int64_t first, std::int64_t count) override {
    Kokkos::parallel_for("fem thread-per-element", Kokkos::RangePolicy<Space>(exec, 0, count),
                         ThreadPerElementKernel<Space>{this->d_, first});
  }
};

}  // namespace

std::array<int, 64> canonical_block_order() {
  std::array<int, 64> order{};
  for (int s = 0; s < 64; ++s) order[s] = s;
  return order;
}

void register_thread_per_element() {
  // The baseline of the strategy comparison (Kiran et al.'s speedups are over it).
  register_kokkos_run<ThreadPerElementRun>("thread-per-element", 0, 0, VariantRole::baseline);
}

}  // namespace ppkit::fem::kokkos_assembly

namespace ppkit::registration {
void register_fem_kokkos_variants() {
  using namespace ppkit::fem::kokkos_assembly;
  register_thread_per_element();
  register_team_gauss_loop();
  register_ppni();
  register_two_kernel();
  register_factored();
  register_tiled();
  register_node_gather();
  register_cluster_gather();
}
}  // namespace ppkit::registration
