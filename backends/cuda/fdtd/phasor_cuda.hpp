#pragma once
// Running phasor sums of the CUDA variants (natural layout, phasors.hpp) on
// the device: used by cuda/coalesced of fdtd.phasor_update and the phasor
// samples of cuda/register-x (kernels in phasor_cuda_kernels.cu).
#include <array>
#include <string>
#include <vector>

#include "backends/cuda/core/cuda_device.hpp"
#include "backends/cuda/fdtd/phasor_cuda_kernels.hpp"
#include "ppkit/fdtd/phasors.hpp"

namespace ppkit::fdtd {

class CudaPhasors {
 public:
  CudaPhasors(const PhasorConfig& config, const YeeGrid& grid, std::int64_t first_step,
              std::int64_t samples)
      : shape_(make_phasor_set(config, grid)), samples_(samples) {
    for (int a = 0; a < 3; ++a) {
      args_.lo[a] = shape_.lo[std::size_t(a)];
      args_.n[a] = shape_.extent[std::size_t(a)];
    }
    args_.sy = grid.nz + 1;
    args_.sx = (grid.ny + 1) * args_.sy;
    args_.box_nodes = shape_.box_nodes();
    args_.frequencies = std::int64_t(config.frequencies.size());
    re_ = cuda::DeviceBuffer<float>(shape_.re.size());
    im_ = cuda::DeviceBuffer<float>(shape_.im.size());
    re_.fill_bytes(0xFF);  // poison
    im_.fill_bytes(0xFF);
    args_.re = re_.data();
    args_.im = im_.data();
    const std::vector<float> coef = phasor_coefficients(config, grid.dt, first_step, samples);
    coef_ = cuda::DeviceBuffer<float>(coef.empty() ? std::vector<float>(4, 0.0f) : coef);
  }

  // z_pitch: row pitch of the field arrays when padded (0: nz + 1).
  void set_fields(const std::array<const float*, 6>& fields, std::int64_t z_pitch = 0) {
    for (int c = 0; c < 6; ++c) args_.field[c] = fields[std::size_t(c)];
    if (z_pitch > 0) {
      args_.sx = args_.sx / args_.sy * z_pitch;
      args_.sy = z_pitch;
    }
  }

  void reset(const PhasorSet& initial) {
    if (initial.re.empty()) {
      re_.fill_bytes(0);
      im_.fill_bytes(0);
    } else {
      re_.upload(initial.re);
      im_.upload(initial.im);
    }
  }

  void accumulate(std::int64_t sample) {
    if (sample < 0 || sample >= samples_) return;
    cuda_kernels::accumulate_phasors(args_, coef_.data() + sample * 4 * args_.frequencies);
  }

  PhasorSet download() const {
    PhasorSet out = shape_;
    out.re = re_.download();
    out.im = im_.download();
    return out;
  }

 private:
  PhasorSet shape_;
  std::int64_t samples_;
  PhasorKernelArgs args_{};
  cuda::DeviceBuffer<float> re_, im_, coef_;
};

}  // namespace ppkit::fdtd
