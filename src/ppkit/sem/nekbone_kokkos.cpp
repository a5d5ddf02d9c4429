// kokkos-<space>/stored, kokkos-<space>/trilinear: Jacobi-PCG in local form
// (Nekbone's cg.f), the operator being axhelm with stored or recomputed
// geometric factors, then gather-scatter and the mask; every vector has a
// value per local node (E (N+1)^3) and the inner products weigh each copy by
// 1 / multiplicity.
// kokkos-<space>/stored-assembled, kokkos-<space>/trilinear-assembled: the same
// PCG on vectors of global nodes (G, about (N/(N+1))^3 of the local count): axhelm
// is the assembled operator (apply_axhelm_assembled): it reads p through the
// local-to-global index and adds its local results to w at their global nodes
// (atomic adds, so sums of copies may round differently from run to run),
// each element adding p_e . A_e p_e to p.Ap; search zeroes both for it and
// update reads it through the mask; search and update touch each global node
// once. No gather-scatter sweep runs in the loop (as the CUDA Nekbone). Same operator, same
// preconditioner, same inner products in exact arithmetic, so the same
// iterations as the local form (tests/sem/test_nekbone.cpp); fewer bytes per
// iteration (nekbone_cost, docs/sem.md).
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
  KokkosNekbone(const NekboneProblem& p, bool recompute, NekboneLayout layout)
      : mesh_(upload_axhelm_mesh<Mem>(p.op, recompute)),
        plan_(upload_gather_scatter_plan<Mem>(
            make_gather_scatter_plan(p.global_ids, p.global_count))),
        layout_(layout),
        max_iterations_(p.max_iterations),
        tolerance_(p.tolerance) {
    const std::size_t L = p.op.local_count();
    require(p.rhs.size() == L && p.dirichlet.size() == L && p.diagonal.size() == L &&
                p.boundary.size() == L && p.global_ids.size() == L,
            "nekbone problem: vectors do not match the mesh", "E * (N+1)^3 values each");
    dirichlet_ = to_device<double, Mem>(p.dirichlet, "sem::dirichlet");
    const auto interior = interior_global_nodes(p.global_ids, p.global_count, p.boundary);
    interior_ = to_device<std::uint8_t, Mem>(interior, "sem::interior");
    // Every local copy of the assembled diagonal holds the sum over the copies.
    const auto diag = dssum_reference(p.global_ids, p.global_count, p.diagonal);
    if (layout_ == NekboneLayout::local)
      set_up_local(p, diag);
    else
      set_up_assembled(p, diag, interior);
    Kokkos::deep_copy(x_, std::numeric_limits<double>::quiet_NaN());  // poison
    Exec().fence();
  }

  void run() override {
    Kokkos::deep_copy(x_, 0.0);
    Kokkos::deep_copy(r_, b_);
    Kokkos::deep_copy(p_, 0.0);
    const bool local = layout_ == NekboneLayout::local;
    if (local)
      residual_dots<Exec>(r_, weight_, inv_diag_, cg_.residual[0]);
    else
      residual_dots<Exec>(r_, UnitWeight{}, inv_diag_, cg_.residual[0]);
    initial_ = read_residual(0);
    double residual = initial_;
    int it = 0;
    // With tolerance 0 (the benchmark) nothing here waits for the device.
    while (it < max_iterations_ && residual > tolerance_ * initial_ && residual > 0) {
      const auto next = cg_.residual[(it + 1) % 2];
      if (local) {
        search<Exec>(p_, r_, inv_diag_, cg_, it);                 // p = M^-1 r + beta p
        apply_axhelm<Exec>(mesh_, p_, w_);                        // w = A p
        dssum_mask_dot<Exec>(plan_, w_, interior_, p_, cg_.pap);  // w = mask QQ^T w, w.p
        update_dot<Exec>(x_, r_, p_, w_, cg_, it, weight_, inv_diag_, next);  // x, r, r.r, r.z
      } else {
        // p = M^-1 r + beta p, w = 0, p.Ap = 0; w += Q^T A_L Q p and p.Ap +=
        // p_e . A_e p_e per element (= p . mask w: p is 0 on the mask).
        search<Exec>(p_, r_, inv_diag_, cg_, it, w_global_);
        apply_axhelm_assembled<Exec>(mesh_, global_of_local_, p_, w_global_, cg_.pap);
        update_dot<Exec>(x_, r_, p_, MaskedVector<Exec>{w_global_, interior_}, cg_, it,
                         UnitWeight{}, inv_diag_, next);
      }
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

  // Numerical health (after the timed loop only): names the iteration and the
  // first non-finite residual entry by element and GLL node (i, j, k); in the
  // assembled form that of the global node's first local copy.
  [[noreturn]] void fail_on_fault(int iteration) const {
    const std::int64_t at = health::first_faulty<Exec>(r_);
    std::string where;
    if (at >= 0) {
      std::int64_t l = at;
      if (layout_ == NekboneLayout::assembled) {
        std::int32_t offset = 0, first_copy = 0;
        Kokkos::deep_copy(offset, Kokkos::subview(plan_.offsets, at));
        Kokkos::deep_copy(first_copy, Kokkos::subview(plan_.locals, offset));
        l = first_copy;
        where = ", global node " + std::to_string(at);
      }
      const std::int64_t nq = mesh_.nq, np = nq * nq * nq, n = l % np;
      where += ", element " + std::to_string(l / np) + ", GLL node (" + std::to_string(n % nq) +
               "," + std::to_string(n / nq % nq) + "," + std::to_string(n / (nq * nq)) + ")";
    }
    throw Error("sem PCG residual is not finite at iteration " + std::to_string(iteration) + where,
                "finite right-hand side and geometry (check the mesh and the coefficients)");
  }

  NekboneResult result() override {
    NekboneResult out;
    View u("sem::u", dirichlet_.extent(0));
    if (layout_ == NekboneLayout::local) {
      Kokkos::deep_copy(u, x_);
    } else {  // u_L = x at the local node's global node
      scatter<Exec>(plan_, x_, u);
    }
    axpby<Exec>(u, 1.0, dirichlet_, 1.0);
    out.solution = to_host(u);
    out.iterations = iterations_;
    out.initial_residual = initial_;
    out.final_residual = final_;
    return out;
  }

 private:
  // Local form: mask (0 on the boundary), weight (1 / multiplicity), inverse
  // assembled diagonal, lifted right-hand side, all per local node.
  void set_up_local(const NekboneProblem& p, const std::vector<double>& diag) {
    const std::size_t L = p.op.local_count();
    std::vector<double> mask(L), ones(L, 1.0);
    for (std::size_t l = 0; l < L; ++l) mask[l] = p.boundary[l] ? 0.0 : 1.0;
    mask_ = to_device<double, Mem>(mask, "sem::mask");
    const auto multiplicity = dssum_reference(p.global_ids, p.global_count, ones);
    std::vector<double> weight(L), inv_diag(L);
    for (std::size_t l = 0; l < L; ++l) {
      weight[l] = 1.0 / multiplicity[l];
      inv_diag[l] = mask[l] / diag[l];
    }
    weight_ = to_device<double, Mem>(weight, "sem::weight");
    inv_diag_ = to_device<double, Mem>(inv_diag, "sem::inv_diag");
    b_ = lifted_rhs<Exec>(p.rhs, mesh_, dirichlet_, mask_,
                          [&](const View& v) { dssum<Exec>(plan_, v); });
    x_ = View("sem::x", L);
    r_ = View("sem::r", L);
    p_ = View("sem::p", L);
    w_ = View("sem::w", L);
  }

  // Assembled form: the local-to-global index, the inverse assembled diagonal
  // per global node (0 on the boundary) and b = mask Q^T (M f - A u_D).
  void set_up_assembled(const NekboneProblem& p, const std::vector<double>& diag,
                        const std::vector<std::uint8_t>& interior) {
    const std::size_t L = p.op.local_count(), G = std::size_t(p.global_count);
    require_32bit_gather_scatter(L);
    global_of_local_ = to_device<std::int32_t, Mem>(
        assembled_operator_index(p.global_ids, p.global_count), "sem::global_of_local");
    std::vector<double> inv_diag(G, 0.0);
    for (std::size_t l = 0; l < L; ++l) {
      const std::int64_t g = p.global_ids[l];
      inv_diag[g] = interior[g] ? 1.0 / diag[l] : 0.0;
    }
    inv_diag_ = to_device<double, Mem>(inv_diag, "sem::inv_diag");
    View b_local = to_device<double, Mem>(p.rhs, "sem::b_local");
    View a_dirichlet("sem::A_uD", L);
    apply_axhelm<Exec>(mesh_, dirichlet_, a_dirichlet);
    axpby<Exec>(b_local, 1.0, a_dirichlet, -1.0);
    b_ = View("sem::b", G);
    double unused = 0;
    gather_sum_mask_dot<Exec>(plan_, b_local, interior_, View(), b_, unused);
    x_ = View("sem::x", G);
    r_ = View("sem::r", G);
    p_ = View("sem::p", G);
    w_ = View("sem::w_local", L);
    w_global_ = View("sem::w", G);
  }

  AxhelmDeviceMesh<Mem> mesh_;
  GatherScatterPlan<Mem> plan_;
  NekboneLayout layout_;
  int max_iterations_;
  double tolerance_;
  // x, r, p, b, inv_diag: per local node (local form) or per global node
  // (assembled); w: per local node (axhelm's result) in both.
  View dirichlet_, mask_, weight_, inv_diag_, b_, x_, r_, p_, w_, w_global_;
  Kokkos::View<std::uint8_t*, Mem> interior_;         // per global node
  Kokkos::View<std::int32_t*, Mem> global_of_local_;  // assembled form
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
    auto add = [&](const char* strategy, int preference, bool recompute, NekboneLayout layout) {
      auto v = kokkos_variant<SemNekbone>(space, strategy, preference);
      v.traits.geometry = recompute ? GeometryCost::recompute : GeometryCost::stored;
      v.traits.layout = layout;
      // stored: the Nekbone baseline the other strategies' speedups are over.
      if (!recompute && layout == NekboneLayout::local) v.role = VariantRole::baseline;
      v.prepare = [recompute, layout](const NekboneProblem& p) {
        return std::make_unique<KokkosNekbone<Exec>>(p, recompute, layout);
      };
      Registry<SemNekbone>::add(std::move(v));
    };
    add("stored", 1, false, NekboneLayout::local);
    add("trilinear", 2, true, NekboneLayout::local);
    // Faster than the local form on a GPU (docs/sem.md): first for "auto".
    add("stored-assembled", 3, false, NekboneLayout::assembled);
    add("trilinear-assembled", 4, true, NekboneLayout::assembled);
  });
}
}  // namespace ppkit::registration
