#!/usr/bin/env bash
# Builds a GPU preset on the GPU node itself (many cores) from a Kokkos install
# and a prefix holding ppkit's other dependencies, then bundles the result:
#   scripts/gpu-build.sh KOKKOS_ROOT DEPS_PREFIX BUILD_DIR BUNDLE_DIR [preset-target]
# DEPS_PREFIX holds CLI11, nlohmann-json, fmt, GoogleTest, Google Benchmark and
# the OpenCL headers + ICD loader in a /usr-like layout (include/, lib/, share/).
set -euo pipefail
kokkos=$(cd "${1:?KOKKOS_ROOT}" && pwd)
deps=$(cd "${2:?DEPS_PREFIX}" && pwd)
build=${3:?BUILD_DIR}
bundle=${4:?BUNDLE_DIR}
target=${5:-h100}
mkdir -p "$(dirname "$build")"
export PATH="/usr/local/cuda/bin:$PATH"
# A Kokkos Kernels install names the CUDA libraries by the path they had where it
# was built (/usr/local/cuda/lib); on nodes that only have lib64, alias it.
if [ ! -e /usr/local/cuda/lib/libcublas.so ] && [ -e /usr/local/cuda/lib64/libcublas.so ]; then
  [ -e /usr/local/cuda/lib ] || ln -s lib64 /usr/local/cuda/lib
fi
# Distribution package configs may predate CMake 3.5; CMake 4 needs this to load them.
export CMAKE_POLICY_VERSION_MINIMUM=3.5
# MPI parts (FDTD slabs across GPUs, `ppkit fdtd scaling`) when the node has an
# MPI compiler; if CMake cannot use that MPI, the build goes on without it.
configure() {
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPPKIT_TARGET="$target" -DPPKIT_ENABLE_MPI="$1" \
    -DKokkos_ROOT="$kokkos" -DCMAKE_CXX_COMPILER="$kokkos/bin/nvcc_wrapper" \
    -DCMAKE_PREFIX_PATH="$deps" -DOpenCL_INCLUDE_DIR="$deps/include" \
    -DOpenCL_LIBRARY="$deps/lib/x86_64-linux-gnu/libOpenCL.so" -DPPKIT_BUILD_EXAMPLES=ON \
    ${PPKIT_EXTRA_CMAKE_ARGS:-} > "$build.configure.log" 2>&1
}
if command -v mpicxx > /dev/null 2>&1 && ! configure ON; then
  mv "$build.configure.log" "$build.configure-mpi.log"
  echo "configure with MPI failed (see $build.configure-mpi.log); building without MPI"
  rm -f "$build/CMakeCache.txt"
  configure OFF || { tail -n 40 "$build.configure.log"; exit 1; }
elif ! command -v mpicxx > /dev/null 2>&1; then
  configure OFF || { tail -n 40 "$build.configure.log"; exit 1; }
fi
grep -E "Found MPI|ppkit: Kokkos" "$build.configure.log" || true
# PPKIT_GPU_TARGETS (space-separated): build only those targets (default: all).
# PPKIT_EXTRA_CMAKE_ARGS: more configure arguments (e.g. the HIP-on-NVIDIA build).
targets=()
for t in ${PPKIT_GPU_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build" -j"$(nproc)" "${targets[@]}" -- -k > "$build.build.log" 2>&1 \
  || { grep -E "error|Error" -A3 "$build.build.log" | head -n 60; exit 1; }
scripts/gpu-bundle.sh "$build" "$bundle"
