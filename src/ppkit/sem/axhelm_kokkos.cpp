// kokkos-<space>/stored and kokkos-<space>/trilinear variants of sem.axhelm.
#include <limits>

#include "ppkit/core/kokkos_spaces.hpp"
#include "ppkit/sem/axhelm_kokkos.hpp"

namespace ppkit::sem {
namespace {

template <class Exec>
class KokkosAxhelm final : public PreparedRun<SemAxhelm::Result> {
  using Mem = typename Exec::memory_space;

 public:
  KokkosAxhelm(const AxhelmProblem& p, bool recompute)
      : mesh_(upload_axhelm_mesh<Mem>(p, recompute)),
        x_(to_device<double, Mem>(p.x, "sem::x")),
        y_("sem::y", p.x.size()) {
    Kokkos::deep_copy(y_, std::numeric_limits<double>::quiet_NaN());  // poison
  }
  void run() override {
    apply_axhelm<Exec>(mesh_, x_, y_);
    Exec().fence();
  }
  SemAxhelm::Result result() override { return to_host(y_); }

 private:
  AxhelmDeviceMesh<Mem> mesh_;
  Kokkos::View<double*, Mem> x_, y_;
};

}  // namespace
}  // namespace ppkit::sem

namespace ppkit::registration {
void register_sem_kokkos_variants() {
  using namespace ppkit::sem;
  for_each_kokkos_space([](auto space) {
    using Exec = typename decltype(space)::execution_space;
    auto stored = kokkos_variant<SemAxhelm>(space, "stored", 1);
    stored.prepare = [](const AxhelmProblem& p) {
      return std::make_unique<KokkosAxhelm<Exec>>(p, false);
    };
    Registry<SemAxhelm>::add(std::move(stored));
    auto trilinear = kokkos_variant<SemAxhelm>(space, "trilinear", 2);
    trilinear.prepare = [](const AxhelmProblem& p) {
      return std::make_unique<KokkosAxhelm<Exec>>(p, true);
    };
    Registry<SemAxhelm>::add(std::move(trilinear));
  });
}
}  // namespace ppkit::registration
