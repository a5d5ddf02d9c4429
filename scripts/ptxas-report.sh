#!/usr/bin/env bash
# Compiler report of ppkit's FEM kernels: registers, stack frame (local
# memory) and spills per kernel as ptxas reports them (-Xptxas -v), for a
# configured CUDA build (Makefile generator), e.g. the h100 target's build/h100.
#
#   scripts/ptxas-report.sh BUILD_DIR [SOURCE...]
#   PPKIT_PTXAS_ARCH=sm_80 scripts/ptxas-report.sh BUILD_DIR [SOURCE...]
#
# PPKIT_PTXAS_ARCH compiles the .cu sources for that architecture instead of
# the build's (e.g. the sm_80 path of a kernel from an sm_90 build).
#
# Default sources: backends/cuda/fem/assemble_{cuda,cluster}_kernels.cu (nvcc with the
# ppkit target's CUDA flags) and src/ppkit/fem/assemble_kokkos_*.cpp (the
# build's C++ compiler and flags: nvcc_wrapper in a Kokkos-CUDA build). Object
# files go to a temporary directory; the build is not touched. docs/fem.md,
# "Compiler report of the CUDA kernels", quotes this report; a stack frame in
# any kernel but thread-per-element's is a register array indexed at run time.
set -euo pipefail
build=$(realpath "${1:?usage: scripts/ptxas-report.sh BUILD_DIR [SOURCE...]}")
shift
root=$(cd "$(dirname "$0")/.." && pwd)
flags=$build/CMakeFiles/ppkit.dir/flags.make
[[ -f $flags ]] || { echo "ptxas-report: $flags not found (configure a CUDA build with the Makefile generator first)" >&2; exit 2; }
value() { sed -n "s/^$1 = //p" "$flags"; }
cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
nvcc=$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
sources=("$@")
if [[ ${#sources[@]} -eq 0 ]]; then
  sources=("$root/backends/cuda/fem/assemble_cuda_kernels.cu"
           "$root/backends/cuda/fem/assemble_cluster_kernels.cu" "$root"/src/ppkit/fem/assemble_kokkos_*.cpp)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for source in "${sources[@]}"; do
  source=$(realpath "$source")
  echo "== ${source#"$root"/}"
  if [[ $source == *.cu ]]; then
    [[ -n $nvcc ]] || { echo "ptxas-report: $build has no CUDA compiler" >&2; exit 2; }
    cuda_flags=$(value CUDA_FLAGS)
    if [[ -n ${PPKIT_PTXAS_ARCH:-} ]]; then
      cuda_flags=$(sed -E 's/--generate-code=[^ ]+//g' <<<"$cuda_flags")
      cuda_flags="$cuda_flags -arch=$PPKIT_PTXAS_ARCH"
    fi
    # shellcheck disable=SC2046,SC2086
    (cd "$build" && "$nvcc" $(value CUDA_DEFINES) $(value CUDA_INCLUDES) $cuda_flags \
      -Xptxas -v -c "$source" -o "$work/object.o") 2>&1
  else
    # shellcheck disable=SC2046
    (cd "$build" && "$cxx" $(value CXX_DEFINES) $(value CXX_INCLUDES) $(value CXX_FLAGS) \
      -Xptxas -v -c "$source" -o "$work/object.o") 2>&1
  fi | awk -v q="'" '
    /Compiling entry function/ { split($0, part, q); name = part[2] }
    /bytes stack frame/ { stack = $1; spill = $5 + $9 }
    /Used [0-9]+ registers/ && name != "" {
      for (i = 1; i < NF; ++i) if ($i == "Used") registers = $(i + 1)
      print registers "\t" stack "\t" spill "\t" name; name = "" }' |
    c++filt | awk -F'\t' '$1 > 16 {
      n = $4; sub(/^void /, "", n); gsub(/\(anonymous namespace\)::/, "", n); sub(/\([^()]*\)$/, "", n)
      gsub(/ppkit::fem::(kokkos_assembly|assembly_kernels)::/, "", n)
      gsub(/Kokkos::(Impl::)?/, "", n); sub(/^cuda_parallel_launch_[a-z_]*</, "", n)
      printf "%4d registers  %5d B stack  %4d B spilled  %s\n", $1, $2, $3, substr(n, 1, 150) }' | sort -u
done
