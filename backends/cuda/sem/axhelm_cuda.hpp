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
// The same with the t contractions on the tensor cores too (cuda/trilinear-wmma-t).
void launch_trilinear_wmma_t(const AxhelmKernelArgs& args);
// The same with every product whose varying operand is A as an m16n8k4 over
// two k-slices (or 16 nodes), sm_90 or newer (cuda/trilinear-wmma-m16).
void launch_trilinear_wmma_m16(const AxhelmKernelArgs& args);
// The compute capability (major * 10 + minor) of the code this build holds
// for that kernel: 0 when it has none for the device.
int wmma_m16_binary_version();

// Register-column kernels (axhelm_cuda_columns.cuh), one translation unit per
// geometry mode, each with its own constant tables.
void set_constants_columns_stored(int nq, const double* derivative, const double* nodes,
                                  const double* weights);
void set_constants_columns_recompute(int nq, const double* derivative, const double* nodes,
                                     const double* weights);
void set_constants_columns_partial(int nq, const double* derivative, const double* nodes,
                                   const double* weights);
// Factors loaded per node, one k-slice ahead (cuda/stored).
void launch_columns_stored(const AxhelmKernelArgs& args);
// Trilinear elements (factor_slot < 0) recompute G from their vertices (cuda/trilinear).
void launch_columns_recompute(const AxhelmKernelArgs& args);
// Trilinear elements load w/|J| per node (node_scale) and recompute the
// cofactors (cuda/trilinear-partial).
void launch_columns_partial(const AxhelmKernelArgs& args);

}  // namespace ppkit::sem::cuda_kernels
