#!/usr/bin/env bash
# Collects a GPU build's executables and the shared libraries they need beyond
# the system's (libppkit, Kokkos, Kokkos Kernels) into one relocatable folder,
# so a build made on a workstation can run on a GPU node without a toolchain:
#   scripts/gpu-bundle.sh build/h100 bundle-h100
set -euo pipefail
build=${1:?usage: gpu-bundle.sh BUILD_DIR OUT_DIR}
out=${2:?usage: gpu-bundle.sh BUILD_DIR OUT_DIR}
kokkos_lib=$(sed -n "s/^Kokkos_DIR:PATH=\(.*\)\/cmake\/Kokkos$/\1/p" "$build/CMakeCache.txt")
rm -rf "$out" && mkdir -p "$out/bin" "$out/lib"
find "$build" -type f -executable \( -name ppkit -o -name 'ppkit_*_tests' -o -name 'ppkit_bench_*' \
     -o -name 'ppkit_example_*' -o -name 'ppkit_*_mpi*_test' \) -exec cp {} "$out/bin/" \;
cp -a "$build"/libppkit.so* "$out/lib/"
# The Fortran module's library (the Fortran examples), when the build has it.
cp -a "$build"/fortran/libppkit_fortran.so* "$out/lib/" 2>/dev/null || true
[ -n "$kokkos_lib" ] && cp -a "$kokkos_lib"/lib*.so* "$out/lib/"
# Debian-only shared libraries a GPU node's distribution may lack.
for exe in "$out"/bin/*; do
  ldd "$exe" | awk '/libbenchmark|libfmt|libcudart/ {print $3}'
done | sort -u | while read -r lib; do [ -f "$lib" ] && cp -L "$lib" "$out/lib/"; done
strip --strip-unneeded "$out"/bin/* "$out"/lib/*.so* 2>/dev/null || true
du -sh "$out"
