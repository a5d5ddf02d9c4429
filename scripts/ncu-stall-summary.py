#!/usr/bin/env python3
"""Where a kernel's warps wait, by code region, from Nsight Compute's SASS view.

    ncu --set full -k regex:KERNEL -o report BINARY ...
    ncu -i report.ncu-rep --page source --csv --print-source sass > sass.csv
    scripts/ncu-stall-summary.py sass.csv [--top N]
    scripts/ncu-stall-summary.py sass.csv --opcodes-against base.csv

Instructions executed the same number of times form one region (a loop body,
a barrier, a once-per-block tail); for each region, largest first, it prints
its share of the warp stall samples, its instructions and executions, and its
five largest stall reasons, then the N instructions with the most samples,
then the shared-memory wavefronts (counted and without bank conflicts) by
opcode and region. docs/fem.md ("Strategy (i)") quotes it for
cluster_gather_kernel. With --opcodes-against it prints instead the
instructions executed by opcode (its first dot-separated part, predicates
dropped) in base.csv and sass.csv and their difference, largest first.
"""
import argparse
import collections
import csv
import sys


def number(text):
    text = text.strip().replace(",", "")
    return float(text) if text else 0.0


def sass_rows(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header_at = next((i for i, r in enumerate(rows) if r and r[0].strip() == "Address"), None)
    if header_at is None:
        sys.exit(f"ncu-stall-summary: {path} has no 'Address' header row "
                 "(expected ncu --page source --csv --print-source sass)")
    header = rows[header_at]
    return header, [r for r in rows[header_at + 1:] if len(r) == len(header)]


def opcode_counts(path):
    header, data = sass_rows(path)
    source_at, executed_at = header.index("Source"), header.index("Instructions Executed")
    counts = collections.Counter()
    for r in data:
        words = r[source_at].split()
        if words and words[0].startswith("@"):
            words = words[1:]
        if words:
            counts[words[0].split(".")[0]] += number(r[executed_at])
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", help="ncu --page source --csv --print-source sass output")
    parser.add_argument("--top", type=int, default=12, help="instructions to list (12)")
    parser.add_argument("--regions", type=int, default=8, help="regions to list (8)")
    parser.add_argument("--opcodes-against", metavar="BASE_CSV",
                        help="print executions by opcode against this SASS view instead")
    args = parser.parse_args()
    if args.opcodes_against:
        base, new = opcode_counts(args.opcodes_against), opcode_counts(args.csv)
        print(f"{'opcode':10s} {'base (M)':>9s} {'this (M)':>9s} {'change (M)':>10s}")
        for op in sorted(set(base) | set(new), key=lambda o: -(new[o] - base[o])):
            if base[op] or new[op]:
                print(f"{op:10s} {base[op] / 1e6:9.2f} {new[op] / 1e6:9.2f} "
                      f"{(new[op] - base[op]) / 1e6:+10.2f}")
        return
    header, data = sass_rows(args.csv)
    samples_at = header.index("Warp Stall Sampling (All Samples)")
    executed_at = header.index("Instructions Executed")
    reasons = [(name, header.index(name)) for name in header
               if name.startswith("stall_") and "(Not Issued)" not in name]
    total = sum(number(r[samples_at]) for r in data) or 1.0
    regions = collections.defaultdict(
        lambda: {"samples": 0.0, "count": 0, "reasons": collections.Counter()})
    for r in data:
        region = regions[int(number(r[executed_at]))]
        region["samples"] += number(r[samples_at])
        region["count"] += 1
        for name, at in reasons:
            region["reasons"][name] += number(r[at])
    print(f"{len(data)} instructions, {int(total)} stall samples, "
          f"{sum(number(r[executed_at]) for r in data) / 1e6:.1f} M warp instructions executed")
    print("executions  instructions  samples  stall reasons (share of the region's)")
    largest = sorted(regions.items(), key=lambda kv: -kv[1]["samples"])[:args.regions]
    for executions, region in largest:
        in_region = sum(region["reasons"].values()) or 1.0
        top = " ".join(f"{name[6:]} {value / in_region:.0%}"
                       for name, value in region["reasons"].most_common(5))
        print(f"{executions:>10}  {region['count']:>12}  {region['samples'] / total:>7.1%}  {top}")
    print("instructions with the most samples:")
    for r in sorted(data, key=lambda r: -number(r[samples_at]))[:args.top]:
        share, executions = number(r[samples_at]) / total, int(number(r[executed_at]))
        print(f"  {share:6.1%}  x{executions:>9}  {r[1].strip()}")
    if "L1 Wavefronts Shared" in header:
        counted_at = header.index("L1 Wavefronts Shared")
        ideal_at = header.index("L1 Wavefronts Shared Ideal")
        by_opcode = collections.defaultdict(lambda: [0, 0.0, 0.0])
        for r in data:
            counted = number(r[counted_at])
            if counted == 0:
                continue
            words = r[1].split()
            width = words[1] if words[0].startswith("@") else words[0]  # e.g. LDS.64
            group = by_opcode[(width, int(number(r[executed_at])))]
            group[0] += 1
            group[1] += counted
            group[2] += number(r[ideal_at])
        counted = sum(g[1] for g in by_opcode.values())
        ideal = sum(g[2] for g in by_opcode.values())
        print(f"shared-memory wavefronts: {counted / 1e6:.1f} M ({ideal / 1e6:.1f} M without bank "
              "conflicts); by instruction and region:")
        for (width, executions), g in sorted(by_opcode.items(), key=lambda kv: -kv[1][1])[:args.top]:
            print(f"  {width:<20} x{executions:>9}  {g[0]:>3} instructions  "
                  f"{g[1] / 1e6:6.1f} M ({g[2] / 1e6:.1f} M)  "
                  f"{g[1] / max(g[0] * executions, 1):.2f} per execution")


if __name__ == "__main__":
    main()
