#!/usr/bin/env python3
"""The variant tables of docs/<workload>.md, generated from the registry.

    scripts/generate-variant-tables.py --ppkit build/host/apps/ppkit/ppkit [--check]
    scripts/generate-variant-tables.py --list-json list.json [--check] [--docs DIR]

Reads `ppkit list --json` (every registered variant: operation, name, backend,
strategy, preference) and rewrites, in each docs/<workload>.md, the table
between

    <!-- variants:begin OPERATION -->
    <!-- variants:end -->

one row per variant: name, backend, strategy, its place in `auto`'s order among
the variants of its backend, and a notes cell. The notes are the one thing
written by hand: the generator keeps each row's notes from the table it
replaces (by variant name) and gives a new variant an empty cell.

Kokkos variants are listed once per strategy as `kokkos-<space>/<strategy>`
(each enabled execution space registers them); their order is that of the
build's host space (Serial or OpenMP). Rows of a backend this build did not
compile (HIP variants register only in HIP builds, CUDA ones only where nvcc
was found) are kept as they are, neither checked nor dropped.

--check rewrites nothing: it exits 1, printing the difference, when a table is
not what the registry gives (a variant added, removed or reordered without
regenerating), when a row's notes are empty, or when an operation of
fem/sph/sem/fdtd has no table. CTest runs it (Docs.VariantTablesMatchTheRegistry).

Python 3 standard library only.
"""
import argparse
import difflib
import json
import os
import re
import subprocess
import sys

WORKLOADS = ["fem", "sph", "sem", "fdtd"]
HEADER = "| variant | backend | strategy | auto | notes |"
RULE = "| --- | --- | --- | --- | --- |"
BEGIN = re.compile(r"^<!-- variants:begin ([a-z_.-]+) -->$")
END = "<!-- variants:end -->"
HOST_SPACES = ["kokkos-serial", "kokkos-openmp", "kokkos-threads"]


def load_registry(args):
    if args.list_json:
        with open(args.list_json) as f:
            rows = json.load(f)
    else:
        out = subprocess.run([args.ppkit, "list", "--json"], check=True, capture_output=True,
                             text=True, env=dict(os.environ, OMP_PROC_BIND="false"))
        rows = json.loads(out.stdout)
    for r in rows:
        for key in ("operation", "variant", "backend", "strategy", "preference"):
            if key not in r:
                sys.exit(f"`ppkit list --json` has no '{key}' for {r.get('variant', r)}: "
                         "this generator reads operation, variant, backend, strategy, preference")
    return rows


GROUP_ORDER = ["kokkos", "cuda", "hip", "opencl"]


def group_of(backend):
    return "kokkos" if backend.startswith("kokkos-") else backend


def ordinal(n):
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def registry_rows(registry, operation):
    """The generated rows of one operation: (group, name, backend, strategy, auto)."""
    variants = [r for r in registry if r["operation"] == operation]
    spaces = {r["backend"] for r in variants if group_of(r["backend"]) == "kokkos"}
    host = next((s for s in HOST_SPACES if s in spaces), min(spaces) if spaces else None)
    rows, seen = [], set()
    for r in variants:
        group = group_of(r["backend"])
        if group == "kokkos":
            name = "kokkos-<space>/" + r["strategy"]
            if name in seen:
                continue
            ranked = [v for v in variants if v["backend"] == host]
            if not any(v["strategy"] == r["strategy"] for v in ranked):
                ranked = [v for v in variants if v["backend"] == r["backend"]]
            backend = "kokkos"
        else:
            name = r["variant"]
            ranked = [v for v in variants if v["backend"] == r["backend"]]
            backend = r["backend"]
        seen.add(name)
        mine = next(v for v in ranked if v["strategy"] == r["strategy"])
        place = 1 + sum(1 for v in ranked if v["preference"] > mine["preference"])
        auto = f"**{ordinal(place)}**" if place == 1 else ordinal(place)
        rows.append((group, name, backend, r["strategy"], auto))
    return rows


def parse_table(lines):
    """Rows of an existing generated table: name -> cells, in order."""
    rows = {}
    for line in lines:
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if len(cells) != 5:
            continue
        name = cells[0].strip("`")
        rows[name] = cells
    return rows


def render(operation, generated, old_rows):
    built_groups = {g for g, *_ in generated}
    rows, names = [], set()
    for group, name, backend, strategy, auto in generated:
        notes = old_rows.get(name, [""] * 5)[4]
        rows.append((group, f"| `{name}` | {backend} | {strategy} | {auto} | {notes} |"))
        names.add(name)
    kept = [cells for name, cells in old_rows.items()
            if name not in names and group_of(cells[1]) not in built_groups]
    rows += [(group_of(cells[1]), "| " + " | ".join(cells) + " |") for cells in kept]
    # One backend order for every build, so a build without some backend (its
    # rows kept) writes the same table as one with it.
    rank = {g: i for i, g in enumerate(GROUP_ORDER)}
    rows.sort(key=lambda row: rank.get(row[0], len(GROUP_ORDER)))
    out = [HEADER, RULE] + [line for _, line in rows]
    groups = [g for g, *_ in generated] + [group_of(c[1]) for c in kept]
    if "hip" not in groups:
        out.append("")
        out.append("HIP variants (`hip/*`) register only in HIP builds (`-DPPKIT_ENABLE_HIP=ON`); "
                   f"`ppkit list --workload {operation}` there lists them.")
    out.append("")
    out.append("auto: the variant's place in `auto`'s order among its backend's variants (1st: "
               "the one `auto` takes where that backend is the most preferred that can run); "
               "Kokkos rows in the order of a host space. Generated from the registry by "
               "`scripts/generate-variant-tables.py`; edit only the notes.")
    return out


def process(text, path, registry, problems):
    lines = text.split("\n")
    out, i, operations = [], 0, []
    while i < len(lines):
        m = BEGIN.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        operation = m.group(1)
        operations.append(operation)
        j = i + 1
        while j < len(lines) and lines[j] != END:
            j += 1
        if j == len(lines):
            sys.exit(f"{path}: {lines[i]} without {END}")
        generated = registry_rows(registry, operation)
        if not generated:
            problems.append(f"{path}: no variant of {operation} is registered in this build")
        old_rows = parse_table(lines[i + 1:j])
        table = render(operation, generated, old_rows)
        for line in table:
            if line.startswith("| `") and line.rstrip().endswith("|  |"):
                problems.append(f"{path}: {operation}: {line.split(' | ')[0][2:]} has no notes")
        out.append(lines[i])
        out.extend(table)
        out.append(END)
        i = j + 1
    return "\n".join(out), operations


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--ppkit", help="the ppkit CLI to run `ppkit list --json` with")
    source.add_argument("--list-json", help="a file holding `ppkit list --json`'s output")
    parser.add_argument("--docs", default=os.path.normpath(
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs")))
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 if a table is out of date")
    args = parser.parse_args()
    registry = load_registry(args)

    problems, stale = [], []
    for workload in WORKLOADS:
        path = os.path.join(args.docs, workload + ".md")
        with open(path) as f:
            text = f.read()
        new, operations = process(text, path, registry, problems)
        for op in sorted({r["operation"] for r in registry if r["operation"].startswith(workload + ".")}):
            if op not in operations:
                problems.append(f"{path}: operation {op} has no table "
                                f"(<!-- variants:begin {op} --> ... {END})")
        if new == text:
            continue
        if args.check:
            stale.append(path)
            sys.stdout.writelines(difflib.unified_diff(
                text.splitlines(True), new.splitlines(True), path, path + " (from the registry)"))
        else:
            with open(path, "w") as f:
                f.write(new)
            print(f"rewrote the variant tables of {path}")
    for p in problems:
        print("error: " + p, file=sys.stderr)
    if stale:
        print("error: variant tables out of date with the registry: " + ", ".join(stale) +
              "\n  run scripts/generate-variant-tables.py --ppkit <build>/apps/ppkit/ppkit",
              file=sys.stderr)
    return 1 if stale or problems else 0


if __name__ == "__main__":
    sys.exit(main())
