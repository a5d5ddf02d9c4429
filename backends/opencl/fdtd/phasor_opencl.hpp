#pragma once
// Running phasor sums of opencl/plain (natural layout) and opencl/float4 (3
// float4 per node and frequency) on the shared OpenCL context: used by the
// fdtd.phasor_update variants and by the phasor samples of the OpenCL fdtd.step
// (kernels in fdtd_phasors.cl, layouts in phasors.hpp and there).
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "backends/opencl/core/opencl_context.hpp"
#include "opencl_fdtd_phasors.hpp"
#include "ppkit/fdtd/phasors.hpp"

namespace ppkit::fdtd {

class OpenClPhasors {
 public:
  // Samples are taken as after the steps first_step + (u + 1) interval - 1.
  OpenClPhasors(const PhasorConfig& config, const YeeGrid& grid, std::int64_t first_step,
                std::int64_t samples, bool vectorized)
      : shape_(make_phasor_set(config, grid)), vectorized_(vectorized), samples_(samples) {
    auto& ctx = opencl::Context::get();
    program_ = ctx.program(opencl::sources::fdtd_phasors);
    kernel_ =
        std::make_unique<opencl::Kernel>(program_, vectorized ? "phasor_float4" : "phasor_plain");
    const std::vector<float> coef = phasor_coefficients(config, grid.dt, first_step, samples);
    coef_ = opencl::Buffer<float>(coef.empty() ? std::vector<float>(4, 0.0f) : coef);
    frequencies_ = cl_long(config.frequencies.size());
    const std::size_t sums = shape_.re.size();  // 6 F box_nodes
    if (vectorized) {
      // 12 floats = 3 float4 per node and frequency; held as floats on the host side
      // (a std::vector of cl_float4 does not compile as CUDA in nvcc_wrapper builds).
      sums4_ = opencl::Buffer<float>(2 * sums);
      sums4_.fill_bytes(0xFF);  // poison
    } else {
      re_ = opencl::Buffer<float>(sums);
      im_ = opencl::Buffer<float>(sums);
      re_.fill_bytes(0xFF);
      im_.fill_bytes(0xFF);
    }
  }

  // Fields with node (i, j, k) at i * sx + j * sy + k (sy = z pitch).
  void set_fields(const std::array<cl_mem, 6>& fields, std::int64_t sx, std::int64_t sy) {
    fields_ = fields;
    sx_ = sx;
    sy_ = sy;
  }

  void reset(const PhasorSet& initial) {
    if (initial.re.empty()) {
      if (vectorized_) {
        sums4_.fill_bytes(0);
      } else {
        re_.fill_bytes(0);
        im_.fill_bytes(0);
      }
      return;
    }
    if (!vectorized_) {
      re_.upload(initial.re);
      im_.upload(initial.im);
      return;
    }
    std::vector<float> packed(sums4_.size());
    float* out = packed.data();
    for_each_packed([&](std::size_t natural, std::size_t slot) {
      out[2 * slot] = initial.re[natural];
      out[2 * slot + 1] = initial.im[natural];
    });
    sums4_.upload(packed);
  }

  void accumulate(std::int64_t sample) {
    if (sample < 0 || sample >= samples_) return;
    const cl_long n0 = shape_.extent[0], n1 = shape_.extent[1], n2 = shape_.extent[2];
    const cl_long lo0 = shape_.lo[0], lo1 = shape_.lo[1], lo2 = shape_.lo[2];
    const cl_long sx = sx_, sy = sy_, box_nodes = shape_.box_nodes();
    const cl_long coef_offset = sample * frequencies_ * 4;  // the current sample's row
    if (vectorized_)
      opencl::set_args(*kernel_, n0, n1, n2, lo0, lo1, lo2, sx, sy, box_nodes, frequencies_,
                       fields_[0], fields_[1], fields_[2], fields_[3], fields_[4], fields_[5],
                       coef_.mem(), coef_offset, sums4_.mem());
    else
      opencl::set_args(*kernel_, n0, n1, n2, lo0, lo1, lo2, sx, sy, box_nodes, frequencies_,
                       fields_[0], fields_[1], fields_[2], fields_[3], fields_[4], fields_[5],
                       coef_.mem(), coef_offset, re_.mem(), im_.mem());
    std::size_t global[3] = {std::size_t(n2), std::size_t(n1), std::size_t(n0)};
    PPKIT_CL_CHECK(clEnqueueNDRangeKernel(opencl::Context::get().queue(), *kernel_, 3, nullptr,
                                          global, nullptr, 0, nullptr, nullptr));
  }

  PhasorSet download() const {
    PhasorSet out = shape_;
    if (!vectorized_) {
      out.re = re_.download();
      out.im = im_.download();
      return out;
    }
    const std::vector<float> packed = sums4_.download();
    const float* in = reinterpret_cast<const float*>(packed.data());
    for_each_packed([&](std::size_t natural, std::size_t slot) {
      out.re[natural] = in[2 * slot];
      out.im[natural] = in[2 * slot + 1];
    });
    return out;
  }

 private:
  // natural index (f * 6 + c) * box_nodes + b  <->  complex slot (f * box_nodes + b) * 6 + c
  // of the float4 layout (slot 2 s and 2 s + 1 are Re and Im).
  template <class F>
  void for_each_packed(F&& f) const {
    const std::size_t nodes = std::size_t(shape_.box_nodes());
    for (std::size_t q = 0; q < std::size_t(frequencies_); ++q)
      for (std::size_t c = 0; c < 6; ++c)
        for (std::size_t b = 0; b < nodes; ++b) f((q * 6 + c) * nodes + b, (q * nodes + b) * 6 + c);
  }

  PhasorSet shape_;
  bool vectorized_;
  std::int64_t samples_;
  cl_long frequencies_ = 0;
  std::int64_t sx_ = 0, sy_ = 0;
  std::array<cl_mem, 6> fields_{};
  cl_program program_ = nullptr;  // owned by the context's program cache
  std::unique_ptr<opencl::Kernel> kernel_;
  opencl::Buffer<float> coef_, re_, im_;
  opencl::Buffer<float> sums4_;  // float4-packed sums
};

}  // namespace ppkit::fdtd
