#!/usr/bin/env bash
# Installs ppkit's build and run dependencies from Debian 12 packages when they
# are missing, and says what it installs. Needs root (or sudo) only when
# something is missing.
set -euo pipefail

packages=(
  cmake g++ gfortran make pkg-config ccache
  libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev   # Kokkos + Kokkos Kernels 3.4 (Serial)
  ocl-icd-opencl-dev opencl-clhpp-headers pocl-opencl-icd # OpenCL ICD loader, headers, PoCL (CPU)
  libgtest-dev libbenchmark-dev                            # tests, benchmarks
  libopenmpi-dev openmpi-bin                               # MPI (FDTD slabs)
  libcli11-dev nlohmann-json3-dev libfmt-dev               # CLI, JSON, formatting
  zlib1g-dev libpng-dev                                   # PNG output (zlib), PNG decode in tests
  python3 python3-matplotlib                               # compare report plots
  clang-format                                             # formatting check
  libhdf5-dev                                              # checkpoints (HDF5 C API)
  clang libclang-rt-14-dev                                 # libFuzzer targets (fuzz/)
)
# HIP compile check (AMD gfx906/gfx90a): Debian's ROCm 5.2.
[ "${PPKIT_SETUP_HIP:-0}" = 1 ] && packages+=(hipcc libamdhip64-dev rocm-device-libs binutils)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "ppkit setup: all Debian dependencies present"
  exit 0
fi
echo "ppkit setup: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
