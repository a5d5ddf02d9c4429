#include "ppkit/sem/nekbone_mpi.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <limits>
#include <optional>

#include "ppkit/core/error.hpp"
#include "ppkit/core/kokkos_spaces.hpp"
#include "ppkit/core/kokkos_instances.hpp"
#include "ppkit/core/registry.hpp"
#include "ppkit/sem/axhelm_kokkos.hpp"
#include "ppkit/sem/axhelm_operator.hpp"
#include "ppkit/sem/gather_scatter.hpp"
#include "ppkit/sem/nekbone_vectors_kokkos.hpp"

namespace ppkit::sem {

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;
using View = Kokkos::View<double*, Mem>;
using IndexView = Kokkos::View<std::int64_t*, Mem>;
constexpr bool vectors_in_host_memory =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// buffer(m) = the rank's sum at face node m: read from one copy after the
// rank's dssum, or (sum_copies, before it) summed over the copies in the order
// the dssum kernel uses, so both give the same number bitwise.
void pack_face(const GatherScatterPlan<Mem>& plan, const IndexView& face, const View& u,
               const View& buffer, bool sum_copies) {
  const auto offsets = plan.offsets;
  const auto locals = plan.locals;
  Kokkos::parallel_for(
      "ppkit::sem::gs_pack", Kokkos::RangePolicy<Exec>(0, face.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t m) {
        const std::int64_t g = face(m);
        if (!sum_copies) {
          buffer(m) = u(locals(offsets(g)));
          return;
        }
        double sum = 0;
        for (std::int32_t a = offsets(g); a < offsets(g + 1); ++a) sum += u(locals(a));
        buffer(m) = sum;
      });
}
// Every local copy of face node m gets the neighbour's partial sum added.
void add_face(const GatherScatterPlan<Mem>& plan, const IndexView& face, const View& buffer,
              const View& u) {
  const auto offsets = plan.offsets;
  const auto locals = plan.locals;
  Kokkos::parallel_for(
      "ppkit::sem::gs_unpack", Kokkos::RangePolicy<Exec>(0, face.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t m) {
        const std::int64_t g = face(m);
        const double v = buffer(m);
        for (std::int32_t a = offsets(g); a < offsets(g + 1); ++a) u(locals(a)) += v;
      });
}

// One interface plane with a neighbour.
struct Face {
  int neighbour = MPI_PROC_NULL;
  int send_tag = 0, receive_tag = 0;
  IndexView nodes;     // local node numbers, (iy, iz) order
  View send, receive;  // device buffers
  Kokkos::View<double*, PinnedHostSpace> send_host, receive_host;  // staged path only
};

}  // namespace

struct NekboneMpiSolver::Impl {
  MPI_Comm comm;
  int rank = 0, ranks = 1;
  bool direct = true, overlap = true;
  std::string path_name = "-";
  SlabPartition part;
  NekboneProblem problem;
  AxhelmDeviceMesh<Mem> mesh;
  std::optional<Axhelm> variant_op;  // options.axhelm_variant's operator, when given
  GatherScatterPlan<Mem> plan;
  Face faces[2];  // left, right
  int max_iterations = 0;
  double tolerance = 0;
  double flops_per_iteration = 0;
  View dirichlet, mask, weight, inv_diag, b, x, r, p, w;
  Kokkos::View<std::uint8_t*, Mem> interior;  // per global node of the rank (interior_global_nodes)
  CgScalars<Exec> cg;  // the CG scalars the sweeps read (nekbone_vectors_kokkos.hpp)
  double exchange_seconds = 0, reduction_seconds = 0, exchange_bytes = 0;
  bool solved = false;

  Impl(const BoxMesh& m, const NekboneSettings& s, MPI_Comm c, const NekboneMpiOptions& o);

  // u <- Q Q^T u over the whole box: the rank's own sum and the interface
  // planes' exchange, one after the other or (overlap) with the rank's dssum
  // running while the planes travel.
  void dssum_all(const View& u) {
    if (ranks == 1) {
      dssum<Exec>(plan, u);
      return;
    }
    if (!overlap) {
      dssum<Exec>(plan, u);
      Exec().fence();  // the rank's own sums are complete
    }
    const auto t0 = std::chrono::steady_clock::now();
    post_planes(u, overlap);
    exchange_seconds += seconds_since(t0);
    if (overlap) dssum<Exec>(plan, u);  // asynchronous on a GPU
    const auto t1 = std::chrono::steady_clock::now();
    finish_planes(u);
    exchange_seconds += seconds_since(t1);
  }
  // Packs (and stages) the face planes and posts the messages.
  void post_planes(const View& u, bool sum_copies);
  // Waits for the planes and adds the neighbours' sums to every copy.
  void finish_planes(const View& u);
  MPI_Request requests[4];
  int pending = 0;
  double sum_over_ranks(double mine) {
    const auto t0 = std::chrono::steady_clock::now();
    double all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, comm);
    reduction_seconds += seconds_since(t0);
    return all;
  }
  // Both residual dots in one reduction over the ranks.
  ResidualDots sum_over_ranks(const ResidualDots& mine) {
    const auto t0 = std::chrono::steady_clock::now();
    const double local[2] = {mine.rr, mine.rz};
    double all[2] = {0, 0};
    MPI_Allreduce(local, all, 2, MPI_DOUBLE, MPI_SUM, comm);
    reduction_seconds += seconds_since(t0);
    ResidualDots out;
    out.rr = all[0];
    out.rz = all[1];
    return out;
  }
};

NekboneMpiSolver::Impl::Impl(const BoxMesh& m, const NekboneSettings& s, MPI_Comm c,
                             const NekboneMpiOptions& o)
    : comm(c) {
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  part = make_slab_partition(m, rank, ranks);
  problem = make_nekbone_problem(part.local, s);
  max_iterations = problem.max_iterations;
  tolerance = problem.tolerance;
  mesh = upload_axhelm_mesh<Mem>(problem.op, o.recompute_trilinear);
  plan = upload_gather_scatter_plan<Mem>(
      make_gather_scatter_plan(problem.global_ids, problem.global_count));
  GeometryCost geometry = o.recompute_trilinear ? GeometryCost::recompute : GeometryCost::stored;
  if (!o.axhelm_variant.empty()) {
    AxhelmMesh am;
    am.order = problem.op.order;
    am.elements = problem.op.elements;
    am.vertices = problem.op.vertices.data();
    am.factors = problem.op.factors.empty() ? nullptr : problem.op.factors.data();
    am.trilinear = problem.op.trilinear.empty() ? nullptr : problem.op.trilinear.data();
    AxhelmOptions ao;
    ao.equation = problem.op.equation;
    ao.variant = o.axhelm_variant;
    ao.memory = kokkos_data_location<Exec>().kind;
    variant_op.emplace(am, ao);
    require(variant_op->memory().kind == ao.memory,
            "axhelm variant " + variant_op->variant() + " works on " +
                variant_op->memory().describe() + ", the Nekbone vectors live in " +
                kokkos_data_location<Exec>().describe(),
            "a sem.axhelm variant of the default Kokkos execution space's memory "
            "(ppkit list --workload sem)");
    geometry = Registry<SemAxhelm>::find(variant_op->variant()).traits.geometry;
  }
  flops_per_iteration = nekbone_cost(problem, geometry).flops_per_iteration;

  overlap = o.overlap;
  direct = mpi::halo_is_direct(o.exchange, vectors_in_host_memory);
  if (ranks > 1) path_name = mpi::halo_path_name(direct, vectors_in_host_memory);
  const std::vector<std::int64_t>* face_nodes[2] = {&part.left_face, &part.right_face};
  const int neighbours[2] = {part.left_rank, part.right_rank};
  for (int side = 0; side < 2; ++side) {
    Face& f = faces[side];
    if (neighbours[side] < 0) continue;
    require(face_nodes[side]->size() < std::size_t(INT_MAX),
            "an interface plane is too large for one MPI message",
            "(EY N + 1)(EZ N + 1) < 2^31 nodes");
    f.neighbour = neighbours[side];
    // Tag 0 travels towards +x, tag 1 towards -x.
    f.send_tag = side == 0 ? 1 : 0;
    f.receive_tag = side == 0 ? 0 : 1;
    f.nodes = to_device<std::int64_t, Mem>(*face_nodes[side], "sem::gs_face");
    const std::size_t n = face_nodes[side]->size();
    f.send = View("sem::gs_send", n);
    f.receive = View("sem::gs_receive", n);
    if (!direct) {
      f.send_host = Kokkos::View<double*, PinnedHostSpace>("sem::gs_send_host", n);
      f.receive_host = Kokkos::View<double*, PinnedHostSpace>("sem::gs_receive_host", n);
    }
  }

  const std::size_t L = problem.op.local_count();
  dirichlet = to_device<double, Mem>(problem.dirichlet, "sem::dirichlet");
  // mask (0 on the box boundary); weight: 1 / (the rank's multiplicity) on
  // owned nodes, 0 on the copies of the right interface plane (the neighbour's).
  std::vector<double> mask_host(L), ones(L, 1.0);
  for (std::size_t l = 0; l < L; ++l) mask_host[l] = problem.boundary[l] ? 0.0 : 1.0;
  mask = to_device<double, Mem>(mask_host, "sem::mask");
  interior = to_device<std::uint8_t, Mem>(
      interior_global_nodes(problem.global_ids, problem.global_count, problem.boundary),
      "sem::interior");
  const auto multiplicity = dssum_reference(problem.global_ids, problem.global_count, ones);
  std::vector<double> weight_host(L);
  for (std::size_t l = 0; l < L; ++l)
    weight_host[l] = part.owned[problem.global_ids[l]] ? 1.0 / multiplicity[l] : 0.0;
  weight = to_device<double, Mem>(weight_host, "sem::weight");
  // Jacobi: the inverse of the diagonal assembled over the whole box.
  View diagonal = to_device<double, Mem>(problem.diagonal, "sem::diagonal");
  dssum_all(diagonal);
  const auto diag = to_host(diagonal);
  std::vector<double> inv(L);
  for (std::size_t l = 0; l < L; ++l) inv[l] = mask_host[l] / diag[l];
  inv_diag = to_device<double, Mem>(inv, "sem::inv_diag");
  b = lifted_rhs<Exec>(problem.rhs, mesh, dirichlet, mask, [&](const View& v) { dssum_all(v); });
  x = View("sem::x", L);
  r = View("sem::r", L);
  p = View("sem::p", L);
  w = View("sem::w", L);
  Kokkos::deep_copy(x, std::numeric_limits<double>::quiet_NaN());  // poison
  Exec().fence();
}

void NekboneMpiSolver::Impl::post_planes(const View& u, bool sum_copies) {
  for (Face& f : faces)
    if (f.neighbour != MPI_PROC_NULL) pack_face(plan, f.nodes, u, f.send, sum_copies);
  if (direct) {
    Exec().fence();
  } else {
    for (Face& f : faces)
      if (f.neighbour != MPI_PROC_NULL) Kokkos::deep_copy(f.send_host, f.send);
  }
  pending = 0;
  for (Face& f : faces) {
    if (f.neighbour == MPI_PROC_NULL) continue;
    double* into = direct ? f.receive.data() : f.receive_host.data();
    MPI_Irecv(into, int(f.receive.extent(0)), MPI_DOUBLE, f.neighbour, f.receive_tag, comm,
              &requests[pending++]);
  }
  for (Face& f : faces) {
    if (f.neighbour == MPI_PROC_NULL) continue;
    double* from = direct ? f.send.data() : f.send_host.data();
    MPI_Isend(from, int(f.send.extent(0)), MPI_DOUBLE, f.neighbour, f.send_tag, comm,
              &requests[pending++]);
    exchange_bytes += 8.0 * double(f.send.extent(0));
  }
}

void NekboneMpiSolver::Impl::finish_planes(const View& u) {
  MPI_Waitall(pending, requests, MPI_STATUSES_IGNORE);
  pending = 0;
  for (Face& f : faces) {
    if (f.neighbour == MPI_PROC_NULL) continue;
    if (!direct) Kokkos::deep_copy(f.receive, f.receive_host);
    add_face(plan, f.nodes, f.receive, u);  // after the rank's dssum (stream order)
  }
  Exec().fence();
}

NekboneMpiSolver::NekboneMpiSolver(const BoxMesh& mesh, const NekboneSettings& settings,
                                   MPI_Comm comm, const NekboneMpiOptions& options)
    : impl_(std::make_unique<Impl>(mesh, settings, comm, options)) {}

NekboneMpiSolver::~NekboneMpiSolver() = default;

NekboneMpiResult NekboneMpiSolver::solve() {
  Impl& s = *impl_;
  NekboneMpiResult out;
  Kokkos::deep_copy(s.x, 0.0);
  Kokkos::deep_copy(s.r, s.b);
  Kokkos::deep_copy(s.p, 0.0);
  Exec().fence();
  s.exchange_seconds = s.reduction_seconds = s.exchange_bytes = 0;
  MPI_Barrier(s.comm);
  const auto t0 = std::chrono::steady_clock::now();
  CgScalars<Exec>& cg = s.cg;
  ResidualDots dots;
  residual_dots<Exec>(s.r, s.weight, s.inv_diag, dots);
  dots = s.sum_over_ranks(dots);
  Kokkos::deep_copy(cg.residual[0], dots);
  const double initial = std::sqrt(dots.rr);
  double residual = initial;
  int it = 0;
  // The loop of KokkosNekbone::run (nekbone_kokkos.cpp) with the exchange after
  // the rank's gather-scatter and each inner product summed over the ranks on
  // the host, then handed to the next sweep through the device scalars.
  while (it < s.max_iterations && residual > s.tolerance * initial && residual > 0) {
    search<Exec>(s.p, s.r, s.inv_diag, cg, it);  // p = M^-1 r + beta p
    if (s.variant_op)                            // w = A p
      s.variant_op->apply_on(Exec(), s.p, s.w, s.problem.op.lambda0, s.problem.op.lambda1);
    else
      apply_axhelm<Exec>(s.mesh, s.p, s.w);
    double mine = 0;
    if (s.ranks == 1) {  // no exchange: the single-process loop's pass
      dssum_mask_dot<Exec>(s.plan, s.w, s.interior, s.p, mine);
    } else {
      s.dssum_all(s.w);
      mask_dot<Exec>(s.w, s.mask, s.weight, s.p, mine);  // w = mask w, w.p
    }
    Kokkos::deep_copy(cg.pap, s.sum_over_ranks(mine));
    update_dot<Exec>(s.x, s.r, s.p, s.w, cg, it, s.weight, s.inv_diag, dots);  // x, r, r.r, r.z
    dots = s.sum_over_ranks(dots);
    Kokkos::deep_copy(cg.residual[(it + 1) % 2], dots);
    residual = std::sqrt(dots.rr);
    out.residuals.push_back(residual);
    ++it;
  }
  Exec().fence();
  out.seconds = seconds_since(t0);
  // The residuals are global sums, so every rank stops (or fails) together.
  if (!std::isfinite(residual) || !std::isfinite(initial))
    throw Error("sem MPI PCG residual is not finite at iteration " + std::to_string(it),
                "finite right-hand side and geometry (check the mesh and the coefficients)");
  s.solved = true;
  out.iterations = it;
  out.initial_residual = initial;
  out.final_residual = residual;
  out.exchange_seconds = s.exchange_seconds;
  out.reduction_seconds = s.reduction_seconds;
  out.exchange_bytes = s.exchange_bytes;
  out.flops = s.flops_per_iteration * it;
  return out;
}

std::vector<double> NekboneMpiSolver::gather_solution(int root) const {
  const Impl& s = *impl_;
  require(s.solved, "gather_solution() before solve()", "call solve() first");
  View u("sem::u", s.x.extent(0));
  Kokkos::deep_copy(u, s.x);
  axpby<Exec>(u, 1.0, s.dirichlet, 1.0);
  const std::vector<double> mine = to_host(u);
  const int np = s.part.local.np();
  const int count = int(mine.size()), elements = int(s.part.global_elements.size());
  std::vector<int> counts(s.ranks), element_counts(s.ranks), displs(s.ranks),
      element_displs(s.ranks);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, root, s.comm);
  MPI_Gather(&elements, 1, MPI_INT, element_counts.data(), 1, MPI_INT, root, s.comm);
  std::int64_t total = 0, total_elements = 0;
  for (int r = 0; r < s.ranks && s.rank == root; ++r) {
    displs[r] = int(total);
    element_displs[r] = int(total_elements);
    total += counts[r];
    total_elements += element_counts[r];
  }
  std::vector<double> all(s.rank == root ? std::size_t(total) : 0);
  std::vector<std::int64_t> all_elements(s.rank == root ? std::size_t(total_elements) : 0);
  MPI_Gatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE,
              root, s.comm);
  MPI_Gatherv(s.part.global_elements.data(), elements, MPI_INT64_T, all_elements.data(),
              element_counts.data(), element_displs.data(), MPI_INT64_T, root, s.comm);
  if (s.rank != root) return {};
  std::vector<double> box(all.size());
  for (std::size_t e = 0; e < all_elements.size(); ++e)
    std::copy(all.begin() + std::ptrdiff_t(e * np), all.begin() + std::ptrdiff_t((e + 1) * np),
              box.begin() + std::ptrdiff_t(all_elements[e] * np));
  return box;
}

double NekboneMpiSolver::max_error() const {
  const Impl& s = *impl_;
  require(s.solved, "max_error() before solve()", "call solve() first");
  View u("sem::u", s.x.extent(0));
  Kokkos::deep_copy(u, s.x);
  axpby<Exec>(u, 1.0, s.dirichlet, 1.0);
  const double mine = ppkit::sem::max_error(s.problem, to_host(u));
  double all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, s.comm);
  return all;
}

std::string NekboneMpiSolver::axhelm_variant() const {
  return impl_->variant_op ? impl_->variant_op->variant() : std::string("built-in");
}

const SlabPartition& NekboneMpiSolver::partition() const { return impl_->part; }

std::string NekboneMpiSolver::exchange_path() const { return impl_->path_name; }

}  // namespace ppkit::sem
