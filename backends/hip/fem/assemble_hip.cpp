// Hand-tuned HIP variants of fem.assemble (AMD CDNA, Hygon DCU), hip/<strategy>
// for the eight strategies of backends/cuda_hip/fem/assemble_gpu_runs.hpp (host
// glue shared with CUDA), kernels in assemble_hip_kernels.hip. Compiled by the
// C++ compiler against the HIP runtime API.
#include "backends/cuda_hip/fem/assemble_gpu_runs.hpp"
#include "backends/hip/core/hip_device.hpp"

namespace ppkit::registration {
void register_fem_hip_variants() {
  fem::gpu_assembly::register_variants<fem::HipBackend, hip::RuntimeCalls>(
      hip::hip_variant<fem::FemAssemble>);
}
}  // namespace ppkit::registration
