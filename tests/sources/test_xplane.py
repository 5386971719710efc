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

from tests.helpers.paths import ROOT, SAMPLES
from tui.core.errors import TraceError
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


@pytest.mark.slow
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
    assert "corrupt" in assert_one_line_error(path)


def test_corrupt_file(tmp_path: Path, train_bytes: bytes) -> None:
    # Overwrite bytes among the GPU plane's events (just after its stream names).
    at = train_bytes.index(b"Stream #14") + 200
    path = tmp_path / "vm.xplane.pb"
    path.write_bytes(train_bytes[:at] + b"\xff" * 32 + train_bytes[at + 32:])
    assert "corrupt" in assert_one_line_error(path)


def test_not_an_xplane(tmp_path: Path) -> None:
    trace_json = run_dir("jax_train") / "vm.trace.json.gz"
    assert "corrupt" in assert_one_line_error(trace_json)
    empty = tmp_path / "empty.xplane.pb"
    empty.write_bytes(b"")
    assert "empty" in assert_one_line_error(empty)


# --- Edge cases the real runs do not hold, from a generator (named as one): an XSpace built
# here with the protobuf runtime, read back and compared with a plain per-event reading of
# the same messages through that runtime, following XLA's converter.

def generated_space() -> bytes:
    from tui.sources import xspace_schema as xspace

    space = xspace.XSpace(hostnames=["gen"])
    for name, plane_id in (("/host:CPU", 0), ("/device:GPU:0", 0), ("/device:GPU:1", 1),
                           ("/device:TPU:0", 7), ("/host:metadata", 0)):
        plane = space.planes.add(id=plane_id, name=name)
        if name == "/host:metadata":  # a device plane with a line but no events: names only
            space.planes.add(id=2, name="/device:GPU:2").lines.add(id=3, name="idle")
        names = ["kernel_details", "correlation_id", "_pt", "step_name", "ratio", "blob",
                 "offset", "hlo_op", "fusion.1", 'quote"d\\name', "program_id", "dup", "dup"]
        for i, stat_name in enumerate(names, start=1):
            plane.stat_metadata[i].CopyFrom(xspace.XStatMetadata(id=i, name=stat_name))
        meta = plane.event_metadata
        meta[1].CopyFrom(xspace.XEventMetadata(id=1, name="kernel_a"))
        meta[2].CopyFrom(xspace.XEventMetadata(id=2, name="full::name", display_name="short"))
        meta[3].CopyFrom(xspace.XEventMetadata(id=3, name="MemoryAllocation"))
        meta[4].CopyFrom(xspace.XEventMetadata(id=4, name="stepper", stats=[
            xspace.XStat(metadata_id=4, str_value="train 7"),
            xspace.XStat(metadata_id=8, ref_value=9),
            xspace.XStat(metadata_id=3, int64_value=5)]))
        for line_id, display_id, display_name in ((14, 0, ""), (15, 0, "Async XLA Ops"),
                                                  (-5, 0, ""), (16, 99, "shown as 99"),
                                                  (17, 99, "")):
            line = plane.lines.add(id=line_id, display_id=display_id, name=f"Stream #{line_id}",
                                   display_name=display_name, timestamp_ns=1_000 + line_id)
            for k in range(6):
                event = line.events.add(metadata_id=1 + k % 4 if k != 5 else 42,
                                        offset_ps=k * 1_000_003, duration_ps=k * 7)
                if k == 3:
                    event.num_occurrences = 4
                stats = event.stats
                stats.add(metadata_id=2, uint64_value=2**64 - 1 - k)
                stats.add(metadata_id=7, int64_value=-(2**63) + k)
                stats.add(metadata_id=5, double_value=[-0.0, float("nan"), 1e-5, 0.0,
                                                       float("-inf"), 123456789.0][k])
                stats.add(metadata_id=1, str_value='grid:1,1,1 "q" \\ \n\t é ✓')
                stats.add(metadata_id=6, bytes_value=b"\xff\x00")
                stats.add(metadata_id=8, ref_value=[9, 10, 77][k % 3])
                stats.add(metadata_id=99, int64_value=k)  # no such stat metadata
                stats.add(metadata_id=11, int64_value=1)  # internal: program_id
                stats.add(metadata_id=12, int64_value=1)  # two stats of one name:
                stats.add(metadata_id=13, str_value=f"last {k}")  # the last counts
                stats.add(metadata_id=2)  # a stat without a value
                if k == 4:
                    stats.add(metadata_id=4, str_value="step from the event")
                    stats.add(metadata_id=2, uint64_value=k)  # repeated: the last counts
                if k == 2:
                    del stats[:]
    return space.SerializeToString()


def plain_reading(data: bytes) -> tuple[Counter, set]:
    """XLA's conversion, event by event, through the protobuf runtime."""
    from tui.sources import xspace_schema as xspace

    space = xspace.XSpace.FromString(data)
    planes = [(701, p) for p in space.planes if p.name == "/host:CPU"]
    planes += [(1 + p.id, p) for p in space.planes if p.name.startswith("/device:GPU:")]
    rows: Counter = Counter()
    names = set()
    for pid, plane in planes:
        names.add((pid, None, plane.name))
        stat_names = {k: m.name for k, m in plane.stat_metadata.items()}

        def text(stat: xspace.XStat, stat_names: dict = stat_names) -> str | None:
            kind = stat.WhichOneof("value")
            if kind in (None, "bytes_value"):
                return None if kind is None else "<opaque bytes>"
            if kind == "ref_value":
                return stat_names.get(stat.ref_value, "")
            if kind == "double_value":
                return "%.6g" % stat.double_value
            return str(getattr(stat, kind))

        threads = {}
        for line in plane.lines:
            tid = (line.display_id or line.id) % 2**32
            threads[tid] = line.display_name or line.name
            if threads[tid] == "Async XLA Ops":
                continue
            for event in line.events:
                meta = plane.event_metadata.get(event.metadata_id) or xspace.XEventMetadata()
                if meta.name == "MemoryAllocation":
                    continue
                name, args = meta.display_name or meta.name, {}
                if meta.display_name:
                    args["long_name"] = meta.name
                for stat in list(meta.stats) + list(event.stats):
                    key, value = stat_names.get(stat.metadata_id, ""), text(stat)
                    if value is None or key in ("_pt", "program_id"):
                        continue
                    args[key] = value
                    if key == "step_name":
                        name = value
                ts = (line.timestamp_ns * 1000 + event.offset_ps) / 1e6
                rows[(pid, tid, ts, max(event.duration_ps, 1) / 1e6, name,
                      json.dumps(args, sort_keys=True) if args else None)] += 1
        names |= {(pid, tid, n) for tid, n in threads.items() if n}
    return rows, names


def test_generated_edge_cases_equal_a_plain_reading(tmp_path: Path) -> None:
    path = tmp_path / "gen.xplane.pb"
    path.write_bytes(generated_space())
    want_rows, want_names = plain_reading(path.read_bytes())
    table = read_xplane_events(path)
    got = Counter()
    for r in table.to_pylist():
        if r["ph"] == "X":
            # Each key once, in byte order, as XLA's JSON writes them.
            pairs = json.loads(r["args"], object_pairs_hook=list) if r["args"] else []
            keys = [k.encode() for k, _ in pairs]
            assert keys == sorted(set(keys)), r["args"]
            args = json.dumps(dict(pairs), sort_keys=True) if r["args"] else None
            got[(r["pid"], r["tid"], r["ts"], r["dur"], r["name"], args)] += 1
    assert got == want_rows
    assert len(want_rows) == 3 * 4 * 5  # 3 planes, 4 shown lines, 5 shown events a line
    assert (3, 3, "idle") in want_names
    assert {(r["pid"], r["tid"], json.loads(r["args"])["name"])
            for r in table.to_pylist() if r["ph"] == "M"} == want_names
    assert json.loads(table.schema.metadata[b"hostnames"]) == ["gen"]


def test_schema_is_private_and_keeps_what_it_leaves_out(train_bytes: bytes) -> None:
    """The XSpace types live in a pool of their own (TensorFlow or XProf may register the
    same messages in the default one), and the fields they leave out survive a round trip
    (benchmarks/scale_xplane.py rewrites files through them)."""
    from google.protobuf import descriptor_pool

    from tui.sources import xspace_schema as xspace

    for cls in (xspace.XSpace, xspace.RawXSpace):
        assert cls.DESCRIPTOR.file.pool is not descriptor_pool.Default()
    space = xspace.XSpace.FromString(train_bytes)
    assert len(space.SerializeToString()) == len(train_bytes)
    # the schema now declares every field this recording has: one it does not (XSpace
    # field 99, a varint) added to the file survives too
    extra = train_bytes + bytes([0x98, 0x06, 0x01])
    space = xspace.XSpace.FromString(extra)
    assert len(space.SerializeToString()) == len(extra)
    space.DiscardUnknownFields()
    assert len(space.SerializeToString()) == len(train_bytes)
