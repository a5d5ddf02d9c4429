// HIP build of the fem.assemble kernels (Hex8Kernels<HipBackend>) for AMD CDNA
// and Hygon DCU: the same kernel bodies as CUDA (backends/cuda_hip/fem/
// assemble_gpu_kernels.cuh), one element per 32-lane sub-group, two per
// 64-lane wavefront (docs/fem.md, HIP section).
#include "backends/cuda_hip/fem/assemble_gpu_kernels.cuh"
