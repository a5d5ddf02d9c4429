"""The JSON reports of the three MPI scaling commands (`ppkit fdtd scaling`,
`ppkit sem nekbone-mpi --scaling strong`, `ppkit sph scaling`) on 2 ranks of
tiny problems: every row holds the same keys (ranks,
parallel_efficiency, efficiency_vs_best_single_rank, halo_path), every
report names its fastest single-rank variant under single_rank_best, and
both efficiencies are recomputed here from the rates each report holds:
rate(R) / (R rate(1 rank)) and rate(R) / (R rate(fastest single rank)).

Usage: mpi_scaling_reports.py PPKIT MPIEXEC
"""
import json
import math
import os
import subprocess
import sys
import tempfile

ROW_KEYS = ("ranks", "parallel_efficiency", "efficiency_vs_best_single_rank", "halo_path")


def run(ppkit, mpiexec, args, path):
    cmd = [mpiexec, "-np", "2", "--oversubscribe", ppkit, *args, "--json", path]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    with open(path) as f:
        return json.load(f)


def close(a, b, what):
    if a is None or not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12):
        sys.exit(f"{what}: the report says {a}, its own rates give {b}")


def check(name, report, rate, rate_against_best, best_rate):
    """rate(row): the rate of the parallel efficiency; rate_against_best(row)
    and best_rate(row): those of the efficiency against the fastest single rank."""
    runs = report.get("runs", [])
    if not runs or not any(row.get("ranks") == 2 for row in runs):
        sys.exit(f"{name}: no 2-rank row in the report: {runs}")
    if "single_rank_best" not in report:
        sys.exit(f"{name}: no single_rank_best in the report (keys: {sorted(report)})")
    one = {}
    for row in runs:
        missing = [k for k in ROW_KEYS if k not in row]
        if missing:
            sys.exit(f"{name}: a row without {missing}: {row}")
        if not isinstance(row["halo_path"], str) or not row["halo_path"]:
            sys.exit(f"{name}: halo_path {row['halo_path']!r}")
        study, ranks = row.get("study", ""), row["ranks"]
        if ranks == 1:
            one[study] = rate(row)
        close(row["parallel_efficiency"], rate(row) / (ranks * one[study]),
              f"{name} {study} {ranks} ranks parallel_efficiency")
        close(row["efficiency_vs_best_single_rank"], rate_against_best(row) / (ranks * best_rate(row)),
              f"{name} {study} {ranks} ranks efficiency_vs_best_single_rank")
    print(f"{name}: {len(runs)} rows, keys and both efficiencies consistent")


def main():
    ppkit, mpiexec = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        fdtd = run(ppkit, mpiexec, ["fdtd", "scaling", "--cells", "24", "--weak", "16", "--steps",
                                    "2", "--warmup", "1", "--cpml", "4", "--overlap", "off"],
                   os.path.join(tmp, "fdtd.json"))
        best = {b["study"]: b["cells_per_second"] for b in fdtd["single_rank_best"]}
        cells_per_second = lambda r: r["cells_per_second"]
        check("fdtd scaling", fdtd, cells_per_second, cells_per_second, lambda r: best[r["study"]])

        sem = run(ppkit, mpiexec, ["sem", "nekbone-mpi", "--elements", "4,2,2", "--order", "3",
                                   "--repeats", "1", "--scaling", "strong", "--overlap", "off"],
                  os.path.join(tmp, "sem.json"))
        # eff.: GFLOP/s; eff. best: global nodes x CG iterations per second.
        check("sem nekbone-mpi", sem, lambda r: r["gflops"],
              lambda r: r["global_nodes"] * r["iterations"] / r["seconds"],
              lambda r: sem["single_rank_best"]["node_iterations_per_second"])

        sph = run(ppkit, mpiexec, ["sph", "scaling", "--dp", "0.08", "--t-end", "0.05",
                                   "--tank-height", "0.7"], os.path.join(tmp, "sph.json"))
        # eff.: the 1-rank run's wall time over R times this one's; eff. best: per step.
        check("sph scaling", sph, lambda r: 1.0 / r["seconds"],
              lambda r: 1.0 / r["seconds_per_step"],
              lambda r: 1.0 / sph["single_rank_best"]["seconds_per_step"])

if __name__ == "__main__":
    main()
