// The HIP copy-bandwidth probes: hip/memcpy (device-to-device hipMemcpy, the
// counterpart of cuda/memcpy) and hip/kernel-copy (a grid-stride copy kernel).
#include "backends/hip/core/copy_kernel.hpp"
#include "backends/hip/core/hip_device.hpp"
#include "ppkit/core/stream_copy.hpp"

namespace ppkit {
namespace registration {
void register_core_hip_info();
}
namespace {

class HipMemcpy final : public PreparedRun<StreamCopy::Result> {
 public:
  explicit HipMemcpy(const StreamCopy::Problem& p)
      : source_(p.source), destination_(p.source.size()) {
    destination_.fill_bytes(0xFF);
  }
  void run() override {
    PPKIT_HIP_CHECK(hipMemcpyAsync(destination_.data(), source_.data(),
                                   source_.size() * sizeof(double), hipMemcpyDeviceToDevice));
    PPKIT_HIP_CHECK(hipDeviceSynchronize());
  }
  StreamCopy::Result result() override { return destination_.download(); }

 private:
  hip::DeviceBuffer<double> source_, destination_;
};

class HipKernelCopy final : public PreparedRun<StreamCopy::Result> {
 public:
  explicit HipKernelCopy(const StreamCopy::Problem& p)
      : source_(p.source), destination_(p.source.size()) {
    destination_.fill_bytes(0xFF);
  }
  void run() override {
    hip::launch_copy_kernel(source_.data(), destination_.data(), source_.size());
    PPKIT_HIP_CHECK(hipDeviceSynchronize());
  }
  StreamCopy::Result result() override { return destination_.download(); }

 private:
  hip::DeviceBuffer<double> source_, destination_;
};

}  // namespace

namespace registration {
void register_core_hip_variants() {
  register_core_hip_info();
  auto v = hip::hip_variant<StreamCopy>("memcpy", 10);
  v.prepare = [](const StreamCopy::Problem& p) { return std::make_unique<HipMemcpy>(p); };
  Registry<StreamCopy>::add(std::move(v));

  auto k = hip::hip_variant<StreamCopy>("kernel-copy", 9);
  k.prepare = [](const StreamCopy::Problem& p) { return std::make_unique<HipKernelCopy>(p); };
  Registry<StreamCopy>::add(std::move(k));
}
}  // namespace registration
}  // namespace ppkit
