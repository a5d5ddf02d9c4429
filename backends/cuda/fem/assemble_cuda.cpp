// Hand-tuned CUDA variants of fem.assemble, cuda/<strategy> for the eight
// strategies of assemble_gpu_runs.hpp (host glue shared with HIP), kernels in
// assemble_cuda_kernels.cu.
#include "backends/cuda/core/cuda_device.hpp"
#include "backends/cuda/fem/assemble_gpu_runs.hpp"

namespace ppkit::registration {
void register_fem_cuda_variants() {
  fem::gpu_assembly::register_variants<fem::CudaBackend, cuda::RuntimeCalls>(
      cuda::cuda_variant<fem::FemAssemble>);
}
}  // namespace ppkit::registration
