#pragma once
// Launchers of the cuda/split-x<R> kernels (fdtd_cuda_split.cu). Plain structs
// only: the .cu never sees Kokkos or the registry.
#include <cstdint>

#include "ppkit/fdtd/yee_split.hpp"

namespace ppkit::fdtd::cuda_split {

// Everything one half step's two kernels need besides the field pointers.
struct HalfStep {
  split::Interior interior;
  split::Shell shell;
};

struct StepArgs {
  YeeKernelArgs a;  // field pointers into pitched arrays (a.material_id unused)
  std::int64_t sy;  // z pitch, a multiple of 32 (rows 128-byte aligned)
  HalfStep h, e;
  // Material ids of id_bytes (1, 2 or 4) per node; id_bytes 0: one material,
  // its coefficients below, no id read.
  const void* ids;
  int id_bytes;
  int materials;
  float ca0, cb0, dh0, eps0, mu0;
};

// Interior (R x-planes per thread, R = 1, 2 or 4) then shell; asynchronous on
// the default stream.
void update_h(const StepArgs& s, int planes_per_thread);
void update_e(const StepArgs& s, int planes_per_thread);
// cuda/wavefront: one launch per full step (H and E fused in one pass over
// the planes, fdtd_cuda_split.cu explains the schedule). counters: device
// memory of wavefront_counter_ints(s) ints (zeroed here).
std::int64_t wavefront_counter_ints(const StepArgs& s);
void wavefront_step(const StepArgs& s, int* counters);
// cuda/wavefront-l1: the same with L1-cached loads.
void wavefront_step_l1(const StepArgs& s, int* counters);

// 1/2 sum(eps E^2 + mu H^2) over all pitched nodes (padding holds zeros) into *device_sum.
void field_energy(const StepArgs& s, double* device_sum);
const char* last_launch_error();  // nullptr when the last launch succeeded

}  // namespace ppkit::fdtd::cuda_split
