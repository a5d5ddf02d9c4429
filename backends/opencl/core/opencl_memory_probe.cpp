// Free-memory probe (ppkit/core/memory_check.hpp) of the OpenCL backend.
// OpenCL cannot say what is free, so the probe reports the chosen device's
// CL_DEVICE_GLOBAL_MEM_SIZE: a problem larger than the whole device is refused.
#include "backends/opencl/core/opencl_context.hpp"
#include "ppkit/core/memory_check.hpp"

namespace ppkit::registration {
void register_opencl_memory_probe() {
  memory::set_probe("opencl", [] {
    memory::DeviceMemory m;
    if (!opencl::availability().available) return m;
    cl_ulong size = 0;
    if (clGetDeviceInfo(opencl::Context::get().device(), CL_DEVICE_GLOBAL_MEM_SIZE, sizeof size,
                        &size, nullptr) != CL_SUCCESS)
      return m;
    m.known = true;
    m.free_bytes = m.total_bytes = double(size);
    m.device = opencl::device_description() + " (global memory size; OpenCL reports no free size)";
    return m;
  });
}
}  // namespace ppkit::registration
