// cuda/stored, cuda/trilinear and cuda/trilinear-partial variants of
// sem.nekbone: the Jacobi PCG of nekbone_kokkos.cpp (same operator, same
// preconditioner, same inner products, so the same iterations) on the GPU with
// the register-column axhelm kernels (cuda/trilinear at Nq = 8: the
// tensor-core kernel) and fused vector sweeps
// (nekbone_cuda.cu). The CG scalars live on the device; the host reads the
// residual once per iteration only when a tolerance is set (tolerance 0, the
// benchmark mode, runs max_iterations without waiting).

#include <cmath>

#include "backends/cuda/core/cuda_device.hpp"
#include "backends/cuda/sem/axhelm_cuda_operator.hpp"
#include "backends/cuda/sem/nekbone_cuda.hpp"
#include "ppkit/sem/gather_scatter.hpp"
#include "ppkit/sem/nekbone.hpp"

namespace ppkit::sem {
namespace {

namespace nk = nekbone_kernels;

// The trilinear solve runs the fastest recompute kernel of its order: at
// Nq = 8 on compute capability 8.0+ the tensor-core kernel of
// cuda/trilinear-wmma (0.176 against 0.282 ms for the register-column
// cuda/trilinear at N = 7, 32,768 elements, H200; docs/sem.md).
CudaKernel axhelm_kernel(const AxhelmProblem& op, CudaKernel kernel) {
  if (kernel == CudaKernel::trilinear && op.nq() == 8 && tensor_core_availability().available)
    return CudaKernel::trilinear_wmma;
  return kernel;
}

class CudaNekbone final : public PreparedRun<NekboneResult> {
 public:
  CudaNekbone(const NekboneProblem& p, CudaKernel kernel)
      : op_(p.op, axhelm_kernel(p.op, kernel)),
        max_iterations_(p.max_iterations),
        tolerance_(p.tolerance) {
    const std::size_t L = p.op.local_count();
    require(p.rhs.size() == L && p.dirichlet.size() == L && p.diagonal.size() == L &&
                p.boundary.size() == L && p.global_ids.size() == L,
            "nekbone problem: vectors do not match the mesh", "E * (N+1)^3 values each");
    // Host set-up as in nekbone_kokkos.cpp: mask, c = 1/multiplicity, inverse
    // assembled diagonal (masked).
    std::vector<double> ones(L, 1.0), c(L), inv_diag(L), c_inv_diag(L);
    const auto multiplicity = dssum_reference(p.global_ids, p.global_count, ones);
    const auto diag = dssum_reference(p.global_ids, p.global_count, p.diagonal);
    for (std::size_t l = 0; l < L; ++l) {
      const double mask = p.boundary[l] ? 0.0 : 1.0;
      c[l] = 1.0 / multiplicity[l];
      inv_diag[l] = mask / diag[l];
      c_inv_diag[l] = c[l] * inv_diag[l];
    }
    const GatherScatterPlanHost plan = make_gather_scatter_plan(p.global_ids, p.global_count);
    require_32bit_gather_scatter(plan.locals.size());  // offsets <= locals.size() too
    offsets_ = cuda::DeviceBuffer<int>(std::vector<int>(plan.offsets.begin(), plan.offsets.end()));
    locals_ = cuda::DeviceBuffer<int>(std::vector<int>(plan.locals.begin(), plan.locals.end()));
    interior_ = cuda::DeviceBuffer<unsigned char>(
        interior_global_nodes(p.global_ids, p.global_count, p.boundary));
    c_ = cuda::DeviceBuffer<double>(c);
    inv_diag_ = cuda::DeviceBuffer<double>(inv_diag);
    c_inv_diag_ = cuda::DeviceBuffer<double>(c_inv_diag);
    dirichlet_ = cuda::DeviceBuffer<double>(p.dirichlet);
    x_ = cuda::DeviceBuffer<double>(L);
    r_ = cuda::DeviceBuffer<double>(L);
    p_ = cuda::DeviceBuffer<double>(L);
    w_ = cuda::DeviceBuffer<double>(L);
    scalars_ = cuda::DeviceBuffer<double>(nk::scalar_count);
    partials_ = cuda::DeviceBuffer<double>(2 * nk::max_blocks);
    plan_.global_count = plan.global_count;
    plan_.offsets = offsets_.data();
    plan_.locals = locals_.data();
    plan_.interior = interior_.data();
    vectors_.local_count = (long long)L;
    vectors_.inv_diag = inv_diag_.data();
    vectors_.c = c_.data();
    vectors_.c_inv_diag = c_inv_diag_.data();
    vectors_.x = x_.data();
    vectors_.r = r_.data();
    vectors_.p = p_.data();
    vectors_.w = w_.data();
    // b = mask Q Q^T (M f - A u_D): the lifted right-hand side.
    b_ = cuda::DeviceBuffer<double>(p.rhs);
    op_.apply(dirichlet_.data(), w_.data());
    nk::subtract((long long)L, b_.data(), w_.data(), b_.data());
    nk::gs_mask(plan_, b_.data(), nullptr, scalars_.data(), partials_.data());
    PPKIT_CUDA_CHECK_LAUNCH();
    x_.fill_bytes(0xFF);  // poison
    PPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }

  void run() override {
    const std::size_t bytes = sizeof(double) * vectors_.local_count;
    PPKIT_CUDA_CHECK(cudaMemsetAsync(x_.data(), 0, bytes));
    PPKIT_CUDA_CHECK(cudaMemsetAsync(p_.data(), 0, bytes));
    PPKIT_CUDA_CHECK(
        cudaMemcpyAsync(r_.data(), b_.data(), bytes, cudaMemcpyDeviceToDevice, nullptr));
    nk::residuals(vectors_, scalars_.data(), partials_.data());
    initial_ = std::sqrt(read_scalar(nk::rr_slot));
    double residual = initial_;
    int it = 0;
    while (it < max_iterations_ && residual > tolerance_ * initial_ && residual > 0) {
      nk::search(vectors_, scalars_.data());  // p = M^-1 r + beta p
      op_.apply(p_.data(), w_.data());        // w = A p
      nk::gs_mask(plan_, w_.data(), p_.data(), scalars_.data(), partials_.data());
      nk::update(vectors_, scalars_.data(), partials_.data());
      PPKIT_CUDA_CHECK_LAUNCH();
      ++it;
      if (tolerance_ > 0) residual = std::sqrt(read_scalar(nk::rr_slot));
    }
    residual = std::sqrt(read_scalar(nk::rr_slot));  // synchronises
    iterations_ = it;
    final_ = residual;
  }

  NekboneResult result() override {
    NekboneResult out;
    out.solution = x_.download();
    const auto dirichlet = dirichlet_.download();
    for (std::size_t l = 0; l < out.solution.size(); ++l) out.solution[l] += dirichlet[l];
    out.iterations = iterations_;
    out.initial_residual = initial_;
    out.final_residual = final_;
    return out;
  }

 private:
  double read_scalar(int slot) {
    double v = 0;
    PPKIT_CUDA_CHECK(
        cudaMemcpy(&v, scalars_.data() + slot, sizeof(double), cudaMemcpyDeviceToHost));
    return v;
  }

  CudaAxhelmOperator op_;
  int max_iterations_;
  double tolerance_;
  cuda::DeviceBuffer<int> offsets_, locals_;
  cuda::DeviceBuffer<unsigned char> interior_;
  cuda::DeviceBuffer<double> c_, inv_diag_, c_inv_diag_, dirichlet_, b_, x_, r_, p_, w_, scalars_,
      partials_;
  nk::GatherScatterDevicePlan plan_;
  nk::NekboneDeviceVectors vectors_;
  int iterations_ = 0;
  double initial_ = 0, final_ = 0;
};

}  // namespace

void register_sem_nekbone_cuda_variants() {
  auto add = [](const char* strategy, int preference, CudaKernel kernel) {
    auto v = cuda::cuda_variant<SemNekbone>(strategy, preference);
    v.prepare = [kernel](const NekboneProblem& p) {
      return std::make_unique<CudaNekbone>(p, kernel);
    };
    Registry<SemNekbone>::add(std::move(v));
  };
  add("stored", 5, CudaKernel::stored);
  add("trilinear", 7, CudaKernel::trilinear);
  add("trilinear-partial", 6, CudaKernel::trilinear_partial);
}

}  // namespace ppkit::sem
