"""FEM: the hex8 linear-elasticity assembly into CSR, built once per mesh."""
import numpy as np

from . import _ppkit


class Assembler(_ppkit.Assembler):
    """K (CSR values) and the load vector f of a hex8 mesh, pattern built once.

    Assembler(coordinates, connectivity, variant="auto"): coordinates float64
    (nodes, 3); connectivity int32 (E, 8), 0-based, Gmsh hexahedron order.
    DOF = 3 * node + component.

    pattern() -> (indptr int64, indices int32) host copies of the CSR pattern;
    assemble(E, nu, body_force, values, load, stream=0) writes into arrays in
    ``memory`` (empty_values() / empty_load() make them there);
    update_coordinates(coordinates) moves the nodes, keeping the pattern.
    """

    def matrix(self, E, nu, body_force=(0.0, 0.0, 0.0)):
        """(K, f) as a scipy.sparse.csr_matrix and a NumPy vector on the host:
        assembled in the operator's memory, then copied once."""
        import scipy.sparse

        from . import to_host

        values, load = self.empty_values(), self.empty_load()
        self.assemble(E, nu, tuple(body_force), values, load)
        self.wait()
        indptr, indices = self.pattern()
        n = self.num_rows
        if self.memory[0] != "host":
            values, load = to_host(values), to_host(load)
        return scipy.sparse.csr_matrix((np.asarray(values), indices, indptr), shape=(n, n)), np.asarray(load)
