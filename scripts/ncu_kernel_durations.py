#!/usr/bin/env python3
"""Mean duration per kernel from an Nsight Compute CSV (`ncu --csv --page raw
--metrics gpu__time_duration.sum ...`), as in the fifth H200 round (git history, 87de8ac)
kernel_durations_768.txt. Usage: ncu_kernel_durations.py FILE.csv"""
import collections
import csv
import sys


def main(path):
    rows = list(csv.reader(open(path, newline="")))
    header = next((i for i, r in enumerate(rows) if r and r[0] == "ID"), None)
    if header is None:
        sys.exit(f"{path}: no Nsight Compute CSV header (a line starting with \"ID\")")
    names = rows[header]
    name_col = names.index("Kernel Name")
    time_col = names.index("gpu__time_duration.sum")
    total = collections.defaultdict(float)
    count = collections.Counter()
    for r in rows[header + 2:]:  # the line after the header holds the units
        try:
            ns = float(r[time_col].replace(",", ""))
        except (IndexError, ValueError):
            continue
        name = r[name_col].split("(")[0].replace("void ", "")
        total[name] += ns
        count[name] += 1
    for name in total:
        print(f"  {name:60s} {count[name]:3d} launches  {total[name] / count[name] / 1e6:8.3f} ms")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: ncu_kernel_durations.py FILE.csv")
    main(sys.argv[1])
