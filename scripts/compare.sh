#!/usr/bin/env bash
# The main job: installs what is missing, builds the `host` preset and runs
# `ppkit compare` on every backend built in (default: --quick, report in
# compare-report/). Arguments replace the defaults, e.g. scripts/compare.sh --default --out r/
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-debian.sh
# Kokkos with OpenMP for the Kokkos rows on every core (built once, cached
# outside the clone); empty when it cannot be built: Debian's Serial Kokkos.
Kokkos_ROOT=$(scripts/setup-kokkos-openmp.sh)
[ -z "$Kokkos_ROOT" ] || export Kokkos_ROOT
. scripts/compiler-cache.sh
cmake --preset host
cmake --build --preset host
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--quick --out compare-report)
exec build/host/apps/ppkit/ppkit compare "${args[@]}"
