#pragma once
// fp64 tensor-core products (mma.sync with .f64) for the hand-tuned CUDA
// kernels: C += A B for one warp, fragments as in the PTX ISA, "matrix
// fragments for mma.m8n8k4 / mma.m16n8k4 / mma.m16n8k8 with .f64" (checked on
// the device by ppkit_fp64_mma_rates). Lane l = 4 g + p of the warp holds
//   m8n8k4 (8 x 4 times 4 x 8):  a = A(g, p), b = B(p, g),
//                                c = {C(g, 2 p), C(g, 2 p + 1)};
//   m16n8kK (16 x K times K x 8): a_i = A(g + 8 (i % 2), p + 4 (i / 2)),
//                                b_i = B(p + 4 i, g),
//                                c_i = C(g + 8 (i / 2), 2 p + i % 2).
// m8n8k4 needs sm_80, the m16n8 shapes sm_90. Compiled for an older target a
// call traps: the variants that use them report unavailable there (their
// availability checks the device and the kernel's binary version). On sm_90
// the m16n8 shapes issue at m8n8k4's instruction rate with 2 and 4 times its
// work (ppkit_fp64_mma_rates measures the rates; docs/sem.md).

namespace ppkit::cuda {

__device__ __forceinline__ void mma_m8n8k4(double& c0, double& c1, double a, double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
      : "+d"(c0), "+d"(c1)
      : "d"(a), "d"(b));
#else
  (void)c0, (void)c1, (void)a, (void)b;
  __trap();
#endif
}

__device__ __forceinline__ void mma_m16n8k4(double (&c)[4], double a0, double a1, double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
      "{%0, %1, %2, %3};"
      : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
      : "d"(a0), "d"(a1), "d"(b));
#else
  (void)c, (void)a0, (void)a1, (void)b;
  __trap();
#endif
}

__device__ __forceinline__ void mma_m16n8k8(double& c0, double& c1, double& c2, double& c3,
                                            double a0, double a1, double a2, double a3, double b0,
                                            double b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+d"(c0), "+d"(c1), "+d"(c2), "+d"(c3)
      : "d"(a0), "d"(a1), "d"(a2), "d"(a3), "d"(b0), "d"(b1));
#else
  (void)c0, (void)c1, (void)c2, (void)c3, (void)a0, (void)a1, (void)a2, (void)a3, (void)b0,
      (void)b1;
  __trap();
#endif
}

}  // namespace ppkit::cuda
