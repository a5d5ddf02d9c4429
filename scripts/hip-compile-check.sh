#!/usr/bin/env bash
# Compiles and links every HIP source of ppkit for AMD gfx906 (MI50/60, and the
# Hygon DCU default) and gfx90a (MI200) with Debian 12's ROCm packages, on a
# machine without an AMD GPU, and checks that each HIP object carries a code
# object for every architecture. Installs nothing: it expects the packages
# hipcc, libamdhip64-dev and rocm-device-libs (scripts/setup-debian.sh).
#
#   scripts/hip-compile-check.sh            configure + build libppkit, the ppkit
#                                           CLI, the core, HIP and workload tests
#                                           with HIP variants; check objects
#   scripts/hip-compile-check.sh --all      build every target of the HIP build
#
# Environment: PPKIT_HIP_BUILD_DIR (default build/hip-check),
#              PPKIT_HIP_ARCHS (default "gfx906;gfx90a"), PPKIT_JOBS (default 2).
#
# One build compiles both architectures into each object (clang --offload-arch
# twice), so the host code is compiled once. It uses PPKIT_TARGET=host with an
# explicit CMAKE_HIP_ARCHITECTURES: PPKIT_TARGET=gfx906/gfx90a also demand a
# Kokkos built with HIP, which Debian's Serial-only Kokkos 3.4 is not; the
# Kokkos variants therefore stay Serial and only the native HIP variants are HIP.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${PPKIT_HIP_BUILD_DIR:-build/hip-check}
archs=${PPKIT_HIP_ARCHS:-gfx906;gfx90a}
jobs=${PPKIT_JOBS:-2}
targets=(ppkit ppkit_cli ppkit_core_tests ppkit_hip_tests ppkit_fem_tests ppkit_sph_tests ppkit_sem_tests)
[ "${1:-}" = "--all" ] && targets=(all)

fail() { echo "hip-compile-check: $*" >&2; exit 1; }

# ---- the toolchain must already be there -----------------------------------------
missing=()
for p in hipcc libamdhip64-dev rocm-device-libs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] || fail "missing Debian packages: ${missing[*]} (scripts/setup-debian.sh installs them)"
bundler=$(command -v clang-offload-bundler-15 || command -v clang-offload-bundler ||
          ls /usr/lib/llvm-15/bin/clang-offload-bundler 2>/dev/null || true)
[ -n "$bundler" ] || fail "clang-offload-bundler not found (Debian package clang-tools-15, a hipcc dependency)"
command -v objcopy >/dev/null || fail "objcopy not found (binutils)"

# ---- configure and build ------------------------------------------------------------
echo "hip-compile-check: configuring $build_dir for HIP architectures $archs"
mkdir -p "$build_dir"
cmake -S . -B "$build_dir" \
  -DCMAKE_PROJECT_TOP_LEVEL_INCLUDES="$PWD/cmake/PpkitHip.cmake" \
  -DPPKIT_ENABLE_HIP=ON -DPPKIT_TARGET=host "-DCMAKE_HIP_ARCHITECTURES=$archs" \
  -DPPKIT_ENABLE_CUDA=OFF -DPPKIT_WARNINGS_AS_ERRORS=ON \
  -DPPKIT_BUILD_BENCHMARKS=OFF -DPPKIT_BUILD_EXAMPLES=OFF >"$build_dir/ppkit-configure.log" 2>&1 ||
  { tail -40 "$build_dir/ppkit-configure.log"; fail "configure failed (log: $build_dir/ppkit-configure.log)"; }
hip_compiler=$(sed -n 's/^CMAKE_HIP_COMPILER:[A-Z]*=//p' "$build_dir/CMakeCache.txt")
hip_flags=$(sed -n 's/^CMAKE_HIP_FLAGS:[A-Z]*=//p' "$build_dir/CMakeCache.txt")
[ -n "$hip_compiler" ] || fail "the HIP language was not enabled in $build_dir"
echo "hip-compile-check: HIP compiler $hip_compiler $hip_flags"

echo "hip-compile-check: building ${targets[*]}"
cmake --build "$build_dir" -j"$jobs" --target "${targets[@]}"

# ---- every HIP object holds a code object per architecture -------------------------
mapfile -t objects < <(find "$build_dir" -name '*.hip.o' | sort)
[ ${#objects[@]} -gt 0 ] || fail "no HIP objects were built"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
IFS=';' read -r -a arch_list <<<"$archs"
for o in "${objects[@]}"; do
  objcopy -O binary --only-section=.hip_fatbin "$o" "$scratch/fatbin" ||
    fail "$o has no .hip_fatbin section"
  bundles=$("$bundler" --list --type=o --input="$scratch/fatbin")
  for a in "${arch_list[@]}"; do
    grep -q -- "--$a\$" <<<"$bundles" || fail "$o has no code object for $a (has: $(echo $bundles))"
  done
  echo "  ${o#"$build_dir"/}: ${arch_list[*]}"
done
echo "hip-compile-check: ${#objects[@]} HIP objects compiled for ${arch_list[*]} and linked"

# ---- the portability header compiles for both vendors ------------------------------
# A kernel using every helper of backends/cuda_hip/core/gpu_portability.hpp, built
# with the build's HIP compiler for each AMD architecture and, when nvcc
# exists, for NVIDIA.
cat >"$scratch/portability.inc" <<'EOF'
#include "backends/cuda_hip/core/gpu_portability.hpp"
__global__ void subgroup_reduce(const double* in, double* sums, double* total, int n) {
  using namespace ppkit::gpu;
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  double v = i < n ? in[i] : 0.0;
  v = subgroup_sum(v);
  const double first = shfl(v, 0, kSubgroupWidth);
  const double down = shfl_down(first, 1u, kSubgroupWidth);
  warp_sync();
  if (subgroup_lane() == 0) {
    sums[blockIdx.x * (blockDim.x / kSubgroupWidth) + subgroup_in_block()] = down;
    atomic_add(total, v);
  }
}
EOF
cp "$scratch/portability.inc" "$scratch/portability.hip"
hip_arch_flags=()
for a in "${arch_list[@]}"; do hip_arch_flags+=("--offload-arch=$a"); done
read -r -a hip_flag_list <<<"$hip_flags"
"$hip_compiler" "${hip_flag_list[@]}" -x hip -std=c++17 -O3 -Wall -Wextra -Werror -I. \
  "${hip_arch_flags[@]}" -c "$scratch/portability.hip" -o "$scratch/portability_hip.o"
echo "hip-compile-check: gpu_portability.hpp compiles for ${arch_list[*]}"
nvcc_bin=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; } || true)
if [ -n "$nvcc_bin" ]; then
  cp "$scratch/portability.inc" "$scratch/portability.cu"
  "$nvcc_bin" -std=c++17 -I. -Werror=all-warnings -gencode arch=compute_80,code=sm_80 \
    -gencode arch=compute_90,code=sm_90 -c "$scratch/portability.cu" -o "$scratch/portability_cuda.o"
  echo "hip-compile-check: gpu_portability.hpp compiles with nvcc for sm_80 and sm_90"
fi
