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
# PPKIT_SANITIZE_TOOLS (default "memcheck racecheck initcheck") and
# PPKIT_SANITIZE_TIMEOUT (seconds per executable and tool, default 150) adjust it.
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
status=0
for exe in "$bundle"/bin/ppkit_*_tests; do
  name=$(basename "$exe")
  # Executables without any CUDA variant test are skipped.
  if ! "$exe" --gtest_list_tests --gtest_filter="$filter" 2>/dev/null | grep -q '^  '; then
    echo "$name: no CUDA variant tests" | tee -a "$out/summary.txt"
    continue
  fi
  for tool in $tools; do
    case $tool in
      memcheck) options=(--tool memcheck --leak-check full) ;;
      racecheck) options=(--tool racecheck --racecheck-report analysis) ;;
      initcheck) options=(--tool initcheck) ;;
      *) echo "unknown tool '$tool'"; exit 2 ;;
    esac
    log="$out/$name.$tool.log"
    start=$(date +%s)
    timeout "$limit" "$sanitizer" "${options[@]}" --error-exitcode 99 --print-limit 50 \
      "$exe" --gtest_filter="$filter" --gtest_brief=1 > "$log" 2>&1
    rc=$?
    seconds=$(( $(date +%s) - start ))
    errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' "$log" | tail -n 1)
    note=""
    [ "$rc" = 124 ] && note=", timed out after ${limit} s"
    [ -z "$errors" ] && errors="?"
    line="$name $tool: $errors errors (exit $rc, ${seconds} s$note)"
    echo "$line" | tee -a "$out/summary.txt"
    { [ "$errors" = 0 ] && [ "$rc" = 0 ]; } || status=1
  done
done
exit $status
