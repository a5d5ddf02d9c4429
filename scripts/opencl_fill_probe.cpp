// Probe of one OpenCL operation on one large buffer, one operation per process
// (an operation that hangs or fails can leave the context unusable):
//   opencl_fill_probe MODE BYTES [DEVICE_SUBSTRING]
//   MODE: fill1, fill2, fill4, fill8, fill16  clEnqueueFillBuffer over the whole
//                                             buffer with a pattern of that many bytes
//         write                               one blocking clEnqueueWriteBuffer
//         kernel                              a kernel writing every float4 (64-bit index)
// Then clFinish, a read-back of every byte checked against what was written,
// and a second whole write. Prints each stage; run it under `timeout`, since
// the operation under test may never complete. This is how the 1-byte-pattern
// fill past 2^31 bytes was found to hang on NVIDIA's OpenCL (docs/reliability.md);
// `scripts/h200-measure.sh opencl-fill-probe` runs the sizes and modes of that finding.
// Build: g++ -O2 -std=c++17 scripts/opencl_fill_probe.cpp -lOpenCL
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

bool ok(cl_int status, const char* what) {
  if (status == CL_SUCCESS) return true;
  std::printf("  FAILED: %s returned %d\n", what, status);
  return false;
}

const char* kernel_source = R"(
__kernel void write_float4(__global float4* out, long n) {
  const long i = get_global_id(0);
  if (i < n) out[i] = (float4)(1.0f, 2.0f, 3.0f, 4.0f);
}
)";

cl_device_id choose_device(const char* wanted) {
  cl_platform_id platforms[16];
  cl_uint count = 0;
  if (!ok(clGetPlatformIDs(16, platforms, &count), "clGetPlatformIDs")) return nullptr;
  for (cl_uint p = 0; p < count; ++p) {
    char name[256] = {};
    clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof name, name, nullptr);
    if (wanted && !std::strstr(name, wanted)) continue;
    cl_device_id device = nullptr;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 1, &device, nullptr) == CL_SUCCESS)
      return device;
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::printf("usage: %s fill1|fill2|fill4|fill8|fill16|write|kernel BYTES [PLATFORM]\n",
                argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  const std::size_t bytes = std::size_t(std::atof(argv[2])) / 16 * 16;
  cl_device_id device = choose_device(argc > 3 ? argv[3] : nullptr);
  if (!device) {
    std::printf("no OpenCL device%s%s\n", argc > 3 ? " on a platform named like " : "",
                argc > 3 ? argv[3] : "");
    return 1;
  }
  char driver[256] = {};
  cl_ulong max_alloc = 0;
  clGetDeviceInfo(device, CL_DRIVER_VERSION, sizeof driver, driver, nullptr);
  clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, nullptr);
  std::printf("[%s, %zu bytes] driver %s, max allocation %llu bytes\n", mode.c_str(), bytes, driver,
              static_cast<unsigned long long>(max_alloc));
  std::fflush(stdout);

  cl_int status = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  if (!ok(status, "clCreateContext")) return 1;
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &status);
  if (!ok(status, "clCreateCommandQueue")) return 1;
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
  if (!ok(status, "clCreateBuffer")) return 1;

  // What every byte must hold afterwards (byte i of the expected 16-byte period).
  unsigned char expected[16];
  std::vector<unsigned char> host(bytes);
  if (mode.rfind("fill", 0) == 0) {
    const std::size_t pattern_size = std::size_t(std::atoi(mode.c_str() + 4));
    std::memset(expected, 0xA5, sizeof expected);
    if (!ok(clEnqueueFillBuffer(queue, buffer, expected, pattern_size, 0, bytes, 0, nullptr,
                                nullptr),
            "clEnqueueFillBuffer"))
      return 1;
  } else if (mode == "write") {
    for (int b = 0; b < 16; ++b) expected[b] = static_cast<unsigned char>(b * 17 + 3);
    for (std::size_t i = 0; i < bytes; ++i) host[i] = expected[i % 16];
    if (!ok(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, bytes, host.data(), 0, nullptr,
                                 nullptr),
            "clEnqueueWriteBuffer"))
      return 1;
  } else if (mode == "kernel") {
    const float values[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    std::memcpy(expected, values, sizeof expected);
    cl_program program = clCreateProgramWithSource(context, 1, &kernel_source, nullptr, &status);
    if (!ok(status, "clCreateProgramWithSource") ||
        !ok(clBuildProgram(program, 1, &device, "", nullptr, nullptr), "clBuildProgram"))
      return 1;
    cl_kernel kernel = clCreateKernel(program, "write_float4", &status);
    if (!ok(status, "clCreateKernel")) return 1;
    const cl_long n = cl_long(bytes / 16);
    const std::size_t global = (std::size_t(n) + 255) / 256 * 256;
    clSetKernelArg(kernel, 0, sizeof buffer, &buffer);
    clSetKernelArg(kernel, 1, sizeof n, &n);
    if (!ok(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, nullptr, 0, nullptr,
                                   nullptr),
            "clEnqueueNDRangeKernel"))
      return 1;
  } else {
    std::printf("unknown mode '%s' (valid: fill1, fill2, fill4, fill8, fill16, write, kernel)\n",
                mode.c_str());
    return 2;
  }
  std::printf("  enqueued\n");
  std::fflush(stdout);
  if (!ok(clFinish(queue), "clFinish")) return 1;
  std::printf("  finished\n");

  std::vector<unsigned char> back(bytes, 0);
  if (!ok(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, bytes, back.data(), 0, nullptr, nullptr),
          "clEnqueueReadBuffer"))
    return 1;
  std::size_t wrong = 0, first_wrong = bytes;
  for (std::size_t i = 0; i < bytes; ++i)
    if (back[i] != expected[i % 16] && wrong++ == 0) first_wrong = i;
  std::printf("  read back: %zu wrong bytes", wrong);
  if (wrong) std::printf(" (first at byte %zu)", first_wrong);
  std::printf("\n");
  if (!ok(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, bytes, back.data(), 0, nullptr, nullptr),
          "second clEnqueueWriteBuffer"))
    return 1;
  std::printf("  second write finished\n");
  return wrong == 0 ? 0 : 1;
}
