// opencl/plain and opencl/float4 of fdtd.phasor_update: the fields are
// uploaded once in prepare(); run() resets the sums and takes `samples`
// samples through the kernels of fdtd_phasors.cl (phasor_opencl.hpp).
#include "backends/opencl/fdtd/phasor_opencl.hpp"

namespace ppkit::fdtd {
namespace {

class OpenClPhasorUpdate final : public PreparedRun<FdtdPhasorUpdate::Result> {
 public:
  OpenClPhasorUpdate(const FdtdPhasorUpdate::Problem& p, bool vectorized)
      : problem_((validate(p), p)),
        phasors_(p.config, p.grid, p.first_step, p.samples, vectorized) {
    std::array<cl_mem, 6> mems{};
    for (int c = 0; c < 6; ++c) {
      fields_[c] = opencl::Buffer<float>(p.fields[std::size_t(c)]);
      mems[std::size_t(c)] = fields_[c].mem();
    }
    phasors_.set_fields(mems, (p.grid.ny + 1) * (p.grid.nz + 1), p.grid.nz + 1);
    opencl::Context::get().finish();
  }

  void run() override {
    phasors_.reset(problem_.initial);
    for (std::int64_t u = 0; u < problem_.samples; ++u) phasors_.accumulate(u);
    opencl::Context::get().finish();
  }

  FdtdPhasorUpdate::Result result() override { return {phasors_.download()}; }

 private:
  FdtdPhasorUpdate::Problem problem_;
  OpenClPhasors phasors_;
  opencl::Buffer<float> fields_[6];
};

}  // namespace
}  // namespace ppkit::fdtd

namespace ppkit::registration {
void register_fdtd_phasor_opencl_variants() {
  for (bool vectorized : {false, true}) {
    auto v = opencl::opencl_variant<FdtdPhasorUpdate>(vectorized ? "float4" : "plain",
                                                      vectorized ? 5 : 4);
    if (!vectorized) v.role = VariantRole::baseline;
    v.prepare = [vectorized](const FdtdPhasorUpdate::Problem& p) {
      return std::make_unique<fdtd::OpenClPhasorUpdate>(p, vectorized);
    };
    Registry<FdtdPhasorUpdate>::add(std::move(v));
  }
}
}  // namespace ppkit::registration
