// kokkos-<space>/plain of fdtd.phasor_update: the fields are uploaded once in
// prepare(); run() resets the sums and takes `samples` samples of them through
// the kernel of phasor_kokkos.hpp.
#include <Kokkos_Core.hpp>

#include "ppkit/core/kokkos_spaces.hpp"
#include "ppkit/fdtd/phasor_kokkos.hpp"

namespace ppkit::fdtd {
namespace {

template <class Exec>
class KokkosPhasorUpdate final : public PreparedRun<FdtdPhasorUpdate::Result> {
  using Mem = typename Exec::memory_space;

 public:
  explicit KokkosPhasorUpdate(const FdtdPhasorUpdate::Problem& p)
      : problem_((validate(p), p)), phasors_(p.config, p.grid, p.first_step, p.samples) {
    std::array<const float*, 6> pointers{};
    for (int c = 0; c < 6; ++c) {
      const auto& host = p.fields[std::size_t(c)];
      fields_[c] = Kokkos::View<float*, Mem>("phasor field", host.size());
      Kokkos::deep_copy(
          fields_[c],
          Kokkos::View<const float*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
              host.data(), host.size()));
      pointers[std::size_t(c)] = fields_[c].data();
    }
    phasors_.set_fields(pointers);
    Exec().fence();
  }

  void run() override {
    phasors_.reset(problem_.initial);
    for (std::int64_t u = 0; u < problem_.samples; ++u) phasors_.accumulate(u);
    Exec().fence();
  }

  FdtdPhasorUpdate::Result result() override { return {phasors_.download()}; }

 private:
  FdtdPhasorUpdate::Problem problem_;
  KokkosPhasors<Exec> phasors_;
  Kokkos::View<float*, Mem> fields_[6];
};

}  // namespace
}  // namespace ppkit::fdtd

namespace ppkit::registration {
void register_fdtd_phasor_kokkos_variants() {
  for_each_kokkos_space([](auto space) {
    using Exec = typename decltype(space)::execution_space;
    // Rank 6: on a device space above OpenCL's 4 and 5 (same tier), below
    // CUDA (native tier). The baseline of the comparison.
    auto v = kokkos_variant<FdtdPhasorUpdate>(space, "plain", 6);
    v.role = VariantRole::baseline;
    v.prepare = [](const FdtdPhasorUpdate::Problem& p) {
      return std::make_unique<fdtd::KokkosPhasorUpdate<Exec>>(p);
    };
    Registry<FdtdPhasorUpdate>::add(std::move(v));
  });
}
}  // namespace ppkit::registration
