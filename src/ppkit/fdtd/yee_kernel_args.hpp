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
#include <cstdint>

namespace ppkit::fdtd {

struct CpmlAxisArgs {
  const float *e_inv_kd, *e_b, *e_c_d;  // at E nodes u (derivatives of H)
  const float *h_inv_kd, *h_b, *h_c_d;  // at H nodes u + 1/2 (derivatives of E)
  const std::int32_t *e_slot, *h_slot;  // psi slot or -1
};

struct YeeKernelArgs {
  std::int64_t nx, ny, nz;  // cells
  std::int64_t layers;      // psi slots per axis (2 * CPML thickness)
  float *ex, *ey, *ez, *hx, *hy, *hz;
  const std::uint32_t* material_id;  // per node
  const float* material_table;       // material_stride floats per material
  CpmlAxisArgs axis[3];
  float *psi_eyx, *psi_ezx, *psi_hyx, *psi_hzx;  // x layers
  float *psi_exy, *psi_ezy, *psi_hxy, *psi_hzy;  // y layers
  float *psi_exz, *psi_eyz, *psi_hxz, *psi_hyz;  // z layers
};

// Point sources and probes of one step.
struct SourceProbeArgs {
  std::int64_t n_sources, n_probes, steps;
  const std::int64_t* source_index;
  const std::int32_t* source_component;  // 0..2
  const std::int32_t* source_hard;
  const float* source_values;  // [source * steps + step]
  const std::int64_t* probe_index;
  const std::int32_t* probe_component;  // 0..5
  float* probe_values;                  // [probe * steps + step]
};

}  // namespace ppkit::fdtd
