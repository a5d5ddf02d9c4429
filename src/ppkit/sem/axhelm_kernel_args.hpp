#pragma once
// The narrow interface of the hand-tuned axhelm kernels (CUDA .cu, HIP):
// raw device pointers and sizes only, no Kokkos, no std:: containers.
// Layouts as in axhelm.hpp / geometry.hpp.
namespace ppkit::sem {

struct AxhelmKernelArgs {
  int nq = 0;                  // N + 1
  long long elements = 0;      // E
  int ncol = 1;                // 1 or 3 fields, field c at x + c * field_stride
  long long field_stride = 0;  // E * Nq^3
  int helmholtz = 0;           // adds lambda1 w|J| x
  double lambda0 = 1.0, lambda1 = 0.0;
  const double* factors = nullptr;         // [slots][7][Nq^3]
  const long long* factor_slot = nullptr;  // [E]: slot in factors, or -1: recompute (trilinear)
  const double* vertices = nullptr;        // [E][8][3]
  const double* derivative = nullptr;      // [Nq][Nq] D, row-major (register-column kernels)
  const double* node_scale = nullptr;      // [E][Nq^3] lambda0 w/|J| (partial recompute)
  const double* x = nullptr;
  double* y = nullptr;
  // Set: the assembled operator (the CUDA Nekbone on assembled vectors), one
  // field: x and y are vectors of global nodes, x read at local node l's
  // global node g, and each local result added to y at g (atomic adds:
  // y = y + Q^T A_L Q x, unmasked, so y must hold zeros first) or, where l
  // is g's only copy, stored there; *dot_sum += x_e . (A_e x_e) per element
  // (atomic adds: dot_sum grows by x . Q^T A_L Q x). global_of_local[l] is g for a node
  // with several copies and -1 - g for a single copy (assembled_operator_index,
  // gather_scatter.hpp). Honoured by the CUDA register-column and
  // tensor-core kernels.
  const int* global_of_local = nullptr;  // [E * Nq^3]
  double* dot_sum = nullptr;             // device scalar, with global_of_local
};

// Size of the constant-memory tables (Nq <= 16, N <= 15).
constexpr int kernel_max_nq = 16;
// Largest Nq the CUDA kernels are instantiated for (N = 9): each Nq is a fully
// unrolled template, and N = 1..9 are the orders of the paper and the tests.
constexpr int compiled_max_nq = 10;

}  // namespace ppkit::sem
