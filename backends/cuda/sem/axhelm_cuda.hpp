#pragma once
// Launchers of the CUDA axhelm kernels (axhelm_cuda.cu). Each returns after
// queuing the kernel on the default stream; errors surface through
// cudaGetLastError / the next synchronisation.
#include "ppkit/sem/axhelm_kernel_args.hpp"

namespace ppkit::sem::cuda_kernels {

// Copy D, the GLL nodes and weights (Nq <= 16) to the constant memory of the
// stored/trilinear kernels and of the WMMA kernel (separate translation units).
void set_constants(int nq, const double* derivative, const double* nodes, const double* weights);
void set_constants_wmma(int nq, const double* derivative, const double* nodes,
                        const double* weights);

// One element per block of Nq x Nq threads, k-loop per thread (nekRS).
void launch_stored(const AxhelmKernelArgs& args);
// The same with trilinear geometry recomputed from 8 vertices where
// factor_slot[e] < 0, loaded elsewhere (mixed meshes).
void launch_trilinear(const AxhelmKernelArgs& args);
// Nq = 8 only: the r and s contractions of each k-slice as 8x8x8 products on
// fp64 tensor cores (WMMA m8n8k4), sm_80 or newer.
void launch_trilinear_wmma(const AxhelmKernelArgs& args);

}  // namespace ppkit::sem::cuda_kernels
