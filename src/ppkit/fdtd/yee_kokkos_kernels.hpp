#pragma once
// The Kokkos kernels of fdtd.step (kokkos/plain and the MPI slabs): one
// parallel_for per half step over the planes [i_begin, i_end) of a SlabRange
// (every node updates its three components), sources and probes, and a
// parallel_reduce for the field energy. Kernels capture a YeeKernelArgs of raw
// View pointers by value. In a slab, nx stays the global cell count (PEC faces
// and CPML profiles are global) while the arrays hold planes from i_origin on.
#include <Kokkos_Core.hpp>

#include "ppkit/fdtd/materials.hpp"
#include "ppkit/fdtd/yee_kernel_args.hpp"

namespace ppkit::fdtd {

struct SlabRange {
  std::int64_t i_begin, i_end;  // global planes updated
  std::int64_t i_origin;        // global plane stored at local plane 0
};

template <class Real>
inline SlabRange whole_grid(const YeeKernelArgsT<Real>& a) {
  return {0, a.nx + 1, 0};
}

// One CPML-aware derivative term: d / (kappa du) + psi (psi updated first).
template <class Real>
KOKKOS_INLINE_FUNCTION Real cpml_term(Real d, Real inv_kd, std::int32_t slot, Real b, Real c_d,
                                      Real* psi, std::int64_t q) {
  if (slot < 0) return d * inv_kd;
  const Real updated = b * psi[q] + c_d * d;
  psi[q] = updated;
  return d * inv_kd + updated;
}

template <class Exec>
using NodePolicy =
    Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3, Kokkos::Iterate::Right, Kokkos::Iterate::Right>,
                          Kokkos::IndexType<std::int64_t>>;

// H^{n+1/2} = H^{n-1/2} - dh curl E^n (Taflove eq. 3.18 with CPML).
template <class Exec, class Real>
void update_h(const YeeKernelArgsT<Real> a, const SlabRange r) {
  Kokkos::parallel_for(
      "fdtd.update_h", NodePolicy<Exec>({r.i_begin, 0, 0}, {r.i_end, a.ny + 1, a.nz + 1}),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t j, std::int64_t k) {
        const std::int64_t li = i - r.i_origin;  // plane in the local arrays
        const std::int64_t sy = a.nz + 1, sx = (a.ny + 1) * sy, n = li * sx + j * sy + k;
        const Real dh = a.material_table[a.material_id[n] * material_stride + coef_dh];
        const CpmlAxisArgsT<Real>&X = a.axis[0], &Y = a.axis[1], &Z = a.axis[2];
        const std::int64_t qx = (std::int64_t(X.h_slot[i]) * (a.ny + 1) + j) * sy + k;
        const std::int64_t qy = (li * a.layers + Y.h_slot[j]) * sy + k;
        const std::int64_t qz = (li * (a.ny + 1) + j) * a.layers + Z.h_slot[k];
        if (j < a.ny && k < a.nz) {
          const Real dez = a.ez[n + sy] - a.ez[n], dey = a.ey[n + 1] - a.ey[n];
          const Real curl =
              cpml_term(dez, Y.h_inv_kd[j], Y.h_slot[j], Y.h_b[j], Y.h_c_d[j], a.psi_hxy, qy) -
              cpml_term(dey, Z.h_inv_kd[k], Z.h_slot[k], Z.h_b[k], Z.h_c_d[k], a.psi_hxz, qz);
          a.hx[n] -= dh * curl;
        }
        if (i < a.nx && k < a.nz) {
          const Real dex = a.ex[n + 1] - a.ex[n], dez = a.ez[n + sx] - a.ez[n];
          const Real curl =
              cpml_term(dex, Z.h_inv_kd[k], Z.h_slot[k], Z.h_b[k], Z.h_c_d[k], a.psi_hyz, qz) -
              cpml_term(dez, X.h_inv_kd[i], X.h_slot[i], X.h_b[i], X.h_c_d[i], a.psi_hyx, qx);
          a.hy[n] -= dh * curl;
        }
        if (i < a.nx && j < a.ny) {
          const Real dey = a.ey[n + sx] - a.ey[n], dex = a.ex[n + sy] - a.ex[n];
          const Real curl =
              cpml_term(dey, X.h_inv_kd[i], X.h_slot[i], X.h_b[i], X.h_c_d[i], a.psi_hzx, qx) -
              cpml_term(dex, Y.h_inv_kd[j], Y.h_slot[j], Y.h_b[j], Y.h_c_d[j], a.psi_hzy, qy);
          a.hz[n] -= dh * curl;
        }
      });
}

// E^{n+1} = ca E^n + cb curl H^{n+1/2} (Taflove eq. 3.19 with CPML); tangential
// E on the six PEC faces is not updated.
template <class Exec, class Real>
void update_e(const YeeKernelArgsT<Real> a, const SlabRange r) {
  Kokkos::parallel_for(
      "fdtd.update_e", NodePolicy<Exec>({r.i_begin, 0, 0}, {r.i_end, a.ny + 1, a.nz + 1}),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t j, std::int64_t k) {
        const std::int64_t li = i - r.i_origin;
        const std::int64_t sy = a.nz + 1, sx = (a.ny + 1) * sy, n = li * sx + j * sy + k;
        const Real* coef = a.material_table + a.material_id[n] * material_stride;
        const Real ca = coef[coef_ca], cb = coef[coef_cb];
        const CpmlAxisArgsT<Real>&X = a.axis[0], &Y = a.axis[1], &Z = a.axis[2];
        const std::int64_t qx = (std::int64_t(X.e_slot[i]) * (a.ny + 1) + j) * sy + k;
        const std::int64_t qy = (li * a.layers + Y.e_slot[j]) * sy + k;
        const std::int64_t qz = (li * (a.ny + 1) + j) * a.layers + Z.e_slot[k];
        // Periodic axes update the face u = n too (yee_kernel_args.hpp).
        const bool inner_x = i >= 1 && (i < a.nx || a.periodic_x),
                   inner_y = j >= 1 && (j < a.ny || a.periodic_y), inner_z = k >= 1 && k < a.nz;
        if (i < a.nx && inner_y && inner_z) {
          const Real dhz = a.hz[n] - a.hz[n - sy], dhy = a.hy[n] - a.hy[n - 1];
          const Real curl =
              cpml_term(dhz, Y.e_inv_kd[j], Y.e_slot[j], Y.e_b[j], Y.e_c_d[j], a.psi_exy, qy) -
              cpml_term(dhy, Z.e_inv_kd[k], Z.e_slot[k], Z.e_b[k], Z.e_c_d[k], a.psi_exz, qz);
          a.ex[n] = ca * a.ex[n] + cb * curl;
        }
        if (inner_x && j < a.ny && inner_z) {
          const Real dhx = a.hx[n] - a.hx[n - 1], dhz = a.hz[n] - a.hz[n - sx];
          const Real curl =
              cpml_term(dhx, Z.e_inv_kd[k], Z.e_slot[k], Z.e_b[k], Z.e_c_d[k], a.psi_eyz, qz) -
              cpml_term(dhz, X.e_inv_kd[i], X.e_slot[i], X.e_b[i], X.e_c_d[i], a.psi_eyx, qx);
          a.ey[n] = ca * a.ey[n] + cb * curl;
        }
        if (inner_x && inner_y && k < a.nz) {
          const Real dhy = a.hy[n] - a.hy[n - sx], dhx = a.hx[n] - a.hx[n - sy];
          const Real curl =
              cpml_term(dhy, X.e_inv_kd[i], X.e_slot[i], X.e_b[i], X.e_c_d[i], a.psi_ezx, qx) -
              cpml_term(dhx, Y.e_inv_kd[j], Y.e_slot[j], Y.e_b[j], Y.e_c_d[j], a.psi_ezy, qy);
          a.ez[n] = ca * a.ez[n] + cb * curl;
        }
      });
}

// Periodic copies (yee_kernel_args.hpp, steps 2 and 5): electric = false
// copies H of the face 0 to the face n before the E update, electric = true
// copies E of the face n to the face 0 after the sources. z_pitch: the row
// pitch of the arrays (0: nz + 1; kokkos/split pads rows).
template <class Exec, class Real>
void periodic_copy(const YeeKernelArgsT<Real> a, const SlabRange r, bool electric,
                   std::int64_t z_pitch = 0) {
  const std::int64_t sy = z_pitch > 0 ? z_pitch : a.nz + 1, sx = (a.ny + 1) * sy;
  if (a.periodic_y)
    Kokkos::parallel_for(
        "fdtd.periodic_y", NodePolicy<Exec>({r.i_begin, 0, 0}, {r.i_end, 1, a.nz + 1}),
        KOKKOS_LAMBDA(std::int64_t i, std::int64_t, std::int64_t k) {
          const std::int64_t low = (i - r.i_origin) * sx + k, high = low + a.ny * sy;
          if (electric) {
            a.ex[low] = a.ex[high];
            a.ez[low] = a.ez[high];
          } else {
            a.hx[high] = a.hx[low];
            a.hz[high] = a.hz[low];
          }
        });
  if (a.periodic_x)
    Kokkos::parallel_for(
        "fdtd.periodic_x", NodePolicy<Exec>({0, 0, 0}, {1, a.ny + 1, a.nz + 1}),
        KOKKOS_LAMBDA(std::int64_t, std::int64_t j, std::int64_t k) {
          const std::int64_t low = j * sy + k, high = low + a.nx * sx;
          if (electric) {
            a.ey[low] = a.ey[high];
            a.ez[low] = a.ez[high];
          } else {
            a.hy[high] = a.hy[low];
            a.hz[high] = a.hz[low];
          }
        });
}

template <class Exec, class Real>
void apply_sources(const YeeKernelArgsT<Real> a, const SourceProbeArgsT<Real> s, std::int64_t step,
                   std::int64_t node_begin = 0, std::int64_t node_end = INT64_MAX) {
  if (s.n_sources > 0)
    Kokkos::parallel_for(
        "fdtd.sources", Kokkos::RangePolicy<Exec>(0, 1), KOKKOS_LAMBDA(int) {
          // Serial over sources: two sources on one node must both apply.
          // Only those at nodes [node_begin, node_end) (a range of planes).
          for (std::int64_t q = 0; q < s.n_sources; ++q) {
            if (s.source_index[q] < node_begin || s.source_index[q] >= node_end) continue;
            Real* e = s.source_component[q] == 0 ? a.ex : s.source_component[q] == 1 ? a.ey : a.ez;
            const Real value = s.source_values[q * s.steps + step];
            e[s.source_index[q]] = s.source_hard[q] ? value : e[s.source_index[q]] + value;
          }
        });
}

template <class Exec, class Real>
void record_probes(const YeeKernelArgsT<Real> a, const SourceProbeArgsT<Real> s,
                   std::int64_t step) {
  if (s.n_probes > 0)
    Kokkos::parallel_for(
        "fdtd.probes", Kokkos::RangePolicy<Exec>(0, s.n_probes), KOKKOS_LAMBDA(std::int64_t q) {
          const Real* fields[6] = {a.ex, a.ey, a.ez, a.hx, a.hy, a.hz};
          s.probe_values[q * s.steps + step] = fields[s.probe_component[q]][s.probe_index[q]];
        });
}

template <class Exec, class Real>
void apply_sources_and_probes(const YeeKernelArgsT<Real> a, const SourceProbeArgsT<Real> s,
                              std::int64_t step) {
  apply_sources<Exec>(a, s, step);
  record_probes<Exec>(a, s, step);
}

// 1/2 sum (eps |E|^2 + mu |H|^2) over the planes [i_begin, i_end) (times dV by the caller).
template <class Exec, class Real>
double field_energy(const YeeKernelArgsT<Real> a, const SlabRange r) {
  double sum = 0;
  const std::int64_t plane = (a.ny + 1) * (a.nz + 1);
  const std::int64_t first = (r.i_begin - r.i_origin) * plane,
                     last = (r.i_end - r.i_origin) * plane;
  Kokkos::parallel_reduce(
      "fdtd.energy", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(first, last),
      KOKKOS_LAMBDA(std::int64_t n, double& acc) {
        const Real* coef = a.material_table + a.material_id[n] * material_stride;
        const Real e2 = a.ex[n] * a.ex[n] + a.ey[n] * a.ey[n] + a.ez[n] * a.ez[n];
        const Real h2 = a.hx[n] * a.hx[n] + a.hy[n] * a.hy[n] + a.hz[n] * a.hz[n];
        acc += 0.5 * (double(coef[coef_eps]) * e2 + double(coef[coef_mu]) * h2);
      },
      sum);
  return sum;
}

}  // namespace ppkit::fdtd
