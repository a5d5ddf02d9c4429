#!/usr/bin/python3
"""Plot SPH step time against step number (Guan et al.: with and without renumbering).

Usage: scripts/sph_plot_step_history.py OUT.png LABEL=history.csv [LABEL=history.csv ...]
Each CSV is written by `ppkit sph step-history --csv`.
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for item in sys.argv[2:]:
        label, _, path = item.partition("=")
        raw = np.loadtxt(path or label, delimiter=",", skiprows=1, ndmin=2)
        step, seconds = raw[:, 0], raw[:, 2] * 1e3
        window = max(1, len(seconds) // 100)
        smooth = np.convolve(seconds, np.ones(window) / window, mode="valid")
        ax.plot(step[window - 1:], smooth, label=label if path else path)
        tenth = max(1, len(seconds) // 10)
        print(f"{label}: first tenth {seconds[1:tenth + 1].mean():.3f} ms, last tenth "
              f"{seconds[-tenth:].mean():.3f} ms ({(seconds[-tenth:].mean() / seconds[1:tenth + 1].mean() - 1) * 100:+.1f}%)")
    ax.set_xlabel("step")
    ax.set_ylabel("step time [ms] (moving mean)")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(sys.argv[1], dpi=110)
    print(f"plot written to {sys.argv[1]}")


if __name__ == "__main__":
    main()
