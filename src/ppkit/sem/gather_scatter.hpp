#pragma once
// Gather-scatter (direct stiffness summation, Deville, Fischer & Mund 2002,
// section 4.5): u_local <- Q Q^T u_local, every local copy of a global node
// receives the sum over all its copies. The plan groups the local indices of
// each global node (a counting sort of the global ids, built once on the host);
// the Kokkos kernel runs one thread per global node, so no atomics are needed.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

#include "ppkit/sem/kokkos_views.hpp"

namespace ppkit::sem {

struct GatherScatterPlanHost {
  std::int64_t global_count = 0;
  std::vector<std::int64_t> offsets;  // [G + 1]: local copies of node g are locals[offsets[g]..]
  std::vector<std::int64_t> locals;   // [L]
};
// Throws ppkit::Error if a global id is outside 0..global_count-1.
GatherScatterPlanHost make_gather_scatter_plan(const std::vector<std::int64_t>& global_ids,
                                               std::int64_t global_count);
// 1 for the global nodes off the Dirichlet boundary, 0 for those on it (a
// global node is on it when any of its local copies is flagged in `boundary`).
std::vector<std::uint8_t> interior_global_nodes(const std::vector<std::int64_t>& global_ids,
                                                std::int64_t global_count,
                                                const std::vector<std::uint8_t>& boundary);
// Throws ppkit::Error when `local_count` local nodes do not fit the 32-bit
// indices of the device plan.
void require_32bit_gather_scatter(std::size_t local_count);
// The index of the assembled operator (AxhelmKernelArgs::global_of_local,
// GatheredInput, AssembledOutput): per local node its global node, 32-bit.
// Throws as require_32bit_gather_scatter does, or for a global id outside
// 0..global_count-1.
std::vector<std::int32_t> assembled_operator_index(const std::vector<std::int64_t>& global_ids,
                                                   std::int64_t global_count);
// Serial reference: the same sum through a dense global vector.
std::vector<double> dssum_reference(const std::vector<std::int64_t>& global_ids,
                                    std::int64_t global_count, const std::vector<double>& u);

// The device plan holds 32-bit indices: the gather-scatter's index traffic
// (per local node its number, per global node two offsets) is half that of
// 64-bit ones. 2^31 local nodes of one rank would be 17 GB per vector, more
// than a GPU holds for Nekbone's eight vectors.
template <class MemSpace>
struct GatherScatterPlan {
  std::int64_t global_count = 0;
  Kokkos::View<std::int32_t*, MemSpace> offsets, locals;
};

template <class MemSpace>
GatherScatterPlan<MemSpace> upload_gather_scatter_plan(const GatherScatterPlanHost& host) {
  require_32bit_gather_scatter(host.locals.size());
  GatherScatterPlan<MemSpace> plan;
  plan.global_count = host.global_count;
  const std::vector<std::int32_t> offsets(host.offsets.begin(), host.offsets.end()),
      locals(host.locals.begin(), host.locals.end());
  plan.offsets = to_device<std::int32_t, MemSpace>(offsets, "sem::gs_offsets");
  plan.locals = to_device<std::int32_t, MemSpace>(locals, "sem::gs_locals");
  return plan;
}

// u <- Q Q^T u (in place).
template <class Exec>
void dssum(const GatherScatterPlan<typename Exec::memory_space>& plan,
           const Kokkos::View<double*, typename Exec::memory_space>& u) {
  const auto offsets = plan.offsets;
  const auto locals = plan.locals;
  Kokkos::parallel_for(
      "ppkit::sem::dssum", Kokkos::RangePolicy<Exec>(0, plan.global_count),
      KOKKOS_LAMBDA(const std::int64_t g) {
        double sum = 0;
        for (std::int32_t a = offsets(g); a < offsets(g + 1); ++a) sum += u(locals(a));
        for (std::int32_t a = offsets(g); a < offsets(g + 1); ++a) u(locals(a)) = sum;
      });
}

// global <- Q^T local (sum of the copies) and local <- Q global (copy out).
template <class Exec>
void gather(const GatherScatterPlan<typename Exec::memory_space>& plan,
            const Kokkos::View<const double*, typename Exec::memory_space>& local,
            const Kokkos::View<double*, typename Exec::memory_space>& global) {
  const auto offsets = plan.offsets;
  const auto locals = plan.locals;
  Kokkos::parallel_for(
      "ppkit::sem::gather", Kokkos::RangePolicy<Exec>(0, plan.global_count),
      KOKKOS_LAMBDA(const std::int64_t g) {
        double sum = 0;
        for (std::int32_t a = offsets(g); a < offsets(g + 1); ++a) sum += local(locals(a));
        global(g) = sum;
      });
}
template <class Exec>
void scatter(const GatherScatterPlan<typename Exec::memory_space>& plan,
             const Kokkos::View<const double*, typename Exec::memory_space>& global,
             const Kokkos::View<double*, typename Exec::memory_space>& local) {
  const auto offsets = plan.offsets;
  const auto locals = plan.locals;
  Kokkos::parallel_for(
      "ppkit::sem::scatter", Kokkos::RangePolicy<Exec>(0, plan.global_count),
      KOKKOS_LAMBDA(const std::int64_t g) {
        for (std::int32_t a = offsets(g); a < offsets(g + 1); ++a) local(locals(a)) = global(g);
      });
}

}  // namespace ppkit::sem
