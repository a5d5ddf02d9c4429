#pragma once
// The CUDA axhelm operator as a reusable object (sem.axhelm variants and the
// CUDA Nekbone): uploads an AxhelmProblem's geometry once and applies
// y = A x on device pointers with the chosen kernel (axhelm_device_operator.hpp,
// shared with the HIP glue).
#include "backends/cuda/core/cuda_device.hpp"
#include "backends/cuda_hip/sem/axhelm_device_operator.hpp"
#include "ppkit/sem/axhelm.hpp"

namespace ppkit::sem {

enum class CudaKernel {
  stored,             // register columns, factors loaded (cp.async, 2 slices ahead)
  trilinear,          // register columns, trilinear elements recompute G
  trilinear_partial,  // register columns, trilinear elements load lambda0 w/|J| only
  stored_dshared,     // first kernels: D in shared memory, scalar loads
  trilinear_dshared,
  trilinear_wmma,     // r/s contractions on fp64 tensor cores, Nq = 8
  trilinear_wmma_t,   // r/s and t contractions on fp64 tensor cores, Nq = 8
  trilinear_wmma_m16  // the same as m16n8k4 products over two slices, Nq = 8, sm_90+
};

// The CUDA kernels behind DeviceAxhelmOperator (axhelm_cuda.cpp).
struct CudaAxhelmBackend {
  using Kernel = CudaKernel;
  using Calls = cuda::RuntimeCalls;
  static constexpr int constant_tables = 5;
  static KernelEntry entry(CudaKernel kernel);
  static AxhelmGeometry geometry(CudaKernel kernel);
  static void check_supported(const AxhelmProblem& p, CudaKernel kernel);
  static void check_launch();
  static void synchronize();
  static void synchronize(void* stream);  // cudaStream_t
  static DataLocation memory();           // the current CUDA device
};

using CudaAxhelmOperator = DeviceAxhelmOperator<CudaAxhelmBackend>;

// Whether the device runs the fp64 tensor-core kernels (compute capability 8.0+).
Availability tensor_core_availability();
// Whether it runs cuda/trilinear-wmma-m16's m16n8k4 products: compute
// capability 9.0+ and sm_90 code in this build.
Availability tensor_core_m16_availability();

// The CUDA sem.nekbone variants (nekbone_cuda.cpp), registered with the axhelm ones.
void register_sem_nekbone_cuda_variants();

}  // namespace ppkit::sem
