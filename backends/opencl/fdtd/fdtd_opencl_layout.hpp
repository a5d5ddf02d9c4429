#pragma once
// The device layout the OpenCL fdtd.step variants share (fdtd_opencl.cpp,
// fdtd_opencl_blocked.cpp; kernels: fdtd_plain.cl, fdtd_float4.cl,
// fdtd_blocked.cl): fields in rows of pz values (z pitch pz >= nz + 1, the
// padding zero and never written), CPML profiles packed per axis, rows of the
// host layout (nz + 1 values) read and written through rectangular copies.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "backends/opencl/core/opencl_context.hpp"
#include "ppkit/fdtd/cpml.hpp"
#include "ppkit/fdtd/yee_grid.hpp"

namespace ppkit::fdtd::opencl_layout {

template <class T>
opencl::Buffer<T> device_copy(std::vector<T> host) {
  if (host.empty()) host.push_back(T{});  // OpenCL buffers cannot be empty
  return opencl::Buffer<T>(host);
}

inline std::size_t round_up(std::size_t n, std::size_t m) { return (n + m - 1) / m * m; }

// `rows` host rows of nz1 values -> rows of pz values (padding `fill`).
template <class T>
std::vector<T> pitched(const std::vector<T>& host, std::size_t rows, std::size_t nz1,
                       std::size_t pz, T fill) {
  if (pz == nz1) return host;
  std::vector<T> out(rows * pz, fill);
  for (std::size_t r = 0; r < rows; ++r)
    std::copy(host.begin() + std::ptrdiff_t(r * nz1), host.begin() + std::ptrdiff_t((r + 1) * nz1),
              out.begin() + std::ptrdiff_t(r * pz));
  return out;
}

// Rows of pz values -> `rows` host rows of nz1 values.
inline std::vector<float> unpitched(const std::vector<float>& device, std::size_t rows,
                                    std::size_t nz1, std::size_t pz) {
  if (pz == nz1) return device;
  std::vector<float> out(rows * nz1);
  for (std::size_t r = 0; r < rows; ++r)
    std::copy(device.begin() + std::ptrdiff_t(r * pz),
              device.begin() + std::ptrdiff_t(r * pz + nz1), out.begin() + std::ptrdiff_t(r * nz1));
  return out;
}

// One axis's CPML profiles packed as e_inv_kd, e_b, e_c_d, h_inv_kd, h_b,
// h_c_d of n1 entries each and its slots as e_slot, h_slot; entries beyond
// the axis's nodes (z padding) are those of a node outside the layers
// (inv_kd 0, b = 1, c = 0, slot -1).
struct PackedCpmlAxis {
  opencl::Buffer<float> profiles;
  opencl::Buffer<std::int32_t> slots;
};
inline PackedCpmlAxis pack_cpml_axis(const CpmlAxis& ax, std::size_t n1) {
  std::vector<float> prof(6 * n1, 0.0f);
  std::vector<std::int32_t> slot(2 * n1, -1);
  const std::vector<float>* parts[6] = {&ax.e_inv_kd, &ax.e_b, &ax.e_c_d,
                                        &ax.h_inv_kd, &ax.h_b, &ax.h_c_d};
  for (std::size_t s = 0; s < 6; ++s) {
    std::fill(prof.begin() + std::ptrdiff_t(s * n1), prof.begin() + std::ptrdiff_t((s + 1) * n1),
              s % 3 == 1 ? 1.0f : 0.0f);
    std::copy(parts[s]->begin(), parts[s]->end(), prof.begin() + std::ptrdiff_t(s * n1));
  }
  std::copy(ax.e_slot.begin(), ax.e_slot.end(), slot.begin());
  std::copy(ax.h_slot.begin(), ax.h_slot.end(), slot.begin() + std::ptrdiff_t(n1));
  return {device_copy(prof), device_copy(slot)};
}

// Reads or writes (into_field) planes [first, first + count) of a field of
// grid g in rows of pz values from or to host rows of nz + 1 values; blocking.
inline void copy_rows(cl_mem field, const YeeGrid& g, index_t pz, index_t first, index_t count,
                      void* host, bool into_field) {
  if (count == 0) return;
  const std::size_t len = std::size_t(g.nz + 1) * sizeof(float);
  const std::size_t origin[3] = {0, 0, 0};
  const std::size_t buffer_origin[3] = {0, std::size_t(first * (g.ny + 1)), 0};
  const std::size_t region[3] = {len, std::size_t(count * (g.ny + 1)), 1};
  const std::size_t pitch = std::size_t(pz) * sizeof(float);
  cl_command_queue queue = opencl::Context::get().queue();
  if (into_field)
    PPKIT_CL_CHECK(clEnqueueWriteBufferRect(queue, field, CL_TRUE, buffer_origin, origin, region,
                                            pitch, 0, len, 0, host, 0, nullptr, nullptr));
  else
    PPKIT_CL_CHECK(clEnqueueReadBufferRect(queue, field, CL_TRUE, buffer_origin, origin, region,
                                           pitch, 0, len, 0, host, 0, nullptr, nullptr));
}

}  // namespace ppkit::fdtd::opencl_layout
