"""scripts/dualsphysics-beside.sh with the real ppkit CLI and stand-ins for GenCase and
DualSPHysics that print those programs' summary lines (the formats of GenCase's particle summary
and of DualSPHysics v5.0's JSph::ShowResume) with seeded random values: the table's ns per
particle per step must be runtime / (steps x particles) from the printed values, and ppkit's
the sum of its CSV's step times / (steps x particles); DualSPHysics must get -nsteps, no particle
output while stepping, and the device option; a run DualSPHysics did not finish is refused.

Needs PPKIT_CLI, the ppkit executable (CTest sets it). Python 3 standard library only.
"""
import csv
import json
import os
import random
import stat
import subprocess
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(os.path.dirname(HERE), "dualsphysics-beside.sh")

# GenCase stand-in: writes the case file's particle counts next to the case (DualSPHysics'
# stand-in loads them) and prints GenCase's summary line.
GENCASE = textwrap.dedent('''\
    #!/usr/bin/env python3
    import random, sys
    dp = [a for a in sys.argv if a.startswith("-dp:")][0][4:]
    rng = random.Random(dp)
    nb, nf = rng.randint(10**5, 10**6), rng.randint(10**5, 10**6)
    open(sys.argv[2] + ".counts", "w").write(f"{nb} {nf}\\n")
    print("GenCase v5.0.229 (29-01-2021)")
    print(f"Total particles: {nb + nf} (bound={nb} (fx={nb} mv=0 ft=0) fluid={nf})")
    print(f"Total MK blocks: 3 (bound=2 (fx=2 mv=0 ft=0) fluid=1)")
''')

# DualSPHysics stand-in: records its arguments, prints ShowResume's lines.
DUALSPHYSICS = textwrap.dedent('''\
    #!/usr/bin/env python3
    import os, random, sys
    args = sys.argv[1:]
    case, out = [a for a in args if not a.startswith("-")][:2]
    open(os.environ["FAKE_DSPH_ARGS"], "a").write(" ".join(args) + "\\n")
    nb, nf = map(int, open(case + ".counts").read().split())
    steps = int([a for a in args if a.startswith("-nsteps:")][0][8:])
    rng = random.Random(case)
    tsim = rng.uniform(1, 100)
    tphys = rng.uniform(0.05, 0.5)
    os.makedirs(out, exist_ok=True)
    open(os.path.join(out, "Run.csv"), "w").write("recorded\\n")
    print("DualSPHysics5 v5.0.233 (08-05-2022)")
    print("====================================")
    finished = "INTERRUPTED" if os.environ.get("FAKE_DSPH_STOP") else "finished"
    print(f"\\n[Simulation {finished}  07-12-2026 15:27:37]")
    print(f"Particles of simulation (initial): {nb + nf}")
    print("DTs adjusted to DtMin............: 0")
    print("Excluded particles...............: 3")
    print("Total Runtime....................: %f sec." % (tsim + 2))
    print("Simulation Runtime...............: %f sec." % tsim)
    print("Runtime per physical second......: %f sec." % (tsim / tphys))
    print("Steps per second.................: %f" % (steps / tsim))
    print("Steps of simulation..............: %d" % steps)
    print("PART files.......................: 1")
''')


def write_exe(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def printed(text, label):
    """The value after DualSPHysics' dotted label, as printed."""
    for line in text.splitlines():
        if line.startswith(label):
            return float(line.split(":", 1)[1].split()[0])
    raise AssertionError(f"no '{label}' line")


class BesideScript(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cli = os.environ.get("PPKIT_CLI")
        if not cli:
            raise unittest.SkipTest("PPKIT_CLI (the ppkit executable) is not set")
        cls.tmp = tempfile.TemporaryDirectory()
        root = cls.tmp.name
        cls.dsph = os.path.join(root, "dsph")
        cls.bundle = os.path.join(root, "bundle")
        os.makedirs(cls.dsph)
        os.makedirs(os.path.join(cls.bundle, "bin"))
        os.makedirs(os.path.join(cls.bundle, "lib"))
        os.symlink(os.path.abspath(cli), os.path.join(cls.bundle, "bin", "ppkit"))
        write_exe(os.path.join(cls.dsph, "GenCase_linux64"), GENCASE)
        write_exe(os.path.join(cls.dsph, "DualSPHysics5.0_linux64"), DUALSPHYSICS)
        cls.steps = random.Random(7).randint(3, 5)
        cls.dps = ["0.06", "0.07"]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_script(self, out, stop=False):
        env = dict(os.environ, OUT=out, DSPH_DPS=" ".join(self.dps), DSPH_STEPS=str(self.steps),
                   DSPH_DEVICE="-cpu", PPKIT_VARIANT="kokkos-serial/symplectic",
                   FAKE_DSPH_ARGS=os.path.join(out, "args.txt"), OMP_PROC_BIND="false")
        if stop:
            env["FAKE_DSPH_STOP"] = "1"
        os.makedirs(out, exist_ok=True)
        return subprocess.run(["bash", SCRIPT, self.dsph, self.bundle], env=env,
                              capture_output=True, text=True, timeout=300)

    def test_figures_are_wall_time_over_steps_and_all_particles(self):
        out = os.path.join(self.tmp.name, "out")
        run = self.run_script(out)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        with open(os.path.join(out, "dualsphysics_beside.json")) as f:
            table = json.load(f)
        self.assertEqual([str(r["dp"]) for r in table["runs"]], self.dps)
        for row in table["runs"]:
            tag = "dp" + str(row["dp"])
            with open(os.path.join(out, f"dualsphysics_{tag}.out")) as f:
                log = f.read()
            tsim = printed(log, "Simulation Runtime")
            steps = printed(log, "Steps of simulation")
            n = printed(log, "Particles of simulation (initial)")
            d = row["dualsphysics"]
            self.assertEqual(d["steps"], self.steps)
            self.assertEqual(d["particles"], n)
            self.assertEqual(d["boundary"] + d["fluid"], n)
            self.assertAlmostEqual(d["ns_per_particle_step"], tsim * 1e9 / (steps * n), delta=1e-3)
            self.assertAlmostEqual(d["simulated_time_s"],
                                   tsim / printed(log, "Runtime per physical second"), delta=1e-5)
            self.assertEqual(d["excluded"], 3)
            self.assertTrue(os.path.exists(os.path.join(out, f"dualsphysics_{tag}_Run.csv")))

            # ppkit: the CSV's per-step wall times over its own particle count.
            with open(os.path.join(out, f"ppkit_history_{tag}.csv")) as f:
                rows = list(csv.DictReader(f))
            with open(os.path.join(out, f"ppkit_{tag}.txt")) as f:
                header = f.readline()
            n_pp = float(header.split(": ", 1)[1].split()[0])
            p = row["ppkit"]
            self.assertEqual(len(rows), self.steps)
            self.assertEqual(p["steps"], self.steps)
            self.assertEqual(p["particles"], n_pp)
            total = sum(float(r["step_seconds"]) for r in rows)
            self.assertAlmostEqual(p["ns_per_particle_step"],
                                   total * 1e9 / (self.steps * n_pp), delta=1e-3)
            self.assertAlmostEqual(p["simulated_time_s"], float(rows[-1]["time"]), delta=1e-6)
            self.assertAlmostEqual(row["dualsphysics_over_ppkit"],
                                   d["ns_per_particle_step"] / p["ns_per_particle_step"],
                                   delta=0.006)
        with open(os.path.join(out, "args.txt")) as f:
            calls = f.read().splitlines()
        self.assertEqual(len(calls), len(self.dps))
        for call in calls:
            args = call.split()
            self.assertEqual(args[0], "-cpu")
            self.assertIn(f"-nsteps:{self.steps}", args)
            self.assertIn("-sv:none", args)
            tmax = float([a for a in args if a.startswith("-tmax:")][0][6:])
            tout = float([a for a in args if a.startswith("-tout:")][0][6:])
            self.assertGreater(tout, tmax)  # no PART written while stepping
        with open(os.path.join(out, "dualsphysics_beside.md")) as f:
            md = f.read()
        self.assertEqual(md.count("\n| 0.0"), len(self.dps))

    def test_unfinished_dualsphysics_run_is_refused(self):
        out = os.path.join(self.tmp.name, "out-stopped")
        run = self.run_script(out, stop=True)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("did not finish", run.stderr)
        self.assertFalse(os.path.exists(os.path.join(out, "dualsphysics_beside.json")))


if __name__ == "__main__":
    unittest.main()
