#pragma once
// (CUDA and HIP) Dispatch from run-time (nq, ncol) to the compiled kernel instances: Nq = 2..10
// (N = 1..9, the orders of the paper and the tests; compiled_max_nq).
#include "backends/cuda_hip/sem/axhelm_gpu_kernel.cuh"

namespace ppkit::sem::dshared {

// static like the kernels and the constant tables: a library with both the
// CUDA and the HIP build of these kernels (HIP on NVIDIA) keeps two sets, and
// each translation unit launches its own with its own tables.
template <int NQ, bool RECOMPUTE>
static void launch_nq(const AxhelmKernelArgs& a) {
  const dim3 block(NQ, NQ);
  const unsigned grid = unsigned(a.elements);
  if (a.ncol == 3)
    axhelm_kernel<NQ, 3, RECOMPUTE><<<grid, block, 0, static_cast<gpu::Stream>(a.stream)>>>(a);
  else
    axhelm_kernel<NQ, 1, RECOMPUTE><<<grid, block, 0, static_cast<gpu::Stream>(a.stream)>>>(a);
}

template <bool RECOMPUTE>
static void launch_axhelm_kernel(const AxhelmKernelArgs& a) {
  switch (a.nq) {
    case 2:
      launch_nq<2, RECOMPUTE>(a);
      break;
    case 3:
      launch_nq<3, RECOMPUTE>(a);
      break;
    case 4:
      launch_nq<4, RECOMPUTE>(a);
      break;
    case 5:
      launch_nq<5, RECOMPUTE>(a);
      break;
    case 6:
      launch_nq<6, RECOMPUTE>(a);
      break;
    case 7:
      launch_nq<7, RECOMPUTE>(a);
      break;
    case 8:
      launch_nq<8, RECOMPUTE>(a);
      break;
    case 9:
      launch_nq<9, RECOMPUTE>(a);
      break;
    case 10:
      launch_nq<10, RECOMPUTE>(a);
      break;
    default:
      break;  // rejected by the glue before launching
  }
}

}  // namespace ppkit::sem::dshared
