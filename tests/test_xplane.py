"""The .xplane.pb reader against the trace-viewer JSON that XLA wrote from the same XSpace.

Each real JAX run holds `vm.xplane.pb` and `vm.trace.json.gz` (XLA's own conversion of that
XSpace). The JSON is read here independently, with Python's json module, and the reader's
rows must equal it. jax_train and jax_streams are in sample_traces/; jax_train_tuned and
jax_eager (too big to keep) are checked too where the recordings are at hand
($TUI_REAL_TRACES, else .realtraces/ in the checkout).
"""

from __future__ import annotations

import gzip
import json
import os
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from tests.conftest import ROOT, SAMPLES
from tui.errors import TraceError
from tui.sources.xplane import read_xplane_events

REAL = Path(os.environ.get("TUI_REAL_TRACES", ROOT / ".realtraces"))
RUNS = {
    "jax_train": SAMPLES / "jax_train/plugins/profile/2026_11_24_13_14_53",
    "jax_streams": SAMPLES / "jax_streams/plugins/profile/2026_11_24_13_15_01",
    "jax_train_tuned": REAL / "rec/jax/jax_train_tuned/plugins/profile/2026_11_24_13_14_58",
    "jax_eager": REAL / "rec/jax/jax_eager/plugins/profile/2026_11_24_13_14_59",
}
KERNEL_ARGS = ("kernel_details", "correlation_id", "hlo_op", "hlo_module")


def run_dir(name: str) -> Path:
    path = RUNS[name]
    if not (path / "vm.xplane.pb").is_file():
        if name in ("jax_train", "jax_streams"):
            pytest.fail(f"missing sample {path}")
        pytest.skip(f"real recording {path} not at hand")
    return path


def json_events(path: Path) -> list[dict]:
    with gzip.open(path / "vm.trace.json.gz", "rt") as f:
        return json.load(f)["traceEvents"]


def ps(us: float) -> int:
    """µs printed with ps precision -> integer picoseconds."""
    return round(us * 1_000_000)


@pytest.fixture(scope="module", params=list(RUNS))
def both(request: pytest.FixtureRequest) -> tuple[list[dict], list[dict]]:
    path = run_dir(request.param)
    return read_xplane_events(path / "vm.xplane.pb").to_pylist(), json_events(path)


def test_complete_events_per_thread_and_name(both: tuple[list[dict], list[dict]]) -> None:
    rows, events = both
    mine = [r for r in rows if r["ph"] == "X"]
    theirs = [e for e in events if e.get("ph") == "X"]
    assert len(mine) == len(theirs) > 1000
    count: dict[tuple, Counter] = defaultdict(Counter)
    for side, evs in (("mine", mine), ("json", theirs)):
        for e in evs:
            key = (e["pid"], e["tid"], e["name"])
            count[key][side] += 1
            count[key][side + "_ps"] += ps(e["dur"])
    assert len(count) > 10
    for key, c in count.items():
        assert (c["mine"], c["mine_ps"]) == (c["json"], c["json_ps"]), key
    # Same time origin and values: every start, as the float the JSON holds.
    starts = Counter((e["pid"], e["tid"], e["ts"]) for e in theirs)
    assert Counter((r["pid"], r["tid"], r["ts"]) for r in mine) == starts


def test_args_equal_json(both: tuple[list[dict], list[dict]]) -> None:
    rows, events = both

    def kernel(e: dict, args: dict) -> tuple:
        return (e["pid"], e["tid"], e["name"], e["ts"], *(args.get(k) for k in KERNEL_ARGS))

    mine = [(r, json.loads(r["args"]) if r["args"] else {}) for r in rows if r["ph"] == "X"]
    theirs = [(e, e.get("args", {})) for e in events if e.get("ph") == "X"]
    kernels = Counter(kernel(e, a) for e, a in theirs if "kernel_details" in a)
    assert len(kernels) > 100
    assert Counter(kernel(e, a) for e, a in mine if "kernel_details" in a) == kernels
    # Every event's whole args object, printed values included (uint, int, double, refs).
    whole = Counter((e["pid"], e["tid"], e["ts"], json.dumps(a, sort_keys=True)) for e, a in theirs)
    assert Counter((r["pid"], r["tid"], r["ts"], json.dumps(a, sort_keys=True))
                   for r, a in mine) == whole


def test_process_and_thread_names(both: tuple[list[dict], list[dict]]) -> None:
    rows, events = both

    def names(evs: list[dict]) -> set[tuple]:
        return {(e["pid"], e.get("tid"), e["name"], e["args"]["name"]) for e in evs}

    mine = [{**r, "args": json.loads(r["args"])} for r in rows if r["ph"] == "M"]
    theirs = [e for e in events if e.get("ph") == "M"
              and e["name"] in ("process_name", "thread_name")]
    assert len(mine) == len(theirs)
    assert names(mine) == names(theirs)
    assert (1, None, "process_name", "/device:GPU:0") in names(mine)
    assert (701, None, "process_name", "/host:CPU") in names(mine)


def test_streams_are_threads_of_the_gpu() -> None:
    rows = read_xplane_events(run_dir("jax_streams") / "vm.xplane.pb").to_pylist()
    streams = {json.loads(r["args"])["name"] for r in rows
               if r["ph"] == "M" and r["pid"] == 1 and r["name"] == "thread_name"}
    assert "Stream #14(Memset,Compute)" in streams
    assert len(streams) == 6


@pytest.fixture(scope="module")
def train_bytes() -> bytes:
    return (run_dir("jax_train") / "vm.xplane.pb").read_bytes()


def assert_one_line_error(path: Path) -> str:
    with pytest.raises(TraceError) as info:
        read_xplane_events(path)
    text = str(info.value)
    assert "\n" not in text and str(path) in text
    return text


@pytest.mark.parametrize("keep", [0.5, 0.999])
def test_truncated_file(tmp_path: Path, train_bytes: bytes, keep: float) -> None:
    path = tmp_path / "vm.xplane.pb"
    path.write_bytes(train_bytes[: int(len(train_bytes) * keep)])
    assert "truncated or corrupt" in assert_one_line_error(path)


def test_corrupt_file(tmp_path: Path, train_bytes: bytes) -> None:
    # Overwrite bytes among the GPU plane's events (just after its stream names).
    at = train_bytes.index(b"Stream #14") + 200
    path = tmp_path / "vm.xplane.pb"
    path.write_bytes(train_bytes[:at] + b"\xff" * 32 + train_bytes[at + 32:])
    assert "truncated or corrupt" in assert_one_line_error(path)


def test_not_an_xplane(tmp_path: Path) -> None:
    trace_json = run_dir("jax_train") / "vm.trace.json.gz"
    assert "truncated or corrupt" in assert_one_line_error(trace_json)
    empty = tmp_path / "empty.xplane.pb"
    empty.write_bytes(b"")
    assert "empty" in assert_one_line_error(empty)
