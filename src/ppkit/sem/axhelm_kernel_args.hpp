#pragma once
// The narrow interface of the hand-tuned axhelm kernels (CUDA .cu, HIP):
// raw device pointers and sizes only, no Kokkos, no std:: containers.
// Layouts as in axhelm.hpp / geometry.hpp.
namespace ppkit::sem {

struct AxhelmKernelArgs {
  int nq = 0;                    // N + 1
  long long elements = 0;        // E
  int ncol = 1;                  // 1 or 3 fields, field c at x + c * field_stride
  long long field_stride = 0;    // E * Nq^3
  int helmholtz = 0;             // adds lambda1 w|J| x
  double lambda0 = 1.0, lambda1 = 0.0;
  const double* factors = nullptr;        // [slots][7][Nq^3]
  const long long* factor_slot = nullptr; // [E]: slot in factors, or -1: recompute (trilinear)
  const double* vertices = nullptr;       // [E][8][3]
  const double* x = nullptr;
  double* y = nullptr;
};

// Largest Nq the hand-tuned kernels are compiled for (N = 15).
constexpr int kernel_max_nq = 16;

}  // namespace ppkit::sem
