#pragma once
// The device copies of a problem's parts that both CUDA fdtd.step glues hold
// (fdtd_cuda.cpp: cuda/register-x; fdtd_cuda_split.cpp: cuda/split-*,
// cuda/wavefront*): CPML profiles, sources and probes, plane-wave corrections,
// the near-to-far-field surface, and the per-step work on them. Node indices
// go through a map: the identity for register-x, the pitched index (rows of
// pz nodes) for the split variants.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <vector>

#include "backends/cuda/core/cuda_device.hpp"
#include "backends/cuda/fdtd/fdtd_cuda_corrections.hpp"
#include "ppkit/core/data_location.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/yee_kernel_args.hpp"

namespace ppkit::fdtd::cuda_buffers {

// A device copy of `host`; one element for an empty vector, so every kernel
// argument is a valid pointer.
template <class T>
cuda::DeviceBuffer<T> device_copy(const std::vector<T>& host) {
  return host.empty() ? cuda::DeviceBuffer<T>(1) : cuda::DeviceBuffer<T>(host);
}

template <class To, class From>
cuda::DeviceBuffer<To> device_copy_as(const std::vector<From>& host) {
  return device_copy(std::vector<To>(host.begin(), host.end()));
}

template <class NodeMap>
cuda::DeviceBuffer<std::int64_t> device_nodes(const std::vector<index_t>& nodes, NodeMap map) {
  std::vector<std::int64_t> mapped;
  mapped.reserve(nodes.size());
  for (const index_t node : nodes) mapped.push_back(map(node));
  return device_copy(mapped);
}

// The CPML profiles (1/(kappa du), b, c/du for E and H) and psi slots of the
// three axes on the device, pointed to by the kernel arguments' axes.
struct CpmlBuffers {
  cuda::DeviceBuffer<float> profiles[3][6];
  cuda::DeviceBuffer<std::int32_t> slots[3][2];

  void upload(const CpmlProfiles& cpml, CpmlAxisArgs axis_args[3]) {
    for (int d = 0; d < 3; ++d) {
      const CpmlAxis& ax = cpml.axis[d];
      CpmlAxisArgs& aa = axis_args[d];
      const std::vector<float>* parts[6] = {&ax.e_inv_kd, &ax.e_b, &ax.e_c_d,
                                            &ax.h_inv_kd, &ax.h_b, &ax.h_c_d};
      const float** targets[6] = {&aa.e_inv_kd, &aa.e_b, &aa.e_c_d,
                                  &aa.h_inv_kd, &aa.h_b, &aa.h_c_d};
      for (int s = 0; s < 6; ++s) {
        profiles[d][s] = device_copy(*parts[s]);
        *targets[s] = profiles[d][s].data();
      }
      slots[d][0] = device_copy(ax.e_slot);
      slots[d][1] = device_copy(ax.h_slot);
      aa.e_slot = slots[d][0].data();
      aa.h_slot = slots[d][1].data();
    }
  }
};

// Sources (per-step values) and probes (recorded values, poisoned until written).
struct SourceProbeBuffers {
  cuda::DeviceBuffer<std::int64_t> source_index, probe_index;
  cuda::DeviceBuffer<std::int32_t> source_component, source_hard, probe_component;
  cuda::DeviceBuffer<float> source_values, probe_values;

  // The probe record of a run of p (probes x steps values), as doubles.
  std::vector<double> probe_record(const FdtdStep::Problem& p) const {
    const std::vector<float> v = probe_values.download();
    return std::vector<double>(v.begin(),
                               v.begin() + std::ptrdiff_t(p.probes.size() * std::size_t(p.steps)));
  }

  template <class NodeMap>
  SourceProbeArgs upload(const FdtdStep::Problem& p, const StepSetup& s, NodeMap node) {
    source_index = device_nodes(s.source_index, node);
    source_component = device_copy_as<std::int32_t>(s.source_component);
    source_hard = device_copy_as<std::int32_t>(s.source_hard);
    source_values = device_copy(s.source_values);
    probe_index = device_nodes(s.probe_index, node);
    probe_component = device_copy_as<std::int32_t>(s.probe_component);
    probe_values =
        cuda::DeviceBuffer<float>(std::max<std::size_t>(1, p.probes.size() * std::size_t(p.steps)));
    probe_values.fill_bytes(0xFF);  // poison
    SourceProbeArgs io{};
    io.n_sources = std::int64_t(p.sources.size());
    io.n_probes = std::int64_t(p.probes.size());
    io.steps = p.steps;
    io.source_index = source_index.data();
    io.source_component = source_component.data();
    io.source_hard = source_hard.data();
    io.source_values = source_values.data();
    io.probe_index = probe_index.data();
    io.probe_component = probe_component.data();
    io.probe_values = probe_values.data();
    return io;
  }
};

// Plane-wave (TF/SF) corrections per component and the incident table
// (ppkit/fdtd/plane_wave.hpp).
struct TfsfBuffers {
  cuda::DeviceBuffer<float> incident, weight0[6], weight1[6];
  cuda::DeviceBuffer<std::int64_t> node[6];
  cuda::DeviceBuffer<std::int32_t> slot0[6], slot1[6];
  std::int64_t count[6] = {0, 0, 0, 0, 0, 0};
  std::int64_t row = 0;  // incident values per step; 0 without a plane wave

  template <class NodeMap>
  void upload(const TfsfCorrections& t, NodeMap map) {
    row = t.row;
    incident = device_copy(t.incident);
    for (std::size_t c = 0; c < 6; ++c) {
      count[c] = std::int64_t(t.node[c].size());
      if (count[c] == 0) continue;
      node[c] = device_nodes(t.node[c], map);
      weight0[c] = device_copy(t.weight0[c]);
      weight1[c] = device_copy(t.weight1[c]);
      slot0[c] = device_copy(t.slot0[c]);
      slot1[c] = device_copy(t.slot1[c]);
    }
  }
  // The corrections of the E (first = 0) or H (first = 3) components after their update.
  void correct(const YeeKernelArgs& a, int first, std::int64_t step) const {
    if (row == 0) return;
    float* fields[6] = {a.ex, a.ey, a.ez, a.hx, a.hy, a.hz};
    for (int c = first; c < first + 3; ++c)
      if (count[c] > 0)
        cuda_kernels::tfsf_correct(fields[c], node[c].data(), weight0[c].data(), weight1[c].data(),
                                   slot0[c].data(), slot1[c].data(), incident.data() + step * row,
                                   count[c]);
  }
};

// Near-to-far-field surface samples, their DFT accumulators and the
// radiation sums (ppkit/fdtd/ntff.hpp); nothing without a transform.
struct NtffBuffers {
  cuda_kernels::NtffArgs args{};
  cuda::DeviceBuffer<std::int32_t> component, current, magnetic;
  cuda::DeviceBuffer<std::int64_t> node_a, node_b;
  cuda::DeviceBuffer<float> weight, x, y, z, factors;
  cuda::DeviceBuffer<double> dft, sums;

  template <class NodeMap>
  void upload(const FdtdStep::Problem& p, const StepSetup& s, const YeeKernelArgs& fields,
              NodeMap map) {
    const NtffSurface& surface = s.ntff;
    if (surface.size() == 0) return;
    const float* f[6] = {fields.ex, fields.ey, fields.ez, fields.hx, fields.hy, fields.hz};
    for (int c = 0; c < 6; ++c) args.field[c] = f[c];
    component = device_copy(surface.component);
    current = device_copy(surface.current);
    magnetic = device_copy(surface.magnetic);
    node_a = device_nodes(surface.node_a, map);
    node_b = device_nodes(surface.node_b, map);
    weight = device_copy(surface.weight);
    x = device_copy(surface.x);
    y = device_copy(surface.y);
    z = device_copy(surface.z);
    factors = device_copy(s.ntff_factors);
    args.component = component.data();
    args.current = current.data();
    args.magnetic = magnetic.data();
    args.node_a = node_a.data();
    args.node_b = node_b.data();
    args.weight = weight.data();
    args.x = x.data();
    args.y = y.data();
    args.z = z.data();
    args.samples = std::int64_t(surface.size());
    args.frequencies = std::int64_t(p.far_field[0].frequencies.size());
    dft = cuda::DeviceBuffer<double>(std::size_t(2 * args.samples * args.frequencies));
    args.re = dft.data();
    args.im = dft.data() + args.samples * args.frequencies;
    sums = cuda::DeviceBuffer<double>(8);
  }
  bool active() const { return args.samples > 0; }
  void reset() {
    if (active()) dft.fill_bytes(0);
  }
  void accumulate(std::int64_t step) const {
    if (active()) cuda_kernels::ntff_accumulate(args, factors.data() + step * args.frequencies * 4);
  }
  // The radiation vectors of every (frequency, direction) pair, frequency-major.
  std::vector<RadiationVectors> radiation(const NearToFarField& far) {
    std::vector<RadiationVectors> out;
    if (!active()) return out;
    for (std::int64_t f = 0; f < args.frequencies; ++f)
      for (std::size_t d = 0; d < far.directions.size(); ++d) {
        const NtffDirection nd = ntff_direction(far, std::size_t(f), d);
        const double dir[9] = {nd.k[0],     nd.k[1],   nd.k[2],   nd.theta[0], nd.theta[1],
                               nd.theta[2], nd.phi[0], nd.phi[1], nd.phi[2]};
        cuda_kernels::ntff_radiation(args, f, dir, sums.data());
        double s[8];
        PPKIT_CUDA_CHECK(cudaMemcpy(s, sums.data(), sizeof s, cudaMemcpyDeviceToHost));
        out.push_back({std::complex<double>(s[0], s[1]), std::complex<double>(s[2], s[3]),
                       std::complex<double>(s[4], s[5]), std::complex<double>(s[6], s[7])});
      }
    return out;
  }
};

// The fields back to the problem's initial values (zero where it gives none),
// asynchronously; `initial` holds them in the device layout.
inline void reset_fields(const FdtdStep::Problem& p, cuda::DeviceBuffer<float> (&fields)[6],
                         const cuda::DeviceBuffer<float> (&initial)[6]) {
  for (int c = 0; c < 6; ++c) {
    if (p.initial[c].empty())
      fields[c].fill_bytes(0);
    else
      PPKIT_CUDA_CHECK(cudaMemcpyAsync(fields[c].data(), initial[c].data(),
                                       fields[c].size() * sizeof(float), cudaMemcpyDeviceToDevice));
  }
}

// A snapshot plane of the fields (stored in rows of `pz` nodes), copied back
// by a strided 2D copy and transposed to the frame layout.
inline SnapshotFrame download_frame(const FdtdStep::Problem& p, index_t pz,
                                    const cuda::DeviceBuffer<float> (&fields)[6], int snapshot,
                                    std::int64_t step) {
  const PlaneSnapshot& s = p.snapshots[std::size_t(snapshot)];
  const PlaneCopy c = plane_copy(p.grid, pz, s.normal, s.index);
  const float* field = fields[int(s.component)].data();
  std::vector<float> native(std::size_t(c.rows * c.row_length));
  PPKIT_CUDA_CHECK(cudaMemcpy2D(native.data(), std::size_t(c.row_length) * sizeof(float),
                                field + c.offset, std::size_t(c.row_pitch) * sizeof(float),
                                std::size_t(c.row_length) * sizeof(float), std::size_t(c.rows),
                                cudaMemcpyDeviceToHost));
  const auto size = plane_size(p.grid, s.normal);
  return {snapshot, step, frame_from_native(native, size[0], size[1])};
}

// The value of a one-element device sum (field energy), synchronising.
inline double download_sum(const cuda::DeviceBuffer<double>& sum) {
  double value = 0;
  PPKIT_CUDA_CHECK(cudaMemcpy(&value, sum.data(), sizeof(double), cudaMemcpyDeviceToHost));
  return value;
}

// Orders the kernels (queued on the legacy default stream) with a caller's
// stream through events, without blocking the host: before() makes the
// default stream wait for the work queued on `stream` so far, after() makes
// `stream` wait for the work queued on the default stream so far.
class StreamOrder {
 public:
  StreamOrder() = default;
  StreamOrder(const StreamOrder&) = delete;
  StreamOrder& operator=(const StreamOrder&) = delete;
  ~StreamOrder() {
    if (event_) (void)cudaEventDestroy(event_);
  }
  void before(void* stream) { link(static_cast<cudaStream_t>(stream), nullptr); }
  void after(void* stream) { link(nullptr, static_cast<cudaStream_t>(stream)); }
  // Blocks until the default stream and `stream` are done.
  static void wait(void* stream) {
    if (stream) PPKIT_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
    PPKIT_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  }

 private:
  void link(cudaStream_t from, cudaStream_t to) {
    if (from == to) return;
    if (!event_) PPKIT_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming));
    PPKIT_CUDA_CHECK(cudaEventRecord(event_, from));
    PPKIT_CUDA_CHECK(cudaStreamWaitEvent(to, event_, 0));
  }
  cudaEvent_t event_ = nullptr;
};

// Copies a field stored in rows of `pitch` values to or from an array in the
// compact grid layout (rows of nz + 1): one strided 2D copy on the default
// stream, synchronous for host arrays.
inline void copy_field_rows(float* field, index_t pitch, const YeeGrid& g, void* array,
                            bool array_on_host, bool into_field) {
  const std::size_t len = std::size_t(g.nz + 1) * sizeof(float);
  const std::size_t rows = std::size_t((g.nx + 1) * (g.ny + 1));
  const std::size_t field_pitch = std::size_t(pitch) * sizeof(float);
  const cudaMemcpyKind kind = !array_on_host ? cudaMemcpyDeviceToDevice
                              : into_field   ? cudaMemcpyHostToDevice
                                             : cudaMemcpyDeviceToHost;
  if (into_field)
    PPKIT_CUDA_CHECK(
        cudaMemcpy2DAsync(field, field_pitch, array, len, len, rows, kind, cudaStream_t(nullptr)));
  else
    PPKIT_CUDA_CHECK(
        cudaMemcpy2DAsync(array, len, field, field_pitch, len, rows, kind, cudaStream_t(nullptr)));
  if (array_on_host) PPKIT_CUDA_CHECK(cudaStreamSynchronize(nullptr));
}

// The current CUDA device's memory (where the variants' buffers live).
inline DataLocation current_device_memory() {
  int device = 0;
  PPKIT_CUDA_CHECK(cudaGetDevice(&device));
  return DataLocation{MemoryKind::cuda, device};
}

}  // namespace ppkit::fdtd::cuda_buffers
