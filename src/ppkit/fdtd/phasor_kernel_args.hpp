#pragma once
// The narrow interface of the fdtd.phasor_update kernels (Kokkos, CUDA): raw
// device pointers and sizes only. The box holds n[0] x n[1] x n[2] nodes from
// node lo; box node b = (bi * n[1] + bj) * n[2] + bk reads the fields at
//   (lo[0] + bi) * sx + (lo[1] + bj) * sy + lo[2] + bk
// (sx = (ny + 1) sy, sy = nz + 1, or a padded z pitch). Running sums in the
// natural layout re[(f * 6 + c) * box_nodes + b], im likewise (phasors.hpp).
// coef: 4 floats per frequency for the current sample, {re_E, im_E, re_H,
// im_H} = w exp(-i 2 pi f t) at the E and H sample times.
#include <cstdint>

namespace ppkit::fdtd {

struct PhasorKernelArgs {
  std::int64_t lo[3], n[3];
  std::int64_t sx, sy;
  std::int64_t box_nodes, frequencies;
  const float* field[6];  // Ex, Ey, Ez, Hx, Hy, Hz
  float *re, *im;
};

}  // namespace ppkit::fdtd
