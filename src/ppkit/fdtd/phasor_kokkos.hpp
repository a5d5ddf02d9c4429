#pragma once
// The Kokkos kernel of fdtd.phasor_update (kokkos/plain and the phasor hook of
// the Kokkos fdtd.step): one MDRange parallel_for over the box nodes; each node
// reads its six field values once and updates the 12 running sums of every
// frequency (natural layout, phasor_kernel_args.hpp). KokkosPhasors owns the
// sums and the per-sample coefficients on the device.
#include <Kokkos_Core.hpp>
#include <string>
#include <vector>

#include "ppkit/fdtd/phasor_kernel_args.hpp"
#include "ppkit/fdtd/phasors.hpp"

namespace ppkit::fdtd {

template <class Exec>
void accumulate_phasors(const PhasorKernelArgs a, const float* coef) {
  using Policy =
      Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3, Kokkos::Iterate::Right, Kokkos::Iterate::Right>,
                            Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for(
      "fdtd.phasor_update", Policy({0, 0, 0}, {a.n[0], a.n[1], a.n[2]}),
      KOKKOS_LAMBDA(std::int64_t bi, std::int64_t bj, std::int64_t bk) {
        const std::int64_t node = (a.lo[0] + bi) * a.sx + (a.lo[1] + bj) * a.sy + a.lo[2] + bk;
        const std::int64_t b = (bi * a.n[1] + bj) * a.n[2] + bk;
        float value[6];
        for (int c = 0; c < 6; ++c) value[c] = a.field[c][node];
        for (std::int64_t f = 0; f < a.frequencies; ++f)
          for (int c = 0; c < 6; ++c) {
            const float cr = coef[4 * f + (c < 3 ? 0 : 2)], ci = coef[4 * f + (c < 3 ? 1 : 3)];
            const std::int64_t q = (f * 6 + c) * a.box_nodes + b;
            a.re[q] += cr * value[c];
            a.im[q] += ci * value[c];
          }
      });
}

template <class Exec>
class KokkosPhasors {
  using Mem = typename Exec::memory_space;
  using HostView = Kokkos::View<float*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

 public:
  // Fields in the yee_grid.hpp layout; samples are taken as after the steps
  // first_step + (u + 1) interval - 1 (phasors.hpp).
  KokkosPhasors(const PhasorConfig& config, const YeeGrid& grid, std::int64_t first_step,
                std::int64_t samples)
      : shape_(make_phasor_set(config, grid)) {
    args_ = PhasorKernelArgs{};
    for (int a = 0; a < 3; ++a) {
      args_.lo[a] = shape_.lo[std::size_t(a)];
      args_.n[a] = shape_.extent[std::size_t(a)];
    }
    args_.sy = grid.nz + 1;
    args_.sx = (grid.ny + 1) * args_.sy;
    args_.box_nodes = shape_.box_nodes();
    args_.frequencies = std::int64_t(config.frequencies.size());
    re_ = Kokkos::View<float*, Mem>("phasor re", shape_.re.size());
    im_ = Kokkos::View<float*, Mem>("phasor im", shape_.im.size());
    Kokkos::deep_copy(re_, std::nanf(""));  // poison
    Kokkos::deep_copy(im_, std::nanf(""));
    args_.re = re_.data();
    args_.im = im_.data();
    std::vector<float> coef = phasor_coefficients(config, grid.dt, first_step, samples);
    coef_ = Kokkos::View<float*, Mem>("phasor coefficients", coef.size());
    Kokkos::deep_copy(coef_, HostView(coef.data(), coef.size()));
    if (std::size_t(args_.frequencies) * 4 * std::size_t(samples) != coef.size())
      throw Error("phasor coefficient table has the wrong size",
                  "4 floats per frequency and sample");
    samples_ = samples;
  }

  // z_pitch: row pitch of the field arrays when padded (0: nz + 1).
  void set_fields(const std::array<const float*, 6>& fields, std::int64_t z_pitch = 0) {
    for (int c = 0; c < 6; ++c) args_.field[c] = fields[std::size_t(c)];
    if (z_pitch > 0) {
      args_.sx = args_.sx / args_.sy * z_pitch;
      args_.sy = z_pitch;
    }
  }

  // Zero sums, or the given running sums (of the same shape).
  void reset(const PhasorSet& initial) {
    if (initial.re.empty()) {
      Kokkos::deep_copy(Exec(), re_, 0.0f);
      Kokkos::deep_copy(Exec(), im_, 0.0f);
      return;
    }
    Kokkos::deep_copy(re_, HostView(const_cast<float*>(initial.re.data()), initial.re.size()));
    Kokkos::deep_copy(im_, HostView(const_cast<float*>(initial.im.data()), initial.im.size()));
  }

  void accumulate(std::int64_t sample) {
    if (sample < 0 || sample >= samples_) return;
    accumulate_phasors<Exec>(args_, coef_.data() + sample * 4 * args_.frequencies);
  }

  PhasorSet download() const {
    PhasorSet out = shape_;
    Kokkos::deep_copy(HostView(out.re.data(), out.re.size()), re_);
    Kokkos::deep_copy(HostView(out.im.data(), out.im.size()), im_);
    return out;
  }

 private:
  PhasorSet shape_;
  PhasorKernelArgs args_{};
  Kokkos::View<float*, Mem> re_, im_, coef_;
  std::int64_t samples_ = 0;
};

}  // namespace ppkit::fdtd
