"""SEM operators: the matrix-free Helmholtz operator (axhelm) of nekRS /
Nekbone and the gather-scatter, on arrays of local nodes [ncol][E][Np]
(Np = (N+1)^3, local node i + Nq (j + Nq k))."""
from . import _ppkit


class Axhelm(_ppkit.Axhelm):
    """y = A x (Poisson) or y = lambda0 A x + lambda1 M x (Helmholtz), with
    the geometry uploaded once.

    Axhelm(order, vertices, factors=None, trilinear=None, ncol=1,
           helmholtz=False, variant="auto", memory=None)

    vertices: float64 (E, 8, 3), corner v = a + 2b + 4c at (2a-1, 2b-1, 2c-1);
    factors: optional float64 (E, 7, Np) G00 G01 G02 G11 G12 G22 w|J|;
    trilinear: optional uint8 (E,) flags (default: all trilinear when
    factors are not given); variant: "auto", a strategy ("stored",
    "trilinear", ...) or a variant name (ppkit.variants()); memory: "host",
    "cuda" or "hip" to choose among variants working on that memory.

    apply(x, y, lambda0=1, lambda1=1, stream=0): x, y float64 arrays of
    ``size`` values in ``memory`` (("host", -1) or ("cuda", device)); the
    call is queued on ``stream`` (a CUDA/HIP stream handle as an int, 0 the
    default stream) and returns before a GPU is done: ``wait()`` or later
    work on the stream sees y.
    """


class GatherScatter(_ppkit.GatherScatter):
    """u <- Q Q^T u (direct stiffness summation) on E Np local nodes.

    GatherScatter(global_ids, global_count, like): global_ids int64 (E Np,)
    global node of each local node; like: the Axhelm whose memory u lives in.
    dssum(u, stream=0) works in place.
    """
