#pragma once
// ppkit::sem::Axhelm: the matrix-free Helmholtz operator of nekRS/Nekbone
// (axhelm.hpp) as an object a host code creates once from its mesh and then
// applies to its own arrays, with no host transfer per application:
//
//   ppkit::Runtime runtime;                         // or the host code's Kokkos
//   ppkit::sem::Axhelm A({order, E, vertices});     // geometry uploaded once
//   A.apply(x, y);                                  // x, y in A.memory()
//
// x and y hold ncol fields of E * (N+1)^3 local nodes each
// ([ncol][E][Np], local node n = i + Nq (j + Nq k)); they are Kokkos Views in
// the operator's memory space or raw pointers in the memory A.memory() names
// (device memory for cuda/hip/kokkos-cuda variants, host memory for CPU
// ones). Pointers the vendor runtime reports elsewhere are refused with an
// error. Every registered sem.axhelm variant serves, with the results of the
// registry's runs (same kernels). docs/embedding.md: memory, streams,
// lifetimes, threads.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "ppkit/core/data_location.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/kokkos_instances.hpp"
#include "ppkit/core/variant_status.hpp"
#include "ppkit/sem/axhelm.hpp"

namespace ppkit::sem {

// The mesh, in host memory (copied at creation; the caller may free it).
struct AxhelmMesh {
  int order = 0;                     // N = 1..15 (native GPU kernels: 1..9)
  std::int64_t elements = 0;         // E >= 1
  const double* vertices = nullptr;  // [E][8][3], corner v = a + 2b + 4c at (2a-1, 2b-1, 2c-1)
  const double* factors = nullptr;   // [E][7][Np] G00 G01 G02 G11 G12 G22 w|J|, or
                                     // nullptr: computed from the vertices (trilinear)
  const std::uint8_t* trilinear = nullptr;  // [E] 1: exactly trilinear; nullptr: all trilinear
                                            // when vertices are given, none otherwise
};

struct AxhelmOptions {
  int ncol = 1;                           // fields per application: 1 or 3
  Equation equation = Equation::poisson;  // helmholtz: lambda0 A + lambda1 M
  // "auto" (the preferred variant that can run here), a strategy ("stored",
  // "trilinear", ...: its preferred available variant) or a variant name
  // ("cuda/trilinear", "kokkos-serial/stored"; `ppkit list --workload sem`).
  std::string variant = "auto";
  // Where the host code's arrays will live: "auto" and strategies then choose
  // among the variants that work on that memory (for example
  // ppkit::kokkos_data_location<Kokkos::DefaultExecutionSpace>().kind).
  std::optional<MemoryKind> memory;
};

class Axhelm {
 public:
  // Uploads the geometry with the chosen variant. Throws ppkit::Error on a bad
  // mesh, an unknown or unavailable variant, a variant that refuses the
  // problem (e.g. tensor-core kernels at N != 7), or before Kokkos is
  // initialised.
  explicit Axhelm(const AxhelmMesh& mesh, const AxhelmOptions& options = {});
  ~Axhelm();
  Axhelm(Axhelm&&) noexcept;
  Axhelm& operator=(Axhelm&&) noexcept;
  Axhelm(const Axhelm&) = delete;
  Axhelm& operator=(const Axhelm&) = delete;

  // y = A x (Poisson) or y = lambda0 A x + lambda1 M x (Helmholtz; the
  // overload without lambdas uses 1, 1), on size() values each, queued on
  // `stream` (cudaStream_t or hipStream_t as void*; nullptr: the default
  // stream; host operators take none). Returns before the device is done:
  // work queued later on the same stream sees y; wait() blocks until then.
  void apply(const double* x, double* y, void* stream = nullptr) const;
  void apply(const double* x, double* y, double lambda0, double lambda1,
             void* stream = nullptr) const;

  // The same on Kokkos Views (rank 1, contiguous, size() values, accessible
  // where memory() says), queued on the default instance or on `exec`.
  template <class XView, class YView,
            class = std::enable_if_t<!std::is_pointer_v<XView> && !std::is_pointer_v<YView>>>
  void apply(const XView& x, const YView& y, double lambda0 = 1, double lambda1 = 1) const {
    apply(x.data(), y.data(), lambda0, lambda1, view_check(x, "x", y, "y"));
  }
  template <class Exec, class XView, class YView>
  void apply_on(const Exec& exec, const XView& x, const YView& y, double lambda0 = 1,
                double lambda1 = 1) const {
    view_check(x, "x", y, "y");
    apply(x.data(), y.data(), lambda0, lambda1, ppkit::native_stream(exec));
  }

  // Waits for the work queued on stream (nullptr: the default stream).
  void wait(void* stream = nullptr) const;

  DataLocation memory() const;  // where x and y live
  const std::string& variant() const;
  int order() const;
  std::int64_t elements() const;
  int ncol() const;
  Equation equation() const;
  std::int64_t size() const;  // values of x and of y: ncol * E * (N+1)^3

 private:
  struct State;
  // Throws unless both views are rank 1, contiguous and of size(); returns
  // nullptr (the default stream).
  template <class XView, class YView>
  void* view_check(const XView& x, const char* xname, const YView& y, const char* yname) const {
    static_assert(XView::rank == 1 && YView::rank == 1, "axhelm takes rank-1 Views");
    check_view(x.span_is_contiguous(), std::int64_t(x.extent(0)), xname);
    check_view(y.span_is_contiguous(), std::int64_t(y.extent(0)), yname);
    return nullptr;
  }
  void check_view(bool contiguous, std::int64_t extent, const char* name) const;
  std::unique_ptr<State> state_;
};

// Direct stiffness summation (gather-scatter, Deville, Fischer & Mund 2002,
// section 4.5) on arrays of local nodes: u <- Q Q^T u, every local copy of a
// global node receives the sum over its copies; with Axhelm, a host code's own
// CG on the assembled system (examples/embed_sem_cg.cpp). Runs on the Kokkos
// space whose memory is `where` (an Axhelm's memory()); CUDA or HIP memory
// needs a Kokkos built with that backend.
class GatherScatter {
 public:
  // global_ids: [local_count] global node of each local node, 0..global_count-1
  // (host memory, copied).
  GatherScatter(const std::int64_t* global_ids, std::int64_t local_count, std::int64_t global_count,
                const DataLocation& where);
  ~GatherScatter();
  GatherScatter(GatherScatter&&) noexcept;
  GatherScatter& operator=(GatherScatter&&) noexcept;
  GatherScatter(const GatherScatter&) = delete;
  GatherScatter& operator=(const GatherScatter&) = delete;

  // u <- Q Q^T u on local_count values in where (queued on stream as Axhelm).
  void dssum(double* u, void* stream = nullptr) const;
  void wait(void* stream = nullptr) const;
  std::int64_t local_count() const;
  std::int64_t global_count() const;
  DataLocation memory() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Every registered sem.axhelm variant and whether it can run here (the
// names AxhelmOptions::variant takes; variant_status.hpp).
std::vector<VariantStatus> axhelm_variants();

// The geometric factors [E][7][Np] of trilinear elements given by their
// vertices [E][8][3] (what Axhelm computes when no factors are given).
std::vector<double> trilinear_geometric_factors(int order, std::int64_t elements,
                                                const double* vertices);

}  // namespace ppkit::sem
