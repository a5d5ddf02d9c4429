#!/usr/bin/env bash
# compute-sanitizer over the tests of every CUDA variant (hand-tuned cuda/* and
# kokkos-cuda/*) of a GPU bundle (scripts/gpu-bundle.sh):
#   scripts/gpu-sanitize.sh BUNDLE_DIR OUTDIR
# For each test executable and each tool (memcheck with leak checking,
# racecheck, initcheck) it writes OUTDIR/<executable>.<tool>.log and prints one
# summary line "<executable> <tool>: N errors (exit S, T s)"; the summary is also
# in OUTDIR/summary.txt. Only the parameterised variant tests of CUDA variants
# run (gtest filter on "cuda"); their sizes are the CPU suite's, small enough
# that the whole script takes about 5 minutes on an H200.
# Environment: PPKIT_SANITIZE_TOOLS (default "memcheck racecheck initcheck"),
# PPKIT_SANITIZE_TIMEOUT (seconds per executable and tool, default 150),
# PPKIT_SANITIZE_JOBS (runs at once, default 1), PPKIT_SANITIZE_SHARDS (each
# executable's tests split into that many gtest shards, default 1).
# Exit status: 0 when every run reported 0 errors, 1 otherwise.
set -uo pipefail
bundle=$(cd "${1:?usage: gpu-sanitize.sh BUNDLE_DIR OUTDIR}" && pwd)
out=${2:?usage: gpu-sanitize.sh BUNDLE_DIR OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
sanitizer=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
[ -x "$sanitizer" ] || { echo "compute-sanitizer not found (set COMPUTE_SANITIZER)"; exit 2; }
tools=${PPKIT_SANITIZE_TOOLS:-memcheck racecheck initcheck}
limit=${PPKIT_SANITIZE_TIMEOUT:-150}
filter='*cuda*'
: > "$out/summary.txt"
jobs=${PPKIT_SANITIZE_JOBS:-1}
shards=${PPKIT_SANITIZE_SHARDS:-1}

# The FDTD physics validations (cavity resonances, CPML reflection, dipole
# fields) run thousands of steps through the same kernels as the tests that
# compare every variant with the serial reference; under a sanitizer every
# launch costs milliseconds, so only those comparisons run there (every
# kernel, problem feature and precision is among them).
filter_of() {
  case $(basename "$1") in
    ppkit_fdtd_tests) echo "${PPKIT_SANITIZE_FDTD_FILTER:-*SerialReference*cuda*}" ;;
    *) echo "$filter" ;;
  esac
}

# One executable under one tool; prints its summary line.
sanitize_one() {
  local exe=$1 tool=$2 shard=$3 name options log start rc seconds errors note
  name=$(basename "$exe")
  [ "$shards" -gt 1 ] && name="$name.shard$shard"
  case $tool in
    memcheck) options=(--tool memcheck --leak-check full) ;;
    racecheck) options=(--tool racecheck --racecheck-report analysis) ;;
    initcheck) options=(--tool initcheck) ;;
  esac
  log="$out/$name.$tool.log"
  start=$(date +%s)
  GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$shard \
    timeout "$limit" "$sanitizer" "${options[@]}" --error-exitcode 99 --print-limit 50 \
    "$exe" --gtest_filter="$(filter_of "$exe")" --gtest_brief=1 > "$log" 2>&1
  rc=$?
  seconds=$(( $(date +%s) - start ))
  # memcheck/initcheck: "ERROR SUMMARY: N errors"; racecheck: "RACECHECK
  # SUMMARY: H hazards displayed (N errors, W warnings)".
  errors=$(sed -n -e 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' \
                  -e 's/.*RACECHECK SUMMARY: .*(\([0-9]*\) errors.*/\1/p' "$log" | tail -n 1)
  note=""
  [ "$rc" = 124 ] && note=", timed out after ${limit} s"
  [ -z "$errors" ] && errors="?"
  echo "$name $tool: $errors errors (exit $rc, ${seconds} s$note)"
}

for tool in $tools; do
  case $tool in memcheck|racecheck|initcheck) ;; *) echo "unknown tool '$tool' (valid: memcheck racecheck initcheck)"; exit 2 ;; esac
done
# Up to PPKIT_SANITIZE_JOBS runs at once (the tools are mostly host-bound).
for exe in "$bundle"/bin/ppkit_*_tests; do
  name=$(basename "$exe")
  # Executables without any CUDA variant test are skipped.
  if ! "$exe" --gtest_list_tests --gtest_filter="$(filter_of "$exe")" 2>/dev/null | grep -q '^  '; then
    echo "$name: no CUDA variant tests" | tee -a "$out/summary.txt"
    continue
  fi
  for tool in $tools; do
    for ((shard = 0; shard < shards; ++shard)); do
      while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
      sanitize_one "$exe" "$tool" "$shard" | tee -a "$out/summary.txt" &
    done
  done
done
wait
grep -v 'no CUDA variant tests' "$out/summary.txt" | grep -qv ': 0 errors (exit 0,' && exit 1
exit 0
