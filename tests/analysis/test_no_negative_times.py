"""No time in any sample trace's `--summary --json` is negative.

Every number in the JSON is checked, not only those named as times: a negative one is a
bug (a gap measured from an activity that had not ended, say) unless its key is one of
SIGNED, whose meaning has a sign.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SAMPLES
from tests.helpers.paths import inflated
from tui.cli.main import main

SIGNED = {
    "device": "-1 names the host in host_memory (a device id, not a time)",
    "net_hold_ns": "a rank's balance: the time it held others up less the time it waited",
}
TRACES = sorted(p.name for p in SAMPLES.iterdir()
                if not p.name.endswith((".csv", ".ncu-rep", ".ncu-rep.gz")))
# keys signed in the rows of one finding only
SIGNED_ROWS = {
    "slow_steps": {"offset_ns": "a step's host range may start before the first GPU "
                                "activity, the +0 (JAX's first step dispatches, then runs)"},
    "cuda_api_sync": {"offset_ns": "a host call may start before the first GPU activity, "
                                   "the +0 (ckpt_memory's synchronize as its profiled steps "
                                   "begin)"},
}
# folders whose one trace is kept xz-compressed: summed up inflated
PACKED = {"nvlink": "nvlink/nvlink.sqlite", "cuda_graph": "cuda_graph/cuda_graph_graph.sqlite",
          "unannotated": "unannotated/vision.sqlite"}


def negatives(value: Any, where: str = "") -> Iterator[tuple[str, float]]:
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from negatives(inner, f"{where}.{key}")
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from negatives(inner, f"{where}[{i}]")
    elif isinstance(value, int | float) and not isinstance(value, bool) and value < 0:
        yield where, value


def test_the_sample_traces_are_all_here() -> None:
    assert len(TRACES) >= 40 and "jax_lm" in TRACES and "fsdp4" in TRACES


@pytest.mark.parametrize("name", TRACES)
def test_no_time_in_a_summary_is_negative(name: str) -> None:
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        path = inflated(PACKED[name]) if name in PACKED else Path(SAMPLES / name)
        assert main(["--summary", "--json", str(path)]) == 0
    summary = json.loads(out.getvalue())
    found = [(where, value) for where, value in negatives(summary)
             if where.rsplit(".", 1)[-1] not in SIGNED and not _signed_row(summary, where)]
    assert not found, found


def _signed_row(summary: dict, where: str) -> bool:
    """Whether `where` ('.findings[3].rows[0].offset_ns') is a key SIGNED_ROWS allows a
    sign in that finding's rows."""
    found = re.fullmatch(r"\.findings\[(\d+)\]\.rows\[\d+\]\.(\w+)", where)
    if found is None:
        return False
    rule = summary["findings"][int(found[1])]["rule"]
    return found[2] in SIGNED_ROWS.get(rule, {})


def test_an_activity_that_starts_before_the_last_one_ended_adds_no_idle_time() -> None:
    """jax_lm's stream 14 has activities that overlap on the stream: HTA's kernel wait
    was -226 µs there; measured from the latest end so far it is 14 µs, and its host
    wait and gap count are as before."""
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        main(["--summary", "--json", str(SAMPLES / "jax_lm")])
    idle = json.loads(out.getvalue())["ranks"][0]["idle_breakdown"][0]
    assert (idle["stream"], idle["kernel_wait_ns"], idle["host_wait_ns"], idle["gaps"]) \
        == (14, 14078, 11341594, 615)
