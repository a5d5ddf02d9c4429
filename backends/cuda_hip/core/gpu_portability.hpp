#pragma once
// One kernel source for CUDA (nvcc) and HIP (clang, AMD CDNA and Hygon DCU).
//
// Only what differs cleanly is wrapped here; kernels whose best shape differs
// with the hardware (matrix cores, LDS layout) stay separate per backend.
//
//   what                  CUDA                        HIP (AMD / DCU)
//   lanes per warp        32                          64 (wavefront)
//   shuffles              __shfl_*_sync(mask, ...)    __shfl_*(...), no mask
//   warp barrier          __syncwarp()                wavefront fence + wave barrier
//   fp64 atomicAdd        native from sm_60           gfx90a: native only with
//                                                     -munsafe-fp-atomics (set on the
//                                                     FEM kernels), else a CAS loop
//
// "Warp per element" on a 64-lane wavefront (docs/targets.md): the paper's
// algorithms are written for 32 lanes per element. ppkit keeps that logical
// width, kSubgroupWidth = 32, on every GPU: a CUDA warp holds one element and
// an AMD wavefront holds two, each in its own 32-lane sub-group. All shuffles
// take an explicit width of kSubgroupWidth, so they never cross from one
// element's sub-group into the other's.
//
// Include only from translation units compiled by nvcc (.cu, and .hip on HIP's
// NVIDIA platform) or a HIP compiler (.hip); host-only glue includes
// hip_device.hpp / cuda_device.hpp instead.

// Two questions, answered by separate macros: which runtime API the source
// calls (PPKIT_GPU_HIP: hip*, PPKIT_GPU_CUDA: cuda*), and which hardware the
// kernels run on (PPKIT_GPU_AMD: wavefronts and amdgcn builtins,
// PPKIT_GPU_NVIDIA: warps and PTX). A HIP source compiled by nvcc
// (PPKIT_HIP_PLATFORM=nvidia, docs/targets.md) is HIP on NVIDIA hardware.
#if defined(__HIPCC__) && !defined(__CUDACC__)
#include <hip/hip_runtime.h>
#define PPKIT_GPU_HIP 1
#define PPKIT_GPU_AMD 1
#elif defined(__CUDACC__) && defined(__HIP_PLATFORM_NVIDIA__)
#include <hip/hip_runtime.h>
#define PPKIT_GPU_HIP 1
#define PPKIT_GPU_NVIDIA 1
#elif defined(__CUDACC__)
#include <cuda_runtime.h>
#define PPKIT_GPU_CUDA 1
#define PPKIT_GPU_NVIDIA 1
#else
#error "gpu_portability.hpp needs a CUDA or HIP compiler (.cu or .hip translation unit)"
#endif

namespace ppkit::gpu {

// The native stream type kernels launch on (AxhelmKernelArgs::stream holds one as void*).
#if defined(PPKIT_GPU_HIP)
using Stream = hipStream_t;
#else
using Stream = cudaStream_t;
#endif

// Lanes that execute in lockstep and exchange registers by shuffles. Both the
// host pass and the device pass of a HIP translation unit must agree on it,
// since the host side sizes launches with it: ppkit's AMD targets (gfx906,
// gfx90a, Hygon DCU) are wave64, and the device pass checks that.
#if defined(PPKIT_GPU_AMD)
inline constexpr int kWarpSize = 64;
#if defined(__HIP_DEVICE_COMPILE__) && defined(__AMDGCN_WAVEFRONT_SIZE)
static_assert(__AMDGCN_WAVEFRONT_SIZE == kWarpSize,
              "ppkit's HIP kernels assume 64-lane wavefronts (CDNA, DCU); compile wave32 "
              "targets (RDNA) with -mwavefrontsize64");
#endif
#else
inline constexpr int kWarpSize = 32;
#endif

// The paper's "warp": lanes cooperating on one element.
inline constexpr int kSubgroupWidth = 32;
// Elements a warp/wavefront processes at once: 1 on NVIDIA, 2 on AMD/DCU.
inline constexpr int kSubgroupsPerWarp = kWarpSize / kSubgroupWidth;
static_assert(kWarpSize % kSubgroupWidth == 0, "a warp holds whole sub-groups");

// Lane within the 32-lane sub-group and sub-group within the block, for 1-D
// blocks whose size is a multiple of kSubgroupWidth.
__device__ __forceinline__ int subgroup_lane() {
  return static_cast<int>(threadIdx.x) % kSubgroupWidth;
}
__device__ __forceinline__ int subgroup_in_block() {
  return static_cast<int>(threadIdx.x) / kSubgroupWidth;
}

// Shuffles within groups of `width` lanes (a power of two <= kWarpSize; ppkit
// kernels pass kSubgroupWidth). All lanes of the warp must take part (the CUDA
// versions use the full mask), i.e. call them from converged code.
template <class T>
__device__ __forceinline__ T shfl(T value, int source_lane, int width) {
#if defined(PPKIT_GPU_AMD)
  return __shfl(value, source_lane, width);
#else
  return __shfl_sync(0xffffffffu, value, source_lane, width);
#endif
}

template <class T>
__device__ __forceinline__ T shfl_down(T value, unsigned int delta, int width) {
#if defined(PPKIT_GPU_AMD)
  return __shfl_down(value, delta, width);
#else
  return __shfl_down_sync(0xffffffffu, value, delta, width);
#endif
}

template <class T>
__device__ __forceinline__ T shfl_xor(T value, int lane_mask, int width) {
#if defined(PPKIT_GPU_AMD)
  return __shfl_xor(value, lane_mask, width);
#else
  return __shfl_xor_sync(0xffffffffu, value, lane_mask, width);
#endif
}

// Sum over a sub-group of `Width` lanes; every lane of the sub-group receives
// the total (butterfly: log2(Width) xor-shuffles).
template <int Width = kSubgroupWidth, class T>
__device__ __forceinline__ T subgroup_sum(T value) {
  static_assert(Width > 0 && (Width & (Width - 1)) == 0 && Width <= kWarpSize,
                "sub-group width must be a power of two no larger than the warp");
#pragma unroll
  for (int mask = Width / 2; mask > 0; mask /= 2) value += shfl_xor(value, mask, Width);
  return value;
}

// Orders shared-memory (LDS) accesses among the lanes of one warp/wavefront,
// e.g. between a sub-group writing a scratch row and reading it back.
__device__ __forceinline__ void warp_sync() {
#if defined(PPKIT_GPU_AMD)
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
#else
  __syncwarp();
#endif
}

// atomicAdd on doubles everywhere: sm_35 (K40) and sm_50 have no fp64
// atomicAdd, so they take a compare-and-swap loop; sm_60+ use the native
// instruction. On HIP, clang emits gfx90a's global_atomic_add_f64 only for
// translation units compiled with -munsafe-fp-atomics (safe on hipMalloc's
// coarse-grained memory) and its own compare-and-swap loop otherwise (always
// on gfx906, which has no fp64 atomic add).
__device__ __forceinline__ double atomic_add(double* address, double value) {
#if defined(PPKIT_GPU_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600
  auto* word = reinterpret_cast<unsigned long long*>(address);
  unsigned long long observed = *word;
  unsigned long long assumed = 0;
  do {
    assumed = observed;
    const double sum = value + __longlong_as_double(static_cast<long long>(assumed));
    observed = atomicCAS(word, assumed, static_cast<unsigned long long>(__double_as_longlong(sum)));
  } while (assumed != observed);  // integer compare: also terminates when the value is NaN
  return __longlong_as_double(static_cast<long long>(observed));
#else
  return atomicAdd(address, value);
#endif
}

// Bulk copies from global into shared memory by the copy engine (Hopper's
// TMA, PTX ISA 8.0 section 9.7.9.25 cp.async.bulk) with completion counted in
// bytes on a shared-memory barrier (section 9.7.13.15 mbarrier). They bypass
// the load/store pipeline whose wavefronts limit gather-heavy kernels: the
// data are written to shared memory without a register or an L1 data-stage
// pass. sm_90 and later only; kernels keep their plain loads elsewhere
// (PPKIT_GPU_BULK_COPY undefined: AMD, sm_80 and older, and the host pass).
#if defined(PPKIT_GPU_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define PPKIT_GPU_BULK_COPY 1
// One phase of the barrier completes when `arrivals` threads have arrived and
// the bytes they announced have landed. Call from one thread, then order it
// before other threads' use with a warp or block barrier.
__device__ __forceinline__ void bulk_barrier_init(unsigned long long* barrier, unsigned arrivals) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(barrier));
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(address), "r"(arrivals) : "memory");
  // Make the initialised barrier visible to the copy engine (async proxy).
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// Arrives on the barrier's current phase, announcing `bytes` still to come.
__device__ __forceinline__ void bulk_barrier_expect(unsigned long long* barrier, unsigned bytes) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(barrier));
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(address), "r"(bytes)
               : "memory");
}
// Announces `bytes` still to come on the barrier's current phase without
// arriving (mbarrier.expect_tx), so that several threads may each announce
// their own copies before one thread's bulk_barrier_arrive.
__device__ __forceinline__ void bulk_barrier_expect_bytes(unsigned long long* barrier,
                                                          unsigned bytes) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(barrier));
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(address), "r"(bytes)
               : "memory");
}
// Arrives on the barrier's current phase.
__device__ __forceinline__ void bulk_barrier_arrive(unsigned long long* barrier) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(barrier));
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(address) : "memory");
}
// Copies `bytes` (a multiple of 16; both addresses 16-byte aligned) and
// counts them against the barrier's phase. The fence orders this thread's
// earlier shared-memory reads of `destination` (after a warp barrier: the
// warp's) before the copy engine's writes.
__device__ __forceinline__ void bulk_copy_to_shared(void* destination, const void* source,
                                                    unsigned bytes, unsigned long long* barrier) {
  const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(destination));
  const unsigned on = static_cast<unsigned>(__cvta_generic_to_shared(barrier));
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(to),
      "l"(source), "r"(bytes), "r"(on)
      : "memory");
}
// Waits until the phase of parity `parity` (0, 1, 0, ... per completed phase)
// has completed.
__device__ __forceinline__ void bulk_barrier_wait(unsigned long long* barrier, unsigned parity) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(barrier));
  unsigned done = 0;
  do {
    asm volatile(
        "{ .reg .pred complete; mbarrier.try_wait.parity.shared::cta.b64 complete, [%1], %2; "
        "selp.u32 %0, 1, 0, complete; }"
        : "=r"(done)
        : "r"(address), "r"(parity)
        : "memory");
  } while (!done);
}
// The other direction: one thread stores a block's output, staged in shared
// memory, to global memory in one bulk copy (cp.async.bulk.global.shared::cta).
// Each thread that wrote the staging first makes its writes visible to the
// copy engine (bulk_store_fence), then the block meets at a barrier, then one
// thread calls bulk_copy_to_global and, before the staging may be reused or
// the block exits, bulk_copy_wait_read. Both addresses 16-byte aligned, bytes
// a multiple of 16.
__device__ __forceinline__ void bulk_store_fence() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
__device__ __forceinline__ void bulk_copy_to_global(void* destination, const void* source,
                                                    unsigned bytes) {
  const unsigned from = static_cast<unsigned>(__cvta_generic_to_shared(source));
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(destination),
               "r"(from), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
// Waits until this thread's bulk copies to global memory have read their
// shared-memory sources.
__device__ __forceinline__ void bulk_copy_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}
#endif

}  // namespace ppkit::gpu
