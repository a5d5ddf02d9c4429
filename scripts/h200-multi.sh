#!/usr/bin/env bash
# The several-GPU FDTD study of docs/results/h200-multi.md on one host with 2
# (or more) GPUs, one MPI rank per GPU, in a few minutes:
#   scripts/h200-multi.sh
# Needs the bundle built with MPI: `scripts/h200-measure.sh build` (gpu-build.sh
# enables MPI when mpicxx is found). Writes under $OUT (default ./gpu-out):
# machine-multi.txt, fdtd-mpi-test*.txt (MPI slabs equal the serial run on the
# GPUs), fdtd-scaling*.{txt,json} (raw), sem-mpi-*.{txt,json} (the Nekbone
# solve across the GPUs) and h200-multi.md (tables).
# Environment: PPKIT_MULTI_PARTS ("fdtd sem": which studies run),
# PPKIT_BUNDLE (build/bundle-h100), PPKIT_MULTI_RANKS (all GPUs),
# PPKIT_MULTI_STEPS (100), PPKIT_MULTI_STRONG (768), PPKIT_MULTI_WEAK (512).
# NCCL / NVLink multicast settings are left as the machine sets them.
set -uo pipefail
export OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
bundle=${PPKIT_BUNDLE:-build/bundle-h100}
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # containers run as root
ppkit=$bundle/bin/ppkit
mpi_test=$bundle/bin/ppkit_fdtd_mpi_test
[ -x "$mpi_test" ] || mpi_test=build/h100/tests/fdtd/ppkit_fdtd_mpi_test
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
ranks=${PPKIT_MULTI_RANKS:-$gpus}
steps=${PPKIT_MULTI_STEPS:-100}
strong=${PPKIT_MULTI_STRONG:-768}
weak=${PPKIT_MULTI_WEAK:-512}
parts=${PPKIT_MULTI_PARTS:-fdtd sem}
start=$(date +%s)
[ -x "$ppkit" ] || { echo "no $ppkit: run scripts/h200-measure.sh build first"; exit 2; }
[ -x "$mpi_test" ] || { echo "no ppkit_fdtd_mpi_test: the build has no MPI (see build/h100.configure*.log)"; exit 2; }
if [ "$ranks" -lt 1 ]; then echo "no GPU found"; exit 2; fi

{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  mpirun --version 2>&1 | head -n 1
  ompi_info 2>/dev/null | grep -iE 'MPI extensions|cuda' | sed 's/^ *//'
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,pci.bus_id --format=csv
  nvidia-smi topo -m
  env | grep -E '^(NCCL|UCX|OMPI_MCA)_' | sort
} > "$OUT/machine-multi.txt" 2>&1
cat "$OUT/machine-multi.txt"

# One rank per GPU (the ranks pick GPU local_rank % visible GPUs themselves).
mca=()
launch() { timeout "${2:-300}" mpirun -np "$1" --bind-to none ${mca[@]+"${mca[@]}"} "${@:3}"; }

test_status=skipped scaling_status=0 direct_status=skipped
if [[ " $parts " == *" fdtd "* ]]; then
  # 1. Correctness on the GPUs: slabs equal the serial run, overlap on and off,
  # the halo path the library picks and the staged path. In containers where the
  # shared-memory transport cannot use cross-process copies, retry without them.
  echo "=== MPI slabs vs the serial run ($ranks ranks)"
  if ! launch "$ranks" 300 "$mpi_test" > "$OUT/fdtd-mpi-test.txt" 2>&1; then
    mca=(--mca btl_vader_single_copy_mechanism none)
    echo "first run failed (see fdtd-mpi-test-first.txt); retrying with ${mca[*]}"
    mv "$OUT/fdtd-mpi-test.txt" "$OUT/fdtd-mpi-test-first.txt"
    launch "$ranks" 300 "$mpi_test" > "$OUT/fdtd-mpi-test.txt" 2>&1
  fi
  test_status=$?
  grep -E '^(PASS|FAIL)' "$OUT/fdtd-mpi-test.txt" | grep fields
  echo "exit status $test_status"
  cuda_aware=no
  grep -q 'halo cuda-aware' "$OUT/fdtd-mpi-test.txt" && cuda_aware=yes
  # Device pointers handed to an MPI that does not report CUDA support: does it
  # work anyway (e.g. through UCX)? Recorded, not relied on.
  direct_status=skipped
  if [ $cuda_aware = no ] && [ $test_status = 0 ]; then
    launch "$ranks" 90 "$mpi_test" --halo direct > "$OUT/fdtd-mpi-test-direct.txt" 2>&1 \
      && direct_status=passed || direct_status="failed (exit $?)"
    echo "forced device pointers: $direct_status"
  fi

  # 2. Scaling: strong at ${strong}^3, weak at ${weak}^3 per GPU, overlap on and off.
  echo "=== scaling (halo path chosen at run time)"
  scaling=(fdtd scaling --cells "$strong" --weak "$weak" --steps "$steps" --warmup 10 --overlap both)
  echo "mpirun -np $ranks --bind-to none ${mca[*]:+${mca[*]} }$ppkit ${scaling[*]}" > "$OUT/fdtd-scaling.cmd"
  launch "$ranks" 400 "$ppkit" "${scaling[@]}" --json "$OUT/fdtd-scaling.json" \
    > "$OUT/fdtd-scaling.txt" 2>&1
  scaling_status=$?
  cat "$OUT/fdtd-scaling.txt"
  # The other halo path at the full rank count, for comparison.
  other=staged
  if [ $cuda_aware = no ]; then other=$([ "$direct_status" = passed ] && echo direct || echo none); fi
  if [ $other != none ] && [ $(( $(date +%s) - start )) -lt 200 ]; then
    echo "=== scaling, halo $other"
    echo "mpirun -np $ranks --bind-to none ${mca[*]:+${mca[*]} }$ppkit ${scaling[*]} --ranks 1,$ranks --halo $other" \
      > "$OUT/fdtd-scaling-$other.cmd"
    launch "$ranks" 300 "$ppkit" "${scaling[@]}" --ranks "1,$ranks" --halo $other \
      --json "$OUT/fdtd-scaling-$other.json" > "$OUT/fdtd-scaling-$other.txt" 2>&1
    cat "$OUT/fdtd-scaling-$other.txt"
  fi
fi

if [[ " $parts " == *" sem "* ]]; then
  # 3. The SEM Nekbone solve across the GPUs (MPI gather-scatter, docs/sem.md):
  # correctness against the single-process solve, then strong (32x16x16 elements)
  # and weak (16x16x16 per GPU) scaling at N = 7, overlap on and off.
  sem_test=$bundle/bin/ppkit_sem_mpi_test
  if [ -x "$sem_test" ]; then
    echo "=== SEM Nekbone: MPI gather-scatter vs the single-process solve ($ranks ranks)"
    launch "$ranks" 200 "$sem_test" > "$OUT/sem-mpi-test.txt" 2>&1
    echo "exit status $?" | tee -a "$OUT/sem-mpi-test.txt"
    nekbone=(sem nekbone-mpi --order 7 --tol 0 --iterations 200 --repeats 5 --overlap both)
    for study in "strong 32,16,16" "weak 16,16,16"; do
      set -- $study
      echo "mpirun -np $ranks --bind-to none ${mca[*]:+${mca[*]} }$ppkit ${nekbone[*]} --scaling $1 --elements $2" \
        > "$OUT/sem-mpi-$1.cmd"
      launch "$ranks" 200 "$ppkit" "${nekbone[@]}" --scaling "$1" --elements "$2" \
        --json "$OUT/sem-mpi-$1.json" > "$OUT/sem-mpi-$1.txt" 2>&1
      cat "$OUT/sem-mpi-$1.txt"
    done
  fi
fi

# 4. Tables (markdown) from the JSON files (the raw text when python3 is missing).
if [ "$test_status" = skipped ]; then
  :  # no FDTD runs, no FDTD tables
elif ! command -v python3 > /dev/null; then
  { echo "# FDTD MPI slabs on several H200 GPUs of one host"; echo; echo '```';
    cat "$OUT"/machine-multi.txt "$OUT"/fdtd-scaling*.cmd "$OUT"/fdtd-scaling*.txt; echo '```'; } > "$OUT/h200-multi.md"
else python3 - "$OUT" "$ranks" "$test_status" "$direct_status" "${mca[*]}" <<'EOF' > "$OUT/h200-multi.md"
import glob, json, os, sys
out, ranks, test_status, direct_status, mca = sys.argv[1:6]
machine = open(os.path.join(out, "machine-multi.txt")).read()
def first(prefix):
    return next((l.split(":", 1)[1].strip() for l in machine.splitlines() if l.startswith(prefix)), "?")
print("# FDTD MPI slabs on several H200 GPUs of one host\n")
print(f"Date {first('date')}, commit {first('commit')}, {ranks} ranks (one per GPU).\n")
runs = []
main = os.path.join(out, "fdtd-scaling.json")
for path in sorted(glob.glob(os.path.join(out, "fdtd-scaling*.json")), key=lambda p: (p != main, p)):
    data = json.load(open(path))
    cmd = open(path[:-5] + ".cmd").read().strip()
    if not runs:
        print(f"MPI library: {data['mpi_library']}; MPIX_Query_cuda_support: "
              f"{'yes' if data['mpi_reports_cuda_aware'] else 'no'}.\n")
        print("Ranks: " + "; ".join(f"{r}: {d}" for r, d in enumerate(data["ranks"])) + ".\n")
    halo = "halo path chosen at run time" if path == main else "halo path forced: " + path[len(main) - 4:-5]
    print(f"{halo}:\n\n```\n{cmd}\n```\n")
    print("| study | ranks | grid | G cells/s | parallel efficiency | ms/step | halo ms/step (max over ranks) | halo MB/step sent per rank | halo path | overlap |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    for r in data["runs"]:
        eff = "-" if r["parallel_efficiency"] is None else f"{r['parallel_efficiency']:.3f}"
        ov = "-" if r["overlap"] is None else ("on" if r["overlap"] else "off")
        grid = "x".join(str(g) for g in r["grid"])
        print(f"| {r['study']} | {r['ranks']} | {grid} | {r['cells_per_second'] / 1e9:.2f} | {eff} | "
              f"{1e3 * r['seconds_per_step']:.2f} | {r['halo_ms_per_step_max']:.3f} | "
              f"{r['halo_mb_sent_per_step_per_rank']:.1f} | {r['halo_path']} | {ov} |")
    print()
    runs += data["runs"]
print(f"Correctness on the GPUs (`mpirun -np {ranks} ppkit_fdtd_mpi_test`: fields, probes and energy "
      f"vs the serial reference, overlap on and off, chosen and staged halo paths): exit status {test_status}; "
      f"device pointers forced on an MPI without CUDA support: {direct_status}."
      + (f" mpirun options: `{mca}`." if mca else "") + "\n")
print("Machine:\n\n```\n" + machine.strip() + "\n```")
EOF
fi
[ "$test_status" = skipped ] || echo "=== $OUT/h200-multi.md written ($(( $(date +%s) - start )) s)"
{ [ "$test_status" = 0 ] || [ "$test_status" = skipped ]; } && [ "$scaling_status" = 0 ]
