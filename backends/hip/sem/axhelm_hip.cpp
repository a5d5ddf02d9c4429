// Glue of the HIP sem.axhelm variants (AMD CDNA, Hygon DCU): the upload and
// the operator are those of the CUDA variants (backends/cuda_hip/sem/
// axhelm_device_operator.hpp, templated over the runtime), the kernels those
// of axhelm_hip_*.hip. Same strategy names as the CUDA variants they mirror:
//   hip/stored              register columns, factors prefetched one k-slice ahead
//   hip/trilinear           register columns, trilinear elements recompute G
//   hip/trilinear-partial   register columns, trilinear elements load lambda0 w/|J|
//   hip/stored-dshared      the first CUDA kernels, same source
//   hip/trilinear-dshared
//   hip/trilinear-mfma      r/s contractions on fp64 matrix cores; Nq = 8 (N = 7)
//                           only, gfx90a-class GPUs only
#include <fmt/format.h>

#include "backends/cuda_hip/sem/axhelm_device_operator.hpp"
#include "backends/hip/core/hip_device.hpp"
#include "backends/hip/core/line_derivative_mfma.hpp"
#include "backends/hip/sem/axhelm_hip.hpp"
#include "ppkit/sem/axhelm.hpp"

namespace ppkit::sem {
namespace {

enum class HipKernel {
  stored,
  trilinear,
  trilinear_partial,
  stored_dshared,
  trilinear_dshared,
  trilinear_mfma
};

struct HipAxhelmBackend {
  using Kernel = HipKernel;
  using Calls = hip::RuntimeCalls;
  static constexpr int constant_tables = 5;

  // Each kernel translation unit has its own constant tables (table index).
  static KernelEntry entry(HipKernel k) {
    using namespace hip_kernels;
    switch (k) {
      case HipKernel::stored:
        return {0, set_constants_columns_stored, launch_columns_stored};
      case HipKernel::trilinear:
        return {1, set_constants_columns_recompute, launch_columns_recompute};
      case HipKernel::trilinear_partial:
        return {2, set_constants_columns_partial, launch_columns_partial};
      case HipKernel::stored_dshared:
        return {3, set_constants_dshared, launch_stored_dshared};
      case HipKernel::trilinear_dshared:
        return {3, set_constants_dshared, launch_trilinear_dshared};
      case HipKernel::trilinear_mfma:
        break;
    }
    return {4, set_constants_mfma, launch_trilinear_mfma};
  }
  static AxhelmGeometry geometry(HipKernel k) {
    if (k == HipKernel::stored || k == HipKernel::stored_dshared) return AxhelmGeometry::stored;
    return k == HipKernel::trilinear_partial ? AxhelmGeometry::partial : AxhelmGeometry::recompute;
  }
  static void check_supported(const AxhelmProblem& p, HipKernel kernel) {
    check_compiled_order(p, "HIP");
    if (kernel == HipKernel::trilinear_mfma && p.nq() != 8)
      throw Error(
          fmt::format("{}hip/trilinear-mfma runs only Nq = 8 (N = 7); this problem has N = {}",
                      unsupported_problem_prefix, p.order),
          "N = 7");
  }
  static void check_launch() { PPKIT_HIP_CHECK_LAUNCH(); }
  static void synchronize() { PPKIT_HIP_CHECK(hipDeviceSynchronize()); }
  static void synchronize(void* stream) {
    PPKIT_HIP_CHECK(hipStreamSynchronize(static_cast<hipStream_t>(stream)));
  }
  static DataLocation memory() {
    int device = 0;
    PPKIT_HIP_CHECK(hipGetDevice(&device));
    return DataLocation{MemoryKind::hip, device};
  }
};

using HipAxhelm = DeviceAxhelmRun<HipAxhelmBackend>;

// The MFMA kernel runs its matrix-core path only where the ISA has fp64 MFMA.
Availability matrix_core_availability() {
  const Availability device = hip::device_availability();
  if (!device.available) return device;
#if defined(__HIP_PLATFORM_NVIDIA__)
  return Availability::no(
      "AMD-only: fp64 MFMA on a 64-lane wavefront (this build runs HIP on "
      "NVIDIA); hip/trilinear is the path here");
#endif
  if (!hip::device_has_fp64_mfma())
    return Availability::no(
        "fp64 MFMA needs a gfx90a-class GPU (CDNA2 or later); hip/trilinear is the path here");
  return Availability::yes();
}

}  // namespace
}  // namespace ppkit::sem

namespace ppkit::registration {
void register_sem_hip_variants() {
  using namespace ppkit::sem;
  auto add = [](const char* strategy, int preference, HipKernel kernel, GeometryCost geometry) {
    auto v = hip::hip_variant<SemAxhelm>(strategy, preference);
    v.traits.geometry = geometry;
    // stored: the nekRS baseline the recompute speedups are over.
    if (kernel == HipKernel::stored) v.role = VariantRole::baseline;
    v.prepare = [kernel](const AxhelmProblem& p) { return std::make_unique<HipAxhelm>(p, kernel); };
    if (kernel == HipKernel::trilinear_mfma) v.availability = matrix_core_availability;
    Registry<SemAxhelm>::add(std::move(v));
  };
  add("stored", 5, HipKernel::stored, GeometryCost::stored);
  add("trilinear", 7, HipKernel::trilinear, GeometryCost::recompute);
  add("trilinear-partial", 6, HipKernel::trilinear_partial, GeometryCost::partial);
  add("stored-dshared", 3, HipKernel::stored_dshared, GeometryCost::stored);
  add("trilinear-dshared", 3, HipKernel::trilinear_dshared, GeometryCost::recompute);
  // Low preference: "auto" must not pick a variant that refuses most orders.
  add("trilinear-mfma", 4, HipKernel::trilinear_mfma, GeometryCost::recompute);
}
}  // namespace ppkit::registration
