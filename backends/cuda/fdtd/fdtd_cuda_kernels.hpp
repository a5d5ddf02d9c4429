#pragma once
// Launchers of the cuda/register-x kernels (fdtd_cuda_kernels.cu). Plain
// structs only: the .cu never sees Kokkos or the registry.
#include <cstdint>

#include "ppkit/fdtd/yee_kernel_args.hpp"

namespace ppkit::fdtd::cuda_kernels {

// Material ids narrowed to the smallest width that holds every id (1, 2 or 4
// bytes): the id array is the only per-node input besides the fields.
struct MaterialIds {
  const void* data;
  int bytes;  // 1, 2 or 4
};

// Both launch asynchronously on the default stream; errors surface at the next sync.
void update_h(const YeeKernelArgs& a, MaterialIds ids);
void update_e(const YeeKernelArgs& a, MaterialIds ids);
void sources_and_probes(const YeeKernelArgs& a, const SourceProbeArgs& s, std::int64_t step);
// The two parts of sources_and_probes; sources() applies only the sources at
// nodes [node_begin, node_end) (the E update of a range of x-planes).
void sources(const YeeKernelArgs& a, const SourceProbeArgs& s, std::int64_t step,
             std::int64_t node_begin = 0, std::int64_t node_end = INT64_MAX);
void probes(const YeeKernelArgs& a, const SourceProbeArgs& s, std::int64_t step);
// 1/2 sum(eps E^2 + mu H^2) over the nodes into *device_sum (zeroed here).
void field_energy(const YeeKernelArgs& a, MaterialIds ids, double* device_sum);
const char* last_launch_error();  // nullptr when the last launch succeeded

}  // namespace ppkit::fdtd::cuda_kernels
