// cuda/wavefront-l1: fdtd_cuda_wavefront.cu compiled with the default L1
// caching of global loads (see the comment there).
#define PPKIT_WAVEFRONT_L1 1
#define PPKIT_WAVEFRONT_STEP wavefront_step_l1
#include "backends/cuda/fdtd/fdtd_cuda_wavefront.cu"
