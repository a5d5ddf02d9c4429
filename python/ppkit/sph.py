"""SPH: the SPHERIC test 2 dam break advanced in time (``ppkit::sph::Simulation``)."""
from . import _ppkit


class Simulation(_ppkit.Simulation):
    """Simulation(dp=0.02, tank_height=1.0, variant="auto", reorder_every=1):
    the dam break of ``ppkit sph dambreak``. advance(t_end, max_steps=-1)
    returns the steps taken; probes() gives (heights H1..H4 [m], pressures
    P1..P8 [Pa]); state() a dict of NumPy copies in the case's particle order.
    """
