#include "backends/cuda/core/cuda_device.hpp"

#include <nlohmann/json.hpp>

#include "ppkit/core/info.hpp"

namespace ppkit::cuda {

Availability device_availability() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error
    return Availability::no(std::string("no CUDA device (") + cudaGetErrorString(status) + ")");
  }
  if (count == 0) return Availability::no("no CUDA device");
  return Availability::yes();
}

std::string device_description() {
  int device = 0;
  cudaDeviceProp p{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&p, device) != cudaSuccess)
    return "CUDA device";
  return std::string(p.name) + " (" + std::to_string(p.multiProcessorCount) + " SMs, sm_" +
         std::to_string(p.major) + std::to_string(p.minor) + ")";
}

namespace {
nlohmann::json describe_cuda() {
  nlohmann::json j;
  int runtime = 0, driver = 0, count = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  j["runtime_version"] = std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10);
  j["driver_version"] = std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10);
  j["devices"] = nlohmann::json::array();
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    j["status"] = std::string("no CUDA device (") + cudaGetErrorString(status) + ")";
    return j;
  }
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, d) != cudaSuccess) continue;
    j["devices"].push_back(
        {{"index", d},
         {"name", p.name},
         {"compute_capability", std::to_string(p.major) + "." + std::to_string(p.minor)},
         {"multiprocessors", p.multiProcessorCount},
         {"memory_bytes", p.totalGlobalMem},
         {"l2_bytes", p.l2CacheSize}});
  }
  return j;
}
}  // namespace
}  // namespace ppkit::cuda

namespace ppkit::registration {
void register_core_cuda_info() { register_backend_info("cuda", cuda::describe_cuda); }
}  // namespace ppkit::registration
