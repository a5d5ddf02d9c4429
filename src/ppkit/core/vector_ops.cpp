#include "ppkit/core/vector_ops.hpp"

#include "ppkit/core/error.hpp"
#include "ppkit/core/kokkos_instances.hpp"

namespace ppkit {
namespace {

// Functors rather than lambdas: these kernels are instantiated from a generic
// lambda (with_kokkos_space_for), where nvcc accepts no extended lambda.
template <class T, class Mem>
using Unmanaged = Kokkos::View<T*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class Mem>
struct DotKernel {
  Unmanaged<const double, Mem> x, y, w;
  bool weighted;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t i, double& sum) const {
    sum += weighted ? x(i) * y(i) * w(i) : x(i) * y(i);
  }
};

template <class Mem>
struct AxpbyKernel {
  double alpha, beta;
  Unmanaged<const double, Mem> x;
  Unmanaged<double, Mem> y;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t i) const { y(i) = alpha * x(i) + beta * y(i); }
};

void require_space(bool found, const DataLocation& where) {
  require(found, "no Kokkos execution space of this build works on " + where.describe(),
          "a Kokkos built with the backend of that memory, or host memory");
}

}  // namespace

double dot(const DataLocation& where, std::size_t n, const double* x, const double* y,
           const double* w) {
  check_pointer(x, n, where, "x");
  check_pointer(y, n, where, "y");
  if (w) check_pointer(w, n, where, "w");
  double result = 0;
  require_space(with_kokkos_space_for(
                    where,
                    [&](auto exec) {
                      using Exec = decltype(exec);
                      using Mem = typename Exec::memory_space;
                      Kokkos::parallel_reduce(
                          "ppkit::dot", Kokkos::RangePolicy<Exec>(exec, 0, n),
                          DotKernel<Mem>{Unmanaged<const double, Mem>(x, n),
                                         Unmanaged<const double, Mem>(y, n),
                                         Unmanaged<const double, Mem>(w, w ? n : 0), w != nullptr},
                          result);
                    }),
                where);
  return result;
}

void axpby(const DataLocation& where, std::size_t n, double alpha, const double* x, double beta,
           double* y) {
  check_pointer(x, n, where, "x");
  check_pointer(y, n, where, "y");
  require_space(
      with_kokkos_space_for(where,
                            [&](auto exec) {
                              using Exec = decltype(exec);
                              using Mem = typename Exec::memory_space;
                              Kokkos::parallel_for(
                                  "ppkit::axpby", Kokkos::RangePolicy<Exec>(exec, 0, n),
                                  AxpbyKernel<Mem>{alpha, beta, Unmanaged<const double, Mem>(x, n),
                                                   Unmanaged<double, Mem>(y, n)});
                              exec.fence();
                            }),
      where);
}

}  // namespace ppkit
