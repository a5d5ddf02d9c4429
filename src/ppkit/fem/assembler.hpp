#pragma once
// ppkit::fem::Assembler: the hex8 linear-elasticity assembly of fem.assemble
// (assemble.hpp) as an object a host code creates once from its mesh and then
// calls on its own arrays, e.g. once per Newton step, with no host transfer:
//
//   ppkit::Runtime runtime;                              // or the host code's Kokkos
//   ppkit::fem::Assembler K({nodes, xyz, elements, conn});  // pattern and set-up once
//   K.assemble(E, nu, {0, 0, -9.81 * rho}, values, load);   // values, load in K.memory()
//
// The CSR pattern (row_offsets(), column_indices()) is built once and lives
// in K.memory() beside the variant's set-up; assemble() writes K's values in
// the order of column_indices() and the load vector f into the caller's
// arrays, which plug straight into KokkosSparse::CrsMatrix, cuSPARSE's
// cusparseCreateCsr or a CSR of the host code's own (DOF 3 * node +
// component, columns ascending in each row, 64-bit row offsets, 32-bit
// columns). Every registered fem.assemble variant serves, with the results of
// the registry's runs (the same kernels, writing to the caller's arrays).
//
// Moving the nodes (same connectivity): update_coordinates() keeps the
// pattern, the colourings and every layout, and re-gathers only each
// variant's element coordinates (AssemblerApplier::update_coordinates says
// what each variant redoes).
//
// Threads and streams: one Assembler may be used by one thread at a time;
// assemblies queued on different streams of one Assembler must not overlap
// (the Gauss-point variants share a geometry scratch array). Data lives in
// memory(): device memory for cuda/hip/kokkos-cuda variants, host memory
// for CPU ones; pointers the vendor runtime reports elsewhere are refused.
#include <Kokkos_Core.hpp>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "ppkit/core/data_location.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/kokkos_instances.hpp"
#include "ppkit/core/variant_status.hpp"

namespace ppkit::fem {

// The mesh, in host memory (copied at creation; the caller may free it).
struct AssemblerMesh {
  std::int64_t num_nodes = 0;
  const double* coordinates = nullptr;  // [num_nodes][3]: x, y, z
  std::int64_t num_elements = 0;
  // [num_elements][8] 0-based node indices, any numbering, in Gmsh hexahedron
  // order (bottom face counter-clockwise seen from the top, then the top face).
  const std::int32_t* connectivity = nullptr;
};

struct AssemblerOptions {
  // "auto" (the preferred variant that can run here), a strategy
  // ("node-gather", "factored-atomic", ...: its preferred available variant)
  // or a variant name ("cuda/node-gather", "kokkos-serial/thread-per-element";
  // assembler_variants()).
  std::string variant = "auto";
};

// Every registered fem.assemble variant and whether it can run here (the
// names AssemblerOptions::variant takes; variant_status.hpp).
std::vector<VariantStatus> assembler_variants();

class Assembler {
 public:
  // Validates the mesh (node indices, repeated nodes, inverted elements:
  // ppkit::Error naming the element), builds the CSR pattern and the chosen
  // variant's set-up, and puts both in memory(). Throws ppkit::Error on a bad
  // mesh, an unknown or unavailable variant, or before Kokkos is initialised.
  explicit Assembler(const AssemblerMesh& mesh, const AssemblerOptions& options = {});
  ~Assembler();
  Assembler(Assembler&&) noexcept;
  Assembler& operator=(Assembler&&) noexcept;
  Assembler(const Assembler&) = delete;
  Assembler& operator=(const Assembler&) = delete;

  // The CSR pattern in memory(): row_offsets [num_rows() + 1], column_indices
  // [num_nonzeros()], ascending in each row. Owned by the Assembler.
  const std::int64_t* row_offsets() const;
  const std::int32_t* column_indices() const;
  std::int64_t num_rows() const;      // 3 * num_nodes(): the size of load
  std::int64_t num_nonzeros() const;  // the size of values
  std::int64_t num_nodes() const;
  std::int64_t num_elements() const;

  // Writes K's values [num_nonzeros()] and the load vector [num_rows()] for
  // Young's modulus E > 0, Poisson ratio -1 < nu < 0.5 and a body force per
  // volume into arrays in memory(); every entry is written (no zeroing
  // needed). Queued on `stream` (cudaStream_t or hipStream_t as void*;
  // nullptr: the default stream; host variants take none): returns before
  // the device is done; work queued later on the same stream sees the
  // values; wait() blocks until then.
  void assemble(double youngs_modulus, double poisson_ratio,
                const std::array<double, 3>& body_force, double* values, double* load,
                void* stream = nullptr) const;

  // The same on Kokkos Views (rank 1, contiguous, accessible where memory()
  // says), on the default instance or on `exec`.
  template <class ValuesView, class LoadView,
            class = std::enable_if_t<Kokkos::is_view<ValuesView>::value &&
                                     Kokkos::is_view<LoadView>::value>>
  void assemble(double youngs_modulus, double poisson_ratio,
                const std::array<double, 3>& body_force, const ValuesView& values,
                const LoadView& load) const {
    view_check(values, num_nonzeros(), "values");
    view_check(load, num_rows(), "load");
    assemble(youngs_modulus, poisson_ratio, body_force, values.data(), load.data(), nullptr);
  }
  template <class Exec, class ValuesView, class LoadView>
  void assemble_on(const Exec& exec, double youngs_modulus, double poisson_ratio,
                   const std::array<double, 3>& body_force, const ValuesView& values,
                   const LoadView& load) const {
    view_check(values, num_nonzeros(), "values");
    view_check(load, num_rows(), "load");
    assemble(youngs_modulus, poisson_ratio, body_force, values.data(), load.data(),
             ppkit::native_stream(exec));
  }

  // Moves the nodes: coordinates [num_nodes()][3] in host memory, the
  // creation's numbering and connectivity. Waits for the assemblies queued
  // before; keeps the pattern and the variant's layouts and re-gathers its
  // element coordinates (AssemblerApplier::update_coordinates). Throws
  // ppkit::Error (and keeps the old coordinates) for non-finite values or an
  // element the move inverts.
  void update_coordinates(const double* coordinates);

  // Waits for the work queued on stream (nullptr: the default stream).
  void wait(void* stream = nullptr) const;

  DataLocation memory() const;  // where the pattern, values and load live
  const std::string& variant() const;

 private:
  struct State;
  template <class View>
  void view_check(const View& v, std::int64_t size, const char* name) const {
    static_assert(View::rank == 1, "assemble takes rank-1 Views");
    check_view(v.span_is_contiguous(), std::int64_t(v.extent(0)), size, name);
  }
  void check_view(bool contiguous, std::int64_t extent, std::int64_t size, const char* name) const;
  const State& state() const;
  std::unique_ptr<State> state_;
};

}  // namespace ppkit::fem
