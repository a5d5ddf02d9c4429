// The hand-tuned SPH kernels built by nvcc: the shared source with its CUDA
// launchers (gpu_kernels::Cuda).
#include "backends/cuda_hip/sph/sph_gpu_kernels.cuh"
