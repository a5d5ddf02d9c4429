// Register-column axhelm kernels (axhelm_cuda_columns.cuh) with Geometry::stored,
// Nq = 2..10, one or three fields. One translation unit per geometry mode:
// each has its own constant-memory tables, filled by its set_constants.
#include "backends/cuda/sem/axhelm_cuda.hpp"
#include "backends/cuda/sem/axhelm_cuda_columns.cuh"

namespace ppkit::sem::cuda_kernels {

void set_constants_columns_stored(int nq, const double* derivative, const double* nodes,
                                  const double* weights) {
  columns::copy_constants(nq, derivative, nodes, weights);
}
void launch_columns_stored(const AxhelmKernelArgs& args) {
  columns::launch_columns<columns::Geometry::stored>(args);
}

}  // namespace ppkit::sem::cuda_kernels
