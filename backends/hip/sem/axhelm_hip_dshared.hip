// hip/stored-dshared and hip/trilinear-dshared: the first CUDA axhelm kernels
// compiled from the same source (backends/cuda_hip/sem/axhelm_gpu_kernel.cuh)
// by the HIP compiler, Nq = 2..10, one or three fields.
#include "backends/cuda_hip/sem/axhelm_gpu_launch.cuh"
#include "backends/hip/sem/axhelm_hip.hpp"

namespace ppkit::sem::hip_kernels {

void set_constants_dshared(int nq, const double* derivative, const double* nodes,
                           const double* weights) {
  dshared::copy_constants(nq, derivative, nodes, weights);
}
void launch_stored_dshared(const AxhelmKernelArgs& args) {
  dshared::launch_axhelm_kernel<false>(args);
}
void launch_trilinear_dshared(const AxhelmKernelArgs& args) {
  dshared::launch_axhelm_kernel<true>(args);
}

}  // namespace ppkit::sem::hip_kernels
