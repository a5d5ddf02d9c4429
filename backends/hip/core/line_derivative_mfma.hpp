#pragma once
// The building block of SEM's tensor-core path on AMD (docs/targets.md, "SEM
// tensor-core path on AMD"): Y_s = D X_s for a batch of slabs, with D the
// 8 x 8 one-dimensional derivative matrix of p = 7 and each slab X_s the
// 8 points x 16 lines of nodal values that one derivative direction of an
// element touches. On gfx90a-class GPUs one wavefront computes two slabs with
// four fp64 MFMA instructions (__builtin_amdgcn_mfma_f64_16x16x4f64); on
// GPUs without fp64 MFMA (gfx906, Hygon DCU) the same kernel uses FMAs.
#include <cstddef>

namespace ppkit::hip {

inline constexpr int kLinePoints = 8;  // p + 1 for p = 7
inline constexpr int kSlabLines = 16;  // lines per slab: one MFMA tile width

// derivative: kLinePoints x kLinePoints, row-major. x and y: `slabs` slabs of
// kLinePoints x kSlabLines, row-major (point-major), slab after slab. All
// pointers are device memory; returns after the launch (the caller
// synchronises). Throws ppkit::Error on a launch failure.
void launch_line_derivative(const double* derivative, const double* x, double* y,
                            std::size_t slabs);

// Whether the current device executes the MFMA path (gfx90a or a later CDNA).
bool device_has_fp64_mfma();

}  // namespace ppkit::hip
