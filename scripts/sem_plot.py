#!/usr/bin/python3
"""Plot sem.axhelm GFLOP/s (P_eff, nekRS convention) against the order N per
variant from a `ppkit compare --workloads sem --out DIR` report.

usage: scripts/sem_plot.py DIR/results.json [out.png]
"""
import json
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    path = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else path.rsplit("/", 1)[0] + "/sem_gflops.png"
    with open(path) as f:
        rows = json.load(f)["rows"]
    series = {}
    for r in rows:
        case = r.get("case", r.get("case_name", ""))
        if r.get("workload") != "sem" or r.get("status") != "PASS":
            continue
        m = re.match(r"axhelm N=(\d+) .* poisson ncol=1", case)
        if not m:
            continue
        gflops = r.get("extra", {}).get("GFLOP/s_eff")
        if gflops is None:
            continue
        series.setdefault(r["variant"], []).append((int(m.group(1)), gflops))
    if not series:
        sys.exit("no sem axhelm Poisson rows in " + path)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for variant, points in sorted(series.items()):
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=variant)
    ax.set_xlabel("polynomial order N")
    ax.set_ylabel("GFLOP/s (F_ax / T, nekRS convention)")
    ax.set_title("sem.axhelm, Poisson, trilinear mesh")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=130)
    print("wrote", out)


if __name__ == "__main__":
    main()
