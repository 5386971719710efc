"""The test suite's workers over time: when each xdist worker starts and ends, how much of
its wall time was its tests' CPU, and the tests whose wall time is most over their CPU
(waits: timers, subprocesses, a core taken by another worker).

Runs `pytest -q -n auto -p no:cacheprovider` with this file as a plugin (each test's wall
and CPU, the worker's process and its children by `getrusage`, written a line a test into
a folder), then prints the figures. A suite whose workers end far apart is held up by its
last chunk of tests, not by its CPU: look here before cutting tests. The baseline is the
same suite under another scheduling (`--dist load`, xdist's default), in the same run.

Usage: python benchmarks/suite_workers.py [--dist worksteal,load] [--top 15] [PYTEST ARGS]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CLOCK_DIR = "SUITE_WORKERS_DIR"  # where the plugin writes, set by main()


def _cpu_s() -> float:
    own, children = (resource.getrusage(who) for who in
                     (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    started, cpu = time.time(), _cpu_s()
    yield
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(Path(os.environ[CLOCK_DIR]) / f"{worker}.tsv", "a") as out:
        out.write(f"{item.nodeid}\t{started:.3f}\t{time.time():.3f}\t{_cpu_s() - cpu:.3f}\n")


def _read(folder: Path) -> list[tuple[str, str, float, float, float]]:
    """(worker, test, start, end, cpu_s) a test."""
    rows = []
    for path in folder.glob("*.tsv"):
        for line in path.read_text().splitlines():
            test, start, end, cpu = line.split("\t")
            rows.append((path.stem, test, float(start), float(end), float(cpu)))
    return rows


def _report(dist: str, wall_s: float, rows: list, top: int) -> None:
    first = min(r[2] for r in rows)
    print(f"--dist {dist}: {len(rows)} tests, pytest {wall_s:.1f} s wall, the tests' CPU "
          f"{sum(r[4] for r in rows):.1f} s")
    by_worker: dict[str, list] = defaultdict(list)
    for row in rows:
        by_worker[row[0]].append(row)
    for worker, own in sorted(by_worker.items()):
        end = max(r[3] for r in own) - first
        busy = sum(r[3] - r[2] for r in own)
        print(f"  {worker}: ends at {end:6.1f} s, {len(own):5d} tests, "
              f"{busy:6.1f} s in tests, {sum(r[4] for r in own):6.1f} CPU-s")
    waits = sorted(rows, key=lambda r: (r[3] - r[2]) - r[4], reverse=True)[:top]
    print(f"  the {top} tests most over their CPU (wall - CPU, s):")
    for _, test, start, end, cpu in waits:
        print(f"    {end - start - cpu:6.2f}  (wall {end - start:5.2f}, CPU {cpu:5.2f})  {test}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", default="worksteal,load",
                        help="xdist schedulings to run one after the other")
    parser.add_argument("--top", type=int, default=15)
    args, pytest_args = parser.parse_known_args()
    for dist in args.dist.split(","):
        with tempfile.TemporaryDirectory() as folder:
            env = {**os.environ, CLOCK_DIR: folder, "CI": "1",
                   "PYTHONPATH": os.pathsep.join(filter(None, [
                       str(Path(__file__).parent), os.environ.get("PYTHONPATH")]))}
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "auto", "--dist", dist,
                            "-p", "no:cacheprovider", "-p", Path(__file__).stem,
                            *pytest_args], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                           check=False)
            _report(dist, time.perf_counter() - started, _read(Path(folder)), args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
