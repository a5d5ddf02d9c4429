// HIP register-column axhelm kernels (axhelm_hip_columns.hpp) with
// Geometry::recompute: trilinear elements recompute G (hip/trilinear).
// One translation unit per geometry mode, each with its own constant tables.
#include "backends/hip/sem/axhelm_hip.hpp"
#include "backends/hip/sem/axhelm_hip_columns.hpp"

namespace ppkit::sem::hip_kernels {

void set_constants_columns_recompute(int nq, const double* derivative, const double* nodes,
                                     const double* weights) {
  columns::copy_constants(nq, derivative, nodes, weights);
}
void launch_columns_recompute(const AxhelmKernelArgs& args) {
  columns::launch_columns_hip<columns::Geometry::recompute>(args);
}

}  // namespace ppkit::sem::hip_kernels
