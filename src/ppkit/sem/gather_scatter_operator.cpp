// ppkit::sem::GatherScatter (axhelm_operator.hpp): the plan of
// gather_scatter.hpp on the Kokkos space of the caller's memory.
#include <fmt/format.h>

#include "ppkit/core/kokkos_instances.hpp"
#include "ppkit/sem/axhelm_operator.hpp"
#include "ppkit/sem/gather_scatter.hpp"

namespace ppkit::sem {

struct GatherScatter::Impl {
  virtual ~Impl() = default;
  virtual void dssum(double* u, void* stream) = 0;
  virtual void wait(void* stream) = 0;
  std::int64_t local_count = 0, global_count = 0;
  DataLocation memory;
};

namespace {
// u <- Q Q^T u, one global node per index (gather_scatter.hpp's dssum on a raw array).
template <class Mem>
struct DssumKernel {
  Kokkos::View<std::int32_t*, Mem> offsets, locals;
  using Values = Kokkos::View<double*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Values u;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t g) const {
    double sum = 0;
    for (std::int32_t a = offsets(g); a < offsets(g + 1); ++a) sum += u(locals(a));
    for (std::int32_t a = offsets(g); a < offsets(g + 1); ++a) u(locals(a)) = sum;
  }
};

template <class Exec>
struct KokkosGatherScatter final : GatherScatter::Impl {
  using Mem = typename Exec::memory_space;
  explicit KokkosGatherScatter(const GatherScatterPlanHost& host)
      : plan(upload_gather_scatter_plan<Mem>(host)) {}
  void dssum(double* u, void* stream) override {
    Kokkos::parallel_for(
        "ppkit::sem::dssum", Kokkos::RangePolicy<Exec>(instances.on(stream), 0, plan.global_count),
        DssumKernel<Mem>{plan.offsets, plan.locals,
                         typename DssumKernel<Mem>::Values(u, std::size_t(local_count))});
  }
  void wait(void* stream) override { instances.on(stream).fence(); }
  GatherScatterPlan<Mem> plan;
  StreamInstance<Exec> instances;
};
}  // namespace

GatherScatter::GatherScatter(const std::int64_t* global_ids, std::int64_t local_count,
                             std::int64_t global_count, const DataLocation& where) {
  require(Kokkos::is_initialized(), "Kokkos is not initialised",
          "create a ppkit::Runtime (or initialise Kokkos) before creating an operator");
  require(local_count > 0 && global_count > 0,
          fmt::format("{} local and {} global nodes", local_count, global_count),
          "at least one of each");
  require(global_ids != nullptr, "global_ids is NULL", "one global id per local node");
  const std::vector<std::int64_t> ids(global_ids, global_ids + local_count);
  const GatherScatterPlanHost host = make_gather_scatter_plan(ids, global_count);
  const bool found = with_kokkos_space_for(where, [&](auto exec) {
    impl_ = std::make_unique<KokkosGatherScatter<decltype(exec)>>(host);
  });
  require(found, "no Kokkos execution space of this build works on " + where.describe(),
          "a Kokkos built with the backend of that memory, or host memory");
  impl_->local_count = local_count;
  impl_->global_count = global_count;
  impl_->memory = where;
}

GatherScatter::~GatherScatter() = default;
GatherScatter::GatherScatter(GatherScatter&&) noexcept = default;
GatherScatter& GatherScatter::operator=(GatherScatter&&) noexcept = default;

void GatherScatter::dssum(double* u, void* stream) const {
  require(impl_ != nullptr, "this sem::GatherScatter was moved from", "a live one");
  check_pointer(u, std::size_t(impl_->local_count), impl_->memory, "u");
  impl_->dssum(u, stream);
}
void GatherScatter::wait(void* stream) const {
  require(impl_ != nullptr, "this sem::GatherScatter was moved from", "a live one");
  impl_->wait(stream);
}
std::int64_t GatherScatter::local_count() const { return impl_->local_count; }
std::int64_t GatherScatter::global_count() const { return impl_->global_count; }
DataLocation GatherScatter::memory() const { return impl_->memory; }

}  // namespace ppkit::sem
