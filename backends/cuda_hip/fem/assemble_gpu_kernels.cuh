#pragma once
// Kernels of fem.assemble for CUDA and HIP, one source: included only by
// backends/cuda/fem/assemble_cuda_kernels.cu (nvcc) and
// backends/hip/fem/assemble_hip_kernels.hip (HIP compiler), each of which
// defines Hex8Kernels<its backend>. Plain structs only (assembly_device_arrays.hpp).
// Entry formula (isotropic B^T D B, entry by entry), for element rows of node
// a, component i, and columns of node b, component j, with g = dN/dx:
//   K_(a i)(b j) = sum_q |J_q| w_q (lambda g_ai g_bj + mu g_aj g_bi + mu delta_ij g_a . g_b)
//
// Vendor differences go through backends/cuda_hip/core/gpu_portability.hpp. "Warp
// per element" means one 32-lane sub-group (gpu::kSubgroupWidth) per element:
// a whole warp on NVIDIA, half a 64-lane wavefront on AMD/DCU, so a wavefront
// assembles two elements. Every shuffle takes width kSubgroupWidth, so lane
// numbers (0..31 below) are relative to the element's sub-group and no data
// crosses into the other element's half; the per-element shared-memory
// scratch is indexed by element_in_block(); a sub-group past the last
// element may leave while the other half of its wavefront continues, since no
// shuffle reads across halves. Blocks are multiples of 64 threads (128, 576).
// The thread-per-element (a) and two-kernel (e) kernels use no cross-lane
// operations and run unchanged.
#include "backends/cuda_hip/fem/assemble_gpu_device.cuh"
#include "backends/cuda_hip/fem/assemble_gpu_element_kernels.cuh"
#include "backends/cuda_hip/fem/assemble_gpu_factored_kernels.cuh"
#include "backends/cuda_hip/fem/assemble_gpu_gather_kernels.cuh"
#include "backends/cuda_hip/fem/assemble_gpu_tiled_kernels.cuh"

namespace ppkit::fem::assembly_kernels {
namespace {

unsigned blocks_for(std::int64_t threads, int per_block) {
  return unsigned((threads + per_block - 1) / per_block);
}

// The launch helpers' stream (void*: nullptr is the default stream).
#if defined(PPKIT_GPU_HIP)
hipStream_t native_stream(void* stream) { return static_cast<hipStream_t>(stream); }
#else
cudaStream_t native_stream(void* stream) { return static_cast<cudaStream_t>(stream); }
#endif

}  // namespace

}  // namespace ppkit::fem::assembly_kernels

namespace ppkit::fem {

#if defined(PPKIT_GPU_HIP)
using ThisBackend = HipBackend;
#else
using ThisBackend = CudaBackend;
#endif
using namespace assembly_kernels;

// Member definitions for every backend; the explicit instantiation at the end
// emits them for the compiler's own (ThisBackend) only.
template <class Backend>
void Hex8Kernels<Backend>::upload_shape_tables(const double* natural_derivatives,
                                               const double* shape_values) {
#if defined(PPKIT_GPU_HIP)
  PPKIT_GPU_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(c_dN), natural_derivatives, 192 * sizeof(double)));
  PPKIT_GPU_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(c_N), shape_values, 64 * sizeof(double)));
#else
  PPKIT_GPU_CHECK(cudaMemcpyToSymbol(c_dN, natural_derivatives, 192 * sizeof(double)));
  PPKIT_GPU_CHECK(cudaMemcpyToSymbol(c_N, shape_values, 64 * sizeof(double)));
#endif
}

template <class Backend>
void Hex8Kernels<Backend>::launch_thread_per_element(const Hex8AssemblyArrays& a,
                                                     std::int64_t first, std::int64_t count,
                                                     void* stream) {
  if (count <= 0) return;
  thread_per_element_kernel<<<blocks_for(count, 128), 128, 0, native_stream(stream)>>>(a, first,
                                                                                       count);
  PPKIT_GPU_CHECK_LAUNCH();
}

template <class Backend>
void Hex8Kernels<Backend>::launch_warp_4tpr(const Hex8AssemblyArrays& a, std::int64_t first,
                                            std::int64_t count, void* stream) {
  if (count <= 0) return;
  warp_kernel<FourPerRow, false>
      <<<blocks_for(count, kElementsPerBlock), kThreadsPerBlock, 0, native_stream(stream)>>>(
          a, first, count);
  PPKIT_GPU_CHECK_LAUNCH();
}

template <class Backend>
void Hex8Kernels<Backend>::launch_atomic_4tpr(const Hex8AssemblyArrays& a, std::int64_t first,
                                              std::int64_t count, void* stream) {
  if (count <= 0) return;
  warp_kernel<FourPerRow, true>
      <<<blocks_for(count, kElementsPerBlock), kThreadsPerBlock, 0, native_stream(stream)>>>(
          a, first, count);
  PPKIT_GPU_CHECK_LAUNCH();
}

template <class Backend>
void Hex8Kernels<Backend>::launch_ppni_4tpr(const Hex8AssemblyArrays& a, std::int64_t first,
                                            std::int64_t count, void* stream) {
  if (count <= 0) return;
  ppni_4tpr_kernel<<<blocks_for(count, kElementsPerBlock), kThreadsPerBlock, 0,
                     native_stream(stream)>>>(a, first, count);
  PPKIT_GPU_CHECK_LAUNCH();
}

template <class Backend>
void Hex8Kernels<Backend>::launch_warp_8tpr(const Hex8AssemblyArrays& a, std::int64_t first,
                                            std::int64_t count, void* stream) {
  if (count <= 0) return;
  warp_kernel<EightPerRow, false>
      <<<blocks_for(count, kElementsPerBlock), kThreadsPerBlock, 0, native_stream(stream)>>>(
          a, first, count);
  PPKIT_GPU_CHECK_LAUNCH();
}

template <class Backend>
void Hex8Kernels<Backend>::launch_gauss_geometry(const Hex8AssemblyArrays& a, double* geometry,
                                                 std::int64_t elements, void* stream) {
  if (elements <= 0) return;
  const auto on = native_stream(stream);
  gauss_geometry_kernel<<<blocks_for(8 * elements, kGeometryThreads), kGeometryThreads, 0, on>>>(
      a, geometry, 8 * elements);
  PPKIT_GPU_CHECK_LAUNCH();
}

template <class Backend>
void Hex8Kernels<Backend>::launch_entries(const Hex8AssemblyArrays& a, const double* geometry,
                                          std::int64_t first, std::int64_t count, void* stream) {
  if (count <= 0) return;
  entry_kernel<<<unsigned(count), kEntryThreads, 0, native_stream(stream)>>>(a, geometry, first);
  PPKIT_GPU_CHECK_LAUNCH();
}

template <class Backend>
void Hex8Kernels<Backend>::launch_factored(const Hex8FactoredArrays& a, std::int64_t first,
                                           std::int64_t count, KeEntryOrder order, void* stream) {
  if (count <= 0) return;
  const unsigned blocks = blocks_for(count, kFactoredWarps);
  const auto on = native_stream(stream);
  if (a.first_writer == nullptr && order == KeEntryOrder::node_pair_runs)
    factored_kernel<true, KeEntryOrder::node_pair_runs>
        <<<blocks, gpu::kSubgroupWidth * kFactoredWarps, 0, on>>>(a, first, count);
  else if (a.first_writer == nullptr)
    factored_kernel<true><<<blocks, gpu::kSubgroupWidth * kFactoredWarps, 0, on>>>(a, first, count);
  else
    factored_kernel<false>
        <<<blocks, gpu::kSubgroupWidth * kFactoredWarps, 0, on>>>(a, first, count);
  PPKIT_GPU_CHECK_LAUNCH();
}

template <class Backend>
void Hex8Kernels<Backend>::launch_tiled(const Hex8TiledArrays& a, std::int64_t tiles,
                                        void* stream) {
  if (tiles <= 0) return;
  const std::size_t dynamic_bytes = std::size_t(9) * sizeof(double) * std::size_t(a.max_blocks);
#if defined(PPKIT_GPU_HIP)
  PPKIT_GPU_CHECK(hipFuncSetAttribute(reinterpret_cast<const void*>(&tiled_kernel),
                                      hipFuncAttributeMaxDynamicSharedMemorySize,
                                      int(dynamic_bytes)));
#else
  // Above 48 KB of dynamic shared memory a kernel must opt in.
  PPKIT_GPU_CHECK(cudaFuncSetAttribute(tiled_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       int(dynamic_bytes)));
#endif
  tiled_kernel<<<unsigned(tiles), gpu::kSubgroupWidth * kTiledWarps, dynamic_bytes,
                 native_stream(stream)>>>(a);
  PPKIT_GPU_CHECK_LAUNCH();
}

template <class Backend>
int Hex8Kernels<Backend>::tiled_block_capacity() {
  int device = 0, optin = 0;
#if defined(PPKIT_GPU_HIP)
  hipFuncAttributes attributes{};
  PPKIT_GPU_CHECK(hipGetDevice(&device));
  PPKIT_GPU_CHECK(hipDeviceGetAttribute(&optin, hipDeviceAttributeMaxSharedMemoryPerBlock, device));
  PPKIT_GPU_CHECK(hipFuncGetAttributes(&attributes, reinterpret_cast<const void*>(&tiled_kernel)));
#else
  cudaFuncAttributes attributes{};
  PPKIT_GPU_CHECK(cudaGetDevice(&device));
  PPKIT_GPU_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  PPKIT_GPU_CHECK(cudaFuncGetAttributes(&attributes, tiled_kernel));
#endif
  const long long dynamic = (long long)optin - (long long)attributes.sharedSizeBytes;
  return dynamic > 0 ? int(dynamic / (9 * (long long)sizeof(double))) : 0;
}

template <class Backend>
void Hex8Kernels<Backend>::launch_node_gather(const Hex8GatherArrays& a, std::int64_t nodes,
                                              void* stream) {
  if (nodes <= 0) return;
  node_gather_kernel<<<blocks_for(nodes, kGatherWarps), gpu::kSubgroupWidth * kGatherWarps, 0,
                       native_stream(stream)>>>(a, nodes);
  PPKIT_GPU_CHECK_LAUNCH();
}

template <class Backend>
void Hex8Kernels<Backend>::synchronize() {
#if defined(PPKIT_GPU_HIP)
  PPKIT_GPU_CHECK(hipDeviceSynchronize());
#else
  PPKIT_GPU_CHECK(cudaDeviceSynchronize());
#endif
}

template <class Backend>
void Hex8Kernels<Backend>::synchronize_stream(void* stream) {
#if defined(PPKIT_GPU_HIP)
  PPKIT_GPU_CHECK(hipStreamSynchronize(native_stream(stream)));
#else
  PPKIT_GPU_CHECK(cudaStreamSynchronize(native_stream(stream)));
#endif
}

template <class Backend>
void Hex8Kernels<Backend>::zero(double* values, std::size_t count, void* stream) {
  if (count == 0) return;
#if defined(PPKIT_GPU_HIP)
  PPKIT_GPU_CHECK(hipMemsetAsync(values, 0, count * sizeof(double), native_stream(stream)));
#else
  PPKIT_GPU_CHECK(cudaMemsetAsync(values, 0, count * sizeof(double), native_stream(stream)));
#endif
}

template <class Backend>
int Hex8Kernels<Backend>::current_device() {
  int device = 0;
#if defined(PPKIT_GPU_HIP)
  PPKIT_GPU_CHECK(hipGetDevice(&device));
#else
  PPKIT_GPU_CHECK(cudaGetDevice(&device));
#endif
  return device;
}

template struct Hex8Kernels<ThisBackend>;

}  // namespace ppkit::fem

#undef PPKIT_FEM_SHAPE_TABLES
