"""The Kineto loader against an independent json-module reading of the same real traces."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path

import duckdb
import pytest

import tui.loading.trace as trace_module
from tests.helpers import oracle
from tests.helpers.paths import sample
from tui.analysis.gaps import explained_gaps
from tui.analysis.kernels import kernel_stats
from tui.loading.trace import open_trace
from tui.sources.kineto import parse_chrome_events

TORCH_TRACES = ["gappy_training", "tuned_training", "multistream", "cuda_graphs",
                "launch_bound_inference"]


def _opened_gpu(path: Path, use_cache: bool = False) -> tuple[Counter, list[str]]:
    """The GPU rows' count and time by kind, and the load's warnings. A generated file is
    loaded in memory (use_cache=False); a sample as it is built once a run, in the run's
    cache (use_cache=True: the same loader's rows, not a cold load again)."""
    with open_trace(path, use_cache=use_cache) as trace:
        rows = trace.con.execute(
            "SELECT kind, count(*), sum(duration_ns) FROM gpu_activities GROUP BY kind"
        ).fetchall()
        warnings = list(trace.warnings)
    return Counter({(kind, "count"): n for kind, n, _ in rows}) + Counter(
        {(kind, "total_ns"): total for kind, _, total in rows}
    ), warnings


def _loaded_gpu(path: Path) -> Counter:
    return _opened_gpu(path)[0]


def _expected_gpu(events: list[dict]) -> Counter:
    kinds = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}
    expected: Counter = Counter()
    for _device, start, end, cat in oracle.gpu_intervals(events):
        expected[(kinds[cat], "count")] += 1
        expected[(kinds[cat], "total_ns")] += end - start
    return expected


@pytest.mark.slow
@pytest.mark.parametrize("name", TORCH_TRACES)
def test_gpu_activities_match_the_json(name: str) -> None:
    path = sample(f"{name}.pt.trace.json.gz")
    assert _opened_gpu(path, use_cache=True)[0] == _expected_gpu(oracle.chrome_events(path))


def test_known_kernel_counts_from_the_traces_readme() -> None:
    for name, kernels in (("gappy_training", 1260), ("tuned_training", 1341)):
        loaded, _ = _opened_gpu(sample(f"{name}.pt.trace.json.gz"), use_cache=True)
        assert loaded[("kernel", "count")] == kernels


def test_timestamps_are_exact_integer_nanoseconds() -> None:
    path = sample("gappy_training.pt.trace.json.gz")
    first = min(
        (e for e in oracle.chrome_events(path) if e.get("cat") == "kernel"),
        key=lambda e: e["ts"],
    )
    with open_trace(path) as trace:
        row = trace.con.execute(
            "SELECT start_ns, duration_ns, name FROM gpu_activities WHERE kind = 'kernel' "
            "ORDER BY start_ns LIMIT 1"
        ).fetchone()
    assert row == (oracle.ns(first["ts"]), oracle.ns(first["dur"]), first["name"])


def test_plain_json_and_gz_give_the_same_result(tmp_path: Path) -> None:
    gz = sample("multistream.pt.trace.json.gz")
    plain = tmp_path / "multistream.pt.trace.json"
    plain.write_bytes(gzip.decompress(gz.read_bytes()))
    with open_trace(gz) as a, open_trace(plain) as b:
        query = "SELECT * EXCLUDE (id) FROM gpu_activities ORDER BY ALL"
        assert a.con.execute(query).fetchall() == b.con.execute(query).fetchall()
        assert len(a.con.execute(query).fetchall()) == 90


def test_bare_array_form_loads_the_same_events(tmp_path: Path) -> None:
    import json

    events = oracle.chrome_events(sample("multistream.pt.trace.json.gz"))
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(events, default=str).replace('"', '"'))
    # Decimal timestamps were written as strings by default=str: a writer quirk the
    # loader must accept ("string numbers").
    assert _loaded_gpu(bare) == _expected_gpu(events)


@pytest.mark.slow
@pytest.mark.parametrize("fraction", [0.3, 0.5, 0.77, 0.999])
def test_truncated_trace_loads_every_complete_event(tmp_path: Path, fraction: float) -> None:
    text = gzip.decompress(sample("gappy_training.pt.trace.json.gz").read_bytes()).decode()
    cut = text[: int(len(text) * fraction)]
    path = tmp_path / "cut.json"
    path.write_text(cut)
    expected = _expected_gpu(oracle.complete_events_in_prefix(cut))
    loaded, warnings = _opened_gpu(path)  # one load, not one for the rows and one for this
    assert loaded == expected
    assert any("cut off" in w for w in warnings), warnings


@pytest.mark.slow
def test_truncated_gz_loads_with_a_warning(tmp_path: Path) -> None:
    import zlib

    data = sample("tuned_training.pt.trace.json.gz").read_bytes()
    cut = data[: int(len(data) * 0.9)]
    path = tmp_path / "cut.json.gz"
    path.write_bytes(cut)
    inflated = zlib.decompressobj(wbits=31).decompress(cut).decode(errors="ignore")
    expected = _expected_gpu(oracle.complete_events_in_prefix(inflated))
    assert 0 < expected[("kernel", "count")] < 1341
    loaded, warnings = _opened_gpu(path)
    assert loaded == expected
    assert any("cut off" in w for w in warnings)


@pytest.mark.slow
def test_gaps_equal_a_plain_union_sweep() -> None:
    for name in ("gappy_training", "multistream", "tuned_training"):
        path = sample(f"{name}.pt.trace.json.gz")
        expected = oracle.idle_gaps(oracle.gpu_intervals(oracle.chrome_events(path)), 100_000)
        with open_trace(path) as trace:
            gaps = explained_gaps(trace.con, min_gap_ns=100_000)
        assert [(g.device, g.start_ns, g.duration_ns) for g in gaps] == expected, name
        assert expected, name


def test_multistream_idle_time_is_the_union_over_streams() -> None:
    """Kernels overlap on two streams: per-stream gaps would double count idle time."""
    with open_trace(sample("multistream.pt.trace.json.gz")) as trace:
        streams = trace.con.execute(
            "SELECT count(DISTINCT stream) FROM gpu_activities"
        ).fetchone()[0]
        overlapping = trace.con.execute(
            "SELECT count(*) FROM gpu_activities a JOIN gpu_activities b "
            "ON a.device = b.device AND a.stream < b.stream "
            "AND a.start_ns < b.end_ns AND b.start_ns < a.end_ns"
        ).fetchone()[0]
    assert streams == 3
    assert overlapping > 0


def test_gappy_training_gaps_are_explained_by_the_dataloader() -> None:
    with open_trace(sample("gappy_training.pt.trace.json.gz")) as trace:
        gaps = explained_gaps(trace.con, min_gap_ns=1_000_000)
        stats = kernel_stats(trace.con)
    assert len(gaps) == 10
    longest = gaps[:4]
    assert all(g.kind == "host-wait" and "dataloader" in g.cause for g in longest)
    assert all(g.after.startswith("Memcpy HtoD (Pageable") for g in longest)
    assert sum(k.count for k in stats) == 1260


def test_cpu_only_trace_says_what_to_enable(tmp_path: Path) -> None:
    """A generated edge case: the real gappy trace with its GPU events removed."""
    import json

    events = [e for e in oracle.chrome_events(sample("gappy_training.pt.trace.json.gz"))
              if e.get("cat") not in oracle.GPU_CATS]
    path = tmp_path / "cpu_only.json"
    path.write_text(json.dumps({"traceEvents": events}, default=float))
    with open_trace(path, use_cache=False) as trace:
        assert any("CPU-only" in w and "ProfilerActivity.CUDA" in w for w in trace.warnings)
        assert trace.con.execute("SELECT count(*) FROM gpu_activities").fetchone() == (0,)
    # the trace as recorded: its GPU events counted as the rows staged (no warning)
    with open_trace(sample("gappy_training.pt.trace.json.gz"), use_cache=False) as trace:
        assert not any("CPU-only" in w or "no GPU events" in w for w in trace.warnings)
        (rows,) = trace.con.execute("SELECT count(*) FROM gpu_activities").fetchone()
    assert rows == sum(1 for e in oracle.chrome_events(sample("gappy_training.pt.trace.json.gz"))
                       if e.get("cat") in oracle.GPU_CATS and e.get("ph") == "X") > 100


def test_old_kineto_category_names_load(tmp_path: Path) -> None:
    """A generated edge case: categories spelt as older Kineto did (Kernel, Memcpy)."""
    import json

    events = oracle.chrome_events(sample("multistream.pt.trace.json.gz"))
    expected = _expected_gpu(events)
    renamed = {"kernel": "Kernel", "gpu_memcpy": "Memcpy", "gpu_memset": "Memset",
               "cuda_runtime": "Runtime"}
    events = [{**e, "cat": renamed.get(e.get("cat"), e.get("cat"))} if "cat" in e else e
              for e in events]
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"traceEvents": events}, default=float))
    assert _loaded_gpu(path) == expected
    assert expected[("kernel", "count")] == 45


def test_every_gap_gets_a_class_and_cause_also_beyond_the_context_limit(monkeypatch) -> None:
    import tui.analysis.gaps as gaps_module

    with open_trace(sample("gappy_training.pt.trace.json.gz")) as trace:
        full = explained_gaps(trace.con, min_gap_ns=0)
        monkeypatch.setattr(gaps_module, "MAX_CONTEXT_GAPS", 10)
        gaps = explained_gaps(trace.con, min_gap_ns=0)
        idle = trace.con.execute("SELECT count(*) FROM gpu_idle").fetchone()[0]
    assert len(gaps) == idle == 1439
    kinds = {"sync", "copy", "host-wait", "launch-overhead", "communication", "other"}
    assert all(g.kind in kinds and g.cause for g in gaps)
    # the 10 longest keep their host context: the dataloader is named
    assert "dataloader" in gaps[0].cause
    # a gap's class is its idle cause, looked up for every gap: the context only words it
    assert [g.kind for g in gaps] == [g.kind for g in full]
    assert sum(g.kind == "host-wait" for g in gaps[10:]) > 20
    assert sum(g.kind == "launch-overhead" for g in gaps[10:]) > 1000


@pytest.mark.slow
@pytest.mark.parametrize(("ts", "start_ns"), [
    (4570032680299.851, 4570032680299851),  # a real Kineto timestamp
    ("12.3456789", 12346),  # decimals past ns round half up
    ("0.0015", 2),
    ("1.5e3", 1500000),
    # epoch µs: a double holds them to 0.25 µs, text as numbers (DuckDB's JSON reader
    # parses numbers into doubles)
    ("1700000000000000.123", 1700000000000000000),
    (1700000000000000.123, 1700000000000000000),
    ("0x10", None),  # hex text is no time
    ("0X1e", None),
    ("1e+20", None),  # beyond int64 ns
])
def test_time_text_forms(tmp_path: Path, ts: object, start_ns: int | None) -> None:
    """A generated edge case: each way a ts can be written, to exact ns or unusable."""
    import json

    events = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1},
              {"ph": "X", "cat": "kernel", "name": "probe", "pid": 0, "tid": 7, "ts": ts,
               "dur": "2"}]
    path = tmp_path / "forms.json"
    path.write_text(json.dumps({"traceEvents": events}))
    with open_trace(path, use_cache=False) as trace:
        row = trace.con.execute(
            "SELECT start_ns, duration_ns FROM gpu_activities WHERE name = 'probe'").fetchone()
    assert (row[0] if row else None) == start_ns
    if row:
        assert row[1] == 2000


def test_events_parsed_into_a_scratch_file_load_the_same_rows(monkeypatch) -> None:
    """A big trace's parsed events go to a scratch database file, a small one's stay in
    memory (tui/loading/trace.py): both give the same rows, here the file by a share of 0."""
    path = sample("stacks_training.pt.trace.json.gz")
    tables = ("gpu_activities", "host_activities", "python_frames", "launches",
              "memory_events", "threads")

    def rows() -> dict[str, list[tuple]]:
        with open_trace(path, use_cache=False) as trace:
            return {t: trace.con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall()
                    for t in tables}

    in_memory = rows()
    attached: list[str] = []
    scratch_database = trace_module._scratch_database
    monkeypatch.setattr(trace_module, "SCRATCH_IN_MEMORY_SHARE", 0)
    monkeypatch.setattr(trace_module, "_scratch_database",
                        lambda *a: attached.append(scratch_database(*a)) or attached[-1])
    assert rows() == in_memory
    assert attached[0].endswith("scratch.duckdb") and not Path(attached[0]).exists()
    assert len(in_memory["host_activities"]) == 9543 and len(in_memory["launches"]) == 604


# the ops whose FLOPs are counted (kineto_op_flops.sql)
FLOP_OPS = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::_addmm_activation",
            "aten::_scaled_mm", "aten::_int_mm", "aten::conv2d", "aten::mul", "aten::add",
            *(f"aten::_scaled_dot_product_{kind}_attention{part}"
              for kind in ("flash", "efficient", "cudnn") for part in ("", "_backward"))}


def test_the_few_events_read_for_more_keep_those_fields_apart(tmp_path: Path) -> None:
    """gappy_training (profile_memory and record_shapes on): only its memory instants and
    the ops whose FLOPs are counted keep their other fields (args_more, beside every kept
    event's `args`), and kineto_events_more reads them back as the json module does."""
    path = sample("gappy_training.pt.trace.json.gz")
    with gzip.open(path) as f:
        events = json.load(f)["traceEvents"]
    memory = [e for e in events if e.get("ph") == "i" and e.get("name") == "[memory]"]
    flop_ops = [e for e in events if e.get("ph") == "X" and e.get("cat") == "cpu_op"
                and (e.get("name") in FLOP_OPS or e.get("name") == "record_param_comms")]
    con = duckdb.connect()
    con.execute("ATTACH ':memory:' AS scratch")
    parse_chrome_events(con, path, tmp_path, [])
    kept_apart = con.execute(
        "SELECT count(*) FILTER (WHERE ph = 'i'), count(*) FILTER (WHERE cat = 'cpu_op') "
        "FROM scratch.kineto_events WHERE args_more IS NOT NULL").fetchone()
    assert kept_apart == (len(memory), len(flop_ops)) and len(memory) > 1000
    got = con.execute(
        'SELECT args."Total Allocated", args."Device Type", args."Input Dims" IS NULL '
        "FROM kineto_events_more WHERE ph = 'i' ORDER BY event_row").fetchall()
    assert [(int(total), int(kind), True) for total, kind, _ in got] == [
        (e["args"]["Total Allocated"], e["args"]["Device Type"], True) for e in memory]
    dims = con.execute(
        """SELECT args."Input Dims" FROM kineto_events_more WHERE cat = 'cpu_op'
           AND args_more IS NOT NULL ORDER BY event_row""").fetchall()
    assert [json.loads(d) for (d,) in dims] == [e["args"]["Input Dims"] for e in flop_ops]


def test_odd_args_read_leniently(tmp_path: Path) -> None:
    """A generated edge case: the real multistream trace with three kernels' args made odd
    (a number; a device that is an object and a grid that is text; a list). `args` is
    read as JSON and cast to its fields only where kept: each kernel still loads, its odd
    fields NULL (the device then from the event's pid, as Kineto writes it), every other
    field as the file has it; a CPU op's odd args (never read) fail nothing."""
    import json

    events = [dict(e) for e in oracle.chrome_events(sample("multistream.pt.trace.json.gz"))]
    kernels = [e for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"]
    ops = [e for e in events if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
    first, second, third = kernels[:3]
    stream, correlation = second["args"]["stream"], second["args"]["correlation"]
    first["args"] = 5
    second["args"] = {**second["args"], "device": {"x": 1}, "grid": "abc"}
    third["args"] = [1, 2]
    ops[0]["args"] = {"grid": "abc", "device": [1]}
    path = tmp_path / "odd_args.json"
    path.write_text(json.dumps({"traceEvents": events}, default=float))
    with open_trace(path, use_cache=False) as trace:
        rows = {r[0]: r[1:] for r in trace.con.execute(
            "SELECT start_ns, device, stream, correlation, grid_x, block_x FROM gpu_activities "
            "WHERE kind = 'kernel'").fetchall()}
        ops_loaded = trace.con.execute(
            "SELECT count(*) FROM host_activities WHERE kind = 'cpu_op'").fetchone()[0]
    assert len(rows) == len(kernels) and ops_loaded == len(ops)
    by_start = {round(float(e["ts"]) * 1000): e for e in (first, second, third)}
    odd = [rows[start] for start in sorted(by_start)]
    for row, event in zip(odd, sorted(by_start.items()), strict=True):
        assert row[0] == int(event[1]["pid"])  # the device from the pid
    second_row = rows[round(float(second["ts"]) * 1000)]
    assert second_row[1:] == (int(stream), int(correlation), None, second["args"]["block"][0])
    assert rows[round(float(first["ts"]) * 1000)][2:4] == (None, None)
