#!/usr/bin/env bash
# Reproduces the figures of docs/results/h200.md on an H200 node, one part per
# call (each fits in a few minutes):
#   scripts/h200-measure.sh build|tests|compare-default|compare-large|bench|sph
# Inputs (defaults): KOKKOS_ROOT=.deps/kokkos-cuda (Kokkos 4 with CUDA+OpenMP,
# HOPPER90), PPKIT_DEPS_PREFIX=.deps/hostdeps/usr (see scripts/gpu-build.sh),
# PPKIT_OCL_ICD_DEB (an ocl-icd-libopencl1 .deb if the node has no OpenCL loader),
# PPKIT_SPHERIC_TEST2_DATA (the SPHERIC test 2 measurements). Output in $OUT.
set -uo pipefail
part=${1:?usage: h200-measure.sh build|tests|compare-default|compare-large|bench|sph}
export OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
kokkos=${KOKKOS_ROOT:-.deps/kokkos-cuda}
deps=${PPKIT_DEPS_PREFIX:-.deps/hostdeps/usr}
bundle=build/bundle-h100
export PPKIT_OPENCL_DEVICE=${PPKIT_OPENCL_DEVICE:-NVIDIA}  # the GPU, not PoCL on the host
ppkit=$bundle/bin/ppkit
case $part in
  build) scripts/gpu-build.sh "$kokkos" "$deps" build/h100 "$bundle" h100 ;;
  tests) scripts/gpu-suite.sh "$bundle" info tests ;;
  compare-default)
    PPKIT_COMPARE_VARIANTS='cuda/*,kokkos-cuda/*,kokkos-openmp/*,opencl/*' scripts/gpu-suite.sh "$bundle" compare-default ;;
  compare-large)
    # Paper sizes: GPU variants only (a single CPU thread would take hours).
    PPKIT_COMPARE_VARIANTS='cuda/*,kokkos-cuda/*,opencl/*' scripts/gpu-suite.sh "$bundle" compare-large ;;
  bench)
    PPKIT_BENCH_FILTER='-.*kokkos-(serial|openmp).*' PPKIT_FDTD_BENCH_SIZES=256,512,768 \
      scripts/gpu-suite.sh "$bundle" bench ;;
  sph)
    # SPHERIC test 2 at dp = 0.02 m against the measurements, and step time over
    # 10,000 steps with and without renumbering.
    LD_LIBRARY_PATH="$bundle/lib:${LD_LIBRARY_PATH:-}" "$ppkit" sph dambreak --dp 0.02 --t-end 1.5 \
      --variant cuda/symplectic-float4 --probes "$OUT/sph_dambreak_dp0.02.csv" --quiet \
      > "$OUT/sph_dambreak.txt" 2>&1; tail -n 5 "$OUT/sph_dambreak.txt"
    for reorder in 1 never; do
      LD_LIBRARY_PATH="$bundle/lib:${LD_LIBRARY_PATH:-}" "$ppkit" sph step-history --particles 1000000 \
        --steps 10000 --variant cuda/symplectic-float4 --reorder-every $reorder \
        --csv "$OUT/sph_step_history_$reorder.csv" > "$OUT/sph_step_history_$reorder.txt" 2>&1
      tail -n 3 "$OUT/sph_step_history_$reorder.txt"
    done ;;
  *) echo "unknown part '$part' (valid: build tests compare-default compare-large bench sph)"; exit 2 ;;
esac
# Pack the output folder into one archive (some runners return few files).
if [ "${PPKIT_PACK_OUT:-0}" = 1 ]; then
  tar czf /tmp/ppkit-gpu-out.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/ppkit-gpu-out.tgz "$OUT/gpu-out-$part.tgz"
fi
