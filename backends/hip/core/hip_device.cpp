#include "backends/hip/core/hip_device.hpp"

#include <nlohmann/json.hpp>

#include "ppkit/core/data_location.hpp"
#include "ppkit/core/device_memory.hpp"
#include "ppkit/core/info.hpp"

namespace ppkit::hip {

Availability device_availability() {
  int count = 0;
  const hipError_t status = hipGetDeviceCount(&count);
  if (status != hipSuccess) {
    (void)hipGetLastError();  // clear the sticky error
    return Availability::no(std::string("no HIP device (") + hipGetErrorString(status) + ")");
  }
  if (count == 0) return Availability::no("no HIP device");
  return Availability::yes();
}

namespace {
// hipDeviceProp_t of the current device, or false when there is none.
bool current_properties(hipDeviceProp_t& p) {
  int device = 0;
  if (hipGetDevice(&device) != hipSuccess || hipGetDeviceProperties(&p, device) != hipSuccess) {
    (void)hipGetLastError();
    return false;
  }
  return true;
}

// "gfx90a" from "gfx90a:sramecc+:xnack-" (the feature suffix is dropped).
std::string architecture_name(const hipDeviceProp_t& p) {
  const std::string full(p.gcnArchName);
  return full.substr(0, full.find(':'));
}

// HIP_VERSION encoding: major * 10^7 + minor * 10^5 + patch.
std::string version_string(int v) {
  return std::to_string(v / 10000000) + "." + std::to_string(v / 100000 % 100) + "." +
         std::to_string(v % 100000);
}
}  // namespace

std::string device_description() {
  hipDeviceProp_t p{};
  if (!current_properties(p)) return "HIP device";
  return std::string(p.name) + " (" + std::to_string(p.multiProcessorCount) + " CUs, " +
         architecture_name(p) + ", wavefront " + std::to_string(p.warpSize) + ")";
}

int device_wavefront_size() {
  hipDeviceProp_t p{};
  return current_properties(p) ? p.warpSize : 0;
}

namespace {
nlohmann::json describe_hip() {
  nlohmann::json j;
  int runtime = 0, driver = 0, count = 0;
  if (hipRuntimeGetVersion(&runtime) == hipSuccess) j["runtime_version"] = version_string(runtime);
  if (hipDriverGetVersion(&driver) == hipSuccess) j["driver_version"] = version_string(driver);
  (void)hipGetLastError();
  j["devices"] = nlohmann::json::array();
  const hipError_t status = hipGetDeviceCount(&count);
  if (status != hipSuccess) {
    (void)hipGetLastError();
    j["status"] = std::string("no HIP device (") + hipGetErrorString(status) + ")";
    return j;
  }
  for (int d = 0; d < count; ++d) {
    hipDeviceProp_t p{};
    if (hipGetDeviceProperties(&p, d) != hipSuccess) continue;
    j["devices"].push_back({{"index", d},
                            {"name", p.name},
                            {"architecture", architecture_name(p)},
                            {"gcn_arch_name", p.gcnArchName},
                            {"compute_units", p.multiProcessorCount},
                            {"wavefront_size", p.warpSize},
                            {"memory_bytes", p.totalGlobalMem},
                            {"l2_bytes", p.l2CacheSize}});
  }
  return j;
}
}  // namespace
}  // namespace ppkit::hip

namespace ppkit::registration {
void register_core_hip_info() {
  register_backend_info("hip", hip::describe_hip);
  // Where a caller's pointer lives, for the operators' argument checks
  // (data_location.hpp). HIP 6 renamed memoryType to type.
  add_pointer_inspector([](const void* p) -> std::optional<DataLocation> {
    hipPointerAttribute_t a{};
    if (hipPointerGetAttributes(&a, p) != hipSuccess) {
      (void)hipGetLastError();  // unregistered host memory on older runtimes
      return std::nullopt;
    }
#if HIP_VERSION_MAJOR >= 6
    const hipMemoryType type = a.type;
#else
    const hipMemoryType type = a.memoryType;
#endif
    if (a.isManaged) return DataLocation{MemoryKind::managed, a.device};
    if (type == hipMemoryTypeDevice) return DataLocation{MemoryKind::hip, a.device};
    return DataLocation{MemoryKind::host, -1};
  });
  // Allocation and copies for the C, Fortran and Python APIs (device_memory.hpp).
  DeviceMemoryCalls calls;
  calls.allocate = [](std::size_t bytes, int) {  // on the current device
    void* p = nullptr;
    PPKIT_HIP_CHECK(hipMalloc(&p, bytes));
    return p;
  };
  calls.release = [](void* p, int) { (void)hipFree(p); };
  calls.to_device = [](void* dst, const void* src, std::size_t bytes, int) {
    PPKIT_HIP_CHECK(hipMemcpy(dst, src, bytes, hipMemcpyHostToDevice));
  };
  calls.to_host = [](void* dst, const void* src, std::size_t bytes, int) {
    PPKIT_HIP_CHECK(hipMemcpy(dst, src, bytes, hipMemcpyDeviceToHost));
  };
  calls.device_to_device = [](void* dst, const void* src, std::size_t bytes, int) {
    PPKIT_HIP_CHECK(hipMemcpy(dst, src, bytes, hipMemcpyDeviceToDevice));
  };
  calls.current_device = [] {
    int count = 0, device = -1;
    if (hipGetDeviceCount(&count) != hipSuccess || count == 0 ||
        hipGetDevice(&device) != hipSuccess) {
      (void)hipGetLastError();
      return -1;
    }
    return device;
  };
  add_device_memory_calls(MemoryKind::hip, calls);
}
}  // namespace ppkit::registration
