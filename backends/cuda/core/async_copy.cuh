#pragma once
// Asynchronous global -> shared copies for the hand-tuned CUDA kernels
// (cp.async, PTX ISA "cp.async", sm_80 and newer): the data travels to shared
// memory without passing through registers, so a kernel can bring the inputs
// of its next step while it works on this one and hold nothing for them.
// Copies of 4, 8 or 16 bytes, both addresses aligned to the size. A thread's
// copies complete in commit groups (commit_async); wait_async<N>() waits until
// at most N of its most recent groups are pending, wait_all_async() for all of
// its copies, committed or not. They make the copied data visible to the
// copying thread only: other threads need a barrier (__syncwarp,
// __syncthreads) after the wait. Compiled for an older target, a copy is a
// plain load and store and the waits do nothing.

namespace ppkit::cuda {

template <class T>
__device__ __forceinline__ void copy_async(T* shared, const T* global) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                "cp.async copies 4, 8 or 16 bytes");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(unsigned(__cvta_generic_to_shared(shared))),
      "l"(global), "n"(int(sizeof(T)))
      : "memory");
#else
  *shared = __ldg(global);
#endif
}

__device__ __forceinline__ void commit_async() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

template <int PENDING>
__device__ __forceinline__ void wait_async() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;" ::"n"(PENDING) : "memory");
#endif
}

__device__ __forceinline__ void wait_all_async() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

}  // namespace ppkit::cuda
