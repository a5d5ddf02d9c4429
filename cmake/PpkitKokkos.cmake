# Finds Kokkos (>= 3.4) and Kokkos Kernels and exposes them as ppkit::kokkos and
# ppkit::kokkoskernels, whatever their origin:
#  * a Kokkos 4.x install named by Kokkos_ROOT (CUDA / HIP / OpenMP builds);
#  * Debian 12's libtrilinos-kokkos-dev (Kokkos 3.4.01, Serial), whose CMake
#    package is defective: Kokkos::kokkos lists the non-existent include dir
#    <prefix>/include (headers are in <prefix>/include/trilinos), and Kokkos
#    Kernels exports the target trilinos_kokkoskernels instead of
#    Kokkos::kokkoskernels. We do not use those targets; we build our own from
#    the package's variables (Kokkos_INCLUDE_DIRS, Kokkos_LIBRARIES).
#  * the same Kokkos 3.4.01 built with Serial + OpenMP from Debian's trilinos
#    source by scripts/setup-kokkos-openmp.sh (Kokkos_ROOT=<its prefix>).

# A Kokkos_ROOT given (as a variable or in the environment) after a first
# configure replaces the Kokkos found then: find_package would otherwise keep
# the cached Kokkos_DIR and ignore the new root.
set(_ppkit_kokkos_root "${Kokkos_ROOT}")
if(NOT _ppkit_kokkos_root)
  set(_ppkit_kokkos_root "$ENV{Kokkos_ROOT}")
endif()
if(_ppkit_kokkos_root AND Kokkos_DIR)
  get_filename_component(_ppkit_root_real "${_ppkit_kokkos_root}" REALPATH)
  get_filename_component(_ppkit_dir_real "${Kokkos_DIR}" REALPATH)
  string(FIND "${_ppkit_dir_real}/" "${_ppkit_root_real}/" _ppkit_pos)
  if(NOT _ppkit_pos EQUAL 0)
    message(STATUS "ppkit: Kokkos_ROOT=${_ppkit_kokkos_root} replaces the Kokkos found before (${Kokkos_DIR})")
    unset(Kokkos_DIR CACHE)
    unset(KokkosKernels_DIR CACHE)
  endif()
endif()

find_package(Kokkos 3.4 REQUIRED)
set(PPKIT_KOKKOS_IS_DEBIAN_TRILINOS OFF)
if(TARGET trilinos_kokkoscore)
  set(PPKIT_KOKKOS_IS_DEBIAN_TRILINOS ON)
endif()
# Kokkos Kernels must come from the same install as Kokkos (a Kokkos 4 build
# must not pick up Debian's Kokkos Kernels 3.4 from the system path).
get_filename_component(_ppkit_kokkos_prefix "${Kokkos_DIR}/../../.." ABSOLUTE)
if(KokkosKernels_DIR)
  get_filename_component(_ppkit_kk_real "${KokkosKernels_DIR}" REALPATH)
  get_filename_component(_ppkit_prefix_real "${_ppkit_kokkos_prefix}" REALPATH)
  string(FIND "${_ppkit_kk_real}/" "${_ppkit_prefix_real}/" _ppkit_pos)
  if(NOT _ppkit_pos EQUAL 0)
    unset(KokkosKernels_DIR CACHE)  # found with another Kokkos in an earlier configure
  endif()
endif()
find_package(KokkosKernels QUIET HINTS "${Kokkos_DIR}/../KokkosKernels" "${_ppkit_kokkos_prefix}"
             NO_DEFAULT_PATH)
if(NOT KokkosKernels_FOUND AND PPKIT_KOKKOS_IS_DEBIAN_TRILINOS)
  find_package(KokkosKernels QUIET)
endif()

add_library(ppkit_kokkos INTERFACE)
add_library(ppkit::kokkos ALIAS ppkit_kokkos)
add_library(ppkit_kokkoskernels INTERFACE)
add_library(ppkit::kokkoskernels ALIAS ppkit_kokkoskernels)

if(PPKIT_KOKKOS_IS_DEBIAN_TRILINOS)
  message(STATUS "ppkit: Kokkos ${Kokkos_VERSION} from Trilinos packages (include dir shim: ${Kokkos_INCLUDE_DIRS})")
  # SYSTEM: Kokkos headers are not ours to keep warning-free.
  target_include_directories(ppkit_kokkos SYSTEM INTERFACE
                             ${Kokkos_INCLUDE_DIRS})
  target_link_libraries(ppkit_kokkos INTERFACE ${Kokkos_LIBRARIES})
  if(TARGET trilinos_kokkoskernels)
    target_link_libraries(ppkit_kokkoskernels INTERFACE trilinos_kokkoskernels ppkit_kokkos)
    set(PPKIT_HAVE_KOKKOSKERNELS ON)
  endif()
else()
  message(STATUS "ppkit: Kokkos ${Kokkos_VERSION} (${Kokkos_DIR}), devices: ${Kokkos_DEVICES}")
  target_link_libraries(ppkit_kokkos INTERFACE Kokkos::kokkos)
  # A static Kokkos goes into the shared libppkit only if it was compiled as
  # position-independent code, which its install does not record.
  if(TARGET Kokkos::kokkoscore AND BUILD_SHARED_LIBS)
    get_target_property(_ppkit_kokkos_core_type Kokkos::kokkoscore TYPE)
    if(_ppkit_kokkos_core_type STREQUAL "STATIC_LIBRARY")
      message(STATUS "ppkit: Kokkos is installed as static libraries and libppkit is shared; if "
                     "linking libppkit fails with 'relocation R_X86_64_TPOFF32 ... recompile with "
                     "-fPIC', rebuild Kokkos with -DBUILD_SHARED_LIBS=ON (or "
                     "-DCMAKE_POSITION_INDEPENDENT_CODE=ON), or configure ppkit with "
                     "-DBUILD_SHARED_LIBS=OFF")
    endif()
  endif()
  if(TARGET Kokkos::kokkoskernels)
    target_link_libraries(ppkit_kokkoskernels INTERFACE Kokkos::kokkoskernels)
    set(PPKIT_HAVE_KOKKOSKERNELS ON)
  endif()
endif()
if(NOT PPKIT_HAVE_KOKKOSKERNELS)
  set(PPKIT_HAVE_KOKKOSKERNELS OFF)
  message(STATUS "ppkit: Kokkos Kernels not found; solvers use ppkit's own Kokkos CG kernels")
endif()

# On a CPU the Kokkos rows use every core only with a parallel host backend.
if(PPKIT_TARGET STREQUAL "host" AND NOT "OPENMP" IN_LIST Kokkos_DEVICES
   AND NOT "THREADS" IN_LIST Kokkos_DEVICES)
  message(STATUS "ppkit: Kokkos ${Kokkos_VERSION} has no OpenMP (devices: ${Kokkos_DEVICES}): the Kokkos "
                 "variants run on one CPU core. For kokkos-openmp rows: "
                 "export Kokkos_ROOT=$(scripts/setup-kokkos-openmp.sh) and configure again")
endif()

# A GPU target needs a Kokkos with that GPU's backend; tell the user how to get one.
option(PPKIT_KOKKOS_MATCH_TARGET
       "Require a Kokkos with the GPU target's backend (OFF: only the native variants use the GPU)" ON)
function(ppkit_check_kokkos_matches_target)
  if(PPKIT_KOKKOS_EXPECTED_BACKEND STREQUAL "")
    return()
  endif()
  if(NOT PPKIT_KOKKOS_MATCH_TARGET)
    if(NOT "${PPKIT_KOKKOS_EXPECTED_BACKEND}" IN_LIST Kokkos_DEVICES)
      message(WARNING "PPKIT_TARGET=${PPKIT_TARGET} with a Kokkos without ${PPKIT_KOKKOS_EXPECTED_BACKEND} "
                      "(PPKIT_KOKKOS_MATCH_TARGET=OFF): only the native variants use the GPU.")
    endif()
    return()
  endif()
  set(_hint "Build Kokkos >= 4.0 with -DKokkos_ENABLE_${PPKIT_KOKKOS_EXPECTED_BACKEND}=ON")
  if(PPKIT_KOKKOS_EXPECTED_ARCH)
    string(APPEND _hint " -DKokkos_ARCH_${PPKIT_KOKKOS_EXPECTED_ARCH}=ON")
  endif()
  string(APPEND _hint " -DKokkos_ENABLE_OPENMP=ON, install it, and configure ppkit with -DKokkos_ROOT=<prefix>")
  if(NOT "${PPKIT_KOKKOS_EXPECTED_BACKEND}" IN_LIST Kokkos_DEVICES)
    message(FATAL_ERROR
      "PPKIT_TARGET=${PPKIT_TARGET} needs Kokkos with the ${PPKIT_KOKKOS_EXPECTED_BACKEND} backend, "
      "but the Kokkos found at '${Kokkos_DIR}' (version ${Kokkos_VERSION}) has devices: "
      "${Kokkos_DEVICES}. ${_hint}.")
  endif()
  if(PPKIT_KOKKOS_EXPECTED_ARCH AND NOT "${PPKIT_KOKKOS_EXPECTED_ARCH}" IN_LIST Kokkos_ARCH)
    message(FATAL_ERROR
      "PPKIT_TARGET=${PPKIT_TARGET} needs Kokkos built for ${PPKIT_KOKKOS_EXPECTED_ARCH}, but the "
      "Kokkos found at '${Kokkos_DIR}' was built for: '${Kokkos_ARCH}'. ${_hint}.")
  endif()
endfunction()
