// The Python extension of ppkit (nanobind): the SEM operators on arrays
// passed through DLPack (NumPy on the host; CuPy, PyTorch or ppkit's own
// device arrays on a GPU), with no copy; compare and info as Python data.
// The pure-Python package python/ppkit wraps it.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "ppkit/core/compare_run.hpp"
#include "ppkit/core/device_memory.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/info.hpp"
#include "ppkit/core/results.hpp"
#include "ppkit/core/runtime.hpp"
#include "ppkit/fdtd/solver.hpp"
#include "ppkit/fem/assembler.hpp"
#include "ppkit/sph/simulation_operator.hpp"
#include "ppkit/sem/axhelm_operator.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// ---- the runtime and the objects that need it ---------------------------------

// Objects holding device data register here, so that finalize() releases
// them before Kokkos goes (Python may collect them later, or never).
struct Releasable {
  virtual ~Releasable() = default;
  virtual void release() = 0;
};
std::unique_ptr<ppkit::Runtime> runtime;
std::set<Releasable*> live;
bool finalised = false;

void require_runtime() {
  if (runtime) return;
  if (finalised)
    throw ppkit::Error("ppkit was finalised (ppkit.finalize() or interpreter exit)",
                       "create operators before ppkit.finalize()");
  runtime = std::make_unique<ppkit::Runtime>();
}

void finalize() {
  for (Releasable* r : live) r->release();
  runtime.reset();
  finalised = true;
}

// ---- arrays --------------------------------------------------------------------

using Array = nb::ndarray<>;

ppkit::DataLocation location_of(const Array& a) {
  switch (a.device_type()) {
    case nb::device::cpu::value:
      return {ppkit::MemoryKind::host, -1};
    case nb::device::cuda::value:
      return {ppkit::MemoryKind::cuda, a.device_id()};
    case nb::device::rocm::value:
      return {ppkit::MemoryKind::hip, a.device_id()};
    case nb::device::cuda_managed::value:
      return {ppkit::MemoryKind::managed, a.device_id()};
    default:
      throw ppkit::Error("an array on a device ppkit does not know (DLPack device type " +
                             std::to_string(a.device_type()) + ")",
                         "host (NumPy), CUDA or ROCm arrays");
  }
}

// The array's data as doubles after checking its type, layout, size and memory.
double* checked_data(const Array& a, const char* name, std::size_t size,
                     const ppkit::DataLocation& where) {
  if (a.dtype() != nb::dtype<double>())
    throw nb::type_error((std::string(name) + " must hold float64 values").c_str());
  // C-contiguous (any shape): strides, in elements, of a dense row-major array.
  std::int64_t expected = 1;
  for (std::size_t d = a.ndim(); d-- > 0;) {
    if (a.shape(d) > 1 && a.stride(d) != expected)
      throw nb::value_error(
          (std::string(name) +
           " is not contiguous: pass a contiguous array (numpy.ascontiguousarray; "
           "ppkit copies nothing behind your back)")
              .c_str());
    expected *= std::int64_t(a.shape(d));
  }
  if (a.size() != size)
    throw nb::value_error((std::string(name) + " has " + std::to_string(a.size()) +
                           " values, the operator takes " + std::to_string(size))
                              .c_str());
  const ppkit::DataLocation got = location_of(a);
  if (got.kind != ppkit::MemoryKind::managed && got != where)
    throw nb::value_error((std::string(name) + " is in " + got.describe() +
                           ", but the operator works on " + where.describe() +
                           " (ppkit.to_device / ppkit.to_host copy between them)")
                              .c_str());
  return static_cast<double*>(a.data());
}

void* stream_of(std::uintptr_t stream) { return reinterpret_cast<void*>(stream); }

// An array of n doubles in `where`, owned by the returned object.
nb::object empty_in(const ppkit::DataLocation& where, std::size_t n) {
  auto* data = static_cast<double*>(ppkit::allocate_in(where, n * sizeof(double)));
  // The deleter needs `where`: it lives in a heap block the capsule frees.
  struct Block {
    ppkit::DataLocation where;
    double* data;
  };
  auto* block = new Block{where, data};
  nb::capsule owner(block, [](void* p) noexcept {
    auto* b = static_cast<Block*>(p);
    ppkit::release_in(b->where, b->data);
    delete b;
  });
  const std::size_t shape[1] = {n};
  if (where.kind == ppkit::MemoryKind::host)
    return nb::cast(nb::ndarray<nb::numpy, double, nb::ndim<1>>(data, 1, shape, owner));
  const int device_type =
      where.kind == ppkit::MemoryKind::cuda ? nb::device::cuda::value : nb::device::rocm::value;
  // An array-API object (__dlpack__, __dlpack_device__): usable any number of
  // times, unlike a bare DLPack capsule, which its first consumer takes.
  return nb::cast(nb::ndarray<nb::array_api, double, nb::ndim<1>>(
      data, 1, shape, owner, nullptr, nb::dtype<double>(), device_type, where.device));
}

std::tuple<std::string, int> describe(const ppkit::DataLocation& where) {
  return {ppkit::to_string(where.kind), where.device};
}

// "host", "cuda", "hip" or None: the memory a caller's arrays will live in.
std::optional<ppkit::MemoryKind> parse_memory(const std::optional<std::string>& memory) {
  if (!memory) return std::nullopt;
  if (*memory == "host") return ppkit::MemoryKind::host;
  if (*memory == "cuda") return ppkit::MemoryKind::cuda;
  if (*memory == "hip") return ppkit::MemoryKind::hip;
  throw nb::value_error("memory must be 'host', 'cuda' or 'hip'");
}

// ---- SEM ------------------------------------------------------------------------

struct PyAxhelm final : Releasable {
  std::unique_ptr<ppkit::sem::Axhelm> op;
  PyAxhelm(int order, const nb::ndarray<const double, nb::c_contig, nb::device::cpu>& vertices,
           std::optional<nb::ndarray<const double, nb::c_contig, nb::device::cpu>> factors,
           std::optional<nb::ndarray<const std::uint8_t, nb::c_contig, nb::device::cpu>> trilinear,
           int ncol, bool helmholtz, const std::string& variant,
           std::optional<std::string> memory) {
    require_runtime();
    const std::int64_t elements = std::int64_t(vertices.size() / 24);
    if (vertices.size() == 0 || vertices.size() % 24 != 0)
      throw nb::value_error("vertices must hold E * 8 * 3 values (shape (E, 8, 3))");
    ppkit::sem::AxhelmMesh mesh{order, elements, vertices.data(),
                                factors ? factors->data() : nullptr,
                                trilinear ? trilinear->data() : nullptr};
    if (factors && factors->size() % std::size_t(elements) != 0)
      throw nb::value_error("factors must hold E * 7 * (N+1)^3 values");
    if (trilinear && trilinear->size() != std::size_t(elements))
      throw nb::value_error("trilinear must hold one flag per element");
    ppkit::sem::AxhelmOptions options;
    options.ncol = ncol;
    options.equation = helmholtz ? ppkit::sem::Equation::helmholtz : ppkit::sem::Equation::poisson;
    options.variant = variant;
    options.memory = parse_memory(memory);
    op = std::make_unique<ppkit::sem::Axhelm>(mesh, options);
    live.insert(this);
  }
  ~PyAxhelm() override { live.erase(this); }
  void release() override { op.reset(); }
  const ppkit::sem::Axhelm& get() const {
    if (!op) require_runtime();  // says why: finalised
    if (!op) throw ppkit::Error("this operator was released");
    return *op;
  }
  void apply(const Array& x, const Array& y, double lambda0, double lambda1,
             std::uintptr_t stream) {
    const auto& a = get();
    const std::size_t n = std::size_t(a.size());
    const double* xp = checked_data(x, "x", n, a.memory());
    double* yp = checked_data(y, "y", n, a.memory());
    a.apply(xp, yp, lambda0, lambda1, stream_of(stream));
  }
};

struct PyGatherScatter final : Releasable {
  std::unique_ptr<ppkit::sem::GatherScatter> gs;
  PyGatherScatter(const nb::ndarray<const std::int64_t, nb::c_contig, nb::device::cpu>& global_ids,
                  std::int64_t global_count, const PyAxhelm& like) {
    require_runtime();
    gs = std::make_unique<ppkit::sem::GatherScatter>(
        global_ids.data(), std::int64_t(global_ids.size()), global_count, like.get().memory());
    live.insert(this);
  }
  ~PyGatherScatter() override { live.erase(this); }
  void release() override { gs.reset(); }
  void dssum(const Array& u, std::uintptr_t stream) {
    if (!gs) require_runtime();
    if (!gs) throw ppkit::Error("this gather-scatter was released");
    gs->dssum(checked_data(u, "u", std::size_t(gs->local_count()), gs->memory()),
              stream_of(stream));
  }
};

// ---- FEM ------------------------------------------------------------------------

// A host copy of n values of T in `where`, as a NumPy array.
template <class T>
nb::object host_copy(const ppkit::DataLocation& where, const T* data, std::size_t n) {
  auto* out = new T[n];
  ppkit::copy_from(where, out, data, n * sizeof(T));
  nb::capsule owner(out, [](void* p) noexcept { delete[] static_cast<T*>(p); });
  const std::size_t shape[1] = {n};
  return nb::cast(nb::ndarray<nb::numpy, T, nb::ndim<1>>(out, 1, shape, owner));
}

struct PyAssembler final : Releasable {
  std::unique_ptr<ppkit::fem::Assembler> op;
  PyAssembler(const nb::ndarray<const double, nb::c_contig, nb::device::cpu>& coordinates,
              const nb::ndarray<const std::int32_t, nb::c_contig, nb::device::cpu>& connectivity,
              const std::string& variant) {
    require_runtime();
    if (coordinates.size() == 0 || coordinates.size() % 3 != 0)
      throw nb::value_error("coordinates must hold 3 values per node (shape (nodes, 3))");
    if (connectivity.size() == 0 || connectivity.size() % 8 != 0)
      throw nb::value_error("connectivity must hold 8 node indices per element (shape (E, 8))");
    ppkit::fem::AssemblerMesh mesh{std::int64_t(coordinates.size() / 3), coordinates.data(),
                                   std::int64_t(connectivity.size() / 8), connectivity.data()};
    ppkit::fem::AssemblerOptions options;
    options.variant = variant;
    op = std::make_unique<ppkit::fem::Assembler>(mesh, options);
    live.insert(this);
  }
  ~PyAssembler() override { live.erase(this); }
  void release() override { op.reset(); }
  ppkit::fem::Assembler& get() const {
    if (!op) require_runtime();
    if (!op) throw ppkit::Error("this assembler was released");
    return *op;
  }
  void assemble(double E, double nu, const std::array<double, 3>& body_force, const Array& values,
                const Array& load, std::uintptr_t stream) {
    auto& a = get();
    double* v = checked_data(values, "values", std::size_t(a.num_nonzeros()), a.memory());
    double* f = checked_data(load, "load", std::size_t(a.num_rows()), a.memory());
    a.assemble(E, nu, body_force, v, f, stream_of(stream));
  }
  void update_coordinates(const nb::ndarray<const double, nb::c_contig, nb::device::cpu>& xyz) {
    auto& a = get();
    if (xyz.size() != std::size_t(3 * a.num_nodes()))
      throw nb::value_error("coordinates must hold 3 values per node of the mesh");
    a.update_coordinates(xyz.data());
  }
};

// ---- FDTD -------------------------------------------------------------------------

struct PySolver final : Releasable {
  std::unique_ptr<ppkit::fdtd::Solver> op;
  PySolver(const std::string& case_json, const std::string& variant,
           std::optional<std::string> memory) {
    require_runtime();
    ppkit::fdtd::SolverOptions options;
    options.variant = variant;
    options.memory = parse_memory(memory);
    op = std::make_unique<ppkit::fdtd::Solver>(ppkit::fdtd::Solver::from_json(case_json, options));
    live.insert(this);
  }
  ~PySolver() override { live.erase(this); }
  void release() override { op.reset(); }
  ppkit::fdtd::Solver& get() const {
    if (!op) require_runtime();
    if (!op) throw ppkit::Error("this solver was released");
    return *op;
  }
  std::array<std::size_t, 3> shape() const {
    const auto& g = get().grid();
    return {std::size_t(g.nx + 1), std::size_t(g.ny + 1), std::size_t(g.nz + 1)};
  }
  bool fp64() const { return get().precision() == ppkit::fdtd::Precision::fp64; }
  // A host copy of field c, shape (nx+1, ny+1, nz+1), in the case's precision.
  nb::object get_field(const std::string& component) const {
    auto& s = get();
    const auto c = ppkit::fdtd::parse_component(component);
    const auto sh = shape();
    const std::size_t n = sh[0] * sh[1] * sh[2];
    auto make = [&](auto* data) {
      using T = std::remove_pointer_t<decltype(data)>;
      s.get_field(c, data, ppkit::fdtd::ArrayMemory::host);
      nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<T*>(p); });
      return nb::cast(nb::ndarray<nb::numpy, T, nb::ndim<3>>(data, 3, sh.data(), owner));
    };
    if (fp64()) return make(new double[n]);
    return make(new float[n]);
  }
  // Sets field c from an array of (nx+1)(ny+1)(nz+1) values: host (NumPy) or
  // in memory() (DLPack), float32 for fp32 cases and float64 for fp64.
  void set_field(const std::string& component, const Array& values, std::uintptr_t stream) {
    auto& s = get();
    const auto c = ppkit::fdtd::parse_component(component);
    const auto sh = shape();
    const std::size_t n = sh[0] * sh[1] * sh[2];
    const bool want64 = fp64();
    if (values.dtype() != (want64 ? nb::dtype<double>() : nb::dtype<float>()))
      throw nb::type_error(want64 ? "values must hold float64 values (an fp64 case)"
                                  : "values must hold float32 values (an fp32 case)");
    if (values.size() != n)
      throw nb::value_error(("values has " + std::to_string(values.size()) +
                             " values, the field has " + std::to_string(n))
                                .c_str());
    std::int64_t expected = 1;
    for (std::size_t d = values.ndim(); d-- > 0;) {
      if (values.shape(d) > 1 && values.stride(d) != expected)
        throw nb::value_error("values is not contiguous: pass a contiguous array");
      expected *= std::int64_t(values.shape(d));
    }
    const bool on_host = values.device_type() == nb::device::cpu::value;
    const auto where = on_host ? ppkit::fdtd::ArrayMemory::host : ppkit::fdtd::ArrayMemory::device;
    if (want64)
      s.set_field(c, static_cast<const double*>(values.data()), where, stream_of(stream));
    else
      s.set_field(c, static_cast<const float*>(values.data()), where, stream_of(stream));
  }
};

// ---- SPH --------------------------------------------------------------------------

struct PySimulation final : Releasable {
  std::unique_ptr<ppkit::sph::Simulation> op;
  PySimulation(double dp, double tank_height, const std::string& variant, int reorder_every) {
    require_runtime();
    ppkit::sph::CaseOptions o;
    o.dp = dp;
    o.tank_height = tank_height;
    ppkit::sph::SimulationOptions s;
    s.variant = variant;
    s.reorder_every = reorder_every;
    op = std::make_unique<ppkit::sph::Simulation>(ppkit::sph::Simulation::dambreak(o, s));
    live.insert(this);
  }
  ~PySimulation() override { live.erase(this); }
  void release() override { op.reset(); }
  ppkit::sph::Simulation& get() const {
    if (!op) require_runtime();
    if (!op) throw ppkit::Error("this simulation was released");
    return *op;
  }
};

template <class T>
nb::object numpy_copy(const std::vector<T>& v) {
  auto* data = new T[v.size()];
  std::copy(v.begin(), v.end(), data);
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<T*>(p); });
  const std::size_t shape[1] = {v.size()};
  return nb::cast(nb::ndarray<nb::numpy, T, nb::ndim<1>>(data, 1, shape, owner));
}

std::vector<std::tuple<std::string, bool, std::string>> as_tuples(
    const std::vector<ppkit::VariantStatus>& list) {
  std::vector<std::tuple<std::string, bool, std::string>> out;
  for (const auto& v : list) out.emplace_back(v.name, v.available, v.reason);
  return out;
}

}  // namespace

NB_MODULE(_ppkit, m) {
  m.doc() = "ppkit's compiled core; use the ppkit package";
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const ppkit::Error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  m.def("version", [] { return std::string(ppkit::version_string()); });
  m.def("info_json", [] {
    require_runtime();
    return ppkit::build_info().dump();
  });
  m.def("finalize", &finalize);
  m.def(
      "compare_json",
      [](const std::vector<std::string>& workloads, const std::string& variants,
         const std::string& size, int repeats) {
        require_runtime();
        ppkit::CompareOptions o;
        o.size = ppkit::parse_problem_size(size);
        o.repeats = repeats;
        o.workloads = workloads;
        o.variant_glob = variants;
        nb::gil_scoped_release release;
        const auto rows = ppkit::run_compare(o);
        return ppkit::results_json(rows, o, ppkit::build_info()).dump();
      },
      "workloads"_a, "variants"_a, "size"_a, "repeats"_a);
  m.def(
      "variants",
      [](const std::string& operation) {
        require_runtime();
        if (operation == "sem.axhelm") return as_tuples(ppkit::sem::axhelm_variants());
        if (operation == "fem.assemble") return as_tuples(ppkit::fem::assembler_variants());
        if (operation == "fdtd.step") return as_tuples(ppkit::fdtd::solver_variants());
        throw nb::value_error(
            ("unknown operation '" + operation + "' (valid: sem.axhelm, fem.assemble, fdtd.step)")
                .c_str());
      },
      "operation"_a);
  m.def(
      "empty",
      [](std::size_t n, const std::string& memory, int device) {
        require_runtime();
        ppkit::DataLocation where{ppkit::MemoryKind::host, -1};
        if (memory == "device") {
          const auto d = ppkit::default_device_location();
          if (!d) throw ppkit::Error("no CUDA or HIP device here", "memory='host'");
          where = *d;
          if (device >= 0) where.device = device;
        } else if (memory != "host") {
          throw nb::value_error("memory must be 'host' or 'device'");
        }
        return empty_in(where, n);
      },
      "n"_a, "memory"_a = "host", "device"_a = -1);
  m.def("to_host", [](const Array& source) {
    const ppkit::DataLocation src = location_of(source);
    const std::size_t n = source.size();
    const double* s = checked_data(source, "array", n, src);
    auto* out = new double[n];
    nb::capsule owner(out, [](void* p) noexcept { delete[] static_cast<double*>(p); });
    if (src.kind == ppkit::MemoryKind::host)
      std::copy(s, s + n, out);
    else
      ppkit::copy_from(src, out, s, n * sizeof(double));
    const std::size_t shape[1] = {n};
    return nb::cast(nb::ndarray<nb::numpy, double, nb::ndim<1>>(out, 1, shape, owner));
  });
  m.def("copy", [](const Array& destination, const Array& source) {
    const auto dst = location_of(destination), src = location_of(source);
    const std::size_t n = source.size();
    double* d = checked_data(destination, "destination", n, dst);
    const double* s = checked_data(source, "source", n, src);
    const std::size_t bytes = n * sizeof(double);
    if (src.kind == ppkit::MemoryKind::host)
      ppkit::copy_to(dst, d, s, bytes);
    else if (dst.kind == ppkit::MemoryKind::host)
      ppkit::copy_from(src, d, s, bytes);
    else
      ppkit::copy_within(dst, d, s, bytes);
  });

  nb::class_<PyAxhelm>(m, "Axhelm")
      .def(nb::init<int, const nb::ndarray<const double, nb::c_contig, nb::device::cpu>&,
                    std::optional<nb::ndarray<const double, nb::c_contig, nb::device::cpu>>,
                    std::optional<nb::ndarray<const std::uint8_t, nb::c_contig, nb::device::cpu>>,
                    int, bool, const std::string&, std::optional<std::string>>(),
           "order"_a, "vertices"_a, "factors"_a = nb::none(), "trilinear"_a = nb::none(),
           "ncol"_a = 1, "helmholtz"_a = false, "variant"_a = "auto", "memory"_a = nb::none())
      .def("apply", &PyAxhelm::apply, "x"_a, "y"_a, "lambda0"_a = 1.0, "lambda1"_a = 1.0,
           "stream"_a = 0)
      .def(
          "wait", [](const PyAxhelm& a, std::uintptr_t s) { a.get().wait(stream_of(s)); },
          "stream"_a = 0)
      .def_prop_ro("variant", [](const PyAxhelm& a) { return a.get().variant(); })
      .def_prop_ro("size", [](const PyAxhelm& a) { return a.get().size(); })
      .def_prop_ro("memory", [](const PyAxhelm& a) { return describe(a.get().memory()); })
      .def("empty", [](const PyAxhelm& a) {
        return empty_in(a.get().memory(), std::size_t(a.get().size()));
      });

  nb::class_<PyGatherScatter>(m, "GatherScatter")
      .def(nb::init<const nb::ndarray<const std::int64_t, nb::c_contig, nb::device::cpu>&,
                    std::int64_t, const PyAxhelm&>(),
           "global_ids"_a, "global_count"_a, "like"_a)
      .def("dssum", &PyGatherScatter::dssum, "u"_a, "stream"_a = 0);

  nb::class_<PyAssembler>(m, "Assembler")
      .def(nb::init<const nb::ndarray<const double, nb::c_contig, nb::device::cpu>&,
                    const nb::ndarray<const std::int32_t, nb::c_contig, nb::device::cpu>&,
                    const std::string&>(),
           "coordinates"_a, "connectivity"_a, "variant"_a = "auto")
      .def("assemble", &PyAssembler::assemble, "E"_a, "nu"_a, "body_force"_a, "values"_a, "load"_a,
           "stream"_a = 0)
      .def("update_coordinates", &PyAssembler::update_coordinates, "coordinates"_a)
      .def(
          "wait", [](const PyAssembler& a, std::uintptr_t s) { a.get().wait(stream_of(s)); },
          "stream"_a = 0)
      .def("pattern",
           [](const PyAssembler& a) {
             const auto& op = a.get();
             return std::make_tuple(
                 host_copy(op.memory(), op.row_offsets(), std::size_t(op.num_rows() + 1)),
                 host_copy(op.memory(), op.column_indices(), std::size_t(op.num_nonzeros())));
           })
      .def("empty_values",
           [](const PyAssembler& a) {
             return empty_in(a.get().memory(), std::size_t(a.get().num_nonzeros()));
           })
      .def("empty_load",
           [](const PyAssembler& a) {
             return empty_in(a.get().memory(), std::size_t(a.get().num_rows()));
           })
      .def_prop_ro("variant", [](const PyAssembler& a) { return a.get().variant(); })
      .def_prop_ro("memory", [](const PyAssembler& a) { return describe(a.get().memory()); })
      .def_prop_ro("num_rows", [](const PyAssembler& a) { return a.get().num_rows(); })
      .def_prop_ro("num_nonzeros", [](const PyAssembler& a) { return a.get().num_nonzeros(); });

  nb::class_<PySolver>(m, "Solver")
      .def(nb::init<const std::string&, const std::string&, std::optional<std::string>>(),
           "case_json"_a, "variant"_a = "auto", "memory"_a = nb::none())
      .def(
          "step",
          [](PySolver& s, std::int64_t n, std::uintptr_t stream) {
            s.get().step(n, stream_of(stream));
          },
          "n"_a, "stream"_a = 0)
      .def("restart", [](PySolver& s) { s.get().restart(); })
      .def(
          "wait", [](const PySolver& s, std::uintptr_t stream) { s.get().wait(stream_of(stream)); },
          "stream"_a = 0)
      .def("get_field", &PySolver::get_field, "component"_a)
      .def("set_field", &PySolver::set_field, "component"_a, "values"_a, "stream"_a = 0)
      .def("probe_values", [](const PySolver& s) { return numpy_copy(s.get().probe_values()); })
      .def_prop_ro("probe_count", [](const PySolver& s) { return s.get().probe_count(); })
      .def_prop_ro("steps_done", [](const PySolver& s) { return s.get().steps_done(); })
      .def_prop_ro("steps_total", [](const PySolver& s) { return s.get().steps_total(); })
      .def_prop_ro("shape", &PySolver::shape)
      .def_prop_ro("precision",
                   [](const PySolver& s) {
                     return std::string(ppkit::fdtd::to_string(s.get().precision()));
                   })
      .def_prop_ro("variant", [](const PySolver& s) { return s.get().variant(); })
      .def_prop_ro("memory", [](const PySolver& s) -> std::optional<std::tuple<std::string, int>> {
        const auto m = s.get().memory();
        if (!m) return std::nullopt;
        return describe(*m);
      });

  nb::class_<PySimulation>(m, "Simulation")
      .def(nb::init<double, double, const std::string&, int>(), "dp"_a = 0.02,
           "tank_height"_a = 1.0, "variant"_a = "auto", "reorder_every"_a = 1)
      .def(
          "advance",
          [](PySimulation& s, double t_end, std::int64_t max_steps) {
            return s.get().advance(t_end, max_steps);
          },
          "t_end"_a, "max_steps"_a = -1)
      .def("probes",
           [](const PySimulation& s) {
             const auto p = s.get().probes();
             return std::make_tuple(std::vector<double>(p.height.begin(), p.height.end()),
                                    std::vector<double>(p.pressure.begin(), p.pressure.end()));
           })
      .def("state",
           [](const PySimulation& s) {
             const auto p = s.get().state();
             nb::dict d;
             d["x"] = numpy_copy(p.x);
             d["y"] = numpy_copy(p.y);
             d["z"] = numpy_copy(p.z);
             d["vx"] = numpy_copy(p.vx);
             d["vy"] = numpy_copy(p.vy);
             d["vz"] = numpy_copy(p.vz);
             d["density"] = numpy_copy(p.rho);
             d["kind"] = numpy_copy(p.kind);
             return d;
           })
      .def_prop_ro("time", [](const PySimulation& s) { return s.get().time(); })
      .def_prop_ro("steps", [](const PySimulation& s) { return s.get().steps(); })
      .def_prop_ro("escaped", [](const PySimulation& s) { return s.get().escaped(); })
      .def_prop_ro("particle_count", [](const PySimulation& s) { return s.get().particle_count(); })
      .def_prop_ro("fluid_count", [](const PySimulation& s) { return s.get().fluid_count(); })
      .def_prop_ro("variant", [](const PySimulation& s) { return s.get().variant(); })
      .def_prop_ro("memory", [](const PySimulation& s) { return describe(s.get().memory()); });
}
