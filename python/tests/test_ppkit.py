"""The Python package against independent references: the SEM operator
against a NumPy implementation of axhelm written for clarity, the
gather-scatter against numpy.add.at, applied many times with fresh inputs;
bad arrays refused with their reason; compare() rows as Python data."""
import json
import os

import numpy as np
import pytest

import ppkit

SEED = int(os.environ.get("PPKIT_TEST_SEED", np.random.SeedSequence().entropy % 2**31))


def gll(order):
    """GLL nodes, weights and derivative matrix of order N (numpy only)."""
    n = order
    x = -np.cos(np.pi * np.arange(n + 1) / n)  # Chebyshev-Gauss-Lobatto start
    p = np.zeros((n + 1, n + 1))
    for _ in range(100):  # Newton on (1 - x^2) P_N'(x)
        p[:, 0], p[:, 1] = 1, x
        for k in range(2, n + 1):
            p[:, k] = ((2 * k - 1) * x * p[:, k - 1] - (k - 1) * p[:, k - 2]) / k
        x_old = x.copy()
        x = x_old - (x * p[:, n] - p[:, n - 1]) / ((n + 1) * p[:, n])
        if np.max(np.abs(x - x_old)) < 1e-16:
            break
    w = 2.0 / (n * (n + 1) * p[:, n] ** 2)
    d = np.zeros((n + 1, n + 1))
    for i in range(n + 1):
        for j in range(n + 1):
            if i != j:
                d[i, j] = p[i, n] / p[j, n] / (x[i] - x[j])
    d[0, 0] = -n * (n + 1) / 4.0
    d[n, n] = n * (n + 1) / 4.0
    return x, w, d


def box(order, ex, ey, ez, rng):
    """Trilinear elements of a perturbed box: vertices (E, 8, 3), global ids."""
    grid = np.stack(np.meshgrid(np.arange(ex + 1) / ex, np.arange(ey + 1) / ey,
                                np.arange(ez + 1) / ez, indexing="ij"), axis=-1)
    interior = (slice(1, ex), slice(1, ey), slice(1, ez))
    grid[interior] += rng.uniform(-0.1, 0.1, grid[interior].shape) / max(ex, ey, ez)
    nq = order + 1
    vertices, ids = [], []
    nx, ny = ex * order + 1, ey * order + 1
    for k in range(ez):
        for j in range(ey):
            for i in range(ex):
                vertices.append([grid[i + (c & 1), j + ((c >> 1) & 1), k + (c >> 2)] for c in range(8)])
                a, b, c = np.meshgrid(np.arange(nq), np.arange(nq), np.arange(nq), indexing="ij")
                g = (i * order + a) + nx * ((j * order + b) + ny * (k * order + c))
                ids.append(g.transpose(2, 1, 0).ravel())  # local node a + Nq (b + Nq c)
    return np.array(vertices), np.concatenate(ids).astype(np.int64), nx * ny * (ez * order + 1)


def reference_axhelm(order, vertices, x, lambda0, lambda1, helmholtz):
    """y = lambda0 D^T G D x + lambda1 w|J| x per element, G from the trilinear map."""
    r, w, d = gll(order)
    nq = order + 1
    y = np.empty_like(x)
    rr, ss, tt = np.meshgrid(r, r, r, indexing="ij")  # [i, j, k]
    ww = np.einsum("i,j,k->ijk", w, w, w)
    for e, v in enumerate(vertices):
        # x(r, s, t) = sum_c v_c (1 +- r)(1 +- s)(1 +- t) / 8 and its Jacobian
        jac = np.zeros((nq, nq, nq, 3, 3))
        for c in range(8):
            sr, sa, st = (1 if c & 1 else -1), (1 if (c >> 1) & 1 else -1), (1 if c >> 2 else -1)
            fr, fs, ft = 1 + sr * rr, 1 + sa * ss, 1 + st * tt
            jac[..., :, 0] += np.multiply.outer(sr * fs * ft / 8, v[c])
            jac[..., :, 1] += np.multiply.outer(fr * sa * ft / 8, v[c])
            jac[..., :, 2] += np.multiply.outer(fr * fs * st / 8, v[c])
        det = np.linalg.det(jac)
        inv = np.linalg.inv(jac)  # [.., ref, phys]
        g = np.einsum("...ap,...bp->...ab", inv, inv) * (ww * det)[..., None, None]
        u = x[e].reshape(nq, nq, nq).transpose(2, 1, 0)  # [i, j, k]
        grad = np.stack([np.einsum("ai,ijk->ajk", d, u), np.einsum("bj,ijk->ibk", d, u),
                         np.einsum("ck,ijk->ijc", d, u)], axis=-1)
        flux = np.einsum("...ab,...b->...a", g, grad)
        out = (np.einsum("ai,ajk->ijk", d, flux[..., 0]) + np.einsum("bj,ibk->ijk", d, flux[..., 1])
               + np.einsum("ck,ijc->ijk", d, flux[..., 2]))
        out = lambda0 * out if helmholtz else out
        if helmholtz:
            out = out + lambda1 * ww * det * u
        y[e] = out.transpose(2, 1, 0).ravel()
    return y


@pytest.mark.parametrize("helmholtz", [False, True])
def test_axhelm_applied_many_times_matches_numpy(helmholtz):
    rng = np.random.default_rng(SEED)
    order = 3
    vertices, _, _ = box(order, 3, 2, 2, rng)
    A = ppkit.sem.Axhelm(order, vertices, helmholtz=helmholtz, memory="host")
    assert A.memory == ("host", -1)
    x, y = A.empty(), A.empty()
    assert x.shape == (A.size,) and isinstance(x, np.ndarray)
    for _ in range(20):
        x[:] = rng.uniform(-1, 1, A.size)
        l0, l1 = rng.uniform(0.5, 2.0, 2)
        A.apply(x, y, l0, l1)
        A.wait()
        ref = reference_axhelm(order, vertices, x.reshape(len(vertices), -1), l0, l1, helmholtz)
        assert np.linalg.norm(y - ref.ravel()) <= 1e-12 * np.linalg.norm(ref)


def axhelm_operators(order, vertices):
    """(name, operator) for every available sem.axhelm variant that runs this
    problem: variants refuse the orders they do not run (the WMMA kernels
    run N = 7 only) with "unsupported problem"."""
    for name in [n for n, ok, _ in ppkit.variants("sem.axhelm") if ok]:
        try:
            yield name, ppkit.sem.Axhelm(order, vertices, variant=name)
        except ValueError as e:
            if "unsupported problem" not in str(e):
                raise


def test_every_available_variant_agrees():
    rng = np.random.default_rng(SEED + 1)
    vertices, _, _ = box(4, 2, 2, 2, rng)
    x = rng.uniform(-1, 1, len(vertices) * 125)
    ref = reference_axhelm(4, vertices, x.reshape(len(vertices), -1), 1, 1, False).ravel()
    ran = 0
    for name, A in axhelm_operators(4, vertices):
        ran += 1
        xd, yd = A.empty(), A.empty()
        ppkit.copy(xd, x)
        A.apply(xd, yd)
        A.wait()
        assert np.linalg.norm(ppkit.to_host(yd) - ref) <= 1e-12 * np.linalg.norm(ref), name
    assert ran > 0, "no variant can run here"


@pytest.mark.parametrize("library", ["cupy", "torch"])
def test_axhelm_writes_into_cupy_and_torch_device_arrays(library):
    """Zero copy through DLPack on a GPU: every variant on CUDA memory reads
    and writes the library's own arrays, ordered on the library's stream."""
    lib = pytest.importorskip(library)
    rng = np.random.default_rng(SEED + 5)
    vertices, _, _ = box(4, 2, 2, 2, rng)
    x = rng.uniform(-1, 1, len(vertices) * 125)
    ref = reference_axhelm(4, vertices, x.reshape(len(vertices), -1), 1, 1, False).ravel()
    ran = 0
    for name, A in axhelm_operators(4, vertices):
        kind, device = A.memory
        if kind != "cuda":
            continue
        if library == "cupy":
            with lib.cuda.Device(device):
                xd = lib.asarray(x)
                yd = lib.full_like(xd, np.nan)
                address = yd.data.ptr
                A.apply(xd, yd, stream=lib.cuda.get_current_stream().ptr)
                y = lib.asnumpy(yd)  # queued after apply on the same stream
                assert yd.data.ptr == address
        else:
            where = lib.device("cuda", device)
            xd = lib.tensor(x, device=where)
            yd = lib.full_like(xd, float("nan"))
            address = yd.data_ptr()
            A.apply(xd, yd, stream=lib.cuda.current_stream(where).cuda_stream)
            y = yd.cpu().numpy()
            assert yd.data_ptr() == address
        assert np.linalg.norm(y - ref) <= 1e-12 * np.linalg.norm(ref), name
        ran += 1
    if ran == 0:
        pytest.skip("no sem.axhelm variant works on CUDA memory here")


def test_gather_scatter_matches_numpy():
    rng = np.random.default_rng(SEED + 2)
    vertices, ids, count = box(3, 3, 2, 2, rng)
    A = ppkit.sem.Axhelm(3, vertices, memory="host")
    Q = ppkit.sem.GatherScatter(ids, count, like=A)
    u = rng.uniform(-1, 1, len(ids))
    sums = np.zeros(count)
    np.add.at(sums, ids, u)
    Q.dssum(u)
    assert np.allclose(u, sums[ids], rtol=1e-14, atol=1e-14)


def test_bad_arrays_are_refused_with_their_reason():
    rng = np.random.default_rng(SEED + 3)
    vertices, _, _ = box(2, 2, 1, 1, rng)
    A = ppkit.sem.Axhelm(2, vertices, memory="host")
    y = A.empty()
    with pytest.raises(TypeError, match="float64"):
        A.apply(np.zeros(A.size, dtype=np.float32), y)
    with pytest.raises(ValueError, match="not contiguous"):
        A.apply(np.zeros(2 * A.size)[::2], y)
    with pytest.raises(ValueError, match="values, the operator takes"):
        A.apply(np.zeros(A.size + 1), y)
    with pytest.raises(ValueError, match="unknown variant"):
        ppkit.sem.Axhelm(2, vertices, variant="no-such/variant")
    with pytest.raises(ValueError, match="E \\* 8 \\* 3"):
        ppkit.sem.Axhelm(2, np.zeros((3, 7)))


def test_compare_returns_rows():
    # The host Kokkos rows: Serial where Kokkos has it, else the space it has.
    names = [n for n, ok, _ in ppkit.variants("sem.axhelm") if ok]
    host = "kokkos-serial" if any(n.startswith("kokkos-serial/") for n in names) else "kokkos-openmp"
    report = ppkit.compare(workloads=["sem"], variants=host + "/*", size="quick", repeats=1)
    rows = report["rows"]
    assert rows and all(r["workload"] == "sem" for r in rows)
    assert {r["status"] for r in rows} <= {"PASS", "SKIP"}
    assert any(r["status"] == "PASS" for r in rows)
    with pytest.raises(ValueError, match="unknown workload"):
        ppkit.compare(workloads=["nope"])


def reference_hex8_stiffness(xyz, E, nu):
    """The 24x24 element stiffness by 2x2x2 Gauss quadrature (numpy only)."""
    lam, mu = E * nu / ((1 + nu) * (1 - 2 * nu)), E / (2 * (1 + nu))
    D = np.full((6, 6), 0.0)
    D[:3, :3] = lam
    D[np.arange(3), np.arange(3)] += 2 * mu
    D[np.arange(3, 6), np.arange(3, 6)] = mu
    corners = np.array([[-1, -1, -1], [1, -1, -1], [1, 1, -1], [-1, 1, -1],
                        [-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]], dtype=float)
    k = np.zeros((24, 24))
    g = 1 / np.sqrt(3)
    for r in (-g, g):
        for s in (-g, g):
            for t in (-g, g):
                dN = np.array([[c[0] * (1 + c[1] * s) * (1 + c[2] * t), c[1] * (1 + c[0] * r) * (1 + c[2] * t),
                                c[2] * (1 + c[0] * r) * (1 + c[1] * s)] for c in corners]) / 8
                J = dN.T @ xyz
                dx = dN @ np.linalg.inv(J).T
                B = np.zeros((6, 24))
                for a in range(8):
                    B[0, 3 * a], B[1, 3 * a + 1], B[2, 3 * a + 2] = dx[a]
                    B[3, 3 * a], B[3, 3 * a + 1] = dx[a, 1], dx[a, 0]
                    B[4, 3 * a + 1], B[4, 3 * a + 2] = dx[a, 2], dx[a, 1]
                    B[5, 3 * a], B[5, 3 * a + 2] = dx[a, 2], dx[a, 0]
                k += B.T @ D @ B * np.linalg.det(J)
    return k


def test_fem_assembler_matches_numpy_assembly():
    rng = np.random.default_rng(SEED + 4)
    nx, ny, nz = 3, 2, 2
    x, y, z = np.meshgrid(np.arange(nx + 1), np.arange(ny + 1), np.arange(nz + 1), indexing="ij")
    xyz = np.stack([x.ravel(), y.ravel(), z.ravel()], axis=1).astype(float)
    xyz += rng.uniform(-0.15, 0.15, xyz.shape)
    node = lambda i, j, k: (i * (ny + 1) + j) * (nz + 1) + k
    conn = np.array([[node(i, j, k), node(i + 1, j, k), node(i + 1, j + 1, k), node(i, j + 1, k),
                      node(i, j, k + 1), node(i + 1, j, k + 1), node(i + 1, j + 1, k + 1),
                      node(i, j + 1, k + 1)]
                     for i in range(nx) for j in range(ny) for k in range(nz)], dtype=np.int32)
    perm = rng.permutation(len(xyz))  # any node numbering
    xyz_p = np.empty_like(xyz)
    xyz_p[perm] = xyz
    conn_p = perm[conn].astype(np.int32)
    names = [n for n, ok, _ in ppkit.variants("fem.assemble") if ok]
    assert names
    for name in names:
        A = ppkit.fem.Assembler(xyz_p, conn_p, variant=name)
        for _ in range(3):
            E, nu = rng.uniform(1e9, 2e11), rng.uniform(0.1, 0.45)
            K, f = A.matrix(E, nu, body_force=(0.0, 0.0, -1.0))
            dense = np.zeros((3 * len(xyz), 3 * len(xyz)))
            for e in conn_p:
                dofs = (3 * e[:, None] + np.arange(3)).ravel()
                dense[np.ix_(dofs, dofs)] += reference_hex8_stiffness(xyz_p[e], E, nu)
            assert np.abs(K.toarray() - dense).max() <= 1e-12 * np.abs(dense).max(), name
            volume_force = -f[2::3].sum()  # body force -1 in z: the loads sum to the volume
            assert volume_force > 0


def test_fem_assembler_refuses_bad_input():
    xyz = np.zeros((8, 3))
    with pytest.raises(ValueError, match="8 node indices"):
        ppkit.fem.Assembler(xyz, np.zeros((1, 7), dtype=np.int32))
    conn = np.arange(8, dtype=np.int32).reshape(1, 8)
    with pytest.raises(ValueError):
        ppkit.fem.Assembler(xyz, conn)  # every node at the origin: a degenerate element


def numpy_yee_steps(f, steps, d, dt):
    """The Yee leapfrog (H then E) in a vacuum PEC box, float64, written for
    clarity: tangential E on the faces is never updated."""
    mu0 = 1.25663706212e-6
    eps0 = 1.0 / (mu0 * 299792458.0**2)
    dh, cb = dt / mu0, dt / eps0
    ex, ey, ez, hx, hy, hz = (f[c].astype(np.float64) for c in ("ex", "ey", "ez", "hx", "hy", "hz"))
    dx, dy, dz = d
    for _ in range(steps):
        hx[:, :-1, :-1] -= dh * ((ez[:, 1:, :-1] - ez[:, :-1, :-1]) / dy - (ey[:, :-1, 1:] - ey[:, :-1, :-1]) / dz)
        hy[:-1, :, :-1] -= dh * ((ex[:-1, :, 1:] - ex[:-1, :, :-1]) / dz - (ez[1:, :, :-1] - ez[:-1, :, :-1]) / dx)
        hz[:-1, :-1, :] -= dh * ((ey[1:, :-1, :] - ey[:-1, :-1, :]) / dx - (ex[:-1, 1:, :] - ex[:-1, :-1, :]) / dy)
        ex[:-1, 1:-1, 1:-1] += cb * ((hz[:-1, 1:-1, 1:-1] - hz[:-1, :-2, 1:-1]) / dy
                                     - (hy[:-1, 1:-1, 1:-1] - hy[:-1, 1:-1, :-2]) / dz)
        ey[1:-1, :-1, 1:-1] += cb * ((hx[1:-1, :-1, 1:-1] - hx[1:-1, :-1, :-2]) / dz
                                     - (hz[1:-1, :-1, 1:-1] - hz[:-2, :-1, 1:-1]) / dx)
        ez[1:-1, 1:-1, :-1] += cb * ((hy[1:-1, 1:-1, :-1] - hy[:-2, 1:-1, :-1]) / dx
                                     - (hx[1:-1, 1:-1, :-1] - hx[1:-1, :-2, :-1]) / dy)
    return dict(ex=ex, ey=ey, ez=ez, hx=hx, hy=hy, hz=hz)


def test_fdtd_solver_steps_match_a_numpy_yee_loop():
    rng = np.random.default_rng(SEED + 5)
    cells, size, courant = (8, 6, 5), (0.008, 0.006, 0.005), 0.9
    case = json.dumps({"grid": {"cells": list(cells), "size": list(size), "courant": courant},
                       "steps": 12})
    d = [s / n for s, n in zip(size, cells)]
    dt = courant / (299792458.0 * np.sqrt(sum(1 / x**2 for x in d)))
    names = [n for n, ok, _ in ppkit.variants("fdtd.step") if ok]
    assert names
    for name in names:
        S = ppkit.fdtd.Solver(case, variant=name)
        if S.precision != "fp32":
            continue
        assert tuple(S.shape) == tuple(n + 1 for n in cells)
        fields = {c: rng.uniform(-1, 1, S.shape).astype(np.float32) for c in ("ex", "ey", "ez")}
        fields.update({c: rng.uniform(-1, 1, S.shape).astype(np.float32) / 376.73
                       for c in ("hx", "hy", "hz")})
        for c, v in fields.items():
            S.set_field(c, v)
        S.step(4)
        S.step(3)
        S.wait()
        expected = numpy_yee_steps(fields, 7, d, dt)
        for c in fields:
            got = S.get_field(c)
            scale = np.abs(expected[c]).max()
            assert np.abs(got - expected[c]).max() <= 1e-4 * scale, (name, c)
        with pytest.raises(ValueError, match="steps"):
            S.step(100)  # past the case's 12 steps
        with pytest.raises(TypeError, match="float32"):
            S.set_field("ex", np.zeros(S.shape))


def test_sph_column_falls_under_gravity_and_walls_stay():
    sim = ppkit.sph.Simulation(dp=0.08, tank_height=0.7)
    n = sim.particle_count
    assert 0 < sim.fluid_count < n
    before = sim.state()
    steps = sim.advance(0.02)
    assert steps > 0 and sim.time >= 0.02 - 1e-12
    after = sim.state()
    fluid = after["kind"] == 0
    # Gravity pulls the released column down: the fluid's mean height drops,
    # its mean vertical velocity is negative; walls do not move.
    assert after["z"][fluid].mean() < before["z"][before["kind"] == 0].mean()
    assert after["vz"][fluid].mean() < 0
    walls = before["kind"] == 1
    assert np.array_equal(after["x"][walls], before["x"][walls])
    heights, pressures = sim.probes()
    assert len(heights) == 4 and len(pressures) == 8
