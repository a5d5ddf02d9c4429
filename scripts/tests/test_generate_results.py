"""scripts/generate-results.py on a report that a real `ppkit compare --quick`
run writes here: the results page lists exactly the verified (PASS) rows of
results.json, and the seed-paper page's FDTD figure is float4 over plain from
those rows (or says the report lacks it).

Needs PPKIT_CLI, the ppkit executable (CTest sets it). Python 3 standard library only.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
GENERATOR = os.path.join(os.path.dirname(HERE), "generate-results.py")


class GeneratedPage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cli = os.environ.get("PPKIT_CLI")
        if not cli:
            raise unittest.SkipTest("PPKIT_CLI (the ppkit executable) is not set")
        cls.tmp = tempfile.TemporaryDirectory()
        cls.report = os.path.join(cls.tmp.name, "report")
        # FDTD at --quick: Kokkos and OpenCL rows that run, CUDA rows and the
        # OpenCL rows of the fp64 case that cannot (SKIP) on a CPU machine.
        run = subprocess.run(
            [cli, "compare", "--quick", "--workloads", "fdtd", "--repeats", "1", "--no-plots",
             "--variants", "kokkos-*/plain,cuda/register-x,cuda/split-x1,opencl/*",
             "--out", cls.report], capture_output=True, text=True)
        if run.returncode != 0:
            raise AssertionError(f"ppkit compare failed ({run.returncode}):\n{run.stdout}"
                                 f"\n{run.stderr}")
        with open(os.path.join(cls.report, "results.json")) as f:
            cls.rows = json.load(f)["rows"]
        cls.page = os.path.join(cls.tmp.name, "machine.md")
        cls.papers = os.path.join(cls.tmp.name, "machine-papers.md")
        subprocess.run([sys.executable, GENERATOR, cls.report, "--machine", "machine", "--out",
                        cls.page, "--papers-out", cls.papers], check=True, capture_output=True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @staticmethod
    def label(row):
        return row["case"] + (f' [{row["size"]}]' if row.get("size") else "")

    def listed(self):
        """(case, variant) of every row of the page's workload tables."""
        out = []
        with open(self.page) as f:
            for line in f:
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                if line.startswith("| ") and len(cells) == 9 and cells[0] not in ("case", "---"):
                    out.append((cells[0], cells[1]))
        return out

    def test_page_lists_exactly_the_pass_rows(self):
        expected = [(self.label(r), r["variant"]) for r in self.rows if r["status"] == "PASS"]
        self.assertTrue(expected, "the run verified no row")
        self.assertEqual(sorted(self.listed()), sorted(expected))
        # The run had rows that did not pass (on a CPU machine: CUDA and fp64
        # OpenCL); none of them is on the page.
        others = {(self.label(r), r["variant"]) for r in self.rows if r["status"] != "PASS"}
        self.assertFalse(others & set(self.listed()))

    def test_page_names_the_run(self):
        with open(os.path.join(self.report, "results.json")) as f:
            provenance = json.load(f)["provenance"]
        with open(self.page) as f:
            page = f.read()
        self.assertIn(provenance["date_utc"], page)
        self.assertIn(provenance["ppkit"]["git_commit"][:12], page)
        self.assertIn(f'- command: `{provenance["command"]}`', page)

    def test_papers_page_float4_over_plain_from_the_rows(self):
        with open(self.papers) as f:
            fdtd = [line for line in f if line.startswith("| FDTD")]
        self.assertEqual(len(fdtd), 1)
        ratios = []
        for case in dict.fromkeys(r["case"] for r in self.rows):
            by = {r["variant"]: r for r in self.rows
                  if r["case"] == case and r["status"] == "PASS"}
            if "opencl/plain" in by and "opencl/float4" in by:
                ratio = by["opencl/float4"]["throughput"] / by["opencl/plain"]["throughput"]
                ratios.append(f"{case}: {ratio:.2f}x")
        if ratios:
            for r in ratios:
                self.assertIn(r, fdtd[0])
        else:
            self.assertIn("not in this report", fdtd[0])


if __name__ == "__main__":
    unittest.main()
