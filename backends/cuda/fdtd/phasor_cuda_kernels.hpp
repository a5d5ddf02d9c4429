#pragma once
// Launchers of the CUDA phasor and periodic-boundary kernels
// (phasor_cuda_kernels.cu): plain structs only.
#include <cstdint>

#include "ppkit/fdtd/phasor_kernel_args.hpp"
#include "ppkit/fdtd/yee_kernel_args.hpp"

namespace ppkit::fdtd::cuda_kernels {

// One sample of the running DFTs (natural layout); coef: device pointer to the
// sample's 4 floats per frequency. Asynchronous on the default stream.
void accumulate_phasors(const PhasorKernelArgs& a, const float* coef);
// The periodic copies of yee_kernel_args.hpp (steps 2 and 5) for the flags in
// a; z_pitch: row pitch of the field arrays (0: nz + 1; the split variants pad rows).
void periodic_copy(const YeeKernelArgs& a, bool electric, std::int64_t z_pitch = 0);
const char* phasor_launch_error();  // nullptr when the last launch succeeded

}  // namespace ppkit::fdtd::cuda_kernels
