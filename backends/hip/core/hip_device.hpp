#pragma once
// HIP device discovery and device buffers for the hand-tuned HIP variants
// (AMD CDNA and Hygon DCU through ROCm/DTK). Host code only: kernels live in
// `.hip` files that see plain structs of raw pointers.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "backends/hip/core/hip_check.hpp"
#include "ppkit/core/backend_variant.hpp"
#include "ppkit/core/device_buffer.hpp"
#include "ppkit/core/registry.hpp"

namespace ppkit::hip {

// "no HIP device" (with the runtime's reason) when none can be used.
Availability device_availability();
// "AMD Instinct MI250X (110 CUs, gfx90a, wavefront 64)"
std::string device_description();
// Lanes per wavefront of the current device (64 on CDNA and DCU, 32 on RDNA
// in wave32 mode); 0 when no device can be queried.
int device_wavefront_size();

// The HIP runtime calls behind ppkit::DeviceBuffer.
struct RuntimeCalls {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    PPKIT_HIP_CHECK(hipMalloc(&p, bytes));
    return p;
  }
  static void release(void* p) noexcept { (void)hipFree(p); }
  static void to_device(void* dst, const void* src, std::size_t bytes) {
    PPKIT_HIP_CHECK(hipMemcpy(dst, src, bytes, hipMemcpyHostToDevice));
  }
  static void to_host(void* dst, const void* src, std::size_t bytes) {
    PPKIT_HIP_CHECK(hipMemcpy(dst, src, bytes, hipMemcpyDeviceToHost));
  }
  static void fill_bytes(void* p, int byte, std::size_t bytes) {
    PPKIT_HIP_CHECK(hipMemset(p, byte, bytes));
  }
};

template <class T>
using DeviceBuffer = ppkit::DeviceBuffer<T, RuntimeCalls>;

// Fills the common fields of a HIP variant of any operation: the vendor
// model, data in HIP device memory, the device-native tier of "auto" at
// `rank` (variant_traits.hpp).
template <class Op>
Variant<Op> hip_variant(const std::string& strategy, int rank) {
  return backend_variant<Op>(VendorBackend{"hip", AutoTier::device_native, MemoryKind::hip},
                             strategy, rank, device_availability, device_description);
}

}  // namespace ppkit::hip
