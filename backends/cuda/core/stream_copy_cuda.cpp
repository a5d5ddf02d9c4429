// cuda/memcpy: device-to-device cudaMemcpy, the CUDA copy-bandwidth probe.
#include "backends/cuda/core/cuda_device.hpp"
#include "ppkit/core/stream_copy.hpp"

namespace ppkit {
namespace registration {
void register_core_cuda_info();
}
namespace {

class CudaMemcpy final : public PreparedRun<StreamCopy::Result> {
 public:
  explicit CudaMemcpy(const StreamCopy::Problem& p)
      : source_(p.source), destination_(p.source.size()) {
    destination_.fill_bytes(0xFF);
  }
  void run() override {
    PPKIT_CUDA_CHECK(cudaMemcpyAsync(destination_.data(), source_.data(),
                                     source_.size() * sizeof(double), cudaMemcpyDeviceToDevice));
    PPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  StreamCopy::Result result() override { return destination_.download(); }

 private:
  cuda::DeviceBuffer<double> source_, destination_;
};

}  // namespace

namespace registration {
void register_core_cuda_variants() {
  register_core_cuda_info();
  auto v = cuda::cuda_variant<StreamCopy>("memcpy", 10);
  v.prepare = [](const StreamCopy::Problem& p) { return std::make_unique<CudaMemcpy>(p); };
  Registry<StreamCopy>::add(std::move(v));
}
}  // namespace registration
}  // namespace ppkit
