#!/usr/bin/env python3
"""Results pages of one machine from ONE `ppkit compare` report.

    scripts/generate-results.py REPORT_DIR --machine NAME [--bench FILE.json ...]
                                [--out PAGE.md] [--papers-out PAGE.md] [--peers peers.json]

REPORT_DIR holds results.json (and summary.md and the plots) as `ppkit compare
--out` wrote them, committed under docs/results/<machine>/. Writes
  docs/results/<machine>.md         one table per workload: its goal, the peers
                                    measured on the same GPU model, the roofline
                                    basis, the date, commit, versions and command
  docs/results/<machine>-papers.md  each seed paper's headline beside ppkit's
                                    figure from the same report
Only verified rows (status PASS) give figures: a FAIL, ERROR or SKIP row never
appears. Goals, peer figures and the papers' headlines come from
docs/results/peers.json. --bench adds Google Benchmark JSON files (their
benchmarks without an error) as tables of their own.

Python 3 standard library only.
"""
import argparse
import json
import os
import sys

WORKLOAD_ORDER = ["fem", "sph", "sem", "fdtd", "fdtd-phasors", "embedding"]
WORKLOAD_TITLES = {
    "fem": "FEM: hex8 elasticity assembly",
    "sph": "SPH: weakly compressible SPH, dam break",
    "sem": "SEM: matrix-free axhelm and Nekbone",
    "fdtd": "FDTD: Yee + CPML",
    "fdtd-phasors": "FDTD phasor update",
    "embedding": "Embedding: the operators through their APIs",
}


def load_report(report_dir):
    with open(os.path.join(report_dir, "results.json")) as f:
        report = json.load(f)
    if not isinstance(report.get("rows"), list):
        sys.exit(f"{report_dir}/results.json has no rows: not a ppkit compare report")
    provenance = report.get("provenance")
    provenance_source = "results.json"
    side = os.path.join(report_dir, "provenance.json")
    if not provenance and os.path.exists(side):
        # Reports written before results.json carried provenance: recorded beside it.
        with open(side) as f:
            provenance = json.load(f)
        provenance_source = "provenance.json (recorded beside a report that predates it)"
    return report, provenance or {}, provenance_source


def passed(report):
    """The verified rows: PASS with a throughput (the only rows that give figures)."""
    return [r for r in report["rows"]
            if r.get("status") == "PASS" and isinstance(r.get("throughput"), (int, float))]


def case_label(r):
    label = r.get("case", "")
    return label + (f' [{r["size"]}]' if r.get("size") else "")


def rate(value, unit):
    prefixes = ["", "k", "M", "G", "T", "P"]
    i = 0
    while abs(value) >= 1000 and i < len(prefixes) - 1:
        value /= 1000
        i += 1
    return f"{value:.3g} {prefixes[i]}{unit}"


def seconds(s):
    if not isinstance(s, (int, float)):
        return "-"
    return f"{s * 1e3:.3g} ms" if s < 1 else f"{s:.3g} s"


def percent(x):
    return f"{x * 100:.0f}%" if isinstance(x, (int, float)) else "-"


def gpu_models(report, provenance):
    names = []
    for backend in ("cuda", "hip"):
        for source in (provenance.get(backend, {}).get("gpus", []),
                       report.get("ppkit", {}).get(backend, {}).get("devices", [])):
            for d in source:
                if d.get("name") and d["name"] not in names:
                    names.append(d["name"])
    return names


def provenance_lines(p, source):
    lines = []

    def item(key, value):
        if value:
            lines.append(f"- {key}: {value}")

    item("date (UTC)", p.get("date_utc"))
    item("host", p.get("host"))
    b = p.get("ppkit", {})
    commit = (b.get("git_commit") or "unknown")[:12]
    if b.get("git_dirty") is True:
        commit += " (tracked files modified at configure time)"
    item("ppkit", f'{b.get("version", "?")}, commit {commit}'
         + (f', {b["build_type"]} build' if b.get("build_type") else "")
         + (f', target {b["target"]}' if b.get("target") else ""))
    c = p.get("compiler", {})
    item("compiler", "; ".join(x for x in [c.get("cxx"), c.get("cuda") and "CUDA " + c["cuda"]]
                               if x))
    k = p.get("kokkos", {})
    if k:
        spaces = ", ".join(f'{s.get("name")} ({s.get("device")})'
                           for s in k.get("execution_spaces", []))
        item("Kokkos", f'{k.get("version", "?")}' + (f", execution spaces: {spaces}" if spaces
                                                      else ""))
    cpu = p.get("cpu", {})
    if cpu:
        item("CPU", f'{cpu.get("model", "?")}, {cpu.get("logical_cores", "?")} logical cores')
    for backend in ("cuda", "hip"):
        g = p.get(backend)
        if g:
            gpus = ", ".join(d.get("name", "?") for d in g.get("gpus", [])) or g.get(
                "status", "no device")
            item(backend.upper(), f'runtime {g.get("runtime", "?")}, driver '
                 f'{g.get("driver", "?")}; {gpus}')
    o = p.get("opencl", {})
    if o:
        item("OpenCL", "; ".join(f'{pl.get("platform")} ({pl.get("version")}): '
                                 + ", ".join(pl.get("devices", []))
                                 for pl in o.get("platforms", [])) or "no platform")
    if p.get("command"):
        lines.append(f'- command: `{p["command"]}`')
    if p.get("note"):
        lines.append(f'- note: {p["note"]}')
    lines.append(f"- provenance from: {source}")
    return lines


def roofline_basis(rows):
    """Copy bandwidth per backend and device, as measured in the run."""
    basis = {}
    for r in rows:
        if isinstance(r.get("bandwidth_Bps"), (int, float)):
            basis[(r["backend"], r.get("device", ""))] = r["bandwidth_Bps"]
    return basis


def workload_table(rows):
    out = ["| case | variant | device | median | fastest - slowest | throughput | roofline "
           "| speedup | error |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        out.append(
            f'| {case_label(r)} | {r["variant"]} | {r.get("device", "")} | '
            f'{seconds(r.get("median_s"))} | {seconds(r.get("min_s"))} - '
            f'{seconds(r.get("max_s"))} | {rate(r["throughput"], r["throughput_unit"])} | '
            f'{percent(r.get("roofline_fraction"))} | '
            + (f'{r["speedup"]:.2f}x' if isinstance(r.get("speedup"), (int, float)) else "-")
            + " | "
            + (f'{r["error"]:.1e}' if isinstance(r.get("error"), (int, float)) else "-")
            + " |")
    return out


def bench_tables(paths):
    out = []
    for path in paths:
        with open(path) as f:
            bench = json.load(f)
        good = [b for b in bench.get("benchmarks", []) if not b.get("error_occurred")]
        out += ["", f"### Benchmark `{os.path.basename(path)}`", "",
                f'{bench.get("context", {}).get("date", "")}; benchmarks without an error only.',
                "", "| benchmark | time | counters |", "| --- | --- | --- |"]
        for b in good:
            counters = ", ".join(
                f"{k} {v:.4g}" for k, v in b.items()
                if isinstance(v, (int, float)) and k not in (
                    "real_time", "cpu_time", "iterations", "repetitions", "repetition_index",
                    "threads", "family_index", "per_family_instance_index"))
            out.append(f'| {b.get("name")} | {b.get("real_time", 0):.4g} '
                       f'{b.get("time_unit", "")} | {counters} |')
    return out


def results_page(machine, report_dir, page_dir, report, provenance, source, peers, benches):
    rows = passed(report)
    rel = os.path.relpath(report_dir, page_dir)
    gpus = gpu_models(report, provenance)
    machine_peers = next((peers["machines"][g] for g in gpus if g in peers.get("machines", {})),
                         None)
    out = [f"# Results on {machine}", "",
           "<!-- Generated by scripts/generate-results.py from one `ppkit compare` report; "
           "edit the generator or docs/results/peers.json, not this page. -->", "",
           f"Every figure below comes from one `ppkit compare` report, `{rel}/` "
           "(results.json, summary.md, plots), and only from its verified (PASS) rows. "
           f"Paper headlines beside these figures: [{machine}-papers.md]({machine}-papers.md).",
           ""]
    history = peers.get("pages", {}).get(machine, {}).get("history")
    if history:
        out += [history, ""]
    out += ["## Run", ""]
    out += provenance_lines(provenance, source)
    out += ["", "## Roofline basis", "",
            "A row's roofline fraction = its compulsory bytes per run / median time / the copy "
            "bandwidth of its backend measured in the same run:", "",
            "| backend | device | copy bandwidth |", "| --- | --- | --- |"]
    for (backend, device), bw in sorted(roofline_basis(rows).items()):
        out.append(f"| {backend} | {device} | {bw * 1e-9:.0f} GB/s |")
    if machine_peers:
        out += ["", "Ceilings of this GPU model: " + "; ".join(
            f'{c["what"]} {c["figure"]}' for c in machine_peers.get("ceilings", [])) + "."]
    workloads = [w for w in WORKLOAD_ORDER if w in peers.get("goals", {})
                 or any(r["workload"] == w for r in rows)]
    workloads += sorted({r["workload"] for r in rows} - set(workloads))
    for w in workloads:
        wrows = [r for r in rows if r["workload"] == w]
        out += ["", f"## {WORKLOAD_TITLES.get(w, w)}", ""]
        if peers.get("goals", {}).get(w):
            out.append(f'Goal: {peers["goals"][w]}.')
        wpeers = [p for p in (machine_peers or {}).get("peers", []) if p["workload"] == w]
        if wpeers:
            out.append("Peers on the same GPU model: " + "; ".join(
                f'{p["peer"]}: {p["figure"]}' + (f' ({p["note"]})' if p.get("note") else "")
                for p in wpeers) + ".")
        out.append("")
        if not wrows:
            out.append("Not in this report: no verified row of this workload.")
            continue
        out += workload_table(wrows)
        for name in sorted(os.listdir(report_dir)):
            if name.endswith(".png") and (name == f"throughput_{w}.png"
                                          or name.startswith(w.replace("-", "_") + "_")):
                out += ["", f"![{name}]({rel}/{name})"]
    if benches:
        out += ["", "## Benchmarks"] + bench_tables(benches)
    return "\n".join(out) + "\n"


def strategy(row):
    """The row's strategy trait (compare.cpp writes it in extra); reports
    written before variants carried typed traits have only the name."""
    return row.get("extra", {}).get("strategy") or row["variant"].split("/", 1)[-1]


def find(rows, workload, case_has, variant=None, strategy_prefix=None):
    for r in rows:
        if r["workload"] != workload or case_has not in r.get("case", ""):
            continue
        if variant and r["variant"] != variant:
            continue
        if strategy_prefix and not strategy(r).startswith(strategy_prefix):
            continue
        yield r


def best(rows):
    rows = list(rows)
    return max(rows, key=lambda r: r["throughput"]) if rows else None


def fem_figure(rows):
    """Best strategy over thread-per-element, per case and backend."""
    parts = []
    for case in dict.fromkeys(r["case"] for r in rows if r["workload"] == "fem"):
        crows = [r for r in rows if r["workload"] == "fem" and r["case"] == case]
        for backend in dict.fromkeys(r["backend"] for r in crows):
            brows = [r for r in crows if r["backend"] == backend]
            base = next((r for r in brows if r["variant"].endswith("/thread-per-element")), None)
            top = best(r for r in brows if not r["variant"].endswith("/thread-per-element"))
            if base and top:
                parts.append(f'{case}, {backend}: {top["variant"]} '
                             f'{top["throughput"] / base["throughput"]:.2f}x')
    return "; ".join(parts)


def sph_figure(rows):
    parts = []
    for r in rows:
        extra = r.get("extra") or {}
        if r["workload"] == "sph" and "change_percent" in extra:
            parts.append(f'{r["case"]} ({r["variant"]}): first tenth '
                         f'{extra.get("first_tenth_ms", 0):.3g} ms, last tenth '
                         f'{extra.get("last_tenth_ms", 0):.3g} ms, {extra["change_percent"]:+.1f}%')
    return "; ".join(parts)


def sem_figure(rows):
    """Best recompute (trilinear*) over stored on the same backend, per order N."""
    parts = []
    for n in (3, 5, 7, 9):
        for backend in dict.fromkeys(r["backend"] for r in rows if r["workload"] == "sem"):
            key = f"axhelm N={n} "
            stored = [r for r in find(rows, "sem", key, variant=f"{backend}/stored")
                      if "poisson" in r["case"]]
            for s in stored:
                rec = best(r for r in find(rows, "sem", s["case"], strategy_prefix="trilinear")
                           if r["backend"] == backend)
                if rec:
                    parts.append(f'N = {n}, {backend}: {rec["variant"]} '
                                 f'{rec["throughput"] / s["throughput"]:.2f}x')
    return "; ".join(parts)


def fdtd_figure(rows):
    parts = []
    for case in dict.fromkeys(r["case"] for r in rows if r["workload"] in ("fdtd",
                                                                           "fdtd-phasors")):
        opencl = {strategy(r): r for r in rows if r["case"] == case and r["backend"] == "opencl"}
        plain, f4 = opencl.get("plain"), opencl.get("float4")
        if plain and f4:
            parts.append(f'{case}: {f4["throughput"] / plain["throughput"]:.2f}x')
    return "; ".join(parts)


def papers_page(machine, report_dir, page_dir, report, provenance, peers):
    rows = passed(report)
    rel = os.path.relpath(report_dir, page_dir)
    figures = {"fem": fem_figure, "sph": sph_figure, "sem": sem_figure, "fdtd": fdtd_figure}
    out = [f"# Seed papers beside ppkit on {machine}", "",
           "<!-- Generated by scripts/generate-results.py; edit the generator or "
           "docs/results/peers.json, not this page. -->", "",
           f"Each paper's headline beside ppkit's figure from one report on this machine, "
           f"`{rel}/` ({provenance.get('date_utc', 'date unknown')}, commit "
           f"{(provenance.get('ppkit', {}).get('git_commit') or 'unknown')[:12]}), verified "
           f"(PASS) rows only. Full tables: [{machine}.md]({machine}.md).", "",
           "| paper | its headline | ppkit on this machine | where the machine differs |",
           "| --- | --- | --- | --- |"]
    for p in peers.get("papers", []):
        figure = figures.get(p["workload"], lambda _: "")(rows) or "not in this report"
        out.append(f'| {p["paper"]} | {p["headline"]} | {figure} | {p.get("hopper") or "-"} |')
    return "\n".join(out) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("report_dir")
    parser.add_argument("--machine", required=True, help="page name, e.g. h200")
    parser.add_argument("--bench", action="append", default=[],
                        help="Google Benchmark JSON to add (repeatable)")
    parser.add_argument("--out", help="results page (default docs/results/<machine>.md)")
    parser.add_argument("--papers-out",
                        help="seed-paper page (default docs/results/<machine>-papers.md)")
    parser.add_argument("--peers", help="goals, peers and papers (default docs/results/peers.json)")
    a = parser.parse_args(argv)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = a.out or os.path.join(root, "docs", "results", f"{a.machine}.md")
    papers_out = a.papers_out or os.path.join(os.path.dirname(out), f"{a.machine}-papers.md")
    with open(a.peers or os.path.join(root, "docs", "results", "peers.json")) as f:
        peers = json.load(f)
    report, provenance, source = load_report(a.report_dir)
    page_dir = os.path.dirname(os.path.abspath(out))
    with open(out, "w") as f:
        f.write(results_page(a.machine, os.path.abspath(a.report_dir), page_dir, report,
                             provenance, source, peers, a.bench))
    with open(papers_out, "w") as f:
        f.write(papers_page(a.machine, os.path.abspath(a.report_dir),
                            os.path.dirname(os.path.abspath(papers_out)), report, provenance,
                            peers))
    print(f"written: {out}, {papers_out}")


if __name__ == "__main__":
    main()
