#!/usr/bin/env bash
# Times DualSPHysics v5.0 and ppkit on the same SPHERIC test 2 dam break in one run, and
# reports both in the same unit: wall time of the stepping loop / (steps x all particles,
# boundary included), in ns per particle per step.
#
# Usage: scripts/dualsphysics-beside.sh DSPH_DIR [BUNDLE_DIR]
#   DSPH_DIR    the folder scripts/dualsphysics-build.sh lays out (DualSPHysics5.0_linux64,
#               GenCase_linux64, optionally lib/ with fallback shared libraries)
#   BUNDLE_DIR  ppkit's GPU bundle (bin/ppkit, lib/), default build/bundle-h100
# Environment:
#   OUT            results folder (default ./dualsphysics-beside-out): logs, ppkit's step CSVs,
#                  DualSPHysics' Run.csv, dualsphysics_beside.json and .md
#   WORK           scratch folder for the generated cases (default: a new one under /tmp,
#                  removed at the end; the 4.36 M case file takes about 190 MB)
#   DSPH_DPS       particle spacings, default "0.01 0.00595": 1,047,844 and 4,362,495 particles
#   DSPH_STEPS     steps per run, default 2000 (both codes)
#   DSPH_DEVICE    DualSPHysics' device option, default -gpu:0 (-cpu for a check without a GPU)
#   DSPH_OPTS      extra DualSPHysics options (default none: its run script's options)
#   PPKIT_VARIANT  ppkit's sph.step variant, default cuda/symplectic-float4
#
# The case is perf/sph/dualsphysics/spheric_test2_Def.xml: ppkit's make_spheric_dambreak
# geometry (the same lattice points: GenCase's particle count equals ppkit's at a given dp) and
# ppkit's default physics. DualSPHysics runs with the options of its examples' run scripts
# (-gpu -svres, timers on), no particle output while stepping (-sv:none, TimeOut beyond the
# end) and -nsteps to stop after DSPH_STEPS steps. Its figure is "Simulation Runtime" (the
# stepping loop, after case loading and set-up) / ("Steps of simulation" x "Particles of
# simulation (initial)"). ppkit's is the sum of `ppkit sph step-history`'s per-step wall times
# (each from before step() to its return; the step ends by reading the time-step maxima back)
# / (steps x particles), at the same dp; both start from rest at t = 0.
set -euo pipefail

if [[ $# -lt 1 ]]; then
  sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
DSPH=$(cd "$1" && pwd)
BUNDLE=${2:-build/bundle-h100}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
OUT=${OUT:-$PWD/dualsphysics-beside-out}
DPS=${DSPH_DPS:-0.01 0.00595}
STEPS=${DSPH_STEPS:-2000}
DEVICE=${DSPH_DEVICE:--gpu:0}
EXTRA=${DSPH_OPTS:-}
VARIANT=${PPKIT_VARIANT:-cuda/symplectic-float4}
CASE_XML=$REPO/perf/sph/dualsphysics/spheric_test2_Def.xml
[[ -f $CASE_XML ]] || CASE_XML=$DSPH/spheric_test2_Def.xml

die() {
  echo "error: $*" >&2
  exit 1
}
[[ -x $DSPH/DualSPHysics5.0_linux64 ]] ||
  die "$DSPH/DualSPHysics5.0_linux64 not found; build it with scripts/dualsphysics-build.sh"
[[ -x $DSPH/GenCase_linux64 ]] || die "$DSPH/GenCase_linux64 not found (DualSPHysics' bin/linux)"
[[ -f $CASE_XML ]] || die "case file spheric_test2_Def.xml not found in the repository or $DSPH"
[[ -x $BUNDLE/bin/ppkit ]] || die "$BUNDLE/bin/ppkit not found; pass ppkit's bundle folder"
[[ $STEPS =~ ^[1-9][0-9]*$ ]] || die "DSPH_STEPS '$STEPS' must be a positive whole number"
BUNDLE=$(cd "$BUNDLE" && pwd)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
if [[ -z ${WORK:-} ]]; then
  WORK=$(mktemp -d /tmp/dsph-beside.XXXXXX)
  trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"

# DualSPHysics and GenCase need libgomp; lib/ holds a copy for a system without it.
dsph_env=()
linked=$({ ldd "$DSPH/DualSPHysics5.0_linux64"; ldd "$DSPH/GenCase_linux64"; } 2>&1 || true)
if [[ -d $DSPH/lib && $linked == *"not found"* ]]; then
  dsph_env=(env "LD_LIBRARY_PATH=$DSPH/lib:${LD_LIBRARY_PATH:-}")
fi
ppkit() { LD_LIBRARY_PATH="$BUNDLE/lib:${LD_LIBRARY_PATH:-}" "$BUNDLE/bin/ppkit" "$@"; }

# Value after the dotted label of DualSPHysics' summary ("Steps of simulation.....: 2000").
summary_value() { sed -n "s/^$2[ .]*: *\([-0-9.eE+]*\).*/\1/p" "$1" | tail -n 1; }

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || true)
echo "GPU: ${gpu:-none found}; DualSPHysics $DEVICE $EXTRA; ppkit $VARIANT; $STEPS steps per run"
rows=()
md_rows=()
for dp in $DPS; do
  tag=dp$dp
  case_dir=$WORK/$tag
  rm -rf "$case_dir"
  mkdir -p "$case_dir"
  cp "$CASE_XML" "$case_dir/spheric_test2_Def.xml"

  # 1. GenCase writes the particles (not timed).
  "${dsph_env[@]}" "$DSPH/GenCase_linux64" "$case_dir/spheric_test2_Def" "$case_dir/spheric_test2" \
    -dp:"$dp" > "$OUT/gencase_$tag.log" 2>&1 ||
    die "GenCase failed for dp $dp; see $OUT/gencase_$tag.log"
  total=$(sed -n 's/^Total particles: \([0-9]*\) (bound=\([0-9]*\).*fluid=\([0-9]*\)).*/\1 \2 \3/p' \
    "$OUT/gencase_$tag.log" | tail -n 1)
  [[ -n $total ]] || die "no 'Total particles' line in $OUT/gencase_$tag.log"
  read -r dsph_np dsph_nb dsph_nf <<< "$total"

  # 2. DualSPHysics: its run script's options, no output while stepping, DSPH_STEPS steps.
  # shellcheck disable=SC2086  # DSPH_OPTS is a list of options
  "${dsph_env[@]}" "$DSPH/DualSPHysics5.0_linux64" $DEVICE "$case_dir/spheric_test2" \
    "$case_dir/out" -dirdataout data -svres -sv:none -tmax:1.5 -tout:100 \
    -nsteps:"$STEPS" $EXTRA > "$OUT/dualsphysics_$tag.out" 2>&1 ||
    die "DualSPHysics failed for dp $dp; see $OUT/dualsphysics_$tag.out"
  [[ -f $case_dir/out/Run.csv ]] && cp "$case_dir/out/Run.csv" "$OUT/dualsphysics_${tag}_Run.csv"
  log=$OUT/dualsphysics_$tag.out
  grep -q '^\[Simulation finished' "$log" || die "DualSPHysics did not finish the run; see $log"
  dsph_sim=$(summary_value "$log" 'Simulation Runtime')
  dsph_steps=$(summary_value "$log" 'Steps of simulation')
  dsph_n=$(summary_value "$log" 'Particles of simulation (initial)')
  dsph_per_phys=$(summary_value "$log" 'Runtime per physical second')
  dsph_out=$(summary_value "$log" 'Excluded particles')
  [[ -n $dsph_sim && -n $dsph_steps && -n $dsph_n ]] ||
    die "could not read runtime, steps and particles from $log"
  [[ $dsph_n == "$dsph_np" ]] ||
    die "DualSPHysics loaded $dsph_n particles, GenCase wrote $dsph_np; see $log"
  dsph_ns=$(awk -v t="$dsph_sim" -v s="$dsph_steps" -v n="$dsph_n" \
    'BEGIN { printf "%.3f", t * 1e9 / (s * n) }')
  dsph_t=$(awk -v t="$dsph_sim" -v r="$dsph_per_phys" 'BEGIN { printf "%.5f", (r > 0 ? t / r : 0) }')
  echo "dp $dp  DualSPHysics: $dsph_n particles ($dsph_nb boundary, $dsph_nf fluid), $dsph_steps steps" \
    "in $dsph_sim s (t = $dsph_t s, $dsph_out excluded): $dsph_ns ns/particle/step"

  # 3. ppkit at the same dp (the same particles), the same number of steps.
  csv=$OUT/ppkit_history_$tag.csv
  ppkit sph step-history --dp "$dp" --steps "$STEPS" --variant "$VARIANT" --csv "$csv" \
    > "$OUT/ppkit_$tag.txt" 2>&1 || die "ppkit sph step-history failed; see $OUT/ppkit_$tag.txt"
  pp_n=$(sed -n 's/^SPHERIC test 2 dam break[^:]*: \([0-9.e+]*\) particles.*/\1/p' \
    "$OUT/ppkit_$tag.txt" | head -n 1)
  [[ -n $pp_n ]] || die "no particle count in $OUT/ppkit_$tag.txt"
  read -r pp_steps pp_sum pp_t < <(awk -F, 'NR > 1 { s += $3; n++; t = $2 }
    END { printf "%d %.9f %.6f\n", n, s, t }' "$csv")
  pp_ns=$(awk -v t="$pp_sum" -v s="$pp_steps" -v n="$pp_n" \
    'BEGIN { printf "%.3f", t * 1e9 / (s * n) }')
  echo "dp $dp  ppkit:        $(printf '%.0f' "$pp_n") particles, $pp_steps steps in" \
    "$(printf '%.3f' "$pp_sum") s (t = $pp_t s): $pp_ns ns/particle/step"
  if [[ $(printf '%.0f' "$pp_n") != "$dsph_n" ]]; then
    echo "note: the particle counts differ ($dsph_n DualSPHysics, $pp_n ppkit)"
  fi
  ratio=$(awk -v a="$dsph_ns" -v b="$pp_ns" 'BEGIN { printf "%.2f", a / b }')
  rows+=("$(printf '{"dp": %s, "dualsphysics": {"particles": %s, "boundary": %s, "fluid": %s, "steps": %s, "simulation_runtime_s": %s, "simulated_time_s": %s, "excluded": %s, "ns_per_particle_step": %s}, "ppkit": {"particles": %.0f, "steps": %s, "step_wall_sum_s": %s, "simulated_time_s": %s, "ns_per_particle_step": %s, "variant": "%s"}, "dualsphysics_over_ppkit": %s}' \
    "$dp" "$dsph_n" "$dsph_nb" "$dsph_nf" "$dsph_steps" "$dsph_sim" "$dsph_t" "${dsph_out:-0}" \
    "$dsph_ns" "$pp_n" "$pp_steps" "$pp_sum" "$pp_t" "$pp_ns" "$VARIANT" "$ratio")")
  md_rows+=("| $dp | $dsph_n | $dsph_steps | $dsph_ns | $(printf '%.0f' "$pp_n") | $pp_steps | $pp_ns | ${ratio}x |")
done

{
  echo "{"
  echo "  \"workload\": \"SPHERIC test 2 dam break (perf/sph/dualsphysics/spheric_test2_Def.xml)\","
  echo "  \"unit\": \"wall time of the stepping loop / (steps x all particles, boundary included), ns\","
  echo "  \"gpu\": \"${gpu}\","
  echo "  \"dualsphysics\": \"$(grep -h -m 1 '^DualSPHysics5 v' "$OUT"/dualsphysics_*.out | head -n 1)\","
  echo "  \"dualsphysics_device\": \"$DEVICE $EXTRA\","
  echo "  \"runs\": ["
  for ((i = 0; i < ${#rows[@]}; ++i)); do
    sep=","
    ((i == ${#rows[@]} - 1)) && sep=""
    echo "    ${rows[$i]}$sep"
  done
  echo "  ]"
  echo "}"
} > "$OUT/dualsphysics_beside.json"
{
  echo "SPHERIC test 2 dam break, GPU: ${gpu:-none}; ns per particle per step = wall time of the"
  echo "stepping loop / (steps x all particles, boundary included); ppkit variant $VARIANT."
  echo
  echo "| dp [m] | DualSPHysics particles | steps | DualSPHysics ns | ppkit particles | steps | ppkit ns | DualSPHysics / ppkit |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
  printf '%s\n' "${md_rows[@]}"
} > "$OUT/dualsphysics_beside.md"
cat "$OUT/dualsphysics_beside.md"
