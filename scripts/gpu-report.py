#!/usr/bin/env python3
"""Turns the output folder of scripts/gpu-suite.sh into Markdown for
docs/results/<gpu>.md: machine, versions, copy bandwidth per backend (the
roofline basis), test summary, compare tables and benchmark counters.

usage: gpu-report.py GPU_OUT_DIR COMMIT "COMMAND"
"""
import glob
import json
import os
import re
import sys
import xml.etree.ElementTree as ET


def fmt_rate(x):
    for p in ["", "k", "M", "G", "T", "P"]:
        if abs(x) < 1000:
            return f"{x:.3g} {p}"
        x /= 1000
    return f"{x:.3g} E"


def main(out, commit, command):
    lines = []
    info = json.load(open(os.path.join(out, "info.json")))
    machine = open(os.path.join(out, "machine.txt")).read().strip().splitlines()
    date = machine[0] if machine else "?"
    gpu = machine[2] if len(machine) > 2 else "?"
    cuda = info.get("cuda", {})
    lines += [f"- date: {date}", f"- commit: `{commit}`", f"- command: `{command}`",
              f"- GPU, driver, memory, clocks at start: {gpu}",
              f"- ppkit {info['version']}, Kokkos {info['kokkos']['version']}, "
              f"CUDA runtime {cuda.get('runtime_version', '?')}, driver API {cuda.get('driver_version', '?')}",
              ""]

    bench_core = os.path.join(out, "ppkit_bench_core.json")
    if os.path.exists(bench_core):
        lines += ["### Copy bandwidth per backend (roofline basis, read + write counted)", "",
                  "| benchmark | GB/s |", "| --- | --- |"]
        for b in json.load(open(bench_core))["benchmarks"]:
            if "GB/s" in b:
                lines.append(f"| {b['name'].replace('/real_time', '')} | {b['GB/s']:.0f} |")
        lines.append("")

    xmls = sorted(glob.glob(os.path.join(out, "ppkit_*_tests.xml")))
    if xmls:
        lines += ["### Tests on the GPU machine", "", "| suite | tests | failures | skipped |",
                  "| --- | --- | --- | --- |"]
        for x in xmls:
            root = ET.parse(x).getroot()
            skipped = sum(1 for tc in root.iter("testcase") if tc.find("skipped") is not None)
            lines.append(f"| {os.path.basename(x)[:-4]} | {root.get('tests')} | {root.get('failures')} | {skipped} |")
        lines.append("")

    for size in ["default", "large"]:
        res = os.path.join(out, f"compare-{size}", "results.json")
        if not os.path.exists(res):
            continue
        rows = json.load(open(res))["rows"]
        lines += [f"### `ppkit compare --{size}`", "",
                  "| workload | case | variant | median | throughput | roofline | speedup | verified |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for r in rows:
            med = f"{r['median_s'] * 1e3:.3g} ms" if r.get("median_s") else "-"
            thr = f"{fmt_rate(r['throughput'])}{r['throughput_unit']}" if r.get("throughput") else "-"
            roof = f"{r['roofline_fraction'] * 100:.0f}%" if r.get("roofline_fraction") else "-"
            sp = f"{r['speedup']:.2f}x" if r.get("speedup") else "-"
            ver = r["status"] + (f" ({r['error']:.1e})" if r.get("error") is not None else "")
            if r["status"] in ("SKIP", "ERROR"):
                ver += ": " + r.get("message", "")[:80]
            lines.append(f"| {r['workload']} | {r['case']} [{r['size']}] | {r['variant']} | {med} | {thr} | {roof} | {sp} | {ver} |")
        lines.append("")

    for bj in sorted(glob.glob(os.path.join(out, "ppkit_bench_*.json"))):
        if bj.endswith("ppkit_bench_core.json"):
            continue
        benches = json.load(open(bj))["benchmarks"]
        lines += [f"### {os.path.basename(bj)[:-5]}", "", "| benchmark | time | counters |", "| --- | --- | --- |"]
        for b in benches:
            if b.get("error_occurred"):
                lines.append(f"| {b['name']} | - | {b.get('error_message', '')} |")
                continue
            counters = ", ".join(f"{k} {fmt_rate(v)}" for k, v in b.items()
                                 if isinstance(v, float) and k not in ("real_time", "cpu_time", "iterations"))
            lines.append(f"| {b['name'].replace('/real_time', '')} | {b['real_time']:.3g} {b['time_unit']} | {counters} |")
        lines.append("")
    print("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
