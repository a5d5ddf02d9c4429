#pragma once
// OpenCL host glue shared by every OpenCL variant: device selection, one
// context and in-order queue per process, program builds with their build log
// in the error, and RAII buffers. Uses the C API (OpenCL 1.2) so PoCL on CPUs
// and NVIDIA's and AMD's drivers all work.
#include <CL/cl.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ppkit/core/backend_variant.hpp"
#include "ppkit/core/registry.hpp"

namespace ppkit::opencl {

void check(cl_int status, const char* call, const char* file, int line);
#define PPKIT_CL_CHECK(call) ::ppkit::opencl::check((call), #call, __FILE__, __LINE__)

const char* error_name(cl_int status);

// The device ppkit's OpenCL variants use. Chosen once: PPKIT_OPENCL_DEVICE
// ("<platform>:<device>" indices, or a substring of the device or platform
// name) if set, else the first GPU, else the first device of any type.
class Context {
 public:
  static Context& get();  // throws ppkit::Error when no device can be chosen
  cl_context context() const { return context_; }
  cl_command_queue queue() const { return queue_; }
  cl_device_id device() const { return device_; }
  const std::string& description() const { return description_; }
  bool is_gpu() const { return is_gpu_; }
  // Builds (once per source and options) and returns the program.
  cl_program program(const std::string& source, const std::string& options = "");
  cl_kernel kernel(cl_program program, const char* name);  // caller releases
  void finish() const;
  ~Context();

 private:
  Context();
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_device_id device_ = nullptr;
  std::string description_;
  bool is_gpu_ = false;
  std::map<std::string, cl_program> programs_;
};

Availability availability();  // "no OpenCL platform", "no OpenCL device"
std::string device_description();

// A cl_mem of n elements of T in the shared context.
template <class T>
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(std::size_t n) : n_(n) {
    cl_int status = CL_SUCCESS;
    mem_ = clCreateBuffer(Context::get().context(), CL_MEM_READ_WRITE, bytes(), nullptr, &status);
    PPKIT_CL_CHECK(status);
  }
  explicit Buffer(const std::vector<T>& host) : Buffer(host.size()) { upload(host); }
  Buffer(Buffer&& o) noexcept : mem_(o.mem_), n_(o.n_) {
    o.mem_ = nullptr;
    o.n_ = 0;
  }
  Buffer& operator=(Buffer&& o) noexcept {
    std::swap(mem_, o.mem_);
    std::swap(n_, o.n_);
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
    if (mem_) clReleaseMemObject(mem_);
  }

  void upload(const std::vector<T>& host) {
    require(host.size() == n_, "opencl::Buffer::upload size mismatch");
    PPKIT_CL_CHECK(clEnqueueWriteBuffer(Context::get().queue(), mem_, CL_TRUE, 0, bytes(),
                                        host.data(), 0, nullptr, nullptr));
  }
  std::vector<T> download() const {
    std::vector<T> host(n_);
    PPKIT_CL_CHECK(clEnqueueReadBuffer(Context::get().queue(), mem_, CL_TRUE, 0, bytes(),
                                       host.data(), 0, nullptr, nullptr));
    return host;
  }
  // Every byte set to `byte`. The pattern is the widest of 16, 8, 4, 2 and 1
  // bytes that divides the size, enqueued in pieces of at most 2^30 patterns:
  // NVIDIA's OpenCL (driver 580, H200) never completes a 1-byte-pattern fill of
  // more than 2^31 bytes, while 4- and 16-byte patterns fill 4.2 GB correctly.
  void fill_bytes(unsigned char byte) {
    std::size_t pattern_size = 16;
    while (bytes() % pattern_size != 0) pattern_size /= 2;
    unsigned char pattern[16];
    for (unsigned char& b : pattern) b = byte;
    const std::size_t piece = (std::size_t(1) << 30) * pattern_size;
    for (std::size_t offset = 0; offset < bytes(); offset += piece)
      PPKIT_CL_CHECK(clEnqueueFillBuffer(Context::get().queue(), mem_, pattern, pattern_size,
                                         offset, std::min(piece, bytes() - offset), 0, nullptr,
                                         nullptr));
  }
  cl_mem mem() const { return mem_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }

 private:
  cl_mem mem_ = nullptr;
  std::size_t n_ = 0;
};

// Sets kernel arguments in order: set_args(kernel, a, b, c).
template <class... Args>
void set_args(cl_kernel kernel, const Args&... args) {
  cl_uint index = 0;
  (PPKIT_CL_CHECK(clSetKernelArg(kernel, index++, sizeof(Args), &args)), ...);
}

// A cl_kernel released on scope exit.
class Kernel {
 public:
  Kernel(cl_program program, const char* name) : kernel_(Context::get().kernel(program, name)) {}
  ~Kernel() {
    if (kernel_) clReleaseKernel(kernel_);
  }
  Kernel(Kernel&& o) noexcept : kernel_(o.kernel_) { o.kernel_ = nullptr; }
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;
  operator cl_kernel() const { return kernel_; }

 private:
  cl_kernel kernel_ = nullptr;
};

// Fills the common fields of an OpenCL variant of any operation: the vendor
// model, buffers no pointer addresses (no memory kind), and the
// device-portable tier of "auto" at `rank`: OpenCL kernels are written once
// for any vendor's device, as Kokkos device code is (variant_traits.hpp).
template <class Op>
Variant<Op> opencl_variant(const std::string& strategy, int rank) {
  return backend_variant<Op>(VendorBackend{"opencl", AutoTier::device_portable, std::nullopt},
                             strategy, rank, availability, device_description);
}

}  // namespace ppkit::opencl
