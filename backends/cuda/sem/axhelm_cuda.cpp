// Glue of the CUDA sem.axhelm variants: uploads a problem into device buffers
// and launches the kernels of axhelm_cuda.cu / axhelm_cuda_wmma.cu.
//   cuda/stored            factors loaded per node (nekRS)
//   cuda/trilinear         recomputed for trilinear elements, loaded for the rest
//   cuda/trilinear-wmma    as cuda/trilinear, r/s contractions on fp64 tensor cores;
//                          Nq = 8 (N = 7) only, sm_80 or newer
#include <fmt/format.h>

#include "backends/cuda/core/cuda_device.hpp"
#include "backends/cuda/sem/axhelm_cuda.hpp"
#include "ppkit/sem/axhelm.hpp"
#include "ppkit/sem/geometry.hpp"

namespace ppkit::sem {
namespace {

enum class CudaKernel { stored, trilinear, trilinear_wmma };

// Constant memory holds one problem's D at a time; a run re-uploads it only
// when another prepared run used the tables since.
const void* constants_owner[2] = {nullptr, nullptr};  // [generic, wmma]

class CudaAxhelm final : public PreparedRun<SemAxhelm::Result> {
 public:
  CudaAxhelm(const AxhelmProblem& p, CudaKernel kernel) : kernel_(kernel) {
    validate_axhelm_problem(p);
    if (p.nq() > compiled_max_nq)
      throw Error(
          fmt::format("{}the CUDA axhelm kernels are compiled for N <= {}; this problem has N = {}",
                      unsupported_problem_prefix, compiled_max_nq - 1, p.order),
          fmt::format("N <= {}", compiled_max_nq - 1));
    if (kernel == CudaKernel::trilinear_wmma && p.nq() != 8)
      throw Error(
          fmt::format("{}cuda/trilinear-wmma runs only Nq = 8 (N = 7); this problem has N = {}",
                      unsupported_problem_prefix, p.order),
          "N = 7");
    const bool recompute = kernel != CudaKernel::stored;
    const std::size_t per_element = std::size_t(factors_per_node) * p.np();
    std::vector<long long> slot(p.elements);
    std::vector<double> loaded;
    long long next = 0;
    for (std::int64_t e = 0; e < p.elements; ++e) {
      if (recompute && p.trilinear[e]) {
        slot[e] = -1;
        continue;
      }
      slot[e] = next++;
      loaded.insert(loaded.end(), p.factors.begin() + e * per_element,
                    p.factors.begin() + (e + 1) * per_element);
    }
    if (loaded.empty()) loaded.push_back(0.0);
    factors_ = cuda::DeviceBuffer<double>(loaded);
    slot_ = cuda::DeviceBuffer<long long>(slot);
    vertices_ = cuda::DeviceBuffer<double>(p.vertices);
    x_ = cuda::DeviceBuffer<double>(p.x);
    y_ = cuda::DeviceBuffer<double>(p.x.size());
    y_.fill_bytes(0xFF);  // poison (NaN)
    derivative_ = p.derivative;
    nodes_ = p.nodes;
    weights_ = p.weights;
    args_.nq = p.nq();
    args_.elements = p.elements;
    args_.ncol = p.ncol;
    args_.field_stride = p.local_count();
    args_.helmholtz = p.helmholtz() ? 1 : 0;
    args_.lambda0 = p.lambda0;
    args_.lambda1 = p.lambda1;
    args_.factors = factors_.data();
    args_.factor_slot = recompute ? slot_.data() : nullptr;
    args_.vertices = vertices_.data();
    args_.x = x_.data();
    args_.y = y_.data();
    PPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  ~CudaAxhelm() override {
    for (auto& owner : constants_owner)
      if (owner == this) owner = nullptr;
  }

  void run() override {
    const int table = kernel_ == CudaKernel::trilinear_wmma ? 1 : 0;
    if (constants_owner[table] != this) {
      if (table == 1)
        cuda_kernels::set_constants_wmma(args_.nq, derivative_.data(), nodes_.data(),
                                         weights_.data());
      else
        cuda_kernels::set_constants(args_.nq, derivative_.data(), nodes_.data(), weights_.data());
      PPKIT_CUDA_CHECK_LAUNCH();
      constants_owner[table] = this;
    }
    switch (kernel_) {
      case CudaKernel::stored:
        cuda_kernels::launch_stored(args_);
        break;
      case CudaKernel::trilinear:
        cuda_kernels::launch_trilinear(args_);
        break;
      case CudaKernel::trilinear_wmma:
        cuda_kernels::launch_trilinear_wmma(args_);
        break;
    }
    PPKIT_CUDA_CHECK_LAUNCH();
    PPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  SemAxhelm::Result result() override { return y_.download(); }

 private:
  CudaKernel kernel_;
  AxhelmKernelArgs args_;
  cuda::DeviceBuffer<double> factors_, vertices_, x_, y_;
  cuda::DeviceBuffer<long long> slot_;
  std::vector<double> derivative_, nodes_, weights_;
};

Availability tensor_core_availability() {
  const Availability device = cuda::device_availability();
  if (!device.available) return device;
  int device_id = 0, major = 0;
  if (cudaGetDevice(&device_id) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device_id) != cudaSuccess)
    return Availability::no("cannot query the CUDA device's compute capability");
  if (major < 8)
    return Availability::no(
        fmt::format("fp64 WMMA needs compute capability 8.0 or newer (sm_{}x)", major));
  return Availability::yes();
}

}  // namespace
}  // namespace ppkit::sem

namespace ppkit::registration {
void register_sem_cuda_variants() {
  using namespace ppkit::sem;
  auto stored = cuda::cuda_variant<SemAxhelm>("stored", 5);
  stored.prepare = [](const AxhelmProblem& p) {
    return std::make_unique<CudaAxhelm>(p, CudaKernel::stored);
  };
  Registry<SemAxhelm>::add(std::move(stored));
  auto trilinear = cuda::cuda_variant<SemAxhelm>("trilinear", 6);
  trilinear.prepare = [](const AxhelmProblem& p) {
    return std::make_unique<CudaAxhelm>(p, CudaKernel::trilinear);
  };
  Registry<SemAxhelm>::add(std::move(trilinear));
  // Lower preference than cuda/trilinear: "auto" must not pick a variant that
  // refuses most orders.
  auto wmma = cuda::cuda_variant<SemAxhelm>("trilinear-wmma", 4);
  wmma.availability = tensor_core_availability;
  wmma.prepare = [](const AxhelmProblem& p) {
    return std::make_unique<CudaAxhelm>(p, CudaKernel::trilinear_wmma);
  };
  Registry<SemAxhelm>::add(std::move(wmma));
}
}  // namespace ppkit::registration
