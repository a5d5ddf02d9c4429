#pragma once
// Launchers of the CUDA Nekbone vector kernels (nekbone_cuda.cu): plain device
// pointers, queued on the default stream.
#include "ppkit/sem/axhelm_kernel_args.hpp"

namespace ppkit::sem::nekbone_kernels {

// Device scalars of the CG loop (double scalars[scalar_count]).
enum ScalarSlot : int { rtz_slot = 0, beta_slot, alpha_slot, rr_slot, pap_slot, scalar_count };
// The assembled loop's sums, added to by atomic adds (nekbone_cuda.cu): p.Ap
// in dot_sum_slots slots (AxhelmKernelArgs::dot_sums), and r.z and r.r of
// iteration i in slot i % 3 of two rings (double
// scalars[assembled_scalar_count], zeroed before residuals_assembled).
enum AssembledSlot : int {
  pap_slots = scalar_count,
  rz_ring = pap_slots + dot_sum_slots,
  rr_ring = rz_ring + 3,
  assembled_scalar_count = rr_ring + 3
};
// Reduction partials: at most max_blocks blocks, 2 sums each (double partials[2 * max_blocks]).
constexpr int max_blocks = 2048;

struct NekboneDeviceVectors {
  long long count = 0;  // entries of each vector: local nodes, or global nodes (assembled)
  const double* inv_diag = nullptr;    // mask / assembled diagonal
  const double* c = nullptr;           // 1 / multiplicity; null: 1 (assembled vectors)
  const double* c_inv_diag = nullptr;  // c * inv_diag
  double *x = nullptr, *r = nullptr, *p = nullptr, *w = nullptr;
};

struct GatherScatterDevicePlan {
  long long global_count = 0;
  const int* offsets = nullptr;             // [G + 1]
  const int* locals = nullptr;              // [L]
  const unsigned char* interior = nullptr;  // [G] 0 on the Dirichlet boundary
};

// rr = sum c r r, rtz = sum c M^-1 r r, beta = 0 (the start of PCG).
void residuals(const NekboneDeviceVectors& v, double* scalars, double* partials);
// p = M^-1 r + beta p.
void search(const NekboneDeviceVectors& v, const double* scalars);
// Assembled vectors: r.r and r.z of the initial residual into ring slot 0.
void residuals_assembled(const NekboneDeviceVectors& v, double* scalars);
// Assembled vectors, iteration it: beta = r.z(it) / r.z(it - 1) (0 at it = 0),
// p = M^-1 r + beta p, w = 0 (the assembled axhelm adds into w), and pAp and
// ring slot it + 1 zeroed.
void search_assembled(const NekboneDeviceVectors& v, double* scalars, int it);
// w = mask Q Q^T w; with p: pAp = sum c w p and alpha = rtz / pAp.
void gs_mask(const GatherScatterDevicePlan& plan, double* w, const double* p, double* scalars,
             double* partials);
// w = mask Q^T w_local (per global node, written once); with p: pAp = sum w p
// and alpha = rtz / pAp.
void gather_sum_mask(const GatherScatterDevicePlan& plan, const double* w_local, const double* p,
                     double* w, double* scalars, double* partials);
// x += alpha p, r -= alpha w; rr, rtz (the old one kept for beta), beta = rtz / rtz_old.
void update(const NekboneDeviceVectors& v, double* scalars, double* partials);
// Assembled vectors, iteration it, after the assembled axhelm (w its
// unmasked sum over the copies, pAp its sum of element dots): alpha =
// r.z(it) / pAp, x += alpha p, r -= alpha mask w; r.r and r.z into ring slot
// it + 1.
void update_assembled(const NekboneDeviceVectors& v, const unsigned char* interior, double* scalars,
                      int it);
// out = a - b.
void subtract(long long n, const double* a, const double* b, double* out);

}  // namespace ppkit::sem::nekbone_kernels
