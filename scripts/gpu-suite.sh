#!/usr/bin/env bash
# Runs ppkit's GPU checks and measurements from a bundle (scripts/gpu-bundle.sh)
# on a GPU node and writes logs and reports under $OUT (default ./gpu-out):
#   scripts/gpu-suite.sh BUNDLE [stages...]
# Stages: info tests compare-default compare-large bench (default: all).
# PPKIT_COMPARE_VARIANTS (globs) and PPKIT_BENCH_FILTER (regex, '-' negates)
# narrow what runs, e.g. leave out the single-thread CPU rows at GPU sizes.
# OpenCL on NVIDIA needs an ICD loader; when the node has none, pass a Debian
# ocl-icd-libopencl1 .deb in PPKIT_OCL_ICD_DEB and it is unpacked under /tmp.
set -uo pipefail
bundle=$(cd "${1:?usage: gpu-suite.sh BUNDLE [stages]}" && pwd); shift
stages=${*:-info tests compare-default compare-large bench}
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PPKIT_CLI="$bundle/bin/ppkit"  # the CLI the reliability tests start (not the build's path)
# The SPHERIC test 2 measurements of this checkout (the bundle's compiled-in source path may not exist here).
export PPKIT_SPHERIC_TEST2_DATA=${PPKIT_SPHERIC_TEST2_DATA:-$(cd "$(dirname "$0")/.." && pwd)/data/spheric_test2}
export OMP_PROC_BIND=spread OMP_PLACES=threads

# NVIDIA's OpenCL driver needs an ICD entry; a loader comes from the node or the .deb.
source "$(dirname "$0")/gpu-opencl-env.sh"

{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv; } \
  > "$OUT/machine.txt" 2>&1
status=0
for stage in $stages; do
  echo "=== $stage"
  case $stage in
    info) "$bundle/bin/ppkit" info | tee "$OUT/info.txt"; "$bundle/bin/ppkit" info --json > "$OUT/info.json" ;;
    tests)
      for t in "$bundle"/bin/ppkit_*_tests; do
        name=$(basename "$t")
        "$t" --gtest_brief=1 --gtest_output=xml:"$OUT/$name.xml" > "$OUT/$name.log" 2>&1 || status=1
        tail -n 4 "$OUT/$name.log" | sed "s/^/$name: /"
      done ;;
    compare-default) "$bundle/bin/ppkit" compare --default --variants "${PPKIT_COMPARE_VARIANTS:-*}" --out "$OUT/compare-default" --no-plots \
                       > "$OUT/compare-default.txt" 2>&1 || status=1; tail -n 40 "$OUT/compare-default.txt" ;;
    compare-large) "$bundle/bin/ppkit" compare --large --variants "${PPKIT_COMPARE_VARIANTS:-*}" --out "$OUT/compare-large" --no-plots \
                     > "$OUT/compare-large.txt" 2>&1 || status=1; tail -n 40 "$OUT/compare-large.txt" ;;
    bench)
      for b in "$bundle"/bin/ppkit_bench_*; do
        name=$(basename "$b")
        "$b" --benchmark_out="$OUT/$name.json" --benchmark_out_format=json \
             --benchmark_min_time=${PPKIT_BENCH_MIN_TIME:-0.2} --benchmark_filter="${PPKIT_BENCH_FILTER:-.}" > "$OUT/$name.txt" 2>&1 || status=1
        tail -n 20 "$OUT/$name.txt"
      done ;;
    *) echo "unknown stage '$stage' (valid: info tests compare-default compare-large bench)"; status=2 ;;
  esac
done
exit $status
