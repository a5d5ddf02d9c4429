#!/usr/bin/env bash
# Reproduces the figures of docs/results/h200.md on an H200 node, one part per
# call (each fits in a few minutes):
#   scripts/h200-measure.sh build|hip-nvidia|embedding|sph-convergence|compare-embedding|tests|compare-default|compare-large|compare-large-fem|bench|bench-goals|sph|sph-large|sph-bench|dualsphysics|fdtd-extra|opencl-fill-probe|sanitize|profile|multi|mpi-one-gpu
# Parts that use one GPU honour CUDA_VISIBLE_DEVICES, so on a machine with two
# GPUs two parts can run side by side (timings are per GPU).
# Inputs (defaults): KOKKOS_ROOT=.deps/kokkos-cuda (Kokkos 4 with CUDA+OpenMP,
# HOPPER90), PPKIT_DEPS_PREFIX=.deps/hostdeps/usr (see scripts/gpu-build.sh),
# PPKIT_OCL_ICD_DEB (an ocl-icd-libopencl1 .deb if the node has no OpenCL loader),
# PPKIT_SPHERIC_TEST2_DATA (the SPHERIC test 2 measurements; default: the
# repository's data/spheric_test2), DSPH_DIR (dualsphysics: the folder
# scripts/dualsphysics-build.sh made, default .dsph, ignored by git). Output in $OUT.
set -uo pipefail
parts='build hip-nvidia embedding sph-convergence compare-embedding tests compare-default compare-large compare-large-fem bench bench-goals sph sph-large sph-bench dualsphysics fdtd-extra opencl-fill-probe sanitize profile multi mpi-one-gpu'
part=${1:?usage: h200-measure.sh PART, one of: $parts}
export OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
kokkos=${KOKKOS_ROOT:-.deps/kokkos-cuda}
deps=${PPKIT_DEPS_PREFIX:-.deps/hostdeps/usr}
bundle=build/bundle-h100
export PPKIT_OPENCL_DEVICE=${PPKIT_OPENCL_DEVICE:-NVIDIA}  # the GPU, not PoCL on the host
ppkit=$bundle/bin/ppkit
case $part in
  build) scripts/gpu-build.sh "$kokkos" "$deps" build/h100 "$bundle" h100 || exit 1 ;;
  tests) scripts/gpu-suite.sh "$bundle" info tests ;;
  hip-nvidia)
    # The HIP variants executed on this NVIDIA GPU (docs/targets.md, "HIP on
    # NVIDIA"): a build with PPKIT_HIP_PLATFORM=nvidia (HIP's headers from
    # PPKIT_HIP_INCLUDE_DIR, default .deps/hip-include: a copy of the hip/
    # folder of Debian's libamdhip64-dev), then ppkit_hip_tests and the HIP
    # instances of the FEM, SEM and SPH suites.
    hip_include=$(cd "${PPKIT_HIP_INCLUDE_DIR:-.deps/hip-include}" && pwd) || exit 1
    PPKIT_EXTRA_CMAKE_ARGS="-DPPKIT_ENABLE_HIP=ON -DPPKIT_HIP_PLATFORM=nvidia -DPPKIT_HIP_INCLUDE_DIR=$hip_include" \
      PPKIT_GPU_TARGETS="ppkit ppkit_hip_tests ppkit_fem_tests ppkit_sem_tests ppkit_sph_tests" \
      scripts/gpu-build.sh "$kokkos" "$deps" build/hip-nvidia build/bundle-hip-nvidia h100 || exit 1
    export LD_LIBRARY_PATH="$PWD/build/bundle-hip-nvidia/lib:${LD_LIBRARY_PATH:-}"
    for suite in hip fem sem sph; do
      timeout 300 build/bundle-hip-nvidia/bin/ppkit_${suite}_tests --gtest_filter="$([ $suite = hip ] && echo '*' || echo '*hip*')" \
        --gtest_brief=1 --gtest_output=xml:"$OUT/hip_nvidia_${suite}.xml" > "$OUT/hip_nvidia_${suite}.log" 2>&1
      echo "ppkit_${suite}_tests (HIP instances): exit $?"; tail -n 3 "$OUT/hip_nvidia_${suite}.log"
    done ;;
  compare-default)
    PPKIT_COMPARE_VARIANTS='cuda/*,kokkos-cuda/*,kokkos-openmp/*,opencl/*' scripts/gpu-suite.sh "$bundle" compare-default ;;
  compare-large)
    # Paper sizes: GPU variants only (a single CPU thread would take hours).
    PPKIT_COMPARE_VARIANTS='cuda/*,kokkos-cuda/*,opencl/*' scripts/gpu-suite.sh "$bundle" compare-large ;;
  compare-large-fem)
    # FEM at the paper's size (128^3, 6.44 M DOF) and 64^3, GPU variants.
    "$ppkit" compare --large --workloads fem --variants 'cuda/*,kokkos-cuda/*' --repeats 5 \
      --out "$OUT/compare-large-fem" --no-plots > "$OUT/compare-large-fem.txt" 2>&1
    tail -n 30 "$OUT/compare-large-fem.txt" ;;
  bench)
    PPKIT_BENCH_FILTER='-.*kokkos-(serial|openmp).*' PPKIT_FDTD_BENCH_SIZES=256,512,768 \
      scripts/gpu-suite.sh "$bundle" bench ;;
  bench-goals)
    # The benchmarks behind the performance goals still open, GPU rows only:
    # SEM N = 7 at 4.2 M DOF (every CUDA kernel, WMMA included) and on
    # nekBench's 32,768 elements, Nekbone (20^3 elements, N = 7, local and
    # assembled vectors); FEM at 64^3 and 128^3; FDTD at 768^3;
    # the phasor update alone and the full step with phasors (256^3, 512^3).
    export LD_LIBRARY_PATH="$bundle/lib:${LD_LIBRARY_PATH:-}"
    run_bench() {  # NAME BINARY FILTER [min time [repetitions]]
      "$bundle/bin/$2" --benchmark_filter="$3" --benchmark_min_time="${4:-0.2}" \
        --benchmark_repetitions="${5:-1}" --benchmark_report_aggregates_only="$([ "${5:-1}" -gt 1 ] && echo true || echo false)" \
        --benchmark_out="$OUT/$1.json" --benchmark_out_format=json > "$OUT/$1.txt" 2>&1
      grep -E '^(sem|fem|fdtd)' "$OUT/$1.txt"
    }
    run_bench bench_sem_goals ppkit_bench_sem '(N=7|N=7/E=32768|nekbone/N=7)/(cuda|kokkos-cuda)/'
    # FEM: the 0.5 G elements/s goal, strategy (f) in both add orders against (a).
    run_bench bench_fem_goals ppkit_bench_fem \
      'fem_assemble/box(64|128)/(cuda|kokkos-cuda)/(factored-atomic|factored-atomic-runs|thread-per-element)/' 0.2
    # 768^3: the best variant is within 0.5% of the 45 G cells/s goal, so
    # three repetitions (mean, median, standard deviation).
    PPKIT_FDTD_BENCH_SIZES=768 run_bench bench_fdtd_768 ppkit_bench_fdtd \
      '/(cuda/split-x1|cuda/split-x2|kokkos-cuda/split|opencl/float4)/' 0.2 3
    # The temporally blocked variants beside split-x1 (docs/fdtd.md, "Temporal
    # blocking"): one repetition, each verified at 768^3 first (about 3 min).
    PPKIT_FDTD_BENCH_SIZES=768 run_bench bench_fdtd_768_blocked ppkit_bench_fdtd \
      '/(cuda/split-x1|(cuda|kokkos-cuda|opencl)/blocked-k[24])/' 0.2
    PPKIT_FDTD_BENCH_SIZES=256,512 run_bench bench_fdtd_phasors ppkit_bench_fdtd_phasors \
      '/(cuda|kokkos-cuda|opencl)/' 0.1 ;;
  embedding)
    # The operators host codes embed (docs/embedding.md) on the GPU: the SEM
    # and FEM suites (every variant, the operator and handle tests among
    # them), the embedding examples, and what each API costs over the
    # registry's run(): SEM at N = 7 on 1 and 32,768 elements, FEM assembly
    # on 1 element and 64^3 (each API's result verified before timing; the
    # compare rows of both: part compare-embedding). Needs only the
    # targets of PPKIT_GPU_TARGETS="ppkit ppkit_cli ppkit_sem_tests ppkit_fem_tests
    # ppkit_bench_sem_embedding ppkit_bench_fem_embedding ppkit_example_embed_cpp
    # ppkit_example_embed_c" in the build part.
    export LD_LIBRARY_PATH="$bundle/lib:${LD_LIBRARY_PATH:-}"
    for suite in sem fem; do
      timeout 400 "$bundle/bin/ppkit_${suite}_tests" --gtest_brief=1 \
        --gtest_output=xml:"$OUT/ppkit_${suite}_tests.xml" > "$OUT/ppkit_${suite}_tests.log" 2>&1
      echo "ppkit_${suite}_tests: exit $?"; tail -n 3 "$OUT/ppkit_${suite}_tests.log"
    done
    for example in embed_cpp embed_c; do
      "$bundle/bin/ppkit_example_$example" > "$OUT/example_$example.txt" 2>&1
      echo "example $example: exit $?"; head -n 3 "$OUT/example_$example.txt"
    done
    PPKIT_SEM_EMBED_VARIANTS=${PPKIT_SEM_EMBED_VARIANTS:-cuda/trilinear,cuda/stored,kokkos-cuda/trilinear} \
      "$bundle/bin/ppkit_bench_sem_embedding" --benchmark_min_time=0.3 --benchmark_repetitions=3 \
      --benchmark_report_aggregates_only=true --benchmark_out="$OUT/bench_sem_embedding.json" \
      --benchmark_out_format=json > "$OUT/bench_sem_embedding.txt" 2>&1
    grep -E '^sem_embedding.*(median|ERROR|error)' "$OUT/bench_sem_embedding.txt"
    PPKIT_FEM_EMBED_VARIANTS=${PPKIT_FEM_EMBED_VARIANTS:-auto} \
      "$bundle/bin/ppkit_bench_fem_embedding" --benchmark_min_time=0.3 --benchmark_repetitions=3 \
      --benchmark_report_aggregates_only=true --benchmark_out="$OUT/bench_fem_embedding.json" \
      --benchmark_out_format=json > "$OUT/bench_fem_embedding.txt" 2>&1
    grep -E '^fem_embedding.*(median|ERROR|error)' "$OUT/bench_fem_embedding.txt" ;;
  compare-embedding)
    # The overhead of each embedding API over the registry's run(), SEM and
    # FEM rows of one workload at the issue's sizes (N = 7 on 32,768
    # elements, FEM 64^3) and on 1 element, GPU variants.
    LD_LIBRARY_PATH="$bundle/lib:${LD_LIBRARY_PATH:-}" "$ppkit" compare --large \
      --workloads embedding --variants 'cuda/*,kokkos-cuda/*' --repeats 5 \
      --out "$OUT/compare-embedding" --no-plots > "$OUT/compare-embedding.txt" 2>&1
    grep -E '^embedding' "$OUT/compare-embedding.txt" ;;
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
  sph-convergence)
    # The SPH gate on the GPU (SphDamBreakGate.*: dp 0.02 m over 1.5 s among
    # them) and the dam break at dp 0.05, 0.03, 0.02 and 0.0125 m to 1.5 s,
    # tabulated against the MARIN data by scripts/sph_convergence.py (front
    # arrival and H2/H4 RMS against dp; plot when matplotlib is there).
    export LD_LIBRARY_PATH="$bundle/lib:${LD_LIBRARY_PATH:-}"
    timeout 200 "$bundle/bin/ppkit_sph_tests" --gtest_filter='SphDamBreakGate.*' > "$OUT/sph_gate.txt" 2>&1
    echo "SphDamBreakGate: exit $?"; grep -E "dam break dp|OK|FAILED" "$OUT/sph_gate.txt"
    for dp in 0.05 0.03 0.02 0.0125; do
      timeout 200 "$ppkit" sph dambreak --dp $dp --t-end 1.5 --probes "$OUT/sph_probes_dp$dp.csv" \
        --quiet > "$OUT/sph_dambreak_dp$dp.txt" 2>&1; echo "dp $dp: exit $?"
    done
    python3 scripts/sph_convergence.py "$OUT"/sph_probes_dp*.csv --out "$OUT/sph_convergence.png" ;;
  sph-large)
    # Step time at DualSPHysics' 4.36 M particles (1,000 steps) and at 16 M (300),
    # renumbering every step; with PPKIT_SPH_FINE_DP set, also the dam break at
    # that resolution (dp 0.0125 takes about 70 s).
    for run in 4360000:1000 16000000:300; do
      n=${run%:*}
      LD_LIBRARY_PATH="$bundle/lib:${LD_LIBRARY_PATH:-}" "$ppkit" sph step-history --particles $n \
        --steps ${run#*:} --variant cuda/symplectic-float4 --reorder-every 1 \
        --csv "$OUT/sph_step_history_${n}.csv" > "$OUT/sph_step_history_${n}.txt" 2>&1
      tail -n 3 "$OUT/sph_step_history_${n}.txt"
    done
    if [ -n "${PPKIT_SPH_FINE_DP:-}" ]; then
      dp=$PPKIT_SPH_FINE_DP
      LD_LIBRARY_PATH="$bundle/lib:${LD_LIBRARY_PATH:-}" "$ppkit" sph dambreak --dp "$dp" --t-end 1.5 \
        --variant cuda/symplectic-float4 --probes "$OUT/sph_dambreak_dp$dp.csv" --quiet \
        > "$OUT/sph_dambreak_dp$dp.txt" 2>&1; tail -n 5 "$OUT/sph_dambreak_dp$dp.txt"
    fi ;;
  sph-bench)
    # ppkit_bench_sph on the GPU variants (CUDA, Kokkos CUDA, OpenCL on NVIDIA's
    # driver; the per-cell ones included): interactions/s and the full step
    # (renumbering every step and never) at 1, 4 and 16 M particles (~2 min).
    LD_LIBRARY_PATH="$bundle/lib:${LD_LIBRARY_PATH:-}" "$bundle/bin/ppkit_bench_sph" \
      --benchmark_filter='/(cuda|kokkos-cuda|opencl)/' --benchmark_min_time=0.2 \
      --benchmark_out="$OUT/bench_sph.json" --benchmark_out_format=json > "$OUT/bench_sph.txt" 2>&1
    grep -E '^sph' "$OUT/bench_sph.txt" ;;
  fdtd-extra)
    # Phasor update (float4 against plain), the SAR half-space on the GPU
    # variants, and the far field of the dipole.
    export LD_LIBRARY_PATH="$bundle/lib:${LD_LIBRARY_PATH:-}"
    PPKIT_FDTD_BENCH_SIZES=256,512 "$bundle/bin/ppkit_bench_fdtd_phasors" --benchmark_min_time=0.3 \
      --benchmark_filter='cuda|opencl|kokkos-cuda' > "$OUT/bench_fdtd_phasors.txt" 2>&1
    grep -E '^fdtd' "$OUT/bench_fdtd_phasors.txt"
    for v in cuda/register-x opencl/float4 kokkos-cuda/plain; do
      "$ppkit" fdtd halfspace --eps-r 55 --sigma 0.95 --rho 1050 --freq 900e6 --variant $v \
        --sar-profile "$OUT/halfspace_${v//\//_}.csv" > "$OUT/halfspace_${v//\//_}.txt" 2>&1
      tail -n 4 "$OUT/halfspace_${v//\//_}.txt"
    done
    "$ppkit" fdtd dipole --cells 128 --cpml 10 --steps 1500 --variant cuda/register-x \
      --far-field "$OUT/dipole_far_field.csv" > "$OUT/dipole_far_field.txt" 2>&1; tail -n 4 "$OUT/dipole_far_field.txt" ;;
  opencl-fill-probe)
    # scripts/opencl_fill_probe.cpp on NVIDIA's OpenCL: every fill pattern width,
    # a whole write and a kernel on buffers below and above 2^31 bytes, one
    # process each under a 60 s timeout (a 1-byte fill past 2^31 bytes hung on
    # driver 580; docs/reliability.md).
    source scripts/gpu-opencl-env.sh
    g++ -O2 -std=c++17 -I"$deps/include" scripts/opencl_fill_probe.cpp \
      -L"$deps/lib/x86_64-linux-gnu" -lOpenCL -o "$OUT/opencl_fill_probe" || exit 1
    for bytes in 2.0e9 2.2e9 2.44e9 4.2e9; do
      for mode in fill1 fill4 fill16 write kernel; do
        timeout 60 "$OUT/opencl_fill_probe" $mode $bytes NVIDIA; echo "  exit $?"
      done
    done 2>&1 | tee "$OUT/opencl_fill_probe.txt"
    rm -f "$OUT/opencl_fill_probe" ;;
  sanitize)
    # compute-sanitizer memcheck and racecheck over the CUDA variant tests.
    PPKIT_SANITIZE_TOOLS=${PPKIT_SANITIZE_TOOLS:-"memcheck racecheck"} scripts/gpu-sanitize.sh "$bundle" "$OUT/sanitize" ;;
  profile)
    # Nsight Compute counters of the kernel each workload's goal rests on (one
    # launch each, clocks left as they are): FEM factored-atomic at 64^3, SEM
    # cuda/stored, cuda/trilinear and cuda/trilinear-wmma at N = 7 on nekBench's 32,768
    # elements, FDTD cuda/split-x1 interior and shell kernels and the cuda/blocked-k2
    # pass at 512^3 and the
    # duration of every kernel of a 768^3 run. Reports in $OUT/profile/.
    export LD_LIBRARY_PATH="$bundle/lib:${LD_LIBRARY_PATH:-}"
    mkdir -p "$OUT/profile"
    ncu_run() {  # NAME KERNEL_REGEX BENCH FILTER
      timeout 240 ncu --clock-control none -k "regex:$2" --launch-skip 2 --launch-count 1 \
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
        --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
        --section ComputeWorkloadAnalysis --section SourceCounters \
        --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum,lts__t_sectors.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum \
        "$bundle/bin/$3" --benchmark_filter="$4" --benchmark_min_time=0.01 > "$OUT/profile/ncu_$1.txt" 2>&1
      echo "$1: exit $?"; grep -E 'Duration|DRAM Throughput|Memory Throughput|dram__bytes|lts__t_sectors_op_red|Achieved Occupancy|Registers Per|Theoretical Occupancy|Compute \(SM\) Throughput' "$OUT/profile/ncu_$1.txt" | head -n 14
    }
    ncu_run fem_factored_atomic 'factored_kernel' ppkit_bench_fem 'box64/cuda/factored-atomic/'
    ncu_run sem_stored 'axhelm_columns_kernel' ppkit_bench_sem 'N=7/E=32768/cuda/stored/'
    PPKIT_FDTD_BENCH_SIZES=512 PPKIT_FDTD_BENCH_STEPS=4 ncu_run fdtd_split_x1 'interior_(e|h)_kernel' ppkit_bench_fdtd '512\^3/cuda/split-x1/'
    PPKIT_FDTD_BENCH_SIZES=512 PPKIT_FDTD_BENCH_STEPS=4 ncu_run fdtd_shell_h 'shell_h_kernel' ppkit_bench_fdtd '512\^3/cuda/split-x1/'
    # The temporally blocked pass (docs/fdtd.md, "Temporal blocking"): registers
    # and occupancy against the halo's extra work as what holds it at 4x split-x1.
    PPKIT_FDTD_BENCH_SIZES=512 PPKIT_FDTD_BENCH_STEPS=4 ncu_run fdtd_blocked_k2 'pass_kernel' ppkit_bench_fdtd '512\^3/cuda/blocked-k2/'
    ncu_run sem_trilinear 'axhelm_columns_kernel' ppkit_bench_sem 'N=7/E=32768/cuda/trilinear/'
    ncu_run sem_wmma 'axhelm_mma_kernel' ppkit_bench_sem 'N=7/E=32768/cuda/trilinear-wmma/'
    # Where one FDTD step's time goes: the duration of every kernel of one
    # 4-step run at 768^3 (kernels serialised, so the shell's overlap is lost).
    PPKIT_FDTD_BENCH_SIZES=768 PPKIT_FDTD_BENCH_STEPS=4 timeout 240 ncu --clock-control none \
      --metrics gpu__time_duration.sum --csv --page raw --launch-count 40 \
      "$bundle/bin/ppkit_bench_fdtd" --benchmark_filter='768\^3/cuda/split-x1/' \
      --benchmark_min_time=0.01 > "$OUT/profile/ncu_fdtd_768_kernels.csv" 2>&1
    echo "fdtd 768^3 kernel durations: exit $?"
    python3 scripts/ncu_kernel_durations.py "$OUT/profile/ncu_fdtd_768_kernels.csv" \
      | tee "$OUT/profile/kernel_durations_768.txt" ;;
  dualsphysics)
    # DualSPHysics v5.0 and ppkit on the same dam-break particles, 1 M and 4.36 M
    # (docs/sph.md, "Figures"); OUT/dualsphysics holds the logs and the table.
    OUT="$OUT/dualsphysics" scripts/dualsphysics-beside.sh "${DSPH_DIR:-.dsph}" "$bundle" ;;
  multi) OUT="$OUT" PPKIT_BUNDLE="$bundle" scripts/h200-multi.sh ;;
  mpi-one-gpu)
    # The multi-rank CUDA paths checked on one GPU shared by 2 ranks (a
    # correctness run, not a scaling one): FDTD slabs over cuda/split-x1 and
    # kokkos-cuda/split against the same variant on one rank, Nekbone on 1-3
    # ranks (the rank-local A p also through the registered CUDA axhelm), and
    # the scaling commands with the CUDA variants, and the SAR example case on
    # one process and 3 ranks (tests/fdtd/case_sar_cli.py). Needs the targets
    # ppkit_cli ppkit_fdtd_mpi_variants_test ppkit_sem_mpi_test in the build part.
    export LD_LIBRARY_PATH="$bundle/lib:${LD_LIBRARY_PATH:-}"
    mpi="mpirun --allow-run-as-root --oversubscribe"
    for v in cuda/split-x1 kokkos-cuda/split; do
      timeout 120 $mpi -np 2 "$bundle/bin/ppkit_fdtd_mpi_variants_test" --variant $v \
        > "$OUT/fdtd_mpi_$(echo $v | tr / _).txt" 2>&1
      echo "FDTD slabs over $v, 2 ranks on one GPU: exit $?"; grep -cE "^PASS" "$OUT/fdtd_mpi_$(echo $v | tr / _).txt"
      grep -E "^FAIL" "$OUT/fdtd_mpi_$(echo $v | tr / _).txt" | head -n 5
    done
    for ranks in 1 2 3; do
      timeout 120 $mpi -np $ranks "$bundle/bin/ppkit_sem_mpi_test" > "$OUT/sem_mpi_$ranks.txt" 2>&1
      echo "Nekbone on $ranks ranks on one GPU: exit $?"; grep -E "axhelm variant|^FAIL" "$OUT/sem_mpi_$ranks.txt" | head -n 6
    done
    # kokkos-cuda/split slabs overlap their halo (slab_overlap), cuda/split-x1 ones do not.
    for v in kokkos-cuda/split cuda/split-x1; do
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 200 python3 \
        tests/fdtd/case_sar_cli.py "$ppkit" examples/fdtd/dipole_near_tissue.json $v mpirun 1e-5 \
        > "$OUT/case_sar_$(echo $v | tr / _).txt" 2>&1
      echo "SAR case on 1 process and 3 ranks over $v: exit $?"; tail -n 2 "$OUT/case_sar_$(echo $v | tr / _).txt"
    done
    timeout 120 $mpi -np 2 "$ppkit" sem nekbone-mpi --elements 16,8,8 --order 7 --repeats 3 \
      --scaling strong --axhelm-variant cuda/trilinear-wmma-m16 --geometry trilinear \
      > "$OUT/nekbone_mpi_wmma.txt" 2>&1; echo "nekbone-mpi wmma: exit $?"; tail -n 3 "$OUT/nekbone_mpi_wmma.txt"
    # Rank 0 first times every single-rank fdtd.step variant at 256^3 (the
    # blocked and OpenCL ones among them): more than 120 s on an H100.
    timeout 400 $mpi -np 2 "$ppkit" fdtd scaling --cells 256 --weak 256 --steps 50 --variant cuda/split-x1 \
      > "$OUT/fdtd_scaling_split.txt" 2>&1; echo "fdtd scaling split-x1: exit $?"; tail -n 8 "$OUT/fdtd_scaling_split.txt" ;;
  *) echo "unknown part '$part' (valid: $parts)"; exit 2 ;;
esac
# Pack the output folder into one archive (some runners return few files).
if [ "${PPKIT_PACK_OUT:-0}" = 1 ]; then
  tar czf /tmp/ppkit-gpu-out.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/ppkit-gpu-out.tgz "$OUT/gpu-out-$part.tgz"
fi
