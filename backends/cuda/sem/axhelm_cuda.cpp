// Glue of the CUDA sem.axhelm variants: uploads a problem into device buffers
// and launches the kernels of axhelm_cuda_columns_*.cu, axhelm_cuda.cu and
// axhelm_cuda_wmma.cu.
//   cuda/stored              register columns, factors loaded per node through
//                            asynchronous copies two k-slices ahead
//   cuda/trilinear           register columns, factors recomputed for trilinear
//                            elements, loaded for the rest
//   cuda/trilinear-partial   register columns, trilinear elements load lambda0 w/|J|
//                            per node and recompute the cofactors
//   cuda/stored-dshared      the first kernels (nekRS's layout: D in shared memory,
//   cuda/trilinear-dshared   scalar shared loads, one element per block), kept to
//                            show what the register-column rewrite gains
//   cuda/trilinear-wmma      as cuda/trilinear-dshared, r/s contractions on fp64
//                            tensor cores; Nq = 8 (N = 7) only, sm_80 or newer
#include <fmt/format.h>

#include "backends/cuda/core/cuda_device.hpp"
#include "backends/cuda/sem/axhelm_cuda.hpp"
#include "backends/cuda/sem/axhelm_cuda_operator.hpp"
#include "ppkit/sem/axhelm.hpp"
#include "ppkit/sem/geometry.hpp"

namespace ppkit::sem {
namespace {

bool recomputes(CudaKernel k) { return k != CudaKernel::stored && k != CudaKernel::stored_dshared; }

// Each kernel translation unit has its own constant tables, holding one
// problem's D at a time; a run re-uploads them only when another prepared run
// used the same tables since.
using SetConstants = void (*)(int, const double*, const double*, const double*);
struct KernelEntry {
  int table;
  SetConstants set_constants;
  void (*launch)(const AxhelmKernelArgs&);
};
KernelEntry kernel_entry(CudaKernel k) {
  using namespace cuda_kernels;
  switch (k) {
    case CudaKernel::stored:
      return {0, set_constants_columns_stored, launch_columns_stored};
    case CudaKernel::trilinear:
      return {1, set_constants_columns_recompute, launch_columns_recompute};
    case CudaKernel::trilinear_partial:
      return {2, set_constants_columns_partial, launch_columns_partial};
    case CudaKernel::stored_dshared:
      return {3, set_constants, launch_stored};
    case CudaKernel::trilinear_dshared:
      return {3, set_constants, launch_trilinear};
    case CudaKernel::trilinear_wmma:
      return {4, set_constants_wmma, launch_trilinear_wmma};
  }
  return {3, set_constants, launch_stored};
}
const void* constants_owner[5] = {nullptr, nullptr, nullptr, nullptr, nullptr};

}  // namespace

CudaAxhelmOperator::CudaAxhelmOperator(const AxhelmProblem& p, CudaKernel kernel)
    : kernel_(kernel) {
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
  const bool recompute = recomputes(kernel);
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
  derivative_device_ = cuda::DeviceBuffer<double>(p.derivative);
  if (kernel == CudaKernel::trilinear_partial) {
    // Partial recompute (Cao et al., section 3.3): lambda0 w / |J| per node,
    // from the set-up's w|J| (GeomFactor GWJ): lambda0 w^2 / (w|J|).
    const int nq = p.nq(), np = p.np();
    std::vector<double> scale(std::size_t(p.elements) * np);
    for (std::int64_t e = 0; e < p.elements; ++e)
      for (int n = 0; n < np; ++n) {
        const double w = p.weights[n % nq] * p.weights[(n / nq) % nq] * p.weights[n / (nq * nq)];
        scale[std::size_t(e) * np + n] =
            p.lambda0 * w * w / p.factors[(std::size_t(e) * factors_per_node + GWJ) * np + n];
      }
    node_scale_ = cuda::DeviceBuffer<double>(scale);
  } else {
    node_scale_ = cuda::DeviceBuffer<double>(std::vector<double>{0.0});
  }
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
  args_.derivative = derivative_device_.data();
  args_.node_scale = node_scale_.data();
  PPKIT_CUDA_CHECK(cudaDeviceSynchronize());
}

CudaAxhelmOperator::~CudaAxhelmOperator() {
  for (auto& owner : constants_owner)
    if (owner == this) owner = nullptr;
}

void CudaAxhelmOperator::apply(const double* x, double* y) {
  const KernelEntry entry = kernel_entry(kernel_);
  if (constants_owner[entry.table] != this) {
    entry.set_constants(args_.nq, derivative_.data(), nodes_.data(), weights_.data());
    PPKIT_CUDA_CHECK_LAUNCH();
    constants_owner[entry.table] = this;
  }
  AxhelmKernelArgs a = args_;
  a.x = x;
  a.y = y;
  entry.launch(a);
  PPKIT_CUDA_CHECK_LAUNCH();
}

namespace {

class CudaAxhelm final : public PreparedRun<SemAxhelm::Result> {
 public:
  CudaAxhelm(const AxhelmProblem& p, CudaKernel kernel) : op_(p, kernel), x_(p.x), y_(p.x.size()) {
    y_.fill_bytes(0xFF);  // poison (NaN)
    PPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void run() override {
    op_.apply(x_.data(), y_.data());
    PPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  SemAxhelm::Result result() override { return y_.download(); }

 private:
  CudaAxhelmOperator op_;
  cuda::DeviceBuffer<double> x_, y_;
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
  auto add = [](const char* strategy, int preference, CudaKernel kernel) {
    auto v = cuda::cuda_variant<SemAxhelm>(strategy, preference);
    v.prepare = [kernel](const AxhelmProblem& p) {
      return std::make_unique<CudaAxhelm>(p, kernel);
    };
    Registry<SemAxhelm>::add(std::move(v));
  };
  add("stored", 5, CudaKernel::stored);
  add("trilinear", 7, CudaKernel::trilinear);
  add("trilinear-partial", 6, CudaKernel::trilinear_partial);
  add("stored-dshared", 3, CudaKernel::stored_dshared);
  add("trilinear-dshared", 3, CudaKernel::trilinear_dshared);
  // Low preference: "auto" must not pick a variant that refuses most orders.
  auto wmma = cuda::cuda_variant<SemAxhelm>("trilinear-wmma", 4);
  wmma.availability = tensor_core_availability;
  wmma.prepare = [](const AxhelmProblem& p) {
    return std::make_unique<CudaAxhelm>(p, CudaKernel::trilinear_wmma);
  };
  Registry<SemAxhelm>::add(std::move(wmma));
  register_sem_nekbone_cuda_variants();
}
}  // namespace ppkit::registration
