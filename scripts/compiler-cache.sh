# Sourced by the build scripts: compile through ccache when it is installed,
# with paths taken relative to the repository, so a second build of the same
# sources (another clone, another preset with the same flags) reuses objects.
# `. scripts/compiler-cache.sh nvcc` for builds whose C++ compiler is Kokkos'
# nvcc_wrapper: ccache's direct mode has returned stale objects there after a
# header changed (a registry entry laid out by the old header crashed the
# programs), so those builds hash the preprocessed source instead
# (CCACHE_NODIRECT), which is slower but follows every header.
if command -v ccache >/dev/null 2>&1; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
  export CMAKE_CUDA_COMPILER_LAUNCHER=ccache
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR=1
  export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-include_file_mtime,include_file_ctime,time_macros}"
  if [ "${1:-}" = nvcc ]; then export CCACHE_NODIRECT=1; fi
fi
