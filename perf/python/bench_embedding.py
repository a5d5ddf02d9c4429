#!/usr/bin/env python3
"""What calling ppkit's axhelm from Python costs over the registry's run() of
the same variant (docs/embedding.md, "What each API costs"), in one process:

    PYTHONPATH=<folder holding the ppkit package> perf/python/bench_embedding.py [--variant V]
        [--repeats 7] [--size quick|default|large]

The registry's figure is the "registry" row of `ppkit.compare(["embedding"])`
(N = 7, on 1 element and on the size's box, verified against the serial
reference there). The Python figure is `Axhelm.apply(x, y)` + `wait()` on
arrays in the operator's memory, median per call over `--repeats` samples of
at least 2 ms each (median and fastest sample), on an affine box of the same element count. Before
timing, the Python result is checked against an exact identity: on affine
elements and a linear field u = a . x, u^T A u = |a|^2 V (Poisson), to
1e-11 relative; a wrong result stops the benchmark instead of timing it.
"""
import argparse
import sys
import time

import numpy as np

import ppkit


def affine_box(side):
    """Unit-cube elements of a side^3 box: vertices (E, 8, 3), corner
    v = a + 2b + 4c at offset (a, b, c)."""
    corners = np.array([[a, b, c] for c in (0, 1) for b in (0, 1) for a in (0, 1)], float)
    origins = np.array([[i, j, k] for k in range(side) for j in range(side) for i in range(side)],
                       float)
    return origins[:, None, :] + corners[None, :, :]


def gll_nodes(order):
    """Gauss-Lobatto-Legendre nodes on [-1, 1]: +-1 and the roots of P'_N."""
    interior = np.polynomial.legendre.Legendre.basis(order).deriv().roots()
    return np.concatenate(([-1.0], np.sort(interior.real), [1.0]))


def linear_field(vertices, order, a):
    """u = a . x at every local node [E][Np] (node i + Nq (j + Nq k))."""
    r = (gll_nodes(order) + 1) / 2  # position within a unit element
    nq = order + 1
    k, j, i = np.meshgrid(np.arange(nq), np.arange(nq), np.arange(nq), indexing="ij")
    local = np.stack([r[i].ravel(), r[j].ravel(), r[k].ravel()], axis=1)  # (Np, 3)
    points = vertices[:, 0, None, :] + local[None, :, :]
    return (points @ a).ravel()


def per_call(fn, repeats):
    fn()
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-7)
    calls = int(min(max(2e-3 / once, 1), 10000))
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - start) / calls)
    return float(np.median(samples)), float(np.min(samples))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", default="auto")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--size", default="quick", choices=["quick", "default", "large"])
    args = ap.parse_args()
    order = 7
    probe = ppkit.sem.Axhelm(order, affine_box(1), variant=args.variant)
    variant = probe.variant
    report = ppkit.compare(["embedding"], variant, args.size, args.repeats)
    registry = {}
    for row in report["rows"]:
        if row.get("extra", {}).get("api") == "registry" and row["case"].startswith("axhelm") \
                and row["status"] == "PASS":
            elements = int(row["case"].split("E=")[1].split()[0])
            registry[elements] = (row["median_s"], row["min_s"])
    if not registry:
        sys.exit(f"no verified registry row of {variant} in the embedding report")
    print(f"variant {variant}, N = {order}; per call: median (fastest) of {args.repeats} samples")
    print("| elements | registry run() | Python Axhelm.apply + wait | overhead, median (fastest) |")
    print("| --- | --- | --- | --- |")
    rng = np.random.default_rng(7)
    for elements, (registry_s, registry_min) in sorted(registry.items()):
        side = round(elements ** (1 / 3))
        vertices = affine_box(side)
        op = ppkit.sem.Axhelm(order, vertices, variant=variant)
        a = rng.uniform(-1, 1, 3)
        x, y = op.empty(), op.empty()
        ppkit.copy(x, linear_field(vertices, order, a))
        op.apply(x, y)
        op.wait()
        energy = float(np.dot(ppkit.to_host(x), ppkit.to_host(y)))
        exact = float(a @ a) * elements  # unit elements: V = E
        error = abs(energy - exact) / exact
        if not error <= 1e-11:
            sys.exit(f"E={elements}: u^T A u = {energy}, expected {exact} (relative error "
                     f"{error:.2e}): not timed")

        def call():
            op.apply(x, y)
            op.wait()

        python_s, python_min = per_call(call, args.repeats)
        print(f"| {elements} | {registry_s * 1e6:.2f} ({registry_min * 1e6:.2f}) us | "
              f"{python_s * 1e6:.2f} ({python_min * 1e6:.2f}) us | "
              f"{(python_s - registry_s) * 1e6:+.2f} ({(python_min - registry_min) * 1e6:+.2f}) us, "
              f"{python_s / registry_s - 1:+.1%} ({python_min / registry_min - 1:+.1%}) |")


if __name__ == "__main__":
    main()
