#!/usr/bin/env python3
"""Speedup of one Kokkos execution space over another in a `ppkit compare`
report: for every (workload, case, strategy) that both spaces ran and
verified (PASS), the ratio of their median times; printed per workload as
median (min-max, pairs).

Usage: scripts/kokkos_space_speedups.py REPORT/results.json
           [--slow kokkos-serial] [--fast kokkos-openmp]
"""
import argparse
import json
import statistics
from collections import defaultdict


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--slow", default="kokkos-serial", help="backend in the numerator")
    ap.add_argument("--fast", default="kokkos-openmp", help="backend in the denominator")
    a = ap.parse_args()
    with open(a.results) as f:
        rows = json.load(f)["rows"]
    times = {}
    for r in rows:
        if r.get("status") == "PASS" and r.get("backend") in (a.slow, a.fast) and r.get("median_s"):
            # The strategy trait (reports before typed traits: from the name).
            strategy = r.get("extra", {}).get("strategy") or r["variant"].split("/", 1)[1]
            times[(r["backend"], r["workload"], r["case"], strategy)] = r["median_s"]
    ratios = defaultdict(list)
    for (backend, workload, case, strategy), slow in times.items():
        if backend != a.slow:
            continue
        fast = times.get((a.fast, workload, case, strategy))
        if fast:
            ratios[workload].append(slow / fast)
    if not ratios:
        raise SystemExit(f"no case verified on both {a.slow} and {a.fast} in {a.results}")
    print(f"{a.slow} time / {a.fast} time, per workload: median (min-max, pairs)")
    for workload, r in sorted(ratios.items()):
        print(f"  {workload}: {statistics.median(r):.2f} ({min(r):.2f}-{max(r):.2f}, {len(r)})")


if __name__ == "__main__":
    main()
