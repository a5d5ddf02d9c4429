#!/usr/bin/env bash
# The test command: installs what is missing, builds the `host` preset (Kokkos
# Serial + OpenMP, OpenCL on PoCL, CUDA compiled when nvcc exists) and runs the
# whole suite through CTest. Extra arguments go to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-debian.sh
# Kokkos with OpenMP for the Kokkos rows on every core (built once, cached
# outside the clone); empty when it cannot be built: Debian's Serial Kokkos.
Kokkos_ROOT=$(scripts/setup-kokkos-openmp.sh)
[ -z "$Kokkos_ROOT" ] || export Kokkos_ROOT
scripts/setup-python.sh  # the Python package's tests run in the same CTest
. scripts/compiler-cache.sh
preset=${PPKIT_PRESET:-host}
cmake --preset "$preset"
cmake --build --preset "$preset"
ctest --preset "$preset" "$@"
