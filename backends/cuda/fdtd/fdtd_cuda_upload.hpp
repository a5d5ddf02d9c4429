#pragma once
// Host-to-device uploads shared by the CUDA fdtd.step glues (fdtd_cuda.cpp:
// cuda/register-x; fdtd_cuda_split.cpp: cuda/split-*, cuda/wavefront*).
#include <cstdint>
#include <vector>

#include "backends/cuda/core/cuda_device.hpp"
#include "ppkit/fdtd/cpml.hpp"
#include "ppkit/fdtd/yee_kernel_args.hpp"

namespace ppkit::fdtd::cuda_upload {

// A device copy of `host`; one element for an empty vector, so every kernel
// argument is a valid pointer.
template <class T>
cuda::DeviceBuffer<T> device_copy(const std::vector<T>& host) {
  return host.empty() ? cuda::DeviceBuffer<T>(1) : cuda::DeviceBuffer<T>(host);
}

// The CPML profiles (1/(kappa du), b, c/du for E and H) and psi slots of the
// three axes on the device, pointed to by the kernel arguments' axes.
struct CpmlBuffers {
  cuda::DeviceBuffer<float> profiles[3][6];
  cuda::DeviceBuffer<std::int32_t> slots[3][2];

  void upload(const CpmlProfiles& cpml, CpmlAxisArgs axis_args[3]) {
    for (int d = 0; d < 3; ++d) {
      const CpmlAxis& ax = cpml.axis[d];
      CpmlAxisArgs& aa = axis_args[d];
      const std::vector<float>* parts[6] = {&ax.e_inv_kd, &ax.e_b, &ax.e_c_d,
                                            &ax.h_inv_kd, &ax.h_b, &ax.h_c_d};
      const float** targets[6] = {&aa.e_inv_kd, &aa.e_b, &aa.e_c_d,
                                  &aa.h_inv_kd, &aa.h_b, &aa.h_c_d};
      for (int s = 0; s < 6; ++s) {
        profiles[d][s] = device_copy(*parts[s]);
        *targets[s] = profiles[d][s].data();
      }
      slots[d][0] = device_copy(ax.e_slot);
      slots[d][1] = device_copy(ax.h_slot);
      aa.e_slot = slots[d][0].data();
      aa.h_slot = slots[d][1].data();
    }
  }
};

}  // namespace ppkit::fdtd::cuda_upload
