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
  const double* node_scale = nullptr;      // [E][Nq^3] w/|J| (partial recompute)
  const double* x = nullptr;
  double* y = nullptr;
  void* stream = nullptr;  // cudaStream_t / hipStream_t to launch on; nullptr: the default
  // Set: the assembled operator (the CUDA Nekbone on assembled vectors), one
  // field: x and y are vectors of global nodes, x read at local node l's
  // global node g = global_of_local[l], and each local result added to y at
  // g (atomic adds: y = y + Q^T A_L Q x, unmasked, so y must hold zeros
  // first); dot_sums[e % dot_sum_slots] += x_e . (A_e x_e) per element
  // (atomic adds: the slots' total grows by x . Q^T A_L Q x). Honoured by
  // the CUDA register-column and tensor-core kernels.
  const int* global_of_local = nullptr;  // [E * Nq^3]
  double* dot_sums = nullptr;            // [dot_sum_slots], with global_of_local
};
// Element dots go to 64 slots, not one: every element's atomic add to one
// address serialises at that address's L2 slice (8,000 adds per call at 20^3
// elements), 64 addresses spread them (docs/sem.md).
constexpr int dot_sum_slots = 64;

// Size of the constant-memory tables (Nq <= 16, N <= 15).
constexpr int kernel_max_nq = 16;
// Largest Nq the CUDA kernels are instantiated for (N = 9): each Nq is a fully
// unrolled template, and N = 1..9 are the orders of the paper and the tests.
constexpr int compiled_max_nq = 10;

}  // namespace ppkit::sem
