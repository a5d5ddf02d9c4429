"""examples/fdtd/dipole_near_tissue.json through the command line: `ppkit fdtd
run` on one process and, with --mpiexec, `ppkit fdtd run-mpi` on 3 ranks with
the same rank-local variant. The distributed run must write the same SAR
summary, probe series and energy (bitwise on the CPU's Kokkos variants;
within TOLERANCE, 1e-6 by default, of each summary value and of each CSV
file's largest value: GPU kernels contract multiply-adds differently on a
slab and on the whole grid) and the SAR
maps, which the one-process run checks for sense: tissue mass of the
phantom's cells, 10 g <= 1 g <= peak point SAR.

Usage: case_sar_cli.py PPKIT CASE VARIANT [MPIEXEC [TOLERANCE]]
VARIANT may be a glob (kokkos-*/split): the last available fdtd.step variant
it matches runs (the build's Kokkos spaces differ).
"""
import csv
import fnmatch
import json
import os
import subprocess
import sys
import tempfile


def run(command, cwd):
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done.stdout


def resolve_variant(ppkit, pattern):
    listed = json.loads(run([ppkit, "list", "--workload", "fdtd.step", "--json"], None))
    names = [v["variant"] for v in listed
             if v["available"] and fnmatch.fnmatchcase(v["variant"], pattern)]
    if not names:
        sys.exit(f"no available fdtd.step variant matches {pattern}")
    return names[-1]


def read_summary(folder):
    with open(os.path.join(folder, "dipole_sar.csv")) as f:
        return {row["quantity"]: float(row["value"]) for row in csv.DictReader(f)}


def read_table(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    return rows[0], [[float(v) for v in row] for row in rows[1:]]


def main():
    ppkit, case, pattern = sys.argv[1:4]
    variant = resolve_variant(ppkit, pattern)
    mpiexec = sys.argv[4] if len(sys.argv) > 4 else None
    tolerance = float(sys.argv[5]) if len(sys.argv) > 5 else 1e-6
    failures = []
    with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as three:
        out = run([ppkit, "fdtd", "run", "--case", case, "--variant", variant, "--quiet"], one)
        print(out)
        s = read_summary(one)
        # muscle on nodes [14, 51) x [18, 41) x [10, 31): 36 x 22 x 20 cells of 2 mm.
        mass = 1090 * 36 * 22 * 20 * 0.002**3
        if abs(s["tissue_mass"] / mass - 1) > 1e-6:
            failures.append(f"tissue mass {s['tissue_mass']} kg, expected {mass} kg")
        if not 0 < s["peak_10g_sar"] <= s["peak_1g_sar"] <= s["peak_point_sar"]:
            failures.append(f"peaks out of order: {s}")
        if abs(s["whole_body_sar"] * s["tissue_mass"] / s["absorbed_power"] - 1) > 1e-6:
            failures.append(f"whole-body SAR is not power over mass: {s}")
        for name in ("dipole_sar.vti", "dipole_sar.png", "dipole_probes.csv", "dipole_energy.csv"):
            if not os.path.getsize(os.path.join(one, name)):
                failures.append(f"{name} is empty")
        if mpiexec:
            out = run([mpiexec, "-n", "3", "--oversubscribe", ppkit, "fdtd", "run-mpi", "--case",
                       case, "--variant", variant, "--quiet"], three)
            print(out)
            d = read_summary(three)
            for key, value in s.items():
                if abs(d[key] - value) > tolerance * abs(value):
                    failures.append(f"{key}: {d[key]} on 3 ranks, {value} on one process")
            for name in ("dipole_probes.csv", "dipole_energy.csv"):
                head_one, rows_one = read_table(os.path.join(one, name))
                head_three, rows_three = read_table(os.path.join(three, name))
                scale = max(abs(v) for row in rows_one for v in row[1:]) or 1
                worst = max(abs(a - b) for r1, r3 in zip(rows_one, rows_three)
                            for a, b in zip(r1, r3))
                if (head_one != head_three or len(rows_one) != len(rows_three)
                        or worst > tolerance * scale):
                    failures.append(f"{name} differs on 3 ranks (worst {worst:.3g} of {scale:.3g})")
            if os.path.getsize(os.path.join(three, "dipole_sar.vti")) != os.path.getsize(
                    os.path.join(one, "dipole_sar.vti")):
                failures.append("the gathered SAR maps differ in size from one process's")
    for f in failures:
        print("FAIL:", f)
    print("case SAR on the command line:", "FAIL" if failures else "PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
