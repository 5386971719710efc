"""What JAX profiles' host side is called: Python frames without the tracer's `$`, in
both forms a run is written in; checked against the files read with the json module."""

from __future__ import annotations

from pathlib import Path

from tests import xla_oracle
from tests.conftest import SAMPLES
from tui.trace import open_trace

TRAIN = next((SAMPLES / "jax_train" / "plugins" / "profile").iterdir())


def python_names_in(events: list[dict]) -> set[str]:
    """The Python tracer's frames: the events of /host: threads named '$file.py:N func'."""
    return {e["name"] for *_, e in xla_oracle._host_spans(events) if e["name"].startswith("$")}


def host_names(path: Path, kind: str) -> set[str]:
    with open_trace(path) as trace:
        rows = trace.con.execute("SELECT DISTINCT name FROM host_activities WHERE kind = ?",
                                 [kind]).fetchall()
    return {name for (name,) in rows}


def test_python_frames_lose_the_tracers_dollar_in_json_and_xplane() -> None:
    marked = python_names_in(xla_oracle.read_events(TRAIN / "vm.trace.json.gz"))
    assert "$pxla.py:85 shard_args" in marked
    expected = {name[1:] for name in marked}
    assert "pxla.py:85 shard_args" in expected
    assert host_names(TRAIN / "perfetto_trace.json.gz", "python") == expected
    assert host_names(TRAIN / "vm.xplane.pb", "python") == expected
