"""FDTD: a Yee case with CPML stepped in place (``ppkit::fdtd::Solver``)."""
from . import _ppkit


class Solver(_ppkit.Solver):
    """Solver(case_json, variant="auto", memory=None): the JSON case format of
    ``ppkit fdtd run --case`` (docs/fdtd.md, "Case files"); memory "host",
    "cuda" or "hip" to choose among variants keeping the fields there.

    step(n, stream=0) queues n steps (at most the case's ``steps_total``);
    get_field("ez") returns a NumPy copy of shape ``shape`` = (nx+1, ny+1,
    nz+1); set_field("hx", values) writes one from a contiguous host or
    device array of that many values (float32 for fp32 cases, float64 for
    fp64); probe_values() copies the probe record only; restart() returns to
    the case's initial state.
    """
