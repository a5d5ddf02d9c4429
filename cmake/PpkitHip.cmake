# HIP toolchain discovery and helpers for the hand-tuned HIP variants.
#
# Two roles:
#
# 1. Before enable_language(HIP): make CMake's HIP language (3.21+) work with a
#    distribution ROCm such as Debian 12's (packages hipcc, libamdhip64-dev,
#    rocm-device-libs; ROCm 5.2.3 on clang 15). CMake expects an /opt/rocm-style
#    tree and fails on Debian's multiarch layout for three reasons:
#      a. it requires <rocm root>/lib/cmake/hip-lang/hip-lang-config.cmake, but
#         Debian installs it in /usr/lib/<multiarch>/cmake/hip-lang;
#      b. plain clang++-15 finds neither the HIP headers nor the device bitcode
#         without --rocm-path / --rocm-device-lib-path (hipcc adds them);
#      c. hip-lang-config.cmake calls find_dependency(amd_comgr) inside CMake's
#         compiler-ABI try_compile project, where the multiarch library
#         directory is not yet known, so amd_comgr-config.cmake is not found.
#    When that layout is detected (and the user set none of these themselves),
#    this file points CMake at the clang that hipcc uses, creates a ROCm-root
#    shim in the build tree (lib/cmake/hip-lang -> the Debian package's
#    directory), adds the two clang flags to CMAKE_HIP_FLAGS, and forwards
#    amd_comgr_DIR into try_compile. With /opt/rocm or Hygon's DTK nothing is
#    changed: CMake's own discovery works there.
#
#    This part must run before the top-level enable_language(HIP). Either the
#    top-level CMakeLists.txt includes this file just before it, or configure
#    with -DCMAKE_PROJECT_TOP_LEVEL_INCLUDES=<source>/cmake/PpkitHip.cmake
#    (what scripts/hip-compile-check.sh does).
#
# 2. After enable_language(HIP): ppkit_hip_configure_library(<target>) sets what
#    a target with HIP kernels (`.hip` files, compiled by clang for
#    CMAKE_HIP_ARCHITECTURES) and HIP-runtime host glue (`.cpp`) needs.

# ---- 1. toolchain discovery (before the HIP language is enabled) -----------------
if(PPKIT_ENABLE_HIP AND NOT CMAKE_HIP_COMPILER_LOADED)
  # The multiarch triplet; CMAKE_LIBRARY_ARCHITECTURE is empty before any
  # language is enabled, so ask the system compiler or fall back to the host.
  set(_ppkit_multiarch "${CMAKE_LIBRARY_ARCHITECTURE}")
  if(NOT _ppkit_multiarch)
    execute_process(COMMAND gcc -print-multiarch OUTPUT_VARIABLE _ppkit_multiarch
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  endif()
  if(NOT _ppkit_multiarch)
    set(_ppkit_multiarch "${CMAKE_HOST_SYSTEM_PROCESSOR}-linux-gnu")
  endif()
  set(_ppkit_debian_hip_lang "/usr/lib/${_ppkit_multiarch}/cmake/hip-lang")
  set(_ppkit_debian_bitcode "/usr/lib/${_ppkit_multiarch}/amdgcn/bitcode")

  if(EXISTS "${_ppkit_debian_hip_lang}/hip-lang-config.cmake"
     AND NOT EXISTS "/usr/lib/cmake/hip-lang/hip-lang-config.cmake"
     AND NOT DEFINED CMAKE_HIP_COMPILER_ROCM_ROOT)
    message(STATUS "ppkit HIP: distribution ROCm layout in /usr (${_ppkit_multiarch}); "
                   "adapting CMake's HIP language to it")

    # The clang that hipcc drives (Debian 12: clang++-15; the device bitcode is
    # LLVM 15's, so the unversioned clang++, 14 on Debian 12, is the last resort).
    if(NOT CMAKE_HIP_COMPILER AND "$ENV{HIPCXX}" STREQUAL "")
      find_program(_ppkit_hip_clang NAMES clang++-15 clang++-16 clang++-17 clang++
                   HINTS /usr/lib/llvm-15/bin NO_CACHE)
      if(NOT _ppkit_hip_clang)
        message(FATAL_ERROR "ppkit HIP: Debian's HIP packages are installed but no clang++ "
                            "was found for them; install clang-15 or set CMAKE_HIP_COMPILER.")
      endif()
      set(CMAKE_HIP_COMPILER "${_ppkit_hip_clang}" CACHE FILEPATH "HIP compiler (clang)")
    endif()

    # a. The ROCm-root shim.
    set(_ppkit_rocm_shim "${CMAKE_BINARY_DIR}/ppkit-rocm-root")
    file(MAKE_DIRECTORY "${_ppkit_rocm_shim}/lib/cmake")
    file(CREATE_LINK "${_ppkit_debian_hip_lang}" "${_ppkit_rocm_shim}/lib/cmake/hip-lang" SYMBOLIC)
    set(CMAKE_HIP_COMPILER_ROCM_ROOT "${_ppkit_rocm_shim}" CACHE PATH
        "ROCm root for CMake's HIP language (a shim over the distribution layout)")

    # b. Where clang finds the HIP runtime headers and the device bitcode. Set as
    #    the cache default so that compiler identification already uses them.
    if(NOT DEFINED CMAKE_HIP_FLAGS AND "$ENV{HIPFLAGS}" STREQUAL "")
      set(_ppkit_hip_flags "--rocm-path=/usr")
      if(EXISTS "${_ppkit_debian_bitcode}")
        string(APPEND _ppkit_hip_flags " --rocm-device-lib-path=${_ppkit_debian_bitcode}")
      endif()
      set(CMAKE_HIP_FLAGS "${_ppkit_hip_flags}" CACHE STRING "Flags for the HIP compiler")
    endif()

    # c. amd_comgr's package directory, forwarded into try_compile projects.
    if(NOT DEFINED amd_comgr_DIR AND EXISTS "/usr/lib/${_ppkit_multiarch}/cmake/amd_comgr")
      set(amd_comgr_DIR "/usr/lib/${_ppkit_multiarch}/cmake/amd_comgr" CACHE PATH
          "amd_comgr package directory")
    endif()
    if(NOT "amd_comgr_DIR" IN_LIST CMAKE_TRY_COMPILE_PLATFORM_VARIABLES)
      list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES amd_comgr_DIR)
    endif()
  endif()

  # Without an architecture CMake asks rocm_agent_enumerator for the GPUs of this
  # machine, which fails where there is none. PpkitTarget.cmake sets the
  # architecture for the gfx* and k100 targets; any other target (host) with HIP
  # enabled compiles for both AMD CDNA architectures ppkit supports.
  if(NOT DEFINED CMAKE_HIP_ARCHITECTURES AND "$ENV{HIPARCHS}" STREQUAL ""
     AND NOT PPKIT_TARGET MATCHES "^(gfx|k100)")
    set(CMAKE_HIP_ARCHITECTURES "gfx906;gfx90a" CACHE STRING "HIP offload architectures")
  endif()
endif()

# ---- 2. helpers (after enable_language(HIP)) ---------------------------------------
# ppkit_hip_configure_library(<target>): what a target with HIP sources and
# HIP-runtime host glue needs: C++17 for HIP, the HIP runtime library, and
# warnings on HIP sources like on C++ ones. (Host glue gets the AMD platform
# macro from backends/hip/core/hip_check.hpp, so it builds with g++ as well as
# with hipcc as the C++ compiler.)
function(ppkit_hip_configure_library target)
  set_target_properties(${target} PROPERTIES HIP_STANDARD 17 HIP_STANDARD_REQUIRED ON
                                             HIP_EXTENSIONS OFF)
  target_compile_definitions(${target} PRIVATE PPKIT_HAVE_HIP=1)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:HIP>:-Wall -Wextra -Wno-unused-command-line-argument>)
  if(PPKIT_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:HIP>:-Werror>)
  endif()
  ppkit_hip_link_runtime(${target})
endfunction()

# The HIP runtime for a target with HIP-runtime host code (tests, tools).
function(ppkit_hip_link_runtime target)
  target_link_libraries(${target} PRIVATE hip-lang::host)
endfunction()

# With the AMD platform, .hip sources are CMake's HIP language already.
function(ppkit_hip_sources_as_cuda target)
endfunction()

