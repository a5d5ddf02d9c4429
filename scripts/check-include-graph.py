#!/usr/bin/env python3
"""Fails on an #include that points up or sideways in ppkit's layers.

Dependencies point one way (docs/architecture.md):
  apps -> backends -> src/ppkit/<workload> -> src/ppkit/mpi -> src/ppkit/core
and, among the backends, cuda -> cuda_hip <- hip. Forbidden:
  - src/ including backends/ or apps/, backends/ including apps/;
  - one vendor's backend including another's (backends/cuda <-> backends/hip,
    opencl <-> either); backends/cuda_hip, which both CUDA and HIP include,
    including either of them;
  - a workload folder (fem, sem, sph, fdtd, in src/ppkit/ or in a backend)
    including another workload's folder;
  - a core folder (src/ppkit/core, backends/<vendor>/core) including a
    workload, and src/ppkit/core including src/ppkit/mpi; src/ppkit/mpi
    including a workload.
Reads the quoted and angled includes of every C, C++, CUDA, HIP and OpenCL
source git knows (tracked, or untracked and not ignored) and resolves those
that name a folder of the tree: "backends/...", "apps/..." and "ppkit/..."
(src/ppkit/...). Prints each forbidden include as file:line and exits 1.

  scripts/check-include-graph.py            check the tree
  scripts/check-include-graph.py --graph    also print the folder-level graph
"""
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

WORKLOADS = {"fem", "sem", "sph", "fdtd"}
# A shared backend folder and the vendor backends that may include it.
SHARED_BACKENDS = {"cuda_hip": {"cuda", "hip"}}
SOURCE_SUFFIXES = {".c", ".h", ".cpp", ".hpp", ".cc", ".cu", ".cuh", ".hip", ".cl", ".inc"}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]')


def folder_of_file(path):
    """('src', sub) / ('backends', vendor, sub) / ('apps',) for a file, else None."""
    parts = path.split("/")
    if parts[:2] == ["src", "ppkit"] and len(parts) > 3:
        return ("src", parts[2])
    if parts[0] == "backends" and len(parts) > 2:
        return ("backends", parts[1], parts[2] if len(parts) > 3 else "")
    if parts[0] == "apps":
        return ("apps",)
    return None


def folder_of_include(target):
    """The folder an include names, or None for system and third-party headers."""
    parts = target.split("/")
    if parts[0] == "ppkit" and len(parts) > 2:
        return ("src", parts[1])
    if parts[0] == "backends" and len(parts) > 2:
        return ("backends", parts[1], parts[2] if len(parts) > 3 else "")
    if parts[0] == "apps":
        return ("apps",)
    return None


def workload(folder):
    sub = folder[1] if folder[0] == "src" else folder[2] if folder[0] == "backends" else ""
    return sub if sub in WORKLOADS else None


def is_core(folder):
    return (folder[0] == "src" and folder[1] == "core") or (
        folder[0] == "backends" and folder[2] == "core")


def violation(source, target):
    """Why source may not include target, or None."""
    if source[0] == "src" and target[0] in ("backends", "apps"):
        return "src/ includes " + target[0] + "/"
    if source[0] == "backends" and target[0] == "apps":
        return "backends/ includes apps/"
    if source[0] == "backends" and target[0] == "backends" and source[1] != target[1]:
        if source[1] not in SHARED_BACKENDS.get(target[1], set()):
            return f"backends/{source[1]} includes backends/{target[1]}"
    if target[0] == "apps":
        return None
    w_source, w_target = workload(source), workload(target)
    if w_source and w_target and w_source != w_target:
        return f"workload {w_source} includes workload {w_target}"
    if is_core(source) and w_target:
        return f"a core folder includes workload {w_target}"
    if source == ("src", "core") and target == ("src", "mpi"):
        return "src/ppkit/core includes src/ppkit/mpi"
    if source == ("src", "mpi") and w_target:
        return f"src/ppkit/mpi includes workload {w_target}"
    return None


def name(folder):
    if folder[0] == "src":
        return "src/ppkit/" + folder[1]
    if folder[0] == "backends":
        return "backends/" + folder[1] + ("/" + folder[2] if folder[2] else "")
    return "apps"


def main():
    root = Path(__file__).resolve().parent.parent
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                           cwd=root, check=True, capture_output=True, text=True).stdout.split()
    failures, edges, checked = [], defaultdict(int), 0
    for path in sorted(set(files)):
        if Path(path).suffix not in SOURCE_SUFFIXES or not (root / path).is_file():
            continue
        source = folder_of_file(path)
        if source is None:
            continue
        checked += 1
        text = (root / path).read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            match = INCLUDE.match(line)
            target = folder_of_include(match.group(1)) if match else None
            if target is None:
                continue
            if target != source:
                edges[(name(source), name(target))] += 1
            why = violation(source, target)
            if why:
                failures.append(f"{path}:{number}: #include \"{match.group(1)}\": {why}")
    if "--graph" in sys.argv[1:]:
        for (a, b), count in sorted(edges.items()):
            print(f"{a} -> {b} ({count})")
    if failures:
        print("\n".join(failures))
        print(f"check-include-graph: {len(failures)} forbidden include(s) in {checked} files "
              "(docs/architecture.md, 'Layers and where things live')", file=sys.stderr)
        return 1
    print(f"check-include-graph: {checked} files, {sum(edges.values())} includes across folders, "
          "none upward or sideways")
    return 0


if __name__ == "__main__":
    sys.exit(main())
