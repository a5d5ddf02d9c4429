// CUDA build of the fem.assemble kernels (Hex8Kernels<CudaBackend>): the
// kernel bodies are shared with HIP in assemble_gpu_kernels.cuh.
#include "backends/cuda_hip/fem/assemble_gpu_kernels.cuh"
