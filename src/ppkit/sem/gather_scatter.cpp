#include "ppkit/sem/gather_scatter.hpp"

#include <fmt/format.h>

#include <limits>

#include "ppkit/core/error.hpp"

namespace ppkit::sem {

GatherScatterPlanHost make_gather_scatter_plan(const std::vector<std::int64_t>& global_ids,
                                               std::int64_t global_count) {
  GatherScatterPlanHost plan;
  plan.global_count = global_count;
  plan.offsets.assign(global_count + 1, 0);
  for (std::size_t l = 0; l < global_ids.size(); ++l) {
    const std::int64_t g = global_ids[l];
    require(g >= 0 && g < global_count, fmt::format("local node {} has global id {}", l, g),
            fmt::format("0..{}", global_count - 1));
    ++plan.offsets[g + 1];
  }
  for (std::int64_t g = 0; g < global_count; ++g) plan.offsets[g + 1] += plan.offsets[g];
  plan.locals.resize(global_ids.size());
  std::vector<std::int64_t> next(plan.offsets.begin(), plan.offsets.end() - 1);
  for (std::size_t l = 0; l < global_ids.size(); ++l) plan.locals[next[global_ids[l]]++] = l;
  return plan;
}

std::vector<std::uint8_t> interior_global_nodes(const std::vector<std::int64_t>& global_ids,
                                                std::int64_t global_count,
                                                const std::vector<std::uint8_t>& boundary) {
  require(boundary.size() == global_ids.size(),
          fmt::format("{} boundary flags for {} local nodes", boundary.size(), global_ids.size()),
          "one flag per local node");
  std::vector<std::uint8_t> interior(global_count, 1);
  for (std::size_t l = 0; l < global_ids.size(); ++l)
    if (boundary[l]) interior[global_ids[l]] = 0;
  return interior;
}

void require_32bit_gather_scatter(std::size_t local_count) {
  constexpr std::size_t limit = std::numeric_limits<std::int32_t>::max();
  require(local_count <= limit,
          fmt::format("gather-scatter over {} local nodes on one process", local_count),
          fmt::format("at most {} (32-bit device indices); split the mesh over MPI ranks "
                      "(ppkit sem nekbone-mpi)",
                      limit));
}

std::vector<std::int32_t> assembled_operator_index(const std::vector<std::int64_t>& global_ids,
                                                   std::int64_t global_count) {
  require_32bit_gather_scatter(global_ids.size());
  require(global_count <= std::numeric_limits<std::int32_t>::max(),
          fmt::format("{} global nodes on one process", global_count),
          "at most 2^31 - 1 (32-bit device indices)");
  std::vector<std::int32_t> index(global_ids.size());
  for (std::size_t l = 0; l < global_ids.size(); ++l) {
    const std::int64_t g = global_ids[l];
    require(g >= 0 && g < global_count, fmt::format("global id {}", g),
            fmt::format("0..{}", global_count - 1));
    index[l] = std::int32_t(g);
  }
  return index;
}

std::vector<double> dssum_reference(const std::vector<std::int64_t>& global_ids,
                                    std::int64_t global_count, const std::vector<double>& u) {
  std::vector<double> global(global_count, 0.0), out(u.size());
  for (std::size_t l = 0; l < u.size(); ++l) global[global_ids[l]] += u[l];
  for (std::size_t l = 0; l < u.size(); ++l) out[l] = global[global_ids[l]];
  return out;
}

}  // namespace ppkit::sem
