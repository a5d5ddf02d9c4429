#!/usr/bin/env python3
"""Plots for a `ppkit compare` report directory (reads results.json).

Writes into the same directory:
  throughput_<workload>.png  one panel per case (each case is one problem size,
                             so no two sizes share an axis), one bar per
                             verified variant with the measured spread as an
                             error bar (throughput at the slowest and fastest
                             repeat), and a black tick at the roofline (the
                             throughput at 100% of the copy bandwidth) where
                             the row has a roofline basis
  <plot>.png                 throughput (or FLOP/s with "plot_y": "flops")
                             against a case parameter, one line per variant,
                             for rows whose "extra" has "plot" and "plot_x"
                             (SEM GFLOP/s against N, FDTD cells/s against size)
  <series>.png               curves a workload attached to a row in
                             extra["series"], one axes per series name (e.g.
                             SPH step time against step number, with and
                             without renumbering)
  <figure>.png               stacked panels a row attached in extra["figure"]
                             ({"name", "title", "xlabel", "panels": [{"ylabel",
                             "curves": [{"x", "y", "label", "style"}]}]}), e.g.
                             SPH water heights H1..H4 against the experiment
A row may say why its plot is missing (extra["heights_plot_skipped"]); that
reason is printed.
"""
import json
import os
import re
import sys
import textwrap
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def safe(name):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def case_label(r):
    label = f'{r["workload"]} {r["case"]}'
    return label + (f' [{r["size"]}]' if r.get("size") else "")


def spread(r, value=None):
    """(low, high) of a row's figure over its repeats: the figure scales as
    1 / time, so the slowest repeat (max_s) gives the low end."""
    value = r["throughput"] if value is None else value
    median, lo_t, hi_t = r.get("median_s"), r.get("min_s"), r.get("max_s")
    if not (median and lo_t and hi_t):
        return value, value
    return value * median / hi_t, value * median / lo_t


def colour(r):
    backend = r["backend"]
    return {"cuda": "tab:green", "hip": "tab:red", "opencl": "tab:orange"}.get(
        backend, "tab:blue" if backend.startswith("kokkos") else "tab:gray")


def main(out_dir):
    with open(os.path.join(out_dir, "results.json")) as f:
        report = json.load(f)
    # Only verified rows carry figures: FAIL and ERROR rows have no throughput.
    rows = [r for r in report["rows"] if r.get("status") == "PASS" and r.get("throughput")]
    written = []

    by_workload = defaultdict(list)
    for r in rows:
        by_workload[r["workload"]].append(r)
    for workload, wrows in by_workload.items():
        cases = []
        for r in wrows:
            label = case_label(r)
            if label not in cases:
                cases.append(label)
        ncols = min(3, len(cases))
        nrows = (len(cases) + ncols - 1) // ncols
        most = max(sum(1 for r in wrows if case_label(r) == c) for c in cases)
        fig, axes = plt.subplots(nrows, ncols, squeeze=False,
                                 figsize=(ncols * max(4.0, 0.42 * most + 1.5), nrows * 4.2 + 0.6))
        for ax, label in zip(axes.flat, cases):
            crows = [r for r in wrows if case_label(r) == label]
            x = list(range(len(crows)))
            values = [r["throughput"] for r in crows]
            low, high = zip(*(spread(r) for r in crows))
            ax.bar(x, values, color=[colour(r) for r in crows],
                   yerr=[[v - lo for v, lo in zip(values, low)],
                         [hi - v for v, hi in zip(values, high)]],
                   capsize=3, ecolor="0.25")
            roofs = [(i, r["throughput"] / r["roofline_fraction"]) for i, r in enumerate(crows)
                     if r.get("roofline_fraction")]
            if roofs:
                ax.scatter([p[0] for p in roofs], [p[1] for p in roofs], marker="_", s=300,
                           color="black", linewidths=2, zorder=3)
            ax.set_xticks(x)
            ax.set_xticklabels([r["variant"] for r in crows], rotation=60, ha="right",
                               fontsize=7)
            # One size per panel: a linear axis from zero, so bar heights compare.
            ax.set_ylim(bottom=0)
            ax.set_ylabel(crows[0]["throughput_unit"])
            ax.grid(True, axis="y", alpha=0.3)
            ax.set_title(textwrap.fill(label, 48), fontsize=8)
        for ax in list(axes.flat)[len(cases):]:
            ax.set_visible(False)
        fig.suptitle(f"ppkit compare: {workload}, verified variants (bars: median; error bars: "
                     "slowest to fastest repeat;\nblack ticks: roofline, the throughput at the copy "
                     "bandwidth measured in the run)", fontsize=10)
        fig.tight_layout()
        path = os.path.join(out_dir, f"throughput_{safe(workload)}.png")
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)

    lines = defaultdict(lambda: defaultdict(list))
    meta = {}
    for r in rows:
        extra = r.get("extra") or {}
        if "plot" in extra and "plot_x" in extra:
            # plot_y "flops": FLOP/s from the row's flop count; else the throughput.
            if extra.get("plot_y") == "flops" and r.get("flops") and r.get("median_s"):
                y, unit = r["flops"] / r["median_s"], "FLOP/s"
            else:
                y, unit = r["throughput"], r["throughput_unit"]
            lo, hi = spread(r, y)
            roof = y / r["roofline_fraction"] if r.get("roofline_fraction") else None
            lines[extra["plot"]][r["variant"]].append((extra["plot_x"], y, lo, hi, roof))
            meta[extra["plot"]] = (extra.get("plot_xlabel", "x"), unit)
    for plot, per_variant in lines.items():
        fig, ax = plt.subplots(figsize=(7, 5))
        for variant, pts in sorted(per_variant.items()):
            pts.sort(key=lambda p: p[0])
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            line = ax.errorbar(xs, ys, yerr=[[y - p[2] for y, p in zip(ys, pts)],
                                             [p[3] - y for y, p in zip(ys, pts)]],
                               marker="o", capsize=3, label=variant)
            roofs = [(p[0], p[4]) for p in pts if p[4]]
            if roofs:
                ax.plot([p[0] for p in roofs], [p[1] for p in roofs], linestyle=":",
                        color=line[0].get_color(), alpha=0.7)
        ax.set_xlabel(meta[plot][0])
        ax.set_ylabel(meta[plot][1])
        ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
        ax.set_title(plot + "\n(error bars: slowest to fastest repeat; dotted: the variant's "
                     "roofline at the copy bandwidth)", fontsize=9)
        fig.tight_layout()
        path = os.path.join(out_dir, f"{safe(plot)}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    series = defaultdict(list)
    for r in report["rows"]:
        for s in (r.get("extra") or {}).get("series", []):
            series[s["name"]].append(s)
    for name, curves in series.items():
        fig, ax = plt.subplots(figsize=(8, 5))
        for s in curves:
            style = dict(s.get("style", {}))
            ax.plot(s["x"], s["y"], label=s.get("label", ""), **style)
        ax.set_xlabel(curves[0].get("xlabel", ""))
        ax.set_ylabel(curves[0].get("ylabel", ""))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
        ax.set_title(curves[0].get("title", name))
        fig.tight_layout()
        path = os.path.join(out_dir, f"{safe(name)}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    for r in report["rows"]:
        extra = r.get("extra") or {}
        figure = extra.get("figure")
        if extra.get("heights_plot_skipped"):
            print(f'plot skipped ({r["case"]}, {r["variant"]}): {extra["heights_plot_skipped"]}')
        if not figure or not figure.get("panels"):
            continue
        panels = figure["panels"]
        fig, axes = plt.subplots(len(panels), 1, figsize=(8, 2.4 * len(panels) + 1), sharex=True,
                                 squeeze=False)
        for ax, panel in zip(axes[:, 0], panels):
            for c in panel.get("curves", []):
                ax.plot(c["x"], c["y"], label=c.get("label", ""), **dict(c.get("style", {})))
            ax.set_ylabel(panel.get("ylabel", ""))
            ax.grid(True, alpha=0.3)
        axes[0, 0].legend(fontsize=7, loc="upper right")
        axes[-1, 0].set_xlabel(figure.get("xlabel", ""))
        fig.suptitle(figure.get("title", figure["name"]))
        fig.tight_layout()
        path = os.path.join(out_dir, f'{safe(figure["name"])}.png')
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    for p in written:
        print(f"plot written: {p}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: plot_compare.py REPORT_DIR")
    main(sys.argv[1])
