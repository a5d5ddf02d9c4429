// kokkos-<space>/two-kernel: strategy (e). Kernel 1 writes the inverse
// Jacobian and |J| w of every Gauss point of every element to global memory
// (10 doubles per point); kernel 2 gives each element 576 threads, one per
// entry, row-major, each integrating its entry over the Gauss points and
// adding it; the 24 threads of column 0 also add the body-force entry.
#include "ppkit/fem/assemble_kokkos.hpp"

namespace ppkit::fem::kokkos_assembly {
namespace {

template <class Space>
struct EntryKernel {  // one thread per element stiffness entry
  DeviceAssembly<Space> d;
  Kokkos::View<const double*, typename Space::memory_space> geometry;
  std::int64_t first;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t t) const {
    const std::int64_t e = first + t / 576;
    const int row = int(t % 576) / 24, column = int(t % 24);
    const int a = row / 3, i = row % 3, b = column / 3, j = column % 3;
    double K = 0, f = 0;
    for (int q = 0; q < 8; ++q) {
      const double* inv = &geometry(10 * (8 * e + q));
      double ga[3], gb[3];
      for (int c = 0; c < 3; ++c) {
        ga[c] = inv[3 * c] * d.dN(q, a, 0) + inv[3 * c + 1] * d.dN(q, a, 1) +
                inv[3 * c + 2] * d.dN(q, a, 2);
        gb[c] = inv[3 * c] * d.dN(q, b, 0) + inv[3 * c + 1] * d.dN(q, b, 1) +
                inv[3 * c + 2] * d.dN(q, b, 2);
      }
      // Components by selects: i and j differ between threads, and indexing
      // ga / gb with them would put both arrays in local memory (a store and
      // a load through L1 and L2 per component).
      const double gai = i == 0 ? ga[0] : (i == 1 ? ga[1] : ga[2]);
      const double gaj = j == 0 ? ga[0] : (j == 1 ? ga[1] : ga[2]);
      const double gbi = i == 0 ? gb[0] : (i == 1 ? gb[1] : gb[2]);
      const double gbj = j == 0 ? gb[0] : (j == 1 ? gb[1] : gb[2]);
      const double s = inv[9];
      K += s * (d.lambda * gai * gbj + d.mu * gaj * gbi +
                (i == j ? d.mu * (ga[0] * gb[0] + ga[1] * gb[1] + ga[2] * gb[2]) : 0.0));
      f += d.shape_values(8 * q + a) * s;
    }
    const std::int32_t node = d.nodes(8 * e + a);
    d.values(d.block_positions(64 * e + 8 * a + b) + i * d.row_length(node) + j) += K;
    if (column == 0) d.load(3 * std::int64_t(node) + i) += f * d.body(i);
  }
};

template <class Space>
class TwoKernelRun final : public KokkosAssemblyRun<Space> {
 public:
  explicit TwoKernelRun(const AssemblyProblem& p)
      : KokkosAssemblyRun<Space>(p, canonical_block_order()),
        geometry_("fem Gauss-point geometry", 80 * std::size_t(p.coloured.num_elements())) {}

 private:
  void before_colours(const Space& exec) override {
    GaussGeometryKernel<Space>::launch("fem two-kernel geometry", this->d_, geometry_,
                                       GeometryLayout::point_major, exec);
  }
  void assemble_colour(const Space& exec, std::int64_t first, std::int64_t count) override {
    Kokkos::parallel_for("fem two-kernel entries", Kokkos::RangePolicy<Space>(exec, 0, 576 * count),
                         EntryKernel<Space>{this->d_, geometry_, first});
  }
  Kokkos::View<double*, typename Space::memory_space> geometry_;
};

}  // namespace

void register_two_kernel() { register_kokkos_run<TwoKernelRun>("two-kernel", 20); }

}  // namespace ppkit::fem::kokkos_assembly
