#pragma once
// The host side of the hand-tuned axhelm variants, shared by the CUDA glue
// (backends/cuda/sem/axhelm_cuda.cpp) and the HIP glue (backends/hip/sem/axhelm_hip.cpp): which
// elements load stored factors, the upload of an AxhelmProblem's geometry
// into device buffers, the per-translation-unit constant tables of D, and the
// prepared run of a sem.axhelm variant. Host code only: templated over the
// runtime calls of ppkit::DeviceBuffer (cuda::RuntimeCalls, hip::RuntimeCalls)
// and over a Backend policy that names the kernels:
//
//   struct Backend {
//     using Kernel = ...;                       // enum of the kernels
//     using Calls = ...;                        // DeviceBuffer runtime calls
//     static constexpr int constant_tables;     // translation units with tables
//     static KernelEntry entry(Kernel);         // table, set_constants, launch
//     static AxhelmGeometry geometry(Kernel);   // what the kernel loads
//     static void check_supported(const AxhelmProblem&, Kernel);  // throws
//     static void check_launch();               // throws on a launch error
//     static void synchronize();                // waits for the device
//     static void synchronize(void* stream);    // waits for one stream
//     static DataLocation memory();             // where its buffers live
//   };
#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "ppkit/core/device_buffer.hpp"
#include "ppkit/core/registry.hpp"
#include "ppkit/sem/axhelm.hpp"
#include "ppkit/sem/axhelm_kernel_args.hpp"
#include "ppkit/sem/geometry.hpp"

namespace ppkit::sem {

// What the kernel reads for the geometry of a trilinear element.
enum class AxhelmGeometry {
  stored,     // every element loads its 6 (7) factors per node
  recompute,  // trilinear elements (factor_slot < 0) rebuild G from 8 vertices
  partial     // trilinear elements load lambda0 w/|J| per node (node_scale)
};

// One kernel translation unit's entry points: its constant-table index, the
// function filling its tables (D, GLL nodes, weights) and its launcher.
struct KernelEntry {
  int table;
  void (*set_constants)(int nq, const double* derivative, const double* nodes,
                        const double* weights);
  void (*launch)(const AxhelmKernelArgs&);
};

// Throws the "unsupported problem" error (the tests and drivers skip on it)
// when the kernels are not compiled for this order.
inline void check_compiled_order(const AxhelmProblem& p, const char* backend) {
  if (p.nq() > compiled_max_nq)
    throw Error(fmt::format("{}the {} axhelm kernels are compiled for N <= {}; this problem has "
                            "N = {}",
                            unsupported_problem_prefix, backend, compiled_max_nq - 1, p.order),
                fmt::format("N <= {}", compiled_max_nq - 1));
}

// An AxhelmProblem's geometry on the device and the kernel arguments that
// point at it (x and y are filled per application).
template <class Calls>
class AxhelmDeviceGeometry {
 public:
  AxhelmDeviceGeometry(const AxhelmProblem& p, AxhelmGeometry geometry) {
    validate_axhelm_problem(p);
    const bool recompute = geometry != AxhelmGeometry::stored;
    // Elements that load factors get consecutive slots of a compacted array;
    // recomputed (trilinear) elements get slot -1.
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
    factors_ = DeviceBuffer<double, Calls>(loaded);
    slot_ = DeviceBuffer<long long, Calls>(slot);
    vertices_ = DeviceBuffer<double, Calls>(p.vertices);
    derivative_ = DeviceBuffer<double, Calls>(p.derivative);
    if (geometry == AxhelmGeometry::partial) {
      // Partial recompute (Cao et al., section 3.3): w / |J| per node, from
      // the set-up's w|J| (GeomFactor GWJ): w^2 / (w|J|); the kernel scales
      // it by lambda0, so one operator serves every lambda0.
      const int nq = p.nq(), np = p.np();
      std::vector<double> scale(std::size_t(p.elements) * np);
      for (std::int64_t e = 0; e < p.elements; ++e)
        for (int n = 0; n < np; ++n) {
          const double w = p.weights[n % nq] * p.weights[(n / nq) % nq] * p.weights[n / (nq * nq)];
          scale[std::size_t(e) * np + n] =
              w * w / p.factors[(std::size_t(e) * factors_per_node + GWJ) * np + n];
        }
      node_scale_ = DeviceBuffer<double, Calls>(scale);
    } else {
      node_scale_ = DeviceBuffer<double, Calls>(std::vector<double>{0.0});
    }
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
    args_.derivative = derivative_.data();
    args_.node_scale = node_scale_.data();
  }
  const AxhelmKernelArgs& args() const { return args_; }

 private:
  AxhelmKernelArgs args_;
  DeviceBuffer<double, Calls> factors_, vertices_, derivative_, node_scale_;
  DeviceBuffer<long long, Calls> slot_;
};

// The axhelm operator as a reusable object (sem.axhelm variants, Nekbone):
// uploads a problem's geometry once and applies y = A x on device pointers.
// Each kernel translation unit has its own constant tables, holding one
// problem's D at a time; apply() re-uploads them only when another operator
// used the same tables since.
template <class Backend>
class DeviceAxhelmOperator {
 public:
  using Kernel = typename Backend::Kernel;
  // Throws ppkit::Error (prefix unsupported_problem_prefix) for orders the
  // kernel is not compiled for. p.x is not uploaded.
  DeviceAxhelmOperator(const AxhelmProblem& p, Kernel kernel)
      : kernel_(kernel),
        geometry_((validate_axhelm_problem(p), Backend::check_supported(p, kernel), p),
                  Backend::geometry(kernel)),
        derivative_(p.derivative),
        nodes_(p.nodes),
        weights_(p.weights) {
    Backend::synchronize();
  }
  ~DeviceAxhelmOperator() {
    for (auto& owner : owners())
      if (owner == this) owner = nullptr;
  }
  DeviceAxhelmOperator(const DeviceAxhelmOperator&) = delete;
  DeviceAxhelmOperator& operator=(const DeviceAxhelmOperator&) = delete;

  // Queues y = A x (x, y: [ncol][E Np] device arrays) on the default stream;
  // with global_of_local ([E Np]) the assembled operator instead: x and y
  // vectors of global nodes, y += Q^T A_L Q x and dot_sums[e % 64] += x_e . (A_e x_e)
  // per element (one field; the CUDA register-column and tensor-core
  // kernels; AxhelmKernelArgs::global_of_local).
  void apply(const double* x, double* y, const int* global_of_local = nullptr,
             double* dot_sums = nullptr) {
    const AxhelmKernelArgs& a = geometry_.args();
    apply(x, y, a.lambda0, a.lambda1, nullptr, global_of_local, dot_sums);
  }
  // As above with the Helmholtz coefficients of this application, queued on
  // `stream` (a cudaStream_t / hipStream_t; nullptr: the default stream).
  void apply(const double* x, double* y, double lambda0, double lambda1, void* stream,
             const int* global_of_local = nullptr, double* dot_sums = nullptr) {
    const KernelEntry entry = Backend::entry(kernel_);
    const void*& owner = owners()[entry.table];
    if (owner != this) {
      // Kernels of the previous owner may still read the tables on another
      // stream: let them finish before the tables change.
      Backend::synchronize();
      entry.set_constants(geometry_.args().nq, derivative_.data(), nodes_.data(), weights_.data());
      Backend::check_launch();
      owner = this;
    }
    AxhelmKernelArgs a = geometry_.args();
    if (a.helmholtz) {
      a.lambda0 = lambda0;
      a.lambda1 = lambda1;
    }
    a.x = x;
    a.y = y;
    a.stream = stream;
    a.global_of_local = global_of_local;
    a.dot_sums = dot_sums;
    entry.launch(a);
    Backend::check_launch();
  }

 private:
  static std::vector<const void*>& owners() {
    static std::vector<const void*> tables(Backend::constant_tables, nullptr);
    return tables;
  }
  Kernel kernel_;
  AxhelmDeviceGeometry<typename Backend::Calls> geometry_;
  std::vector<double> derivative_, nodes_, weights_;
};

// A prepared sem.axhelm run: x uploaded, y poisoned (NaN), run() applies the
// operator once and waits for it. Prepared with an empty x it is only the
// operator (AxhelmApplier) on the caller's device arrays.
template <class Backend>
class DeviceAxhelmRun final : public PreparedRun<SemAxhelm::Result>, public AxhelmApplier {
 public:
  DeviceAxhelmRun(const AxhelmProblem& p, typename Backend::Kernel kernel)
      : op_(p, kernel), x_(p.x), y_(p.x.size()) {
    y_.fill_bytes(0xFF);
    Backend::synchronize();
  }
  void run() override {
    require(x_.size() > 0, operator_only_run);
    op_.apply(x_.data(), y_.data());
    Backend::synchronize();
  }
  SemAxhelm::Result result() override { return y_.download(); }

  void apply(const double* x, double* y, double lambda0, double lambda1, void* stream) override {
    op_.apply(x, y, lambda0, lambda1, stream);
  }
  void wait(void* stream) override { Backend::synchronize(stream); }
  DataLocation memory() const override { return Backend::memory(); }

 private:
  DeviceAxhelmOperator<Backend> op_;
  DeviceBuffer<double, typename Backend::Calls> x_, y_;
};

}  // namespace ppkit::sem
