#pragma once
// The narrow interface of the fdtd.step kernels: plain structs of raw device
// pointers and sizes, seen by the Kokkos, CUDA and OpenCL-host code alike
// (no Kokkos types, so nvcc builds the CUDA kernels against any Kokkos).
//
// Field layout: yee_grid.hpp, node n = (i * (ny+1) + j) * (nz+1) + k.
// CPML psi arrays cover only the layers (2 * thickness slots per axis):
//   x layers: psi[(slot * (ny+1) + j) * (nz+1) + k]
//   y layers: psi[(i * layers + slot) * (nz+1) + k]
//   z layers: psi[(i * (ny+1) + j) * layers + slot]
//
// Periodic lateral boundaries (periodic_x, periodic_y; z is never periodic).
// Along a periodic axis u with nodes 0..n the period is n cells: node n is
// the same point as node 0, and the axis has no PEC faces and no CPML (its
// slots are all -1). Every fdtd.step variant does, per step:
//   1. update H as usual;
//   2. copy_h: for periodic y, Hx and Hz of row j = ny <- row j = 0 (every i, k);
//      for periodic x, Hy and Hz of plane i = nx <- plane i = 0 (every j, k)
//      (either order: each copy covers the whole other axis, 0..n);
//   3. update E, where the tangential components on the face u = n are
//      updated like interior nodes (inner_x = i >= 1 && (i < nx || periodic_x),
//      same for y); the face u = 0 is not updated;
//   4. apply the sources (the setup moves a source on u = 0 to u = n);
//   5. copy_e: for periodic y, Ex and Ez of row j = 0 <- row j = ny; for
//      periodic x, Ey and Ez of plane i = 0 <- plane i = nx (every node of the
//      other two axes);
//   6. probes, energy, phasor samples.
// Only steps 2, 3 and 5 touch the boundary; each variant keeps 2 and 5 in one
// copy routine and 3 in its E-update condition.
#include <cstdint>

namespace ppkit::fdtd {

// Kernel arguments are templates over the real type of the fields,
// coefficients and psi arrays (float by default: fp32 problems; double for
// fp64 problems, run by the variants listed in step_features.hpp). The float
// instantiations keep their old names (YeeKernelArgs, ...), so the CUDA and
// OpenCL-host code, which only has fp32 paths, sees the same structs as before.
template <class Real = float>
struct CpmlAxisArgsT {
  const Real *e_inv_kd, *e_b, *e_c_d;   // at E nodes u (derivatives of H)
  const Real *h_inv_kd, *h_b, *h_c_d;   // at H nodes u + 1/2 (derivatives of E)
  const std::int32_t *e_slot, *h_slot;  // psi slot or -1
};

template <class Real = float>
struct YeeKernelArgsT {
  using real = Real;
  std::int64_t nx, ny, nz;  // cells
  std::int64_t layers;      // psi slots per axis (2 * CPML thickness)
  Real *ex, *ey, *ez, *hx, *hy, *hz;
  const std::uint32_t* material_id;  // per node
  const Real* material_table;        // material_stride values per material
  CpmlAxisArgsT<Real> axis[3];
  Real *psi_eyx, *psi_ezx, *psi_hyx, *psi_hzx;  // x layers
  Real *psi_exy, *psi_ezy, *psi_hxy, *psi_hzy;  // y layers
  Real *psi_exz, *psi_eyz, *psi_hxz, *psi_hyz;  // z layers
  std::int32_t periodic_x, periodic_y;          // 0 or 1 (contract above)
};

// Point sources and probes of one step.
template <class Real = float>
struct SourceProbeArgsT {
  std::int64_t n_sources, n_probes, steps;
  const std::int64_t* source_index;
  const std::int32_t* source_component;  // 0..2
  const std::int32_t* source_hard;
  const Real* source_values;  // [source * steps + step]
  const std::int64_t* probe_index;
  const std::int32_t* probe_component;  // 0..5
  Real* probe_values;                   // [probe * steps + step]
};

using CpmlAxisArgs = CpmlAxisArgsT<float>;
using YeeKernelArgs = YeeKernelArgsT<float>;
using SourceProbeArgs = SourceProbeArgsT<float>;

// The real type of a kernel's scalar arguments, taken from its YeeKernelArgsT
// only (a non-deduced context, so a float literal or a double argument does
// not make the deduction ambiguous).
template <class Real>
struct RealOf {
  using type = Real;
};
template <class Real>
using RealArg = typename RealOf<Real>::type;

}  // namespace ppkit::fdtd
