// cuda/coalesced of fdtd.phasor_update: fields uploaded in prepare(); run()
// resets the sums and takes `samples` samples (phasor_cuda_kernels.cu).
#include "backends/cuda/fdtd/phasor_cuda.hpp"

namespace ppkit::fdtd {
namespace {

class CudaPhasorUpdate final : public PreparedRun<FdtdPhasorUpdate::Result> {
 public:
  explicit CudaPhasorUpdate(const FdtdPhasorUpdate::Problem& p)
      : problem_((validate(p), p)), phasors_(p.config, p.grid, p.first_step, p.samples) {
    std::array<const float*, 6> pointers{};
    for (int c = 0; c < 6; ++c) {
      fields_[c] = cuda::DeviceBuffer<float>(p.fields[std::size_t(c)]);
      pointers[std::size_t(c)] = fields_[c].data();
    }
    phasors_.set_fields(pointers);
    PPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }

  void run() override {
    phasors_.reset(problem_.initial);
    for (std::int64_t u = 0; u < problem_.samples; ++u) phasors_.accumulate(u);
    if (const char* error = cuda_kernels::phasor_launch_error())
      throw Error(std::string("CUDA launch of the phasor kernel failed: ") + error);
    PPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }

  FdtdPhasorUpdate::Result result() override { return {phasors_.download()}; }

 private:
  FdtdPhasorUpdate::Problem problem_;
  CudaPhasors phasors_;
  cuda::DeviceBuffer<float> fields_[6];
};

}  // namespace
}  // namespace ppkit::fdtd

namespace ppkit::registration {
void register_fdtd_phasor_cuda_variants() {
  auto v = cuda::cuda_variant<FdtdPhasorUpdate>("coalesced", 10);
  v.prepare = [](const FdtdPhasorUpdate::Problem& p) {
    return std::make_unique<fdtd::CudaPhasorUpdate>(p);
  };
  Registry<FdtdPhasorUpdate>::add(std::move(v));
}
}  // namespace ppkit::registration
