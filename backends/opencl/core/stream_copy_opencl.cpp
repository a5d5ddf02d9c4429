// opencl/copy-buffer: clEnqueueCopyBuffer, the OpenCL copy-bandwidth probe.
#include "backends/opencl/core/opencl_context.hpp"
#include "ppkit/core/stream_copy.hpp"

namespace ppkit {
namespace registration {
void register_core_opencl_info();
}
namespace {

class OpenClCopyBuffer final : public PreparedRun<StreamCopy::Result> {
 public:
  explicit OpenClCopyBuffer(const StreamCopy::Problem& p)
      : source_(p.source), destination_(p.source.size()) {
    destination_.fill_bytes(0xFF);
  }
  void run() override {
    auto& ctx = opencl::Context::get();
    PPKIT_CL_CHECK(clEnqueueCopyBuffer(ctx.queue(), source_.mem(), destination_.mem(), 0, 0,
                                       source_.bytes(), 0, nullptr, nullptr));
    ctx.finish();
  }
  StreamCopy::Result result() override { return destination_.download(); }

 private:
  opencl::Buffer<double> source_, destination_;
};

}  // namespace

namespace registration {
void register_core_opencl_variants() {
  register_core_opencl_info();
  auto v = opencl::opencl_variant<StreamCopy>("copy-buffer", 5);
  v.prepare = [](const StreamCopy::Problem& p) { return std::make_unique<OpenClCopyBuffer>(p); };
  Registry<StreamCopy>::add(std::move(v));
}
}  // namespace registration
}  // namespace ppkit
