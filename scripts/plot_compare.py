#!/usr/bin/env python3
"""Plots for a `ppkit compare` report directory (reads results.json).

Writes into the same directory:
  throughput_<workload>.png  one bar per variant and case (log scale)
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
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def safe(name):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


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
        labels = [f'{r["case"]}\n{r["variant"]}' for r in wrows]
        values = [r["throughput"] for r in wrows]
        fig, ax = plt.subplots(figsize=(max(6, 0.45 * len(wrows) + 2), 5))
        ax.bar(range(len(values)), values, color="tab:blue")
        ax.set_xticks(range(len(values)))
        ax.set_xticklabels(labels, rotation=70, ha="right", fontsize=7)
        ax.set_yscale("log")
        ax.set_ylabel(wrows[0]["throughput_unit"])
        ax.set_title(f"ppkit compare: {workload} throughput per verified variant")
        fig.tight_layout()
        path = os.path.join(out_dir, f"throughput_{safe(workload)}.png")
        fig.savefig(path, dpi=110)
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
            lines[extra["plot"]][r["variant"]].append((extra["plot_x"], y))
            meta[extra["plot"]] = (extra.get("plot_xlabel", "x"), unit)
    for plot, per_variant in lines.items():
        fig, ax = plt.subplots(figsize=(7, 5))
        for variant, pts in sorted(per_variant.items()):
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=variant)
        ax.set_xlabel(meta[plot][0])
        ax.set_ylabel(meta[plot][1])
        ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
        ax.set_title(plot)
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
