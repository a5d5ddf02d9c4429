#pragma once
// The column terms of the trilinear Jacobian (Cao et al., arXiv 2504.07042,
// eq. 11-13), plain C++ shared by the CUDA/HIP axhelm kernels
// (backends/cuda_hip/sem/axhelm_gpu_common.cuh) and the Kokkos register-column
// kernel (axhelm_kokkos_columns.hpp).
#if defined(__CUDACC__) || defined(__HIPCC__)
#define PPKIT_SEM_HD __host__ __device__ inline
#else
#define PPKIT_SEM_HD inline
#endif

namespace ppkit::sem {

// J_r = e0 + t e1, J_s = f0 + t f1 and J_t (independent of t) on the column
// (r, s) of an element whose 8 coefficient vectors are s_C[3 * c + d].
struct JacobianColumn {
  double e0[3], e1[3], f0[3], f1[3], jt[3];
  PPKIT_SEM_HD void init(const double* s_C, double r, double s) {
    for (int d = 0; d < 3; ++d) {
      e0[d] = s_C[3 * 1 + d] + s * s_C[3 * 3 + d];
      e1[d] = s_C[3 * 5 + d] + s * s_C[3 * 7 + d];
      f0[d] = s_C[3 * 2 + d] + r * s_C[3 * 3 + d];
      f1[d] = s_C[3 * 6 + d] + r * s_C[3 * 7 + d];
      jt[d] = s_C[3 * 4 + d] + r * s_C[3 * 5 + d] + s * f1[d];
    }
  }
};

}  // namespace ppkit::sem
