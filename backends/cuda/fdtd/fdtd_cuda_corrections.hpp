#pragma once
// Launchers of the small kernels cuda/register-x runs beside its main updates
// (fdtd_cuda_corrections.cu): the plane-wave consistency corrections.
#include <cstdint>

namespace ppkit::fdtd::cuda_kernels {

// Plane-wave (TF/SF) corrections of one field component after its update:
//   field[node[q]] += w0[q] row[slot0[q]] + w1[q] row[slot1[q]],  q < count
// (ppkit/fdtd/plane_wave.hpp). Launches asynchronously on the default stream.
void tfsf_correct(float* field, const std::int64_t* node, const float* w0, const float* w1,
                  const std::int32_t* slot0, const std::int32_t* slot1, const float* row,
                  std::int64_t count);

// Near-to-far-field surface samples on the device (ppkit/fdtd/ntff.hpp);
// re/im[f * samples + q] are the DFT accumulators.
struct NtffArgs {
  const float* field[6];
  const std::int32_t *component, *current, *magnetic;
  const std::int64_t *node_a, *node_b;
  const float *weight, *x, *y, *z;
  double *re, *im;
  std::int64_t samples, frequencies;
};
// After a step: re/im += value x dt exp(-j w t) with step_factors[f * 4 + ..].
void ntff_accumulate(const NtffArgs& a, const float* step_factors);
// The eight sums {Re, Im} x {N_theta, N_phi, L_theta, L_phi} of frequency f in
// the direction dir = {kx, ky, kz, theta xyz, phi xyz} into device_sums[8]
// (zeroed here): per block a warp-shuffle reduction, then one double atomic
// per block and sum.
void ntff_radiation(const NtffArgs& a, std::int64_t f, const double dir[9], double* device_sums);

}  // namespace ppkit::fdtd::cuda_kernels
