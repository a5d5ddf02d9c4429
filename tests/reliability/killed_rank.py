"""A rank killed with SIGKILL in the middle of an MPI run ends the whole job,
with a message naming the rank, instead of leaving the other ranks waiting in
a collective: `mpirun -np 2 ppkit fdtd run-mpi` on the SAR example case and
`mpirun -np 2 ppkit sph dambreak-mpi`, rank 1 killed once the run is stepping.
The launcher must exit non-zero within the time limit and say which rank died.

Usage: killed_rank.py PPKIT MPIEXEC CASE
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

LIMIT_S = 60  # from the kill to the launcher's exit


def parent_of(pid):
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def descends_from(pid, ancestor):
    while pid > 1:
        if pid == ancestor:
            return True
        pid = parent_of(pid)
    return False


def rank_pids(rank, launcher):
    """PIDs of the ppkit processes under `launcher` whose MPI environment says
    they are `rank` (other jobs running beside this one are left alone)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                command = f.read().split(b"\0")[0]
            if not command.endswith(b"ppkit"):
                continue
            with open(f"/proc/{entry}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        mine = f"OMPI_COMM_WORLD_RANK={rank}".encode() in env or f"PMI_RANK={rank}".encode() in env
        try:
            if mine and descends_from(int(entry), launcher):
                found.append(int(entry))
        except OSError:
            continue
    return found


def kill_rank_one(command, cwd, started_marker):
    """Runs `command`, kills rank 1 once `started_marker` is on its output,
    returns (exit status, output, seconds from the kill to the exit)."""
    with tempfile.TemporaryFile(mode="w+") as out:
        job = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, text=True)
        deadline = time.time() + 120
        victims = []
        while time.time() < deadline and job.poll() is None:
            out.seek(0)
            if started_marker in out.read():
                victims = rank_pids(1, job.pid)
                if victims:
                    break
            time.sleep(0.2)
        if not victims:
            job.kill()
            out.seek(0)
            sys.exit(f"rank 1 of {' '.join(command)} never started stepping:\n{out.read()}")
        time.sleep(1.0)  # well inside the stepping
        for pid in victims:
            os.kill(pid, signal.SIGKILL)
        killed = time.time()
        try:
            status = job.wait(timeout=LIMIT_S)
        except subprocess.TimeoutExpired:
            job.kill()
            job.wait()
            status = None
        waited = time.time() - killed
        out.seek(0)
        return status, out.read(), waited


def main():
    ppkit, mpiexec, case = sys.argv[1:4]
    launcher = [mpiexec, "-n", "2", "--oversubscribe"]
    runs = [
        ("fdtd run-mpi", launcher + [ppkit, "fdtd", "run-mpi", "--case", case], "grid "),
        ("sph dambreak-mpi", launcher + [ppkit, "sph", "dambreak-mpi", "--dp", "0.02",
                                         "--t-end", "2"], "particles"),
    ]
    failures = 0
    with tempfile.TemporaryDirectory() as folder:
        for name, command, marker in runs:
            status, output, waited = kill_rank_one(command, folder, marker)
            names_rank = "rank 1" in output
            ok = status is not None and status != 0 and names_rank
            print(f"{'PASS' if ok else 'FAIL'} {name}: rank 1 killed, launcher exit {status} after "
                  f"{waited:.1f} s, {'names' if names_rank else 'does not name'} rank 1")
            if not ok:
                print(output[-3000:])
                failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
