#pragma once
// Launcher of the cuda/blocked-k<k> pass kernel (fdtd_cuda_blocked.cu). Plain
// structs only: the .cu never sees Kokkos or the registry.
#include <cstddef>

#include "ppkit/fdtd/yee_blocked.hpp"

namespace ppkit::fdtd::cuda_blocked {

// Dynamic shared memory of one block: the field ring of its tile.
std::size_t shared_bytes(const blocked::Tiling& t);
// The largest dynamic shared memory a block of the current device may use.
std::size_t shared_bytes_max();
// One pass (pass.a.steps steps), a block per tile, asynchronous on the
// default stream; pass.a.psi_ring: tiles x psi_values() floats of device memory.
void pass(const blocked::Pass<float>& pass);
const char* last_launch_error();  // nullptr when the last launch succeeded

}  // namespace ppkit::fdtd::cuda_blocked
