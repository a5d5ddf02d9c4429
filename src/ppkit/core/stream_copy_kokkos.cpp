// kokkos-<space>/deep-copy: Kokkos::deep_copy between two Views of one space.
#include <Kokkos_Core.hpp>

#include "ppkit/core/kokkos_spaces.hpp"
#include "ppkit/core/stream_copy.hpp"

namespace ppkit {
namespace {

template <class ExecSpace>
class KokkosDeepCopy final : public PreparedRun<StreamCopy::Result> {
  using View = Kokkos::View<double*, typename ExecSpace::memory_space>;

 public:
  explicit KokkosDeepCopy(const StreamCopy::Problem& p)
      : source_("source", p.source.size()), destination_("destination", p.source.size()) {
    Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(
        p.source.data(), p.source.size());
    Kokkos::deep_copy(source_, host);
    Kokkos::deep_copy(destination_, -1.0);  // poison
  }
  void run() override {
    Kokkos::deep_copy(ExecSpace(), destination_, source_);
    ExecSpace().fence();
  }
  StreamCopy::Result result() override {
    StreamCopy::Result out(destination_.extent(0));
    Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(
        out.data(), out.size());
    Kokkos::deep_copy(host, destination_);
    return out;
  }

 private:
  View source_, destination_;
};

}  // namespace

namespace registration {
void register_core_kokkos_variants() {
  for_each_kokkos_space([](auto space) {
    using Exec = typename decltype(space)::execution_space;
    auto v = kokkos_variant<StreamCopy>(space, "deep-copy", 0);
    v.prepare = [](const StreamCopy::Problem& p) {
      return std::make_unique<KokkosDeepCopy<Exec>>(p);
    };
    Registry<StreamCopy>::add(std::move(v));
  });
}
}  // namespace registration
}  // namespace ppkit
