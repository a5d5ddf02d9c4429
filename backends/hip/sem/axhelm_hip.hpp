#pragma once
// Launchers of the HIP axhelm kernels (axhelm_hip_*.hip). Each returns after
// queuing the kernel on the null stream; errors surface through
// hipGetLastError / the next synchronisation. The set_constants functions fill
// the constant tables (D, GLL nodes and weights, Nq <= 16) of their own
// translation unit.
#include "ppkit/sem/axhelm_kernel_args.hpp"

namespace ppkit::sem::hip_kernels {

// The first kernels, the same source as CUDA's (backends/cuda_hip/sem/axhelm_gpu_kernel.cuh):
// one element per block of Nq x Nq threads (hip/stored-dshared, hip/trilinear-dshared).
void set_constants_dshared(int nq, const double* derivative, const double* nodes,
                           const double* weights);
void launch_stored_dshared(const AxhelmKernelArgs& args);
void launch_trilinear_dshared(const AxhelmKernelArgs& args);

// Register-column kernels (axhelm_hip_columns.hpp), one translation unit per
// geometry mode: hip/stored, hip/trilinear, hip/trilinear-partial.
void set_constants_columns_stored(int nq, const double* derivative, const double* nodes,
                                  const double* weights);
void set_constants_columns_recompute(int nq, const double* derivative, const double* nodes,
                                     const double* weights);
void set_constants_columns_partial(int nq, const double* derivative, const double* nodes,
                                   const double* weights);
void launch_columns_stored(const AxhelmKernelArgs& args);
void launch_columns_recompute(const AxhelmKernelArgs& args);
void launch_columns_partial(const AxhelmKernelArgs& args);

// Nq = 8 only: the r and s contractions as fp64 MFMA products (gfx90a and
// later; FMAs with the same data flow elsewhere): hip/trilinear-mfma.
void set_constants_mfma(int nq, const double* derivative, const double* nodes,
                        const double* weights);
void launch_trilinear_mfma(const AxhelmKernelArgs& args);

}  // namespace ppkit::sem::hip_kernels
