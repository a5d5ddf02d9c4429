// The hand-tuned SPH kernels built by the HIP compiler (AMD CDNA, Hygon DCU):
// the source shared with CUDA (backends/cuda_hip/sph/sph_gpu_kernels.cuh) with its
// HIP launchers (gpu_kernels::Hip).
#include "backends/cuda_hip/sph/sph_gpu_kernels.cuh"
