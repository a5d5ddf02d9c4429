// HIP register-column axhelm kernels (axhelm_hip_columns.hpp) with
// Geometry::partial: trilinear elements load w/|J| (hip/trilinear-partial).
// One translation unit per geometry mode, each with its own constant tables.
#include "backends/hip/sem/axhelm_hip.hpp"
#include "backends/hip/sem/axhelm_hip_columns.hpp"

namespace ppkit::sem::hip_kernels {

void set_constants_columns_partial(int nq, const double* derivative, const double* nodes,
                                   const double* weights) {
  columns::copy_constants(nq, derivative, nodes, weights);
}
void launch_columns_partial(const AxhelmKernelArgs& args) {
  columns::launch_columns_hip<columns::Geometry::partial>(args);
}

}  // namespace ppkit::sem::hip_kernels
