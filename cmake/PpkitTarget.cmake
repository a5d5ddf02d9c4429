# PPKIT_TARGET names the GPU a build is for. It chooses the nvcc/hipcc
# architecture of the hand-tuned kernels and the Kokkos backend + architecture
# that ppkit_check_kokkos_matches_target() expects.
#
#   target   vendor  arch      Kokkos backend / arch option
#   host     -       (sm_90 when nvcc is present, compile-only)   any
#   k40      NVIDIA  sm_35     CUDA / Kokkos_ARCH_KEPLER35   (CUDA <= 11.8)
#   a100     NVIDIA  sm_80     CUDA / Kokkos_ARCH_AMPERE80
#   h100     NVIDIA  sm_90     CUDA / Kokkos_ARCH_HOPPER90   (also H200)
#   gfx906   AMD     gfx906    HIP  / Kokkos_ARCH_AMD_GFX906 (MI50/60 class)
#   gfx90a   AMD     gfx90a    HIP  / Kokkos_ARCH_AMD_GFX90A (MI200 class)
#   k100     Hygon   PPKIT_HIP_ARCH (default gfx906)  HIP through the DTK toolchain

set(PPKIT_HIP_ARCH "gfx906" CACHE STRING
    "Offload architecture for the k100 (Hygon DCU) target; DTK's hipcc names it")

set(_ppkit_known_targets host k40 a100 h100 gfx906 gfx90a k100)
if(NOT PPKIT_TARGET IN_LIST _ppkit_known_targets)
  message(FATAL_ERROR "PPKIT_TARGET='${PPKIT_TARGET}' is not a known target; "
                      "valid targets are: ${_ppkit_known_targets}")
endif()

set(PPKIT_GPU_VENDOR "none")
set(PPKIT_KOKKOS_EXPECTED_BACKEND "")
set(PPKIT_KOKKOS_EXPECTED_ARCH "")
if(PPKIT_TARGET STREQUAL "host")
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90)
  endif()
elseif(PPKIT_TARGET STREQUAL "k40")
  set(PPKIT_GPU_VENDOR NVIDIA)
  set(CMAKE_CUDA_ARCHITECTURES 35)
  set(PPKIT_KOKKOS_EXPECTED_BACKEND CUDA)
  set(PPKIT_KOKKOS_EXPECTED_ARCH KEPLER35)
elseif(PPKIT_TARGET STREQUAL "a100")
  set(PPKIT_GPU_VENDOR NVIDIA)
  set(CMAKE_CUDA_ARCHITECTURES 80)
  set(PPKIT_KOKKOS_EXPECTED_BACKEND CUDA)
  set(PPKIT_KOKKOS_EXPECTED_ARCH AMPERE80)
elseif(PPKIT_TARGET STREQUAL "h100")
  set(PPKIT_GPU_VENDOR NVIDIA)
  set(CMAKE_CUDA_ARCHITECTURES 90)
  set(PPKIT_KOKKOS_EXPECTED_BACKEND CUDA)
  set(PPKIT_KOKKOS_EXPECTED_ARCH HOPPER90)
elseif(PPKIT_TARGET MATCHES "^gfx")
  set(PPKIT_GPU_VENDOR AMD)
  set(CMAKE_HIP_ARCHITECTURES ${PPKIT_TARGET})
  set(PPKIT_KOKKOS_EXPECTED_BACKEND HIP)
  string(TOUPPER "AMD_${PPKIT_TARGET}" PPKIT_KOKKOS_EXPECTED_ARCH)
elseif(PPKIT_TARGET STREQUAL "k100")
  set(PPKIT_GPU_VENDOR Hygon)
  set(CMAKE_HIP_ARCHITECTURES ${PPKIT_HIP_ARCH})
  set(PPKIT_KOKKOS_EXPECTED_BACKEND HIP)
endif()

if(PPKIT_GPU_VENDOR STREQUAL "NVIDIA" AND NOT PPKIT_ENABLE_CUDA)
  message(FATAL_ERROR "PPKIT_TARGET=${PPKIT_TARGET} is an NVIDIA GPU but no CUDA compiler was "
                      "found (or PPKIT_ENABLE_CUDA=OFF). Put nvcc on PATH or set "
                      "CMAKE_CUDA_COMPILER, and keep PPKIT_ENABLE_CUDA=ON.")
endif()

# The K40 (sm_35) was dropped by CUDA 12: say so before nvcc fails obscurely.
if(PPKIT_TARGET STREQUAL "k40" AND CMAKE_CUDA_COMPILER)
  execute_process(COMMAND ${CMAKE_CUDA_COMPILER} --version OUTPUT_VARIABLE _nvcc_version)
  string(REGEX MATCH "release ([0-9]+)\\.([0-9]+)" _m "${_nvcc_version}")
  set(_cuda_version "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
  if(_cuda_version VERSION_GREATER 11.8)
    message(FATAL_ERROR
      "The k40 target (Tesla K40, sm_35) needs a CUDA toolkit <= 11.8, but "
      "${CMAKE_CUDA_COMPILER} is CUDA ${_cuda_version}: CUDA 12 removed sm_35. "
      "Install CUDA 11.8 (or older) and configure with "
      "-DCMAKE_CUDA_COMPILER=/path/to/cuda-11.8/bin/nvcc, with a Kokkos built "
      "with Kokkos_ARCH_KEPLER35=ON against that toolkit.")
  endif()
endif()
