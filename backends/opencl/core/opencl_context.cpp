#include "backends/opencl/core/opencl_context.hpp"

#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>

#include "ppkit/core/info.hpp"

namespace ppkit::opencl {
namespace {

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  std::size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS) return "?";
  std::string s(n, '\0');
  clGetPlatformInfo(p, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}
std::string device_string(cl_device_id d, cl_device_info what) {
  std::size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS) return "?";
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}
template <class T>
T device_value(cl_device_id d, cl_device_info what) {
  T v{};
  clGetDeviceInfo(d, what, sizeof(T), &v, nullptr);
  return v;
}

std::vector<cl_platform_id> platforms() {
  cl_uint n = 0;
  if (clGetPlatformIDs(0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::vector<cl_platform_id> p(n);
  clGetPlatformIDs(n, p.data(), nullptr);
  return p;
}
std::vector<cl_device_id> devices(cl_platform_id p) {
  cl_uint n = 0;
  if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::vector<cl_device_id> d(n);
  clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, d.data(), nullptr);
  return d;
}

struct Choice {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  std::string error;
};

Choice choose_device() {
  const auto ps = platforms();
  if (ps.empty())
    return {nullptr, nullptr, "no OpenCL platform (is an ICD such as pocl-opencl-icd installed?)"};
  const char* wanted = std::getenv("PPKIT_OPENCL_DEVICE");
  std::string listing;
  Choice first_any, first_gpu;
  for (std::size_t pi = 0; pi < ps.size(); ++pi) {
    const auto ds = devices(ps[pi]);
    for (std::size_t di = 0; di < ds.size(); ++di) {
      const std::string pname = platform_string(ps[pi], CL_PLATFORM_NAME);
      const std::string dname = device_string(ds[di], CL_DEVICE_NAME);
      const std::string index = std::to_string(pi) + ":" + std::to_string(di);
      listing += (listing.empty() ? "" : ", ") + index + " (" + pname + " / " + dname + ")";
      if (wanted && (index == wanted || pname.find(wanted) != std::string::npos ||
                     dname.find(wanted) != std::string::npos))
        return {ps[pi], ds[di], ""};
      if (!first_any.device) first_any = {ps[pi], ds[di], ""};
      if (!first_gpu.device &&
          (device_value<cl_device_type>(ds[di], CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU))
        first_gpu = {ps[pi], ds[di], ""};
    }
  }
  if (wanted)
    return {nullptr, nullptr,
            std::string("PPKIT_OPENCL_DEVICE='") + wanted +
                "' matches no OpenCL device; devices: " + (listing.empty() ? "none" : listing)};
  if (first_gpu.device) return first_gpu;
  if (first_any.device) return first_any;
  return {nullptr, nullptr,
          "no OpenCL device on the " + std::to_string(ps.size()) + " platform(s) found"};
}

nlohmann::json describe_opencl() {
  nlohmann::json j = nlohmann::json::array();
  for (auto p : platforms()) {
    nlohmann::json pj{{"platform", platform_string(p, CL_PLATFORM_NAME)},
                      {"vendor", platform_string(p, CL_PLATFORM_VENDOR)},
                      {"version", platform_string(p, CL_PLATFORM_VERSION)},
                      {"devices", nlohmann::json::array()}};
    for (auto d : devices(p)) {
      const auto type = device_value<cl_device_type>(d, CL_DEVICE_TYPE);
      pj["devices"].push_back(
          {{"name", device_string(d, CL_DEVICE_NAME)},
           {"type", (type & CL_DEVICE_TYPE_GPU)   ? "GPU"
                    : (type & CL_DEVICE_TYPE_CPU) ? "CPU"
                                                  : "other"},
           {"compute_units", device_value<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS)},
           {"global_memory_bytes", device_value<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE)},
           {"local_memory_bytes", device_value<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE)},
           {"double_precision",
            device_string(d, CL_DEVICE_EXTENSIONS).find("cl_khr_fp64") != std::string::npos}});
    }
    j.push_back(pj);
  }
  nlohmann::json out{{"platforms", j}};
  if (availability().available) out["selected"] = device_description();
  return out;
}

}  // namespace

const char* error_name(cl_int s) {
  switch (s) {
    case CL_DEVICE_NOT_FOUND:
      return "CL_DEVICE_NOT_FOUND";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
      return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES:
      return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY:
      return "CL_OUT_OF_HOST_MEMORY";
    case CL_BUILD_PROGRAM_FAILURE:
      return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_VALUE:
      return "CL_INVALID_VALUE";
    case CL_INVALID_BUFFER_SIZE:
      return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_KERNEL_NAME:
      return "CL_INVALID_KERNEL_NAME";
    case CL_INVALID_KERNEL_ARGS:
      return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_ARG_SIZE:
      return "CL_INVALID_ARG_SIZE";
    case CL_INVALID_ARG_INDEX:
      return "CL_INVALID_ARG_INDEX";
    case CL_INVALID_WORK_GROUP_SIZE:
      return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_WORK_ITEM_SIZE:
      return "CL_INVALID_WORK_ITEM_SIZE";
    case CL_INVALID_GLOBAL_WORK_SIZE:
      return "CL_INVALID_GLOBAL_WORK_SIZE";
    case CL_INVALID_MEM_OBJECT:
      return "CL_INVALID_MEM_OBJECT";
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return "OpenCL error";
  }
}

void check(cl_int status, const char* call, const char* file, int line) {
  if (status != CL_SUCCESS)
    throw Error(std::string("OpenCL error ") + error_name(status) + " (" + std::to_string(status) +
                ") in " + call + " at " + file + ":" + std::to_string(line));
}

Context::Context() {
  const Choice c = choose_device();
  if (!c.device) throw Error(c.error, "set PPKIT_OPENCL_DEVICE to one of the listed devices");
  device_ = c.device;
  cl_int status = CL_SUCCESS;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                   reinterpret_cast<cl_context_properties>(c.platform), 0};
  context_ = clCreateContext(props, 1, &device_, nullptr, nullptr, &status);
  PPKIT_CL_CHECK(status);
  queue_ = clCreateCommandQueue(context_, device_, 0, &status);
  PPKIT_CL_CHECK(status);
  is_gpu_ = (device_value<cl_device_type>(device_, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU) != 0;
  description_ = device_string(device_, CL_DEVICE_NAME) + " (" +
                 platform_string(c.platform, CL_PLATFORM_NAME) + ", " +
                 std::to_string(device_value<cl_uint>(device_, CL_DEVICE_MAX_COMPUTE_UNITS)) +
                 " CUs)";
}

Context::~Context() {
  for (auto& [key, p] : programs_) clReleaseProgram(p);
  if (queue_) clReleaseCommandQueue(queue_);
  if (context_) clReleaseContext(context_);
}

Context& Context::get() {
  static std::unique_ptr<Context> instance;
  static std::mutex m;
  std::lock_guard<std::mutex> lock(m);
  if (!instance) instance.reset(new Context());
  return *instance;
}

cl_program Context::program(const std::string& source, const std::string& options) {
  const std::string key = options + '\n' + source;
  auto it = programs_.find(key);
  if (it != programs_.end()) return it->second;
  const char* text = source.c_str();
  const std::size_t length = source.size();
  cl_int status = CL_SUCCESS;
  cl_program p = clCreateProgramWithSource(context_, 1, &text, &length, &status);
  PPKIT_CL_CHECK(status);
  status = clBuildProgram(p, 1, &device_, options.c_str(), nullptr, nullptr);
  if (status != CL_SUCCESS) {
    std::size_t n = 0;
    clGetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    clGetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    clReleaseProgram(p);
    throw Error("OpenCL program build failed on " + description_ + " with options '" + options +
                "':\n" + log);
  }
  programs_[key] = p;
  return p;
}

cl_kernel Context::kernel(cl_program program, const char* name) {
  cl_int status = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program, name, &status);
  PPKIT_CL_CHECK(status);
  return k;
}

void Context::finish() const { PPKIT_CL_CHECK(clFinish(queue_)); }

Availability availability() {
  static const Choice c = choose_device();
  return c.device ? Availability::yes() : Availability::no(c.error);
}

std::string device_description() { return Context::get().description(); }

}  // namespace ppkit::opencl

namespace ppkit::registration {
void register_core_opencl_info() { register_backend_info("opencl", opencl::describe_opencl); }
}  // namespace ppkit::registration
