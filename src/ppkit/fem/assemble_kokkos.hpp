#pragma once
// Shared pieces of the Kokkos variants of fem.assemble (one source per
// strategy: assemble_kokkos_*.cpp; docs/fem.md, "Strategies").
//
// A team is the paper's warp: TeamPolicy(elements, 1, 32) with the 32 lanes on
// ThreadVectorRange (a warp on CUDA, a plain loop on Serial). Arrays the paper
// keeps in shared memory live in team scratch; per-lane values never outlive
// one vector loop. One launch per colour; no atomics.
#include <Kokkos_Core.hpp>
#include <array>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "ppkit/core/error.hpp"
#include "ppkit/core/kokkos_instances.hpp"
#include "ppkit/core/kokkos_spaces.hpp"
#include "ppkit/fem/assemble.hpp"
#include "ppkit/fem/hex8_shape.hpp"

namespace ppkit::fem::kokkos_assembly {

// Entry (i, k) of the inverse of J (J[3k + i] = dx_i / dxi_k, row-major):
// the cofactor C_ki over det J; cyclic indices give the cofactor's sign.
KOKKOS_INLINE_FUNCTION double cofactor(const double* J, int i, int k) {
  const int k1 = (k + 1) % 3, k2 = (k + 2) % 3, i1 = (i + 1) % 3, i2 = (i + 2) % 3;
  return J[3 * k1 + i1] * J[3 * k2 + i2] - J[3 * k1 + i2] * J[3 * k2 + i1];
}
KOKKOS_INLINE_FUNCTION double inverse_entry(const double* J, double det, int i, int k) {
  return cofactor(J, i, k) / det;
}
KOKKOS_INLINE_FUNCTION double determinant3(const double* J) {
  return J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
         J[2] * (J[3] * J[7] - J[4] * J[6]);
}
// Entry (i, j) of the element block K_(a i)(b j) for isotropic D from
// M = sum_q |J_q| w g_a(q) g_b(q)^T ([3 i + j]): B^T D B is
// lambda M + mu M^T + mu tr(M) I (assemble_gpu_kernels.cuh's entry formula).
KOKKOS_INLINE_FUNCTION double isotropic_block_entry(const double* M, double lambda, double mu,
                                                    int i, int j) {
  return lambda * M[3 * i + j] + mu * M[3 * j + i] + (i == j ? mu * (M[0] + M[4] + M[8]) : 0.0);
}
// inv[3i + k] = dxi_k / dx_i; returns det J.
KOKKOS_INLINE_FUNCTION double invert3(const double* J, double* inv) {
  const double det = determinant3(J);
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) inv[3 * i + k] = inverse_entry(J, det, i, k);
  return det;
}

// The paper's lane-to-entry maps. In pass p (0 = even, 1 = odd) lane l owns
// the 3x3 block of element rows of node row_node(l, p) and columns of node
// column_node(l, p): 2 blocks = 18 entries per lane.
struct FourThreadsPerRow {  // 3 rows x 6 columns per lane: rows of node l/4, columns of nodes
                            // 2(l%4), 2(l%4)+1
  static constexpr const char* label = "4tpr";
  KOKKOS_INLINE_FUNCTION static int row_node(int lane, int) { return lane / 4; }
  KOKKOS_INLINE_FUNCTION static int column_node(int lane, int pass) {
    return 2 * (lane % 4) + pass;
  }
};
struct EightThreadsPerRow {  // 6 rows x 3 columns per lane: rows of nodes 2(l/8), 2(l/8)+1, columns
                             // of node l%8
  static constexpr const char* label = "8tpr";
  KOKKOS_INLINE_FUNCTION static int row_node(int lane, int pass) { return 2 * (lane / 8) + pass; }
  KOKKOS_INLINE_FUNCTION static int column_node(int lane, int) { return lane % 8; }
};

// Order of the 64 CSR block positions per element on the device: canonical
// [8a + b], or lane order [32 p + l] so a warp reads each pass's 32 positions
// contiguously (the paper's even/odd column-major CSR index).
template <class LaneMap>
std::array<int, 64> lane_block_order() {
  std::array<int, 64> order{};
  for (int pass = 0; pass < 2; ++pass)
    for (int lane = 0; lane < 32; ++lane)
      order[32 * pass + lane] =
          8 * LaneMap::row_node(lane, pass) + LaneMap::column_node(lane, pass);
  return order;
}
std::array<int, 64> canonical_block_order();

// What every Kokkos assembly kernel reads besides its element layout (filled
// by upload_assembly_common); each strategy's device struct derives from it.
template <class Space>
struct AssemblyCommon {
  using memory_space = typename Space::memory_space;
  template <class T>
  using View = Kokkos::View<T*, memory_space>;
  View<double> coordinates;          // 24 per element (slot) of the variant's order
  View<std::int32_t> nodes;          // 8 per element (slot)
  View<double> values, load;         // outputs
  View<double> natural_derivatives;  // 192: [(q*8 + a)*3 + k]
  View<double> shape_values;         // 64: [q*8 + a]
  double lambda = 0, mu = 0, body_x = 0, body_y = 0, body_z = 0;

  KOKKOS_INLINE_FUNCTION double dN(int q, int a, int k) const {
    return natural_derivatives((q * 8 + a) * 3 + k);
  }
  KOKKOS_INLINE_FUNCTION double body(int i) const {
    return i == 0 ? body_x : (i == 1 ? body_y : body_z);
  }
};

template <class Space>
struct DeviceAssembly : AssemblyCommon<Space> {
  template <class T>
  using View = typename AssemblyCommon<Space>::template View<T>;
  View<std::int64_t> block_positions;  // 64 per element, in the variant's block order
  View<std::int64_t> row_offsets;      // CSR rows

  KOKKOS_INLINE_FUNCTION std::int64_t row_length(std::int32_t node) const {
    return row_offsets(3 * std::int64_t(node) + 1) - row_offsets(3 * std::int64_t(node));
  }
};

template <class T, class Space>
Kokkos::View<T*, typename Space::memory_space> upload(const T* host, std::size_t n,
                                                      const std::string& label) {
  Kokkos::View<T*, typename Space::memory_space> device(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n);
  Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(host, n);
  Kokkos::deep_copy(device, h);
  return device;
}

// Fills what every Kokkos assembly reads besides its element layout:
// coordinates and nodes in the layout's element order, the shape-function
// tables, the material, and the outputs poisoned with NaN (a variant that
// never ran fails verification); no outputs for an operator (own_outputs
// false: AssemblerApplier::assemble binds the caller's).
template <class Space>
void upload_assembly_common(const AssemblyProblem& p, const std::vector<double>& coordinates,
                            const std::vector<std::int32_t>& nodes, AssemblyCommon<Space>& d) {
  d.coordinates = upload<double, Space>(coordinates.data(), coordinates.size(), "fem coordinates");
  d.nodes = upload<std::int32_t, Space>(nodes.data(), nodes.size(), "fem nodes");
  const auto dN = natural_derivative_table();
  const auto N = shape_value_table();
  d.natural_derivatives = upload<double, Space>(dN.data(), dN.size(), "fem dN/dxi");
  d.shape_values = upload<double, Space>(N.data(), N.size(), "fem N");
  d.lambda = p.material.lambda();
  d.mu = p.material.mu();
  d.body_x = p.material.body_force[0];
  d.body_y = p.material.body_force[1];
  d.body_z = p.material.body_force[2];
  if (!p.own_outputs) return;
  using Values = Kokkos::View<double*, typename Space::memory_space>;
  d.values = Values(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fem CSR values"),
                    p.pattern.num_nonzeros());
  d.load = Values(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fem load"), p.mesh.num_dofs());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Kokkos::deep_copy(d.values, nan);
  Kokkos::deep_copy(d.load, nan);
}

// K and f back to the host.
template <class Space>
AssemblyResult download_result(const AssemblyCommon<Space>& d) {
  AssemblyResult r;
  r.values.resize(d.values.extent(0));
  r.load.resize(d.load.extent(0));
  using Host = Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Kokkos::deep_copy(Host(r.values.data(), r.values.size()), d.values);
  Kokkos::deep_copy(Host(r.load.data(), r.load.size()), d.load);
  return r;
}

template <class Space>
DeviceAssembly<Space> upload_assembly(const AssemblyProblem& p,
                                      const std::array<int, 64>& block_order) {
  DeviceAssembly<Space> d;
  const auto& c = p.coloured;
  const std::int64_t elements = c.num_elements();
  std::vector<std::int64_t> blocks(c.block_positions.size());
  for (std::int64_t e = 0; e < elements; ++e)
    for (int s = 0; s < 64; ++s) blocks[64 * e + s] = c.block_positions[64 * e + block_order[s]];
  upload_assembly_common<Space>(p, c.coordinates, c.nodes, d);
  d.block_positions =
      upload<std::int64_t, Space>(blocks.data(), blocks.size(), "fem CSR block positions");
  d.row_offsets = upload<std::int64_t, Space>(p.pattern.row_offsets.data(),
                                              p.pattern.row_offsets.size(), "fem CSR row offsets");
  return d;
}

// Element coordinates of a layout from node coordinates: value m = 24 s + 3 a
// + i of slot s is component i of the slot's node a (nodes(8 s + a) =
// nodes(m / 3)), the form every layout's coordinates have.
template <class Space>
struct GatherElementCoordinates {
  Kokkos::View<double*, typename Space::memory_space> coordinates;
  Kokkos::View<const std::int32_t*, typename Space::memory_space> nodes;
  Kokkos::View<const double*, typename Space::memory_space> node_coordinates;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t m) const {
    coordinates(m) = node_coordinates(3 * std::int64_t(nodes(m / 3)) + m % 3);
  }
};

// What every prepared Kokkos assembly shares: the registry's run() (launch()
// on the default instance into its own outputs, then a fence) and the
// operator side (AssemblerApplier): the same launch() on the caller's
// stream, with the caller's arrays bound as the kernels' outputs
// (unmanaged Views) and the call's material.
template <class Space>
class KokkosAssembler : public PreparedRun<AssemblyResult>, public AssemblerApplier {
  using Mem = typename Space::memory_space;

 public:
  explicit KokkosAssembler(const AssemblyProblem& p)
      : own_outputs_(p.own_outputs),
        nonzeros_(std::size_t(p.pattern.num_nonzeros())),
        dofs_(std::size_t(p.mesh.num_dofs())) {}
  void run() override {
    require(own_outputs_, operator_only_run);
    launch(Space());
    Space().fence();
  }
  AssemblyResult result() override {
    require(own_outputs_, operator_only_run);
    return download_result(common());
  }

  void assemble(const Material& material, double* values, double* load, void* stream) override {
    AssemblyCommon<Space>& d = common();
    const AssemblyCommon<Space> own = d;  // the run's outputs and material, put back after
    d.values = Kokkos::View<double*, Mem>(values, nonzeros_);  // unmanaged: the caller's
    d.load = Kokkos::View<double*, Mem>(load, dofs_);
    d.lambda = material.lambda();
    d.mu = material.mu();
    d.body_x = material.body_force[0];
    d.body_y = material.body_force[1];
    d.body_z = material.body_force[2];
    try {
      launch(instances_.on(stream));
    } catch (...) {
      d = own;
      throw;
    }
    d = own;  // the kernels hold copies of the bound Views
  }
  void update_coordinates(const std::vector<double>& coordinates) override {
    Kokkos::fence();  // assemblies queued on any instance still read the old ones
    AssemblyCommon<Space>& d = common();
    const auto nodes =
        upload<double, Space>(coordinates.data(), coordinates.size(), "fem node coordinates");
    Kokkos::parallel_for("fem gather element coordinates",
                         Kokkos::RangePolicy<Space>(0, std::int64_t(d.coordinates.extent(0))),
                         GatherElementCoordinates<Space>{d.coordinates, d.nodes, nodes});
    Space().fence();
  }
  void wait(void* stream) override { instances_.on(stream).fence(); }
  DataLocation memory() const override { return kokkos_data_location<Space>(); }

 protected:
  // Queues one assembly into common()'s outputs with its material on exec:
  // zeroing where the strategy accumulates, then its kernels.
  virtual void launch(const Space& exec) = 0;
  virtual AssemblyCommon<Space>& common() = 0;

 private:
  bool own_outputs_;
  std::size_t nonzeros_, dofs_;
  StreamInstance<Space> instances_;
};

// A prepared Kokkos assembly of strategies (a)-(e): launch() zeroes K and f
// and calls assemble_colour() once per colour.
template <class Space>
class KokkosAssemblyRun : public KokkosAssembler<Space> {
 public:
  KokkosAssemblyRun(const AssemblyProblem& p, const std::array<int, 64>& block_order)
      : KokkosAssembler<Space>(p),
        d_(upload_assembly<Space>(p, block_order)),
        colour_offsets_(p.coloured.colour_offsets) {}

 protected:
  void launch(const Space& exec) override {
    Kokkos::deep_copy(exec, d_.values, 0.0);
    Kokkos::deep_copy(exec, d_.load, 0.0);
    before_colours(exec);
    for (std::size_t c = 0; c + 1 < colour_offsets_.size(); ++c)
      if (colour_offsets_[c + 1] > colour_offsets_[c])
        assemble_colour(exec, colour_offsets_[c], colour_offsets_[c + 1] - colour_offsets_[c]);
  }
  AssemblyCommon<Space>& common() override { return d_; }
  virtual void before_colours(const Space&) {}
  virtual void assemble_colour(const Space& exec, std::int64_t first, std::int64_t count) = 0;
  DeviceAssembly<Space> d_;
  std::vector<std::int64_t> colour_offsets_;
};

// The last phase of the team strategies (b)-(d): given the physical shape
// derivatives g[24 q + 3 a + i] = dN_a/dx_i and wdet[q] = |J| w at the 8 Gauss
// points in team scratch, each lane integrates its 18 entries (2 blocks) of
//   K_(a i)(b j) = sum_q wdet_q (lambda g_ai g_bj + mu g_aj g_bi + mu delta_ij g_a . g_b)
// (B^T D B for isotropic D, entry by entry) in registers and adds them through
// the CSR block positions in two passes; 24 lanes add the body-force vector.
template <class LaneMap, class Space, class Member, class Scratch>
KOKKOS_INLINE_FUNCTION void integrate_and_scatter(const Member& team,
                                                  const DeviceAssembly<Space>& d, std::int64_t e,
                                                  const Scratch& g, const Scratch& wdet) {
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 32), [&](const int lane) {
    double K[2][9];
    for (int p = 0; p < 2; ++p)
      for (int m = 0; m < 9; ++m) K[p][m] = 0;
    for (int q = 0; q < 8; ++q) {
      const double s = wdet(q);
      for (int p = 0; p < 2; ++p) {
        const int a = LaneMap::row_node(lane, p), b = LaneMap::column_node(lane, p);
        const double ga[3] = {g(24 * q + 3 * a), g(24 * q + 3 * a + 1), g(24 * q + 3 * a + 2)};
        const double gb[3] = {g(24 * q + 3 * b), g(24 * q + 3 * b + 1), g(24 * q + 3 * b + 2)};
        const double dot = ga[0] * gb[0] + ga[1] * gb[1] + ga[2] * gb[2];
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            K[p][3 * i + j] +=
                s * (d.lambda * ga[i] * gb[j] + d.mu * ga[j] * gb[i] + (i == j ? d.mu * dot : 0.0));
      }
    }
    // Read-modify-write of the 18 entries with all loads before the stores
    // (the positions are distinct), so they are in flight together.
    std::int64_t position[2][9];
    double old[2][9];
    for (int p = 0; p < 2; ++p) {
      const std::int32_t row_node = d.nodes(8 * e + LaneMap::row_node(lane, p));
      const std::int64_t stride = d.row_length(row_node);
      const std::int64_t base = d.block_positions(64 * e + 32 * p + lane);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) position[p][3 * i + j] = base + i * stride + j;
    }
    for (int p = 0; p < 2; ++p)
      for (int m = 0; m < 9; ++m) old[p][m] = d.values(position[p][m]);
    for (int p = 0; p < 2; ++p)
      for (int m = 0; m < 9; ++m) d.values(position[p][m]) = old[p][m] + K[p][m];
  });
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 24), [&](const int m) {
    const int a = m / 3, i = m % 3;
    double f = 0;
    for (int q = 0; q < 8; ++q) f += d.shape_values(8 * q + a) * wdet(q);
    d.load(3 * std::int64_t(d.nodes(8 * e + a)) + i) += f * d.body(i);
  });
}

// Copies an element's 24 coordinates into team scratch (coalesced).
template <class Space, class Member, class Scratch>
KOKKOS_INLINE_FUNCTION void load_coordinates(const Member& team, const DeviceAssembly<Space>& d,
                                             std::int64_t e, const Scratch& x) {
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 24),
                       [&](const int m) { x(m) = d.coordinates(24 * e + m); });
}

// A team strategy (b)-(d): one 32-lane team per element of a colour, running
// Kernel<Space, LaneMap> (a functor over team members with `first` and
// scratch_bytes()) with its team scratch.
template <template <class, class> class Kernel, class Space, class LaneMap>
class TeamPerElementRun final : public KokkosAssemblyRun<Space> {
 public:
  TeamPerElementRun(const AssemblyProblem& p, const char* label)
      : KokkosAssemblyRun<Space>(p, lane_block_order<LaneMap>()), label_(label) {}

 private:
  void assemble_colour(const Space& exec, std::int64_t first, std::int64_t count) override {
    using K = Kernel<Space, LaneMap>;
    Kokkos::TeamPolicy<Space> policy(exec, count, 1, 32);
    Kokkos::parallel_for(label_, policy.set_scratch_size(0, Kokkos::PerTeam(K::scratch_bytes())),
                         K{this->d_, first});
  }
  const char* label_;
};

// "auto"'s order of the Kokkos fem.assemble variants (docs/fem.md, "General
// meshes and set-up"). A host space's tier is below a device space's
// (variant_traits.hpp), so a variant of a device space always comes first.
// `rank` orders the variants on a device space, by GPU measurements;
// `host_rank` on a host space (Serial, OpenMP, Threads), where node-gather
// ranks first: on one CPU thread it was the fastest variant on the box and
// on the scrambled box (renumbered, graded, twisted) at 32^3, and the box at
// 64^3, while factored-atomic-runs, first on the GPU, fell behind
// thread-per-element on the scrambled box; its rows are written once by
// their owner, so host threads need no atomics.
template <class Space>
Variant<FemAssemble> fem_kokkos_variant(const Space& space, const std::string& strategy, int rank,
                                        int host_rank) {
  using Memory = typename Space::execution_space::memory_space;
  constexpr bool host = std::is_same<Memory, Kokkos::HostSpace>::value;
  return kokkos_variant<FemAssemble>(space, strategy, host ? host_rank : rank);
}
template <class Space>
Variant<FemAssemble> fem_kokkos_variant(const Space& space, const std::string& strategy, int rank) {
  return fem_kokkos_variant(space, strategy, rank, rank);
}

// Registers kokkos-<space>/<name>, prepared as Run<execution space>(problem),
// for every enabled space, with the given ranks and role.
template <template <class> class Run>
void register_kokkos_run(const char* name, int rank, int host_rank,
                         VariantRole role = VariantRole::tuned) {
  for_each_kokkos_space([=](auto space) {
    using Exec = typename decltype(space)::execution_space;
    auto v = fem_kokkos_variant(space, name, rank, host_rank);
    v.role = role;
    v.prepare = [](const AssemblyProblem& p) { return std::make_unique<Run<Exec>>(p); };
    Registry<FemAssemble>::add(std::move(v));
  });
}
template <template <class> class Run>
void register_kokkos_run(const char* name, int rank) {
  register_kokkos_run<Run>(name, rank, rank);
}

// Registers kokkos-<space>/<prefix>-<LaneMap::label> for every enabled space.
template <template <class, class> class Kernel, class LaneMap>
void register_team_per_element(const char* prefix, const char* label, int rank) {
  for_each_kokkos_space([=](auto space) {
    using Exec = typename decltype(space)::execution_space;
    auto v = fem_kokkos_variant(space, std::string(prefix) + "-" + LaneMap::label, rank);
    v.prepare = [label](const AssemblyProblem& p) {
      return std::make_unique<TeamPerElementRun<Kernel, Exec, LaneMap>>(p, label);
    };
    Registry<FemAssemble>::add(std::move(v));
  });
}

// Where kernel 1 of strategies (e) and (h) puts value m of Gauss point q of
// element e (m < 9: the inverse Jacobian, [3 i + k] = dxi_k / dx_i; m = 9:
// |J| w), 80 doubles per element.
enum class GeometryLayout {
  point_major,  // [80 e + 10 q + m]: a point's values together (two-kernel)
  value_major,  // [80 e + 8 m + q]: value m of the 8 points together, so lanes
                // of consecutive Gauss points load consecutive doubles (cluster gather)
  pair_major,   // [80 e + 16 p + 2 q + r]: values 2 p and 2 p + 1 of a point side by
                // side, pairs p of the 8 points together, so lanes of consecutive
                // Gauss points load consecutive 16-byte pairs (node gather)
};

// Two doubles loaded as one 16-byte access (GeometryLayout::pair_major;
// Kokkos allocations and the records' pairs are 16-byte aligned).
struct alignas(16) DoublePair {
  double first, second;
};

// Kernel 1 of strategies (e) and (h): the inverse Jacobian and |J| w of every
// Gauss point. A team of 32 vector lanes takes 4 elements: index 8 e + q forms
// Gauss point q of element e into team scratch, then the team stores the 320
// doubles contiguously in the requested layout. (Each point storing its own 10
// doubles, 80 B apart, leaves every 32-byte sector written in pieces and
// kept the L2 busy with partial writes.)
template <class Space>
struct GaussGeometryKernel {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;
  using Scratch =
      Kokkos::View<double*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  static constexpr int kElementsPerTeam = 4;
  // Staging stride per Gauss point, in doubles: odd, so that the 8-byte
  // stores of 16 lanes fall on distinct bank pairs of GPU shared memory.
  static constexpr int kStagingStride = 11;
  AssemblyCommon<Space> d;  // coordinates in the geometry array's element order
  Kokkos::View<double*, typename Space::memory_space> geometry;
  std::int64_t elements;
  GeometryLayout layout;

  static void launch(const char* label, const AssemblyCommon<Space>& d,
                     const Kokkos::View<double*, typename Space::memory_space>& geometry,
                     GeometryLayout layout, const Space& exec = Space()) {
    const std::int64_t elements = std::int64_t(geometry.extent(0) / 80);
    const auto policy =
        Kokkos::TeamPolicy<Space>(exec, (elements + kElementsPerTeam - 1) / kElementsPerTeam, 1, 32)
            .set_scratch_size(
                0, Kokkos::PerTeam(Scratch::shmem_size(kStagingStride * 8 * kElementsPerTeam)));
    Kokkos::parallel_for(label, policy, GaussGeometryKernel{d, geometry, elements, layout});
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t e0 = std::int64_t(kElementsPerTeam) * team.league_rank();
    const int count = int(elements - e0 < kElementsPerTeam ? elements - e0 : kElementsPerTeam);
    Scratch staged(team.team_scratch(0), kStagingStride * 8 * kElementsPerTeam);
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 8 * count), [&](const int point) {
      const std::int64_t e = e0 + point / 8;
      // The 12 shape-function products of Gauss point q, node a a compile-time
      // constant (hex8_shape.hpp): 8 dN_a/dxi_k in registers, no table reads.
      const Hex8GaussProducts shape(point % 8);
      double J[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
      hex8_for_each_node([&](auto node) {
        constexpr int a = decltype(node)::value;
        const double dN[3] = {shape.scaled_derivative<a, 0>(), shape.scaled_derivative<a, 1>(),
                              shape.scaled_derivative<a, 2>()};
        for (int k = 0; k < 3; ++k)
          for (int i = 0; i < 3; ++i) J[3 * k + i] += dN[k] * d.coordinates(24 * e + 3 * a + i);
      });
      for (int m = 0; m < 9; ++m) J[m] *= 0.125;
      double inv[9];
      const double det = invert3(J, inv);
      for (int m = 0; m < 9; ++m) staged(kStagingStride * point + m) = inv[m];
      staged(kStagingStride * point + 9) = det * kGaussWeight;
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 80 * count), [&](const int out) {
      const int e = out / 80;
      // point_major: [10 (8 e + q) + m]; value_major: [80 e + 8 m + q];
      // pair_major: [80 e + 16 p + 2 q + r], m = 2 p + r.
      const int q = layout == GeometryLayout::point_major
                        ? out % 80 / 10
                        : (layout == GeometryLayout::value_major ? out % 8 : out % 16 / 2);
      const int m = layout == GeometryLayout::point_major
                        ? out % 10
                        : (layout == GeometryLayout::value_major ? out % 80 / 8
                                                                 : out % 80 / 16 * 2 + out % 2);
      geometry(80 * e0 + out) = staged(kStagingStride * (8 * e + q) + m);
    });
  }
};

// Per-strategy registration (assemble_kokkos_<strategy>.cpp).
void register_thread_per_element();
void register_team_gauss_loop();
void register_ppni();
void register_two_kernel();
void register_factored();
void register_tiled();
void register_node_gather();
void register_cluster_gather();

}  // namespace ppkit::fem::kokkos_assembly
