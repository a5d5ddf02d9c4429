#include "backends/cuda/core/cuda_device.hpp"

#include <nlohmann/json.hpp>

#include "ppkit/core/data_location.hpp"
#include "ppkit/core/device_memory.hpp"
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

LaunchGraph::~LaunchGraph() { release(); }

void LaunchGraph::begin_capture() {
  // A blocking stream: the replays wait for work on the legacy default stream
  // (the inputs' uploads and fills) and it for them, as launches there would.
  PPKIT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamDefault));
  const cudaError_t status = cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal);
  if (status != cudaSuccess) release();
  PPKIT_CUDA_CHECK(status);
}

void LaunchGraph::end_capture() {
  cudaGraph_t graph = nullptr;
  cudaError_t status = cudaStreamEndCapture(stream_, &graph);
  if (status == cudaSuccess) {
    status = cudaGraphInstantiate(&exec_, graph, 0);
    (void)cudaGraphDestroy(graph);
  }
  if (status != cudaSuccess) release();
  PPKIT_CUDA_CHECK(status);
}

void LaunchGraph::abandon_capture() noexcept {
  cudaGraph_t graph = nullptr;
  if (cudaStreamEndCapture(stream_, &graph) == cudaSuccess && graph) (void)cudaGraphDestroy(graph);
  (void)cudaGetLastError();  // the capture's error, reported by the exception
  release();
}

void LaunchGraph::release() noexcept {
  if (exec_) (void)cudaGraphExecDestroy(exec_);
  if (stream_) (void)cudaStreamDestroy(stream_);
  exec_ = nullptr;
  stream_ = nullptr;
}

void LaunchGraph::run_and_wait() {
  if (!exec_) return;
  PPKIT_CUDA_CHECK(cudaGraphLaunch(exec_, stream_));
  PPKIT_CUDA_CHECK(cudaStreamSynchronize(stream_));
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
void register_core_cuda_info() {
  register_backend_info("cuda", cuda::describe_cuda);
  // Where a caller's pointer lives, for the operators' argument checks
  // (data_location.hpp). Unregistered host memory is reported as host.
  add_pointer_inspector([](const void* p) -> std::optional<DataLocation> {
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
      (void)cudaGetLastError();  // clear the sticky-free error for the next call
      return std::nullopt;
    }
    switch (a.type) {
      case cudaMemoryTypeDevice:
        return DataLocation{MemoryKind::cuda, a.device};
      case cudaMemoryTypeManaged:
        return DataLocation{MemoryKind::managed, a.device};
      case cudaMemoryTypeHost:
      case cudaMemoryTypeUnregistered:
        return DataLocation{MemoryKind::host, -1};
    }
    return std::nullopt;
  });
  // Allocation and copies for the C, Fortran and Python APIs (device_memory.hpp).
  DeviceMemoryCalls calls;
  calls.allocate = [](std::size_t bytes, int) {  // on the current device
    void* p = nullptr;
    PPKIT_CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  };
  calls.release = [](void* p, int) { (void)cudaFree(p); };
  calls.to_device = [](void* dst, const void* src, std::size_t bytes, int) {
    PPKIT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  };
  calls.to_host = [](void* dst, const void* src, std::size_t bytes, int) {
    PPKIT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
  };
  calls.device_to_device = [](void* dst, const void* src, std::size_t bytes, int) {
    PPKIT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
  };
  calls.current_device = [] {
    int count = 0, device = -1;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0 ||
        cudaGetDevice(&device) != cudaSuccess) {
      (void)cudaGetLastError();
      return -1;
    }
    return device;
  };
  add_device_memory_calls(MemoryKind::cuda, calls);
}
}  // namespace ppkit::registration
