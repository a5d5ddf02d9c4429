// cuda/stored, cuda/trilinear and cuda/trilinear-partial variants of
// sem.nekbone: the Jacobi PCG of nekbone_kokkos.cpp (same operator, same
// preconditioner, same inner products, so the same iterations) on the GPU with
// the register-column axhelm kernels (cuda/trilinear at Nq = 8: the
// tensor-core kernel) and fused vector sweeps
// (nekbone_cuda.cu). The CG scalars live on the device; the host reads the
// residual once per iteration only when a tolerance is set (tolerance 0, the
// benchmark mode, runs max_iterations without waiting).
// The "-assembled" variants run the same PCG on vectors of global nodes as
// nekbone_kokkos.cpp does, with the assembled operator of the kernels
// (AxhelmKernelArgs::global_of_local): axhelm reads p through the
// local-to-global index and adds its local results to w at their global
// nodes (atomics, so sums of copies may round differently from run to run),
// each element adding p_e . A_e p_e to p.Ap; search zeroes w for it and
// update masks it; search and update see each global node once (weights 1).
// No gather-scatter sweep and no one-block reduction runs in the loop: three
// kernels per iteration, the inner products summed by atomic adds into
// device scalars (nekbone_cuda.cu).

#include <cmath>
#include <cstdint>

#include "backends/cuda/core/cuda_device.hpp"
#include "backends/cuda/sem/axhelm_cuda_operator.hpp"
#include "backends/cuda/sem/nekbone_cuda.hpp"
#include "ppkit/sem/gather_scatter.hpp"
#include "ppkit/sem/nekbone.hpp"

namespace ppkit::sem {
namespace {

namespace nk = nekbone_kernels;

// The trilinear solve runs the recompute kernel of its order with the most
// work on tensor cores: at Nq = 8 the kernel of cuda/trilinear-wmma-m16 on
// compute capability 9.0+ (m16n8k4: a third fewer tensor-core instructions),
// else that of cuda/trilinear-wmma-t on 8.0+ (docs/sem.md compares them with
// cuda/trilinear-wmma and the register-column cuda/trilinear).
CudaKernel axhelm_kernel(const AxhelmProblem& op, CudaKernel kernel) {
  if (kernel != CudaKernel::trilinear || op.nq() != 8) return kernel;
  if (tensor_core_m16_availability().available) return CudaKernel::trilinear_wmma_m16;
  if (tensor_core_availability().available) return CudaKernel::trilinear_wmma_t;
  return kernel;
}

class CudaNekbone final : public PreparedRun<NekboneResult> {
 public:
  CudaNekbone(const NekboneProblem& p, CudaKernel kernel, NekboneLayout layout)
      : op_(p.op, axhelm_kernel(p.op, kernel)),
        layout_(layout),
        max_iterations_(p.max_iterations),
        tolerance_(p.tolerance) {
    const std::size_t L = p.op.local_count(), G = std::size_t(p.global_count);
    require(p.rhs.size() == L && p.dirichlet.size() == L && p.diagonal.size() == L &&
                p.boundary.size() == L && p.global_ids.size() == L,
            "nekbone problem: vectors do not match the mesh", "E * (N+1)^3 values each");
    // Host set-up as in nekbone_kokkos.cpp: mask, c = 1/multiplicity, inverse
    // assembled diagonal (masked), per local node or per global node.
    const GatherScatterPlanHost plan = make_gather_scatter_plan(p.global_ids, p.global_count);
    require_32bit_gather_scatter(plan.locals.size());  // offsets <= locals.size() too
    const auto interior = interior_global_nodes(p.global_ids, p.global_count, p.boundary);
    const auto diag = dssum_reference(p.global_ids, p.global_count, p.diagonal);
    offsets_ = cuda::DeviceBuffer<int>(std::vector<int>(plan.offsets.begin(), plan.offsets.end()));
    locals_ = cuda::DeviceBuffer<int>(std::vector<int>(plan.locals.begin(), plan.locals.end()));
    interior_ = cuda::DeviceBuffer<unsigned char>(interior);
    dirichlet_ = cuda::DeviceBuffer<double>(p.dirichlet);
    plan_.global_count = plan.global_count;
    plan_.offsets = offsets_.data();
    plan_.locals = locals_.data();
    plan_.interior = interior_.data();
    const bool assembled = layout_ == NekboneLayout::assembled;
    const std::size_t n = assembled ? G : L;
    std::vector<double> inv_diag(n, 0.0), c, c_inv_diag(n);
    if (assembled) {
      global_of_local_ =
          cuda::DeviceBuffer<std::int32_t>(assembled_operator_index(p.global_ids, p.global_count));
      for (std::size_t l = 0; l < L; ++l) {
        const std::int64_t g = p.global_ids[l];
        inv_diag[g] = interior[g] ? 1.0 / diag[l] : 0.0;
      }
      c_inv_diag = inv_diag;
    } else {
      std::vector<double> ones(L, 1.0);
      const auto multiplicity = dssum_reference(p.global_ids, p.global_count, ones);
      c.resize(L);
      for (std::size_t l = 0; l < L; ++l) {
        const double mask = p.boundary[l] ? 0.0 : 1.0;
        c[l] = 1.0 / multiplicity[l];
        inv_diag[l] = mask / diag[l];
        c_inv_diag[l] = c[l] * inv_diag[l];
      }
      c_ = cuda::DeviceBuffer<double>(c);
    }
    inv_diag_ = cuda::DeviceBuffer<double>(inv_diag);
    c_inv_diag_ = cuda::DeviceBuffer<double>(c_inv_diag);
    x_ = cuda::DeviceBuffer<double>(n);
    r_ = cuda::DeviceBuffer<double>(n);
    p_ = cuda::DeviceBuffer<double>(n);
    w_ = cuda::DeviceBuffer<double>(L);  // axhelm's local result
    if (assembled) w_global_ = cuda::DeviceBuffer<double>(G);
    scalars_ = cuda::DeviceBuffer<double>(nk::assembled_scalar_count);
    partials_ = cuda::DeviceBuffer<double>(2 * nk::max_blocks);
    vectors_.count = (long long)n;
    vectors_.inv_diag = inv_diag_.data();
    vectors_.c = assembled ? nullptr : c_.data();
    vectors_.c_inv_diag = c_inv_diag_.data();
    vectors_.x = x_.data();
    vectors_.r = r_.data();
    vectors_.p = p_.data();
    vectors_.w = assembled ? w_global_.data() : w_.data();
    // b = mask Q Q^T (M f - A u_D) (local form) or mask Q^T (M f - A u_D)
    // (assembled): the lifted right-hand side.
    cuda::DeviceBuffer<double> rhs(p.rhs);
    op_.apply(dirichlet_.data(), w_.data());
    nk::subtract((long long)L, rhs.data(), w_.data(), rhs.data());
    if (assembled) {
      b_ = cuda::DeviceBuffer<double>(G);
      nk::gather_sum_mask(plan_, rhs.data(), nullptr, b_.data(), scalars_.data(), partials_.data());
    } else {
      nk::gs_mask(plan_, rhs.data(), nullptr, scalars_.data(), partials_.data());
      b_ = std::move(rhs);
    }
    PPKIT_CUDA_CHECK_LAUNCH();
    x_.fill_bytes(0xFF);  // poison
    PPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }

  void run() override {
    const std::size_t bytes = sizeof(double) * vectors_.count;
    PPKIT_CUDA_CHECK(cudaMemsetAsync(x_.data(), 0, bytes));
    PPKIT_CUDA_CHECK(cudaMemsetAsync(p_.data(), 0, bytes));
    PPKIT_CUDA_CHECK(
        cudaMemcpyAsync(r_.data(), b_.data(), bytes, cudaMemcpyDeviceToDevice, nullptr));
    const bool assembled = layout_ == NekboneLayout::assembled;
    // |r| entering iteration i (the assembled loop's ring, nekbone_cuda.hpp).
    auto residual_slot = [assembled](int i) {
      return assembled ? nk::rr_ring + i % 3 : nk::rr_slot;
    };
    if (assembled) {
      PPKIT_CUDA_CHECK(cudaMemsetAsync(scalars_.data(), 0, sizeof(double) * scalars_.size()));
      nk::residuals_assembled(vectors_, scalars_.data());
    } else {
      nk::residuals(vectors_, scalars_.data(), partials_.data());
    }
    initial_ = std::sqrt(read_scalar(residual_slot(0)));
    double residual = initial_;
    int it = 0;
    while (it < max_iterations_ && residual > tolerance_ * initial_ && residual > 0) {
      if (assembled) {
        // p = M^-1 r + beta p, w = 0; w += Q^T A_L Q p and pAp; update with
        // the mask and the residual dots.
        nk::search_assembled(vectors_, scalars_.data(), it);
        op_.apply(p_.data(), w_global_.data(), global_of_local_.data(),
                  scalars_.data() + nk::pap_slots);
        nk::update_assembled(vectors_, interior_.data(), scalars_.data(), it);
      } else {
        nk::search(vectors_, scalars_.data());  // p = M^-1 r + beta p
        op_.apply(p_.data(), w_.data());        // w = A p
        nk::gs_mask(plan_, w_.data(), p_.data(), scalars_.data(), partials_.data());
        nk::update(vectors_, scalars_.data(), partials_.data());
      }
      PPKIT_CUDA_CHECK_LAUNCH();
      ++it;
      if (tolerance_ > 0) residual = std::sqrt(read_scalar(residual_slot(it)));
    }
    residual = std::sqrt(read_scalar(residual_slot(it)));  // synchronises
    iterations_ = it;
    final_ = residual;
  }

  NekboneResult result() override {
    NekboneResult out;
    const auto x = x_.download(), dirichlet = dirichlet_.download();
    out.solution = dirichlet;
    if (layout_ == NekboneLayout::assembled) {  // u_L = x at the local node's global node
      const auto global_of_local = global_of_local_.download();
      for (std::size_t l = 0; l < out.solution.size(); ++l)
        out.solution[l] += x[global_of_local[l]];
    } else {
      for (std::size_t l = 0; l < out.solution.size(); ++l) out.solution[l] += x[l];
    }
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
  NekboneLayout layout_;
  int max_iterations_;
  double tolerance_;
  cuda::DeviceBuffer<int> offsets_, locals_;
  cuda::DeviceBuffer<std::int32_t> global_of_local_;
  cuda::DeviceBuffer<unsigned char> interior_;
  cuda::DeviceBuffer<double> c_, inv_diag_, c_inv_diag_, dirichlet_, b_, x_, r_, p_, w_, w_global_,
      scalars_, partials_;
  nk::GatherScatterDevicePlan plan_;
  nk::NekboneDeviceVectors vectors_;
  int iterations_ = 0;
  double initial_ = 0, final_ = 0;
};

}  // namespace

void register_sem_nekbone_cuda_variants() {
  auto add = [](const char* strategy, int preference, CudaKernel kernel, GeometryCost geometry,
                NekboneLayout layout) {
    auto v = cuda::cuda_variant<SemNekbone>(strategy, preference);
    v.traits.geometry = geometry;
    v.traits.layout = layout;
    // stored: the Nekbone baseline the other strategies' speedups are over.
    if (geometry == GeometryCost::stored && layout == NekboneLayout::local)
      v.role = VariantRole::baseline;
    v.prepare = [kernel, layout](const NekboneProblem& p) {
      return std::make_unique<CudaNekbone>(p, kernel, layout);
    };
    Registry<SemNekbone>::add(std::move(v));
  };
  add("stored", 5, CudaKernel::stored, GeometryCost::stored, NekboneLayout::local);
  add("trilinear", 7, CudaKernel::trilinear, GeometryCost::recompute, NekboneLayout::local);
  add("trilinear-partial", 6, CudaKernel::trilinear_partial, GeometryCost::partial,
      NekboneLayout::local);
  // Faster than the local form (docs/sem.md): first for "auto".
  add("stored-assembled", 8, CudaKernel::stored, GeometryCost::stored, NekboneLayout::assembled);
  add("trilinear-assembled", 9, CudaKernel::trilinear, GeometryCost::recompute,
      NekboneLayout::assembled);
}

}  // namespace ppkit::sem
