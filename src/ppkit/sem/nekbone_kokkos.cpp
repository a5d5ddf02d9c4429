// kokkos-<space>/stored and kokkos-<space>/trilinear variants of sem.nekbone:
// Jacobi-PCG in local form (Nekbone's cg.f), the operator being axhelm with
// stored or recomputed geometric factors, then gather-scatter and the mask.
#include <cmath>
#include <limits>

#include "ppkit/core/error.hpp"
#include "ppkit/core/health_kokkos.hpp"
#include "ppkit/core/kokkos_spaces.hpp"
#include "ppkit/sem/axhelm_kokkos.hpp"
#include "ppkit/sem/gather_scatter.hpp"
#include "ppkit/sem/nekbone.hpp"
#include "ppkit/sem/nekbone_vectors_kokkos.hpp"

namespace ppkit::sem {
namespace {

template <class Exec>
class KokkosNekbone final : public PreparedRun<NekboneResult> {
  using Mem = typename Exec::memory_space;
  using View = Kokkos::View<double*, Mem>;

 public:
  KokkosNekbone(const NekboneProblem& p, bool recompute)
      : mesh_(upload_axhelm_mesh<Mem>(p.op, recompute)),
        plan_(upload_gather_scatter_plan<Mem>(
            make_gather_scatter_plan(p.global_ids, p.global_count))),
        max_iterations_(p.max_iterations),
        tolerance_(p.tolerance) {
    const std::size_t L = p.op.local_count();
    require(p.rhs.size() == L && p.dirichlet.size() == L && p.diagonal.size() == L &&
                p.boundary.size() == L && p.global_ids.size() == L,
            "nekbone problem: vectors do not match the mesh", "E * (N+1)^3 values each");
    dirichlet_ = to_device<double, Mem>(p.dirichlet, "sem::dirichlet");
    // mask (0 on the boundary), weight (1 / multiplicity), inverse assembled diagonal.
    std::vector<double> mask(L), ones(L, 1.0);
    for (std::size_t l = 0; l < L; ++l) mask[l] = p.boundary[l] ? 0.0 : 1.0;
    mask_ = to_device<double, Mem>(mask, "sem::mask");
    interior_ = to_device<std::uint8_t, Mem>(
        interior_global_nodes(p.global_ids, p.global_count, p.boundary), "sem::interior");
    const auto multiplicity = dssum_reference(p.global_ids, p.global_count, ones);
    std::vector<double> weight(L);
    for (std::size_t l = 0; l < L; ++l) weight[l] = 1.0 / multiplicity[l];
    weight_ = to_device<double, Mem>(weight, "sem::weight");
    const auto diag = dssum_reference(p.global_ids, p.global_count, p.diagonal);
    std::vector<double> inv_diag(L);
    for (std::size_t l = 0; l < L; ++l) inv_diag[l] = mask[l] / diag[l];
    inv_diag_ = to_device<double, Mem>(inv_diag, "sem::inv_diag");
    b_ = lifted_rhs<Exec>(p.rhs, mesh_, dirichlet_, mask_,
                          [&](const View& v) { dssum<Exec>(plan_, v); });
    x_ = View("sem::x", L);
    r_ = View("sem::r", L);
    p_ = View("sem::p", L);
    w_ = View("sem::w", L);
    Kokkos::deep_copy(x_, std::numeric_limits<double>::quiet_NaN());  // poison
    Exec().fence();
  }

  void run() override {
    Kokkos::deep_copy(x_, 0.0);
    Kokkos::deep_copy(r_, b_);
    Kokkos::deep_copy(p_, 0.0);
    residual_dots<Exec>(r_, weight_, inv_diag_, cg_.residual[0]);
    initial_ = read_residual(0);
    double residual = initial_;
    int it = 0;
    // With tolerance 0 (the benchmark) nothing here waits for the device.
    while (it < max_iterations_ && residual > tolerance_ * initial_ && residual > 0) {
      search<Exec>(p_, r_, inv_diag_, cg_, it);                 // p = M^-1 r + beta p
      apply_axhelm<Exec>(mesh_, p_, w_);                        // w = A p
      dssum_mask_dot<Exec>(plan_, w_, interior_, p_, cg_.pap);  // w = mask QQ^T w, w.p
      update_dot<Exec>(x_, r_, p_, w_, cg_, it, weight_, inv_diag_,
                       cg_.residual[(it + 1) % 2]);  // x, r, r.r, r.z
      ++it;
      if (tolerance_ > 0) residual = read_residual(it);
    }
    if (it > 0) residual = read_residual(it);
    Exec().fence();
    if (!std::isfinite(residual) || !std::isfinite(initial_)) fail_on_fault(it);
    iterations_ = it;
    final_ = residual;
  }

  // |r| entering iteration `it` (waits for the device).
  double read_residual(int it) const {
    ResidualDots dots;
    Kokkos::deep_copy(dots, cg_.residual[it % 2]);
    return std::sqrt(dots.rr);
  }

  // Numerical health (after the timed loop only): names the iteration, the
  // element and the GLL node (i, j, k) of the first non-finite residual entry.
  [[noreturn]] void fail_on_fault(int iteration) const {
    const std::int64_t at = health::first_faulty<Exec>(r_);
    const std::int64_t np = std::int64_t(mesh_.nq) * mesh_.nq * mesh_.nq;
    const std::int64_t local = at < 0 ? 0 : at % np, nq = mesh_.nq;
    throw Error(
        "sem PCG residual is not finite at iteration " + std::to_string(iteration) +
            (at < 0 ? std::string()
                    : ", element " + std::to_string(at / np) + ", GLL node (" +
                          std::to_string(local % nq) + "," + std::to_string(local / nq % nq) + "," +
                          std::to_string(local / (nq * nq)) + ")"),
        "finite right-hand side and geometry (check the mesh and the coefficients)");
  }

  NekboneResult result() override {
    NekboneResult out;
    View u("sem::u", x_.extent(0));
    Kokkos::deep_copy(u, x_);
    axpby<Exec>(u, 1.0, dirichlet_, 1.0);
    out.solution = to_host(u);
    out.iterations = iterations_;
    out.initial_residual = initial_;
    out.final_residual = final_;
    return out;
  }

 private:
  AxhelmDeviceMesh<Mem> mesh_;
  GatherScatterPlan<Mem> plan_;
  int max_iterations_;
  double tolerance_;
  View dirichlet_, mask_, weight_, inv_diag_, b_, x_, r_, p_, w_;
  Kokkos::View<std::uint8_t*, Mem> interior_;  // per global node (interior_global_nodes)
  CgScalars<Exec> cg_;
  int iterations_ = 0;
  double initial_ = 0, final_ = 0;
};

}  // namespace
}  // namespace ppkit::sem

namespace ppkit::registration {
void register_sem_nekbone_kokkos_variants() {
  using namespace ppkit::sem;
  for_each_kokkos_space([](auto space) {
    using Exec = typename decltype(space)::execution_space;
    auto stored = kokkos_variant<SemNekbone>(space, "stored", 1);
    stored.prepare = [](const NekboneProblem& p) {
      return std::make_unique<KokkosNekbone<Exec>>(p, false);
    };
    Registry<SemNekbone>::add(std::move(stored));
    auto trilinear = kokkos_variant<SemNekbone>(space, "trilinear", 2);
    trilinear.prepare = [](const NekboneProblem& p) {
      return std::make_unique<KokkosNekbone<Exec>>(p, true);
    };
    Registry<SemNekbone>::add(std::move(trilinear));
  });
}
}  // namespace ppkit::registration
