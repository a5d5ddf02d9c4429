// Glue of the CUDA sem.axhelm variants: uploads a problem into device buffers
// and launches the kernels of axhelm_cuda_columns_*.cu, axhelm_cuda.cu and
// axhelm_cuda_wmma.cu.
//   cuda/stored              register columns, factors loaded per node through
//                            asynchronous copies two k-slices ahead
//   cuda/trilinear           register columns, factors recomputed for trilinear
//                            elements, loaded for the rest
//   cuda/trilinear-partial   register columns, trilinear elements load lambda0 w/|J|
//                            per node and recompute the cofactors
//   cuda/stored-dshared      the first kernels (nekRS's layout: D in shared memory,
//   cuda/trilinear-dshared   scalar shared loads, one element per block), kept to
//                            show what the register-column rewrite gains
//   cuda/trilinear-wmma      as cuda/trilinear-dshared, r/s contractions on fp64
//                            tensor cores; Nq = 8 (N = 7) only, sm_80 or newer
//   cuda/trilinear-wmma-t    the same with the t contractions on tensor cores too
//   cuda/trilinear-wmma-m16  the same with two k-slices (or 16 nodes) per
//                            product where the operands allow (m16n8k4), sm_90+
#include <fmt/format.h>

#include "backends/cuda/core/cuda_device.hpp"
#include "backends/cuda/sem/axhelm_cuda.hpp"
#include "backends/cuda/sem/axhelm_cuda_operator.hpp"
#include "ppkit/sem/axhelm.hpp"
#include "ppkit/sem/geometry.hpp"

namespace ppkit::sem {

// Each kernel translation unit has its own constant tables (table index).
KernelEntry CudaAxhelmBackend::entry(CudaKernel k) {
  using namespace cuda_kernels;
  switch (k) {
    case CudaKernel::stored:
      return {0, set_constants_columns_stored, launch_columns_stored};
    case CudaKernel::trilinear:
      return {1, set_constants_columns_recompute, launch_columns_recompute};
    case CudaKernel::trilinear_partial:
      return {2, set_constants_columns_partial, launch_columns_partial};
    case CudaKernel::stored_dshared:
      return {3, set_constants, launch_stored};
    case CudaKernel::trilinear_dshared:
      return {3, set_constants, launch_trilinear};
    case CudaKernel::trilinear_wmma:
      return {4, set_constants_wmma, launch_trilinear_wmma};
    case CudaKernel::trilinear_wmma_t:
      return {4, set_constants_wmma, launch_trilinear_wmma_t};
    case CudaKernel::trilinear_wmma_m16:
      return {4, set_constants_wmma, launch_trilinear_wmma_m16};
  }
  return {3, set_constants, launch_stored};
}

AxhelmGeometry CudaAxhelmBackend::geometry(CudaKernel k) {
  switch (k) {
    case CudaKernel::stored:
    case CudaKernel::stored_dshared:
      return AxhelmGeometry::stored;
    case CudaKernel::trilinear_partial:
      return AxhelmGeometry::partial;
    case CudaKernel::trilinear:
    case CudaKernel::trilinear_dshared:
    case CudaKernel::trilinear_wmma:
    case CudaKernel::trilinear_wmma_t:
    case CudaKernel::trilinear_wmma_m16:
      break;
  }
  return AxhelmGeometry::recompute;
}

void CudaAxhelmBackend::check_supported(const AxhelmProblem& p, CudaKernel kernel) {
  check_compiled_order(p, "CUDA");
  const char* tensor_core_kernel = kernel == CudaKernel::trilinear_wmma       ? "trilinear-wmma"
                                   : kernel == CudaKernel::trilinear_wmma_t   ? "trilinear-wmma-t"
                                   : kernel == CudaKernel::trilinear_wmma_m16 ? "trilinear-wmma-m16"
                                                                              : nullptr;
  if (tensor_core_kernel && p.nq() != 8)
    throw Error(fmt::format("{}cuda/{} runs only Nq = 8 (N = 7); this problem has N = {}",
                            unsupported_problem_prefix, tensor_core_kernel, p.order),
                "N = 7");
}

void CudaAxhelmBackend::check_launch() { PPKIT_CUDA_CHECK_LAUNCH(); }
void CudaAxhelmBackend::synchronize() { PPKIT_CUDA_CHECK(cudaDeviceSynchronize()); }
void CudaAxhelmBackend::synchronize(void* stream) {
  PPKIT_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
}
DataLocation CudaAxhelmBackend::memory() {
  int device = 0;
  PPKIT_CUDA_CHECK(cudaGetDevice(&device));
  return DataLocation{MemoryKind::cuda, device};
}

namespace {

// The current device's compute capability major, or 0 when it cannot be queried.
int device_compute_major() {
  int device_id = 0, major = 0;
  if (cudaGetDevice(&device_id) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device_id) != cudaSuccess)
    return 0;
  return major;
}

}  // namespace

Availability tensor_core_availability() {
  const Availability device = cuda::device_availability();
  if (!device.available) return device;
  const int major = device_compute_major();
  if (major == 0) return Availability::no("cannot query the CUDA device's compute capability");
  if (major < 8)
    return Availability::no(
        fmt::format("fp64 WMMA needs compute capability 8.0 or newer (sm_{}x)", major));
  return Availability::yes();
}

Availability tensor_core_m16_availability() {
  const Availability base = tensor_core_availability();
  if (!base.available) return base;
  const int major = device_compute_major();
  if (major < 9)
    return Availability::no(
        fmt::format("fp64 m16n8k4 products need compute capability 9.0 or newer (sm_{}x)", major));
  if (cuda_kernels::wmma_m16_binary_version() < 90)
    return Availability::no(
        "this build holds no sm_90 code for the fp64 m16n8k4 kernel (configure with "
        "CMAKE_CUDA_ARCHITECTURES including 90)");
  return Availability::yes();
}

namespace {

using CudaAxhelm = DeviceAxhelmRun<CudaAxhelmBackend>;

}  // namespace
}  // namespace ppkit::sem

namespace ppkit::registration {
void register_sem_cuda_variants() {
  using namespace ppkit::sem;
  auto add = [](const char* strategy, int preference, CudaKernel kernel, GeometryCost geometry) {
    auto v = cuda::cuda_variant<SemAxhelm>(strategy, preference);
    v.traits.geometry = geometry;
    // stored: the nekRS baseline the recompute speedups are over.
    if (kernel == CudaKernel::stored) v.role = VariantRole::baseline;
    v.prepare = [kernel](const AxhelmProblem& p) {
      return std::make_unique<CudaAxhelm>(p, kernel);
    };
    Registry<SemAxhelm>::add(std::move(v));
  };
  add("stored", 5, CudaKernel::stored, GeometryCost::stored);
  add("trilinear", 7, CudaKernel::trilinear, GeometryCost::recompute);
  add("trilinear-partial", 6, CudaKernel::trilinear_partial, GeometryCost::partial);
  add("stored-dshared", 3, CudaKernel::stored_dshared, GeometryCost::stored);
  add("trilinear-dshared", 3, CudaKernel::trilinear_dshared, GeometryCost::recompute);
  // Low preference: "auto" must not pick a variant that refuses most orders.
  auto add_tensor_cores = [](const char* strategy, int preference, CudaKernel kernel,
                             Availability (*availability)()) {
    auto v = cuda::cuda_variant<SemAxhelm>(strategy, preference);
    v.traits.geometry = GeometryCost::recompute;
    v.availability = availability;
    v.prepare = [kernel](const AxhelmProblem& p) {
      return std::make_unique<CudaAxhelm>(p, kernel);
    };
    Registry<SemAxhelm>::add(std::move(v));
  };
  add_tensor_cores("trilinear-wmma", 2, CudaKernel::trilinear_wmma, tensor_core_availability);
  add_tensor_cores("trilinear-wmma-t", 4, CudaKernel::trilinear_wmma_t, tensor_core_availability);
  add_tensor_cores("trilinear-wmma-m16", 4, CudaKernel::trilinear_wmma_m16,
                   tensor_core_m16_availability);
  register_sem_nekbone_cuda_variants();
}
}  // namespace ppkit::registration
