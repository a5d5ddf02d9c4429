#!/usr/bin/python3
"""Convergence of the SPHERIC test 2 dam break against the MARIN measurements.

Usage: scripts/sph_convergence.py PROBES_dp0.05.csv PROBES_dp0.03.csv ... [--out PNG]
       [--data FILE] [--t-max 1.5]

Each PROBES file is written by `ppkit sph dambreak --dp DP --probes FILE`; its
dp is read from the file name (`...dp<DP>.csv`). For every run it prints, as a
markdown table, the front arrival error at H2 and H3 (first time the depth
exceeds one particle layer, dp, as tests/sph/test_physics.cpp's gates; and at
the fixed depth 0.02 m, which does not move with dp) and the RMS height errors
at H2 and H4 over [0, t_max], and plots them against dp. The measured file and
its swapped header are handled by sph_plot_probes.py.
"""
import argparse
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sph_plot_probes import arrival, default_data, load_measured, load_simulated, rms  # noqa: E402

FIXED_DEPTH = 0.02  # m


def dp_of(path):
    m = re.search(r"dp([0-9.]+?)\.csv$", os.path.basename(path))
    if not m:
        sys.exit(f"{path}: no dp in the file name (expected ...dp<DP>.csv)")
    return float(m.group(1))


def figures(path, measured, t_max):
    te, he, _ = measured
    ts, hs, _ = load_simulated(path)
    dp = dp_of(path)
    t_end = min(t_max, ts[-1])
    out = {"dp": dp, "t_end": t_end}
    for probe, k in (("H2", 1), ("H3", 2)):
        for label, depth in (("layer", dp), ("fixed", FIXED_DEPTH)):
            t_sim, t_exp = arrival(ts, hs[:, k], depth), arrival(te, he[:, k], depth)
            out[f"{probe} {label}"] = 100 * (t_sim - t_exp) / t_exp
    for probe, k in (("H2", 1), ("H4", 3)):
        out[f"RMS {probe}"] = rms(ts, hs[:, k], te, he[:, k], t_end)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("probes", nargs="+")
    ap.add_argument("--data", default=None)
    ap.add_argument("--out", default="sph_convergence.png")
    ap.add_argument("--t-max", type=float, default=1.5)
    a = ap.parse_args()
    data = a.data or default_data()
    if not os.path.exists(data):
        sys.exit(f"measured data not found: {data} (use --data)")
    measured = load_measured(data)
    rows = sorted((figures(p, measured, a.t_max) for p in a.probes), key=lambda r: -r["dp"])

    print(f"| dp [m] | compared over [s] | H2 arrival, depth dp | H3 arrival, depth dp | "
          f"H2 arrival, {FIXED_DEPTH} m | H3 arrival, {FIXED_DEPTH} m | RMS H2 [m] | RMS H4 [m] |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['dp']:g} | 0 - {r['t_end']:.2f} | {r['H2 layer']:+.1f}% | {r['H3 layer']:+.1f}% | "
              f"{r['H2 fixed']:+.1f}% | {r['H3 fixed']:+.1f}% | {r['RMS H2']:.4f} | {r['RMS H4']:.4f} |")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot")
        return
    dps = [r["dp"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for key, style in (("H2 layer", "o-"), ("H3 layer", "s-"), ("H2 fixed", "o--"), ("H3 fixed", "s--")):
        left.plot(dps, [r[key] for r in rows], style, label=key.replace("layer", "(depth dp)")
                  .replace("fixed", f"(depth {FIXED_DEPTH} m)"))
    left.axhline(0, color="0.5", lw=0.8)
    left.set_xlabel("dp [m]")
    left.set_ylabel("front arrival error [%] (late > 0)")
    left.invert_xaxis()
    left.legend(fontsize=8)
    left.grid(alpha=0.3)
    for key, style in (("RMS H2", "o-"), ("RMS H4", "s-")):
        right.plot(dps, [r[key] for r in rows], style, label=key)
    right.set_xlabel("dp [m]")
    right.set_ylabel(f"RMS height error over 0 - {a.t_max:g} s [m]")
    right.invert_xaxis()
    right.legend(fontsize=8)
    right.grid(alpha=0.3)
    fig.suptitle("SPHERIC test 2 against the MARIN measurements: convergence in dp")
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print(f"plot written to {a.out}")


if __name__ == "__main__":
    main()
