#!/usr/bin/python3
"""Compare SPH probes with the SPHERIC test 2 measurements (Kleefsman et al. 2005).

Usage: scripts/sph_plot_probes.py PROBES.csv [--data FILE] [--out PNG] [--t-max 6]

PROBES.csv is written by `ppkit sph dambreak --probes`. The measured file is
the repository's data/spheric_test2/test_case_2_exp_data.dat (or the installed
share/ppkit/spheric_test2 copy, or $PPKIT_SPHERIC_TEST2_DATA) by default; its
height columns labelled H1 and H3 are swapped (see its README), so they are
read as H3, H2, H1, H4. Plots H2, H4 and P1 against the
experiment and prints RMS errors over [0, t_max] (within the simulated time)
and the front arrival at H2 (first time H2 exceeds --threshold, default 0.5 dp
read from --dp, else 0.02 m; interpolated between samples).
"""
import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA_FILE = "test_case_2_exp_data.dat"


def default_data():
    """$PPKIT_SPHERIC_TEST2_DATA (file or directory), else the copy shipped in the
    repository (data/spheric_test2 next to scripts/), else the installed one
    (share/ppkit/spheric_test2 next to this script after `cmake --install`)."""
    env = os.environ.get("PPKIT_SPHERIC_TEST2_DATA")
    if env:
        return os.path.join(env, DATA_FILE) if os.path.isdir(env) else env
    for candidate in (os.path.join(HERE, "..", "data", "spheric_test2", DATA_FILE),
                      os.path.join(HERE, "spheric_test2", DATA_FILE)):
        if os.path.exists(candidate):
            return os.path.normpath(candidate)
    return os.path.normpath(os.path.join(HERE, "..", "data", "spheric_test2", DATA_FILE))


def load_measured(path):
    raw = np.loadtxt(path, skiprows=1)
    t = raw[:, 0]
    pressure = raw[:, 1:9]
    # file columns labelled H1 H2 H3 H4 are the probes H3 H2 H1 H4
    height = np.column_stack([raw[:, 11], raw[:, 10], raw[:, 9], raw[:, 12]])
    return t, height, pressure


def load_simulated(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
    expected = "time,H1,H2,H3,H4,P1,P2,P3,P4,P5,P6,P7,P8".split(",")
    if header != expected:
        sys.exit(f"{path}: header {header} is not {expected}")
    raw = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return raw[:, 0], raw[:, 1:5], raw[:, 5:13]


def arrival(t, h, threshold):
    """First crossing of the threshold, interpolated between the samples around it
    (as ppkit::sph::arrival_time)."""
    wet = np.nonzero(h > threshold)[0]
    if not len(wet):
        return float("nan")
    i = wet[0]
    if i == 0:
        return float(t[0])
    w = (threshold - h[i - 1]) / (h[i] - h[i - 1])
    return float(t[i - 1] + w * (t[i] - t[i - 1]))


def rms(t_sim, v_sim, t_exp, v_exp, t_max):
    mask = t_sim <= t_max
    if mask.sum() < 2:
        return float("nan")
    return float(np.sqrt(np.mean((v_sim[mask] - np.interp(t_sim[mask], t_exp, v_exp)) ** 2)))


def main():
    import matplotlib  # only the plot needs it; sph_convergence.py imports the readers

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("probes")
    ap.add_argument("--data", default=None, help="measured data file (default: see above)")
    ap.add_argument("--out", default=None, help="PNG path (default: PROBES with .png)")
    ap.add_argument("--t-max", type=float, default=6.0)
    ap.add_argument("--dp", type=float, default=None, help="particle spacing of the run [m]")
    ap.add_argument("--threshold", type=float, default=None, help="arrival depth [m]")
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    if a.data is None:
        a.data = default_data()
    if not os.path.exists(a.data):
        sys.exit(f"measured data not found: {a.data} (use --data)")
    te, he, pe = load_measured(a.data)
    ts, hs, ps = load_simulated(a.probes)
    t_max = min(a.t_max, ts[-1])
    threshold = a.threshold if a.threshold is not None else (0.5 * a.dp if a.dp else 0.02)

    figures = {}
    for name, sim, exp in (("H2", hs[:, 1], he[:, 1]), ("H4", hs[:, 3], he[:, 3]), ("P1", ps[:, 0], pe[:, 0])):
        figures[f"RMS {name}"] = rms(ts, sim, te, exp, t_max)
    t_sim = arrival(ts, hs[:, 1], threshold)
    t_exp = arrival(te, he[:, 1], threshold)
    figures["H2 arrival simulated [s]"] = t_sim
    figures["H2 arrival measured [s]"] = t_exp
    figures["H2 arrival error [%]"] = 100 * (t_sim - t_exp) / t_exp

    fig, axes = plt.subplots(3, 1, figsize=(8, 9), sharex=True)
    for ax, (name, sim, exp, unit) in zip(axes, (
            ("H2 (x = 0.992 m)", hs[:, 1], he[:, 1], "m"),
            ("H4 (x = 2.638 m)", hs[:, 3], he[:, 3], "m"),
            ("P1 (box face, z = 0.021 m)", ps[:, 0], pe[:, 0], "Pa"))):
        ax.plot(te, exp, color="0.6", lw=0.8, label="experiment (MARIN)")
        ax.plot(ts, sim, color="C0", lw=1.4, label="ppkit sph")
        ax.set_ylabel(f"{name} [{unit}]")
        ax.grid(alpha=0.3)
    axes[0].axvline(t_exp, color="0.4", ls=":", lw=0.8)
    if np.isfinite(t_sim):
        axes[0].axvline(t_sim, color="C0", ls=":", lw=0.8)
    axes[0].legend(loc="upper right")
    axes[-1].set_xlabel("time [s]")
    axes[-1].set_xlim(0, max(t_max, 0.1))
    fig.suptitle(a.title or f"SPHERIC test 2: {os.path.basename(a.probes)}")
    fig.tight_layout()
    out = a.out or os.path.splitext(a.probes)[0] + ".png"
    fig.savefig(out, dpi=110)

    print(f"| figure (0 - {t_max:.2f} s) | value |\n| --- | --- |")
    for k, v in figures.items():
        unit = " m" if k.startswith("RMS H") else (" Pa" if k.startswith("RMS P") else "")
        print(f"| {k} | {v:.4g}{unit} |")
    print(f"plot written to {out}")


if __name__ == "__main__":
    main()
