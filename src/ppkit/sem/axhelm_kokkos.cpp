// kokkos-<space>/stored and kokkos-<space>/trilinear variants of sem.axhelm.
#include <limits>

#include "ppkit/core/kokkos_instances.hpp"
#include "ppkit/core/kokkos_spaces.hpp"
#include "ppkit/sem/axhelm_kokkos.hpp"

namespace ppkit::sem {
namespace {

template <class Exec>
class KokkosAxhelm final : public PreparedRun<SemAxhelm::Result>, public AxhelmApplier {
  using Mem = typename Exec::memory_space;
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;

 public:
  // An empty p.x prepares an operator (AxhelmApplier): no x or y is allocated.
  KokkosAxhelm(const AxhelmProblem& p, bool recompute)
      : mesh_(upload_axhelm_mesh<Mem>(p, recompute)),
        x_(to_device<double, Mem>(p.x, "sem::x")),
        y_("sem::y", p.x.size()) {
    Kokkos::deep_copy(y_, std::numeric_limits<double>::quiet_NaN());  // poison
    Exec().fence();
  }
  void run() override {
    require(x_.extent(0) > 0, operator_only_run);
    apply_axhelm<Exec>(mesh_, x_, y_);
    Exec().fence();
  }
  SemAxhelm::Result result() override { return to_host(y_); }

  void apply(const double* x, double* y, double lambda0, double lambda1, void* stream) override {
    const std::size_t n = std::size_t(mesh_.ncol) * mesh_.field_stride();
    AxhelmDeviceMesh<Mem> m = mesh_;  // Views are shared: only the lambdas change
    if (m.helmholtz) {
      m.lambda0 = lambda0;
      m.lambda1 = lambda1;
    }
    apply_axhelm<Exec>(m, Kokkos::View<const double*, Mem, Unmanaged>(x, n),
                       Kokkos::View<double*, Mem, Unmanaged>(y, n), instances_.on(stream));
  }
  void wait(void* stream) override { instances_.on(stream).fence(); }
  DataLocation memory() const override { return kokkos_data_location<Exec>(); }

 private:
  AxhelmDeviceMesh<Mem> mesh_;
  Kokkos::View<double*, Mem> x_, y_;
  StreamInstance<Exec> instances_;
};

}  // namespace
}  // namespace ppkit::sem

namespace ppkit::registration {
void register_sem_kokkos_variants() {
  using namespace ppkit::sem;
  for_each_kokkos_space([](auto space) {
    using Exec = typename decltype(space)::execution_space;
    // stored: the nekRS baseline the recompute speedups are over.
    auto stored = kokkos_variant<SemAxhelm>(space, "stored", 1);
    stored.role = VariantRole::baseline;
    stored.prepare = [](const AxhelmProblem& p) {
      return std::make_unique<KokkosAxhelm<Exec>>(p, false);
    };
    Registry<SemAxhelm>::add(std::move(stored));
    auto trilinear = kokkos_variant<SemAxhelm>(space, "trilinear", 2);
    trilinear.traits.geometry = GeometryCost::recompute;
    trilinear.prepare = [](const AxhelmProblem& p) {
      return std::make_unique<KokkosAxhelm<Exec>>(p, true);
    };
    Registry<SemAxhelm>::add(std::move(trilinear));
  });
}
}  // namespace ppkit::registration
