"""Every step's critical path, on every rank of the real multi-GPU samples: at most 1.5
times the longer of its host range and its GPU span, launch delay under half of it (the
GPU queues of these runs are deep behind NCCL kernels that wait for other ranks), and
ending where the step's last work does. Host ranges and GPU spans are read from the
traces' own files (tests/helpers/step_oracle.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SAMPLES
from tests.helpers import step_oracle
from tui.analysis.distributed.critical_path import critical_paths
from tui.loading.trace import open_trace

KINETO = ["pp_gpipe", "pp_1f1b", "tp2", "ddp4", "fsdp4"]
NSYS = ["pp_1f1b_nsys.sqlite", "tp2_nsys.sqlite", "ddp4_nsys.sqlite"]


def _check(path: Path, steps: dict) -> int:
    with open_trace(path) as t:
        paths = critical_paths(t.con)
    assert paths
    for p in paths:
        host_start, host_end, gpu_start, gpu_end = steps[(p.step, p.pid)]
        longer = max(host_end - host_start, gpu_end - gpu_start)
        kinds = p.by_kind()
        where = (path.name, p.step, p.pid)
        assert p.length_ns <= 1.5 * longer, where
        assert kinds["launch_delay"] < 0.5 * p.length_ns, where
        assert host_start <= p.start_ns and p.end_ns == max(host_end, gpu_end), where
        assert sum(kinds.values()) == p.length_ns  # the segments tile it
    return len(paths)


@pytest.mark.slow
@pytest.mark.parametrize("run", KINETO)
def test_every_kineto_rank_s_steps(run: str) -> None:
    files = sorted((SAMPLES / run).glob("*.pt.trace.json.gz"))
    assert len(files) >= 2
    for f in files:
        assert _check(f, step_oracle.kineto_steps(f)) == 2  # steps 3, 4 (5 left out)


@pytest.mark.slow
@pytest.mark.parametrize("name", NSYS)
def test_every_process_of_an_nsys_report(name: str) -> None:
    path = SAMPLES / name
    steps = step_oracle.nsys_steps(path)
    assert _check(path, steps) == len(steps)  # every step of every process
