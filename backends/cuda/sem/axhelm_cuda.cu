// cuda/stored (geometric factors loaded per node, the nekRS baseline) and
// cuda/trilinear (recomputed from 8 vertices for trilinear elements, loaded for
// the others): one kernel template, instantiated for Nq = 2..16 and 1 or 3 fields.
#include "backends/cuda/sem/axhelm_cuda.hpp"
#include "backends/cuda_hip/sem/axhelm_gpu_launch.cuh"

namespace ppkit::sem::cuda_kernels {

void set_constants(int nq, const double* derivative, const double* nodes, const double* weights) {
  dshared::copy_constants(nq, derivative, nodes, weights);
}

void launch_stored(const AxhelmKernelArgs& args) { dshared::launch_axhelm_kernel<false>(args); }
void launch_trilinear(const AxhelmKernelArgs& args) { dshared::launch_axhelm_kernel<true>(args); }

}  // namespace ppkit::sem::cuda_kernels
