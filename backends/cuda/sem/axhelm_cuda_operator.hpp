#pragma once
// The CUDA axhelm operator as a reusable object (sem.axhelm variants and the
// CUDA Nekbone): uploads an AxhelmProblem's geometry once and applies
// y = A x on device pointers with the chosen kernel.
#include <vector>

#include "backends/cuda/core/cuda_device.hpp"
#include "ppkit/sem/axhelm.hpp"
#include "ppkit/sem/axhelm_kernel_args.hpp"

namespace ppkit::sem {

enum class CudaKernel {
  stored,             // register columns, factors loaded (cp.async, 2 slices ahead)
  trilinear,          // register columns, trilinear elements recompute G
  trilinear_partial,  // register columns, trilinear elements load lambda0 w/|J| only
  stored_dshared,     // first kernels: D in shared memory, scalar loads
  trilinear_dshared,
  trilinear_wmma  // r/s contractions on fp64 tensor cores, Nq = 8
};

class CudaAxhelmOperator {
 public:
  // Throws ppkit::Error (prefix unsupported_problem_prefix) for orders the
  // kernel is not compiled for. p.x is not uploaded.
  CudaAxhelmOperator(const AxhelmProblem& p, CudaKernel kernel);
  ~CudaAxhelmOperator();
  CudaAxhelmOperator(const CudaAxhelmOperator&) = delete;
  CudaAxhelmOperator& operator=(const CudaAxhelmOperator&) = delete;
  // Queues y = A x (x, y: [ncol][E Np] device arrays) on the default stream.
  void apply(const double* x, double* y);

 private:
  CudaKernel kernel_;
  AxhelmKernelArgs args_;
  cuda::DeviceBuffer<double> factors_, vertices_, derivative_device_, node_scale_;
  cuda::DeviceBuffer<long long> slot_;
  std::vector<double> derivative_, nodes_, weights_;
};

// The CUDA sem.nekbone variants (nekbone_cuda.cpp), registered with the axhelm ones.
void register_sem_nekbone_cuda_variants();

}  // namespace ppkit::sem
