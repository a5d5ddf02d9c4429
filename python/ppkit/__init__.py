"""ppkit for Python: ppkit's operators on your own arrays.

Arrays go in and out through DLPack with no copy: NumPy arrays for operators
on the host, CuPy / PyTorch arrays (or ppkit's own, ``ppkit.empty``) for
operators on a GPU. An array of the wrong dtype (float64 only), layout
(C-contiguous only: ppkit never copies behind your back) or memory raises
an error that says which.

    import numpy as np, ppkit
    A = ppkit.sem.Axhelm(order=7, vertices=v)     # v: (E, 8, 3), geometry uploaded once
    x = A.empty(); y = A.empty()                  # arrays in the operator's memory
    A.apply(x, y)                                 # y = A x

``ppkit.compare(...)`` runs ``ppkit compare`` and returns its rows as dicts.
"""
import atexit
import json

from . import _ppkit
from . import fdtd
from . import fem
from . import sem
from . import sph

__version__ = _ppkit.version()

__all__ = ["fdtd", "fem", "sem", "sph", "compare", "info", "empty", "copy", "to_host", "variants", "finalize"]


def info():
    """What this ppkit holds: backends, Kokkos spaces, devices (``ppkit info --json``)."""
    return json.loads(_ppkit.info_json())


def variants(operation="sem.axhelm"):
    """[(name, can_run_here, reason)] for every registered variant of an
    operation: "sem.axhelm", "fem.assemble" or "fdtd.step"."""
    return _ppkit.variants(operation)


def compare(workloads=(), variants="*", size="quick", repeats=3):
    """Runs ``ppkit compare`` on the selected workloads and variants.

    size: "quick", "default" or "large". Returns the report as a dict: its
    "rows" are one dict per (case, variant) with status, median time,
    throughput, roofline fraction, verification error, ...
    """
    return json.loads(_ppkit.compare_json(list(workloads), variants, size, repeats))


def empty(n, memory="host", device=-1):
    """An uninitialised float64 array of n values, in host memory (NumPy) or
    on the current (or given) GPU (an object with __dlpack__ that ppkit's
    calls take any number of times; cupy.from_dlpack / torch.from_dlpack take
    it without a copy)."""
    return _ppkit.empty(n, memory, device)


def copy(destination, source):
    """Copies source into destination (host or device arrays, same size)."""
    _ppkit.copy(destination, source)


def to_host(array):
    """A flat NumPy copy of a contiguous float64 host or device array."""
    return _ppkit.to_host(array)


def finalize():
    """Releases every operator's device data and ppkit's runtime (also at exit)."""
    _ppkit.finalize()


atexit.register(_ppkit.finalize)
