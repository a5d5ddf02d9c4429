#pragma once
// Hand-tuned CUDA kernels of fem.assemble (Kiran et al. 2019). Each launch
// covers elements [first, first + count) of the arrays; the colouring ones
// are launched once per colour, the atomic one once for all elements.
#include <cstdint>

#include "ppkit/fem/assembly_device_arrays.hpp"

namespace ppkit::fem::cuda_kernels {

// Copies the natural derivatives (192) and shape values (64) at the Gauss
// points into constant memory (hex8_shape.hpp tables).
void upload_shape_tables(const double* natural_derivatives, const double* shape_values);

// (a) one thread per element, Ke in local memory; canonical block order.
void launch_thread_per_element(const Hex8AssemblyArrays& a, std::int64_t first, std::int64_t count);
// (b) one warp per element, 4 threads per row, Jacobian by __shfl_down_sync,
// 18 entries in registers; blocks in lane order (FourThreadsPerRow).
void launch_warp_4tpr(const Hex8AssemblyArrays& a, std::int64_t first, std::int64_t count);
// (d) PPNI with 4 threads per row; blocks in lane order.
void launch_ppni_4tpr(const Hex8AssemblyArrays& a, std::int64_t first, std::int64_t count);
// (b) with atomicAdd assembly instead of colouring; blocks in lane order.
void launch_atomic_4tpr(const Hex8AssemblyArrays& a, std::int64_t first, std::int64_t count);

// (c) one warp per element, 8 threads per row; blocks in lane order (EightThreadsPerRow).
void launch_warp_8tpr(const Hex8AssemblyArrays& a, std::int64_t first, std::int64_t count);
// (e) kernel 1 for all elements: inverse Jacobian + |J| w of every Gauss point into
// geometry[10 (8 e + q) + m] (80 doubles per element).
void launch_gauss_geometry(const Hex8AssemblyArrays& a, double* geometry, std::int64_t elements);
// (e) kernel 2: 576 threads (one block) per element, one per entry; canonical block order.
void launch_entries(const Hex8AssemblyArrays& a, const double* geometry, std::int64_t first,
                    std::int64_t count);
// (f) factored, one warp per element: atomics when a.first_writer is null (values
// zeroed before), else first-writer stores (one launch per colour, no zeroing).
void launch_factored(const Hex8FactoredArrays& a, std::int64_t first, std::int64_t count);

}  // namespace ppkit::fem::cuda_kernels
