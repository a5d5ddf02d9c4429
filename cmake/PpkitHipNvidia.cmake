# HIP on NVIDIA (PPKIT_HIP_PLATFORM=nvidia): ppkit's HIP sources (.hip kernels
# and HIP-runtime host glue) compiled by nvcc and the C++ compiler through
# HIP's NVIDIA platform headers (hip/nvidia_detail: the HIP runtime API as
# inline calls of the CUDA runtime), so every HIP variant runs and is tested
# on an NVIDIA GPU. Kernels see a 32-lane warp there, as on AMD's wave32
# GPUs; what is inherently AMD's (fp64 MFMA) reports itself unavailable.
#
# HIP 5.x's wrappers predate CUDA 12/13; scripts/hip-nvidia-headers.py copies
# the headers into the build tree and adapts the calls whose signatures
# changed (docs/targets.md). Provides the same helpers as PpkitHip.cmake:
# ppkit_hip_configure_library(<target>) and ppkit_hip_link_runtime(<target>).
if(NOT PPKIT_ENABLE_CUDA)
  message(FATAL_ERROR "PPKIT_HIP_PLATFORM=nvidia compiles the HIP sources with nvcc: "
                      "configure with -DPPKIT_ENABLE_CUDA=ON as well")
endif()
find_package(Python3 COMPONENTS Interpreter REQUIRED)
find_path(PPKIT_HIP_INCLUDE_DIR hip/nvidia_detail/nvidia_hip_runtime_api.h
          HINTS ENV HIP_PATH PATHS /usr/include /opt/rocm/include PATH_SUFFIXES include
          DOC "Folder holding HIP's headers (hip/), with hip/nvidia_detail")
if(NOT PPKIT_HIP_INCLUDE_DIR)
  message(FATAL_ERROR "HIP's NVIDIA platform headers (hip/nvidia_detail) were not found; on "
                      "Debian: apt-get install libamdhip64-dev, or set PPKIT_HIP_INCLUDE_DIR to "
                      "the folder that holds hip/")
endif()
set(PPKIT_HIP_NVIDIA_INCLUDE_DIR "${CMAKE_BINARY_DIR}/hip-nvidia-include")
execute_process(
  COMMAND "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/scripts/hip-nvidia-headers.py"
          "${PPKIT_HIP_INCLUDE_DIR}" "${PPKIT_HIP_NVIDIA_INCLUDE_DIR}"
  RESULT_VARIABLE _ppkit_hip_headers_status ERROR_VARIABLE _ppkit_hip_headers_error)
if(NOT _ppkit_hip_headers_status EQUAL 0)
  message(FATAL_ERROR "ppkit HIP on NVIDIA: ${_ppkit_hip_headers_error}")
endif()
message(STATUS "ppkit HIP: NVIDIA platform, headers from ${PPKIT_HIP_INCLUDE_DIR} adapted to "
               "CUDA ${CMAKE_CUDA_COMPILER_VERSION} in ${PPKIT_HIP_NVIDIA_INCLUDE_DIR}")

# The HIP runtime on NVIDIA for a target with HIP-runtime host code (tests,
# tools): the adapted headers and the CUDA runtime.
function(ppkit_hip_link_runtime target)
  target_compile_definitions(${target} PRIVATE __HIP_PLATFORM_NVIDIA__=1)
  target_include_directories(${target} SYSTEM PRIVATE "${PPKIT_HIP_NVIDIA_INCLUDE_DIR}")
  target_link_libraries(${target} PRIVATE CUDA::cudart)
endfunction()

function(ppkit_hip_configure_library target)
  target_link_libraries(${target} PRIVATE CUDA::cudart)
endfunction()

# The library's HIP sources (backends/hip): .hip kernels compiled as CUDA (nvcc
# for CMAKE_CUDA_ARCHITECTURES), and every one of them, host glue too, on HIP's
# NVIDIA platform with the adapted headers. Set per source, so the library's
# other sources compile exactly as in a build without HIP.
function(ppkit_hip_sources_as_cuda target)
  get_target_property(sources ${target} SOURCES)
  foreach(source IN LISTS sources)
    if(NOT source MATCHES "/backends/hip/")
      continue()
    endif()
    set_property(SOURCE "${source}" TARGET_DIRECTORY ${target} APPEND PROPERTY
                 COMPILE_DEFINITIONS __HIP_PLATFORM_NVIDIA__=1)
    set_property(SOURCE "${source}" TARGET_DIRECTORY ${target} APPEND PROPERTY
                 COMPILE_OPTIONS -isystem "${PPKIT_HIP_NVIDIA_INCLUDE_DIR}")
    if(source MATCHES "\\.hip$")
      set_property(SOURCE "${source}" TARGET_DIRECTORY ${target} PROPERTY LANGUAGE CUDA)
    endif()
  endforeach()
endfunction()
