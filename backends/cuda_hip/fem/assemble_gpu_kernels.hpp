#pragma once
// Hand-tuned GPU kernels of fem.assemble (Kiran et al. 2019), one source for
// two vendors: assemble_gpu_kernels.cuh holds the kernels, compiled by nvcc
// from backends/cuda/fem/assemble_cuda_kernels.cu (Hex8Kernels<CudaBackend>) and by a HIP
// compiler from backends/hip/fem/assemble_hip_kernels.hip
// (Hex8Kernels<HipBackend>). Host glue sees only this header (plain structs
// of raw pointers). Each launch covers elements [first, first + count) of the
// arrays; the colouring ones are launched once per colour, the atomic ones
// once for all elements, on the stream given (cudaStream_t / hipStream_t as
// void*; nullptr: the default stream).
#include <cstddef>
#include <cstdint>

#include "ppkit/fem/assembly_device_arrays.hpp"
#include "ppkit/fem/ke_entry_order.hpp"

namespace ppkit::fem {

// Which compiler built the kernels (and which runtime launches them).
struct CudaBackend {};  // nvcc, NVIDIA GPUs
struct HipBackend {};   // HIP (clang), AMD CDNA and Hygon DCU GPUs

template <class Backend>
struct Hex8Kernels {
  // Copies the natural derivatives (192) and shape values (64) at the Gauss
  // points into constant memory (hex8_shape.hpp tables).
  static void upload_shape_tables(const double* natural_derivatives, const double* shape_values);

  // (a) one thread per element, Ke in local memory; canonical block order.
  static void launch_thread_per_element(const Hex8AssemblyArrays& a, std::int64_t first,
                                        std::int64_t count, void* stream = nullptr);
  // (b) one warp (32-lane sub-group) per element, 4 threads per row, Jacobian by
  // shuffle-down, 18 entries in registers; blocks in lane order (FourPerRow).
  static void launch_warp_4tpr(const Hex8AssemblyArrays& a, std::int64_t first, std::int64_t count,
                               void* stream = nullptr);
  // (d) PPNI with 4 threads per row; blocks in lane order.
  static void launch_ppni_4tpr(const Hex8AssemblyArrays& a, std::int64_t first, std::int64_t count,
                               void* stream = nullptr);
  // (b) with atomicAdd assembly instead of colouring; blocks in lane order.
  static void launch_atomic_4tpr(const Hex8AssemblyArrays& a, std::int64_t first,
                                 std::int64_t count, void* stream = nullptr);
  // (c) one warp per element, 8 threads per row; blocks in lane order (EightPerRow).
  static void launch_warp_8tpr(const Hex8AssemblyArrays& a, std::int64_t first, std::int64_t count,
                               void* stream = nullptr);
  // (e) kernel 1 for all elements: inverse Jacobian + |J| w of every Gauss point into
  // geometry[10 (8 e + q) + m] (80 doubles per element).
  // On `stream` (a cudaStream_t or hipStream_t; null: the default stream).
  static void launch_gauss_geometry(const Hex8AssemblyArrays& a, double* geometry,
                                    std::int64_t elements, void* stream = nullptr);
  // (e) kernel 2: 576 threads (one block) per element, one per entry; canonical block order.
  static void launch_entries(const Hex8AssemblyArrays& a, const double* geometry,
                             std::int64_t first, std::int64_t count, void* stream = nullptr);
  // (f) factored, one warp per element: atomics when a.first_writer is null (values
  // zeroed before), else first-writer stores (one launch per colour, no zeroing).
  // order: how the atomic adds walk Ke (ke_entry_order.hpp; row-major for stores).
  static void launch_factored(const Hex8FactoredArrays& a, std::int64_t first, std::int64_t count,
                              KeEntryOrder order = KeEntryOrder::row_major, void* stream = nullptr);
  // (g) tiled, one block per tile: a.values and a.load zeroed before; the
  // accumulator takes 72 B of dynamic shared memory per block of a.max_blocks.
  static void launch_tiled(const Hex8TiledArrays& a, std::int64_t tiles, void* stream = nullptr);
  // Most accumulator blocks a tile may have on the current device: the
  // opt-in shared memory per block less the kernel's static shared memory.
  static int tiled_block_capacity();
  // (h) node gather, one warp per node slot: every CSR value and load entry
  // written once (no zeroing); a.geometry from launch_gauss_geometry.
  static void launch_node_gather(const Hex8GatherArrays& a, std::int64_t nodes,
                                 void* stream = nullptr);
  // Waits for every launched kernel (cudaDeviceSynchronize / hipDeviceSynchronize).
  static void synchronize();
  // Waits for the work queued on stream (nullptr: the default stream).
  static void synchronize_stream(void* stream);
  // Queues the zeroing of count doubles on stream (cudaMemsetAsync / hipMemsetAsync).
  static void zero(double* values, std::size_t count, void* stream);
  // The runtime's current device (where the runs allocate).
  static int current_device();
};

// Defined and explicitly instantiated by the kernel translation units.
extern template struct Hex8Kernels<CudaBackend>;
extern template struct Hex8Kernels<HipBackend>;

}  // namespace ppkit::fem
