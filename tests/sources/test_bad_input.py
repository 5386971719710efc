"""Bad and odd input: every case loads what it can with a warning, or is refused with one
line on stderr and exit code 2 — never a traceback.

Every damaged or odd input here is GENERATED in the test from a real sample trace in
`sample_traces/` (cut, mutated, re-encoded, tables dropped...); the case names say what
was done. Nothing here is hand-written to look like a real trace.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import oracle
from tests.helpers.caches import copy_cache_files
from tests.helpers.paths import SAMPLES, sample
from tui.cli.main import main

KINETO = "multistream.pt.trace.json.gz"  # real: 571 events, 45 kernels, 40 memsets, 5 copies
# the first read's limit on one event where tests scale it down: DuckDB's least (its reader
# takes objects of up to twice the limit)
SMALL_LIMIT = 16 << 20
KINETO_KERNELS = 45
NSYS = "multistream.sqlite"  # real nsys export: 74 kernels (a small one: many cases load it)
NSYS_KERNELS = 74


# ---------------------------------------------------------------------------- helpers


def _text() -> str:
    return gzip.decompress(sample(KINETO).read_bytes()).decode()


def _doc() -> dict:
    return json.loads(_text())


def _write(path: Path, data: bytes | str) -> Path:
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def _summary(capsys, path: Path, *flags: str) -> tuple[int, dict | None, str]:
    """`tui --summary --json PATH` in-process: (exit code, summary or None, stderr)."""
    rc = main(["--summary", "--json", *flags, str(path)])
    captured = capsys.readouterr()
    return rc, (json.loads(captured.out) if rc == 0 else None), captured.err


def assert_refused(rc: int, err: str, fragment: str) -> None:
    """Exit 2, exactly one line on stderr that says what is wrong, no traceback."""
    lines = err.strip().splitlines()
    assert rc == 2, err
    assert len(lines) == 1 and lines[0].startswith("tui: error: "), err
    assert "Traceback" not in err and "tui: error: unexpected" not in err, err
    assert fragment in err, err


def _kernels(summary: dict) -> int:
    return sum(k["count"] for k in summary["kernels"])


def _mutated(transform: Callable[[list], object]) -> Callable[[Path], Path]:
    """A builder: the real Kineto sample with `transform` applied to its events list."""

    def build(tmp: Path) -> Path:
        doc = _doc()
        transform(doc["traceEvents"])
        return _write(tmp / "generated.json", json.dumps(doc))

    return build


def _kernel_events(events: list) -> list[dict]:
    return [e for e in events if isinstance(e, dict) and e.get("cat") == "kernel"]


def _each(events: list, count: int, change: Callable[[dict], object]) -> None:
    for event in _kernel_events(events)[:count]:
        change(event)


# ------------------------------------------------------- Chrome / Kineto JSON inputs

# (builder, expected): ("refused", message fragment) or ("loaded", kernels, warning or None)
CHROME_CASES: dict[str, tuple[Callable[[Path], Path], tuple]] = {
    "empty file": (lambda d: _write(d / "empty.json", b""), ("refused", "the file is empty")),
    "only whitespace": (lambda d: _write(d / "blank.json", b" \n\t\r\n "),
                        ("refused", "the file is empty")),
    "not JSON": (lambda d: _write(d / "notes.json", b"profiler finished in 3.2 s\n"),
                 ("refused", "unknown format")),
    "JSON, not an object or array": (lambda d: _write(d / "n.json", b"42\n"),
                                     ("refused", "unknown format")),
    "UTF-16 text": (lambda d: _write(d / "utf16.json", _text().encode("utf-16")),
                    ("refused", "unknown format")),
    "JSON without traceEvents": (
        lambda d: _write(d / "meta.json", json.dumps(
            {k: v for k, v in _doc().items() if k != "traceEvents"})),
        ("refused", 'no "traceEvents" array found')),
    "traceEvents is an object": (
        lambda d: _write(d / "obj.json", json.dumps({**_doc(), "traceEvents": {"ph": "X"}})),
        ("refused", '"traceEvents" is not an array')),
    "traceEvents is null": (
        lambda d: _write(d / "null.json", json.dumps({**_doc(), "traceEvents": None})),
        ("refused", '"traceEvents" is not an array')),
    "no events": (lambda d: _write(d / "none.json", json.dumps({**_doc(), "traceEvents": []})),
                  ("refused", "no complete (ph 'X') events")),
    "only metadata events": (
        _mutated(lambda ev: ev.__setitem__(slice(None), [e for e in ev if e["ph"] == "M"])),
        ("refused", "no complete (ph 'X') events")),
    "bare array": (lambda d: _write(d / "bare.json", json.dumps(_doc()["traceEvents"])),
                   ("loaded", KINETO_KERNELS, None)),
    "bare array, empty": (lambda d: _write(d / "bare.json", b"[]"),
                          ("refused", "no complete (ph 'X') events")),
    "UTF-8 byte order mark": (lambda d: _write(d / "bom.json", b"\xef\xbb\xbf" + _text().encode()),
                              ("loaded", KINETO_KERNELS, None)),
    "missing ts": (_mutated(lambda ev: _each(ev, 3, lambda e: e.pop("ts"))),
                   ("loaded", KINETO_KERNELS - 3, "3 events have no usable ts/dur")),
    "missing dur": (_mutated(lambda ev: _each(ev, 4, lambda e: e.pop("dur"))),
                    ("loaded", KINETO_KERNELS - 4, "4 events have no usable ts/dur")),
    "negative dur": (_mutated(lambda ev: _each(ev, 2, lambda e: e.update(dur=-1.5))),
                     ("loaded", KINETO_KERNELS - 2, "2 events have no usable ts/dur")),
    "NaN dur": (_mutated(lambda ev: _each(ev, 3, lambda e: e.update(dur=float("nan")))),
                ("loaded", KINETO_KERNELS - 3, "3 events have no usable ts/dur")),
    "Infinity ts and dur": (
        _mutated(lambda ev: _each(ev, 2, lambda e: e.update(ts=float("inf"),
                                                            dur=float("-inf")))),
        ("loaded", KINETO_KERNELS - 2, "2 events have no usable ts/dur")),
    "ts beyond int64 nanoseconds": (
        _mutated(lambda ev: _each(ev, 2, lambda e: e.update(ts=10**30))),
        ("loaded", KINETO_KERNELS - 2, "2 events have no usable ts/dur")),
    "ts of 1e300": (_mutated(lambda ev: _each(ev, 1, lambda e: e.update(ts=1e300))),
                    ("loaded", KINETO_KERNELS - 1, "1 events have no usable ts/dur")),
    "ts and dur where start + dur overflows int64": (
        _mutated(lambda ev: _each(ev, 2, lambda e: e.update(ts=9.2e15, dur=9.2e15))),
        ("loaded", KINETO_KERNELS - 2, "2 events have no usable ts/dur")),
    "times at both ends of the range tui accepts (±2^62 ns)": (
        _mutated(lambda ev: [_kernel_events(ev)[0].update(ts=-4.6e15, dur=1.0),
                             _kernel_events(ev)[1].update(ts=4.6e15, dur=1.0)]),
        ("loaded", KINETO_KERNELS, None)),
    "an end just beyond 2^62 ns": (
        _mutated(lambda ev: _kernel_events(ev)[0].update(ts=4.6e15, dur=1.2e13)),
        ("loaded", KINETO_KERNELS - 1, "1 events have no usable ts/dur")),
    "ts is an object": (_mutated(lambda ev: _each(ev, 3, lambda e: e.update(ts={"us": 1}))),
                        ("loaded", KINETO_KERNELS - 3, "3 events have no usable ts/dur")),
    "string numbers": (
        _mutated(lambda ev: [e.update(ts=str(e["ts"]), dur=str(e["dur"]), pid=str(e["pid"]))
                             for e in ev if "dur" in e]),
        ("loaded", KINETO_KERNELS, None)),
    "huge args (an event of 3/4 the first read's limit)": (
        _mutated(lambda ev: _kernel_events(ev)[0]["args"].update(
            blob="x" * (3 * SMALL_LIMIT // 4))),
        ("loaded", KINETO_KERNELS, None)),
    "an event beyond the first read's limit (read again)": (
        _mutated(lambda ev: _kernel_events(ev)[0]["args"].update(
            blob="x" * (9 * SMALL_LIMIT // 4))),
        ("loaded", KINETO_KERNELS, None)),
    "an event beyond the first read's limit and non-UTF-8 bytes (read again, then repaired)": (
        lambda d: _write(d / "big-latin1.json", json.dumps(
            {**_doc(), "traceEvents": [{"ph": "i", "args": {"blob": "x" * (9 * SMALL_LIMIT // 4)}},
                                       *_doc()["traceEvents"]]}).encode().replace(
            b'"cat": "kernel", "name": "', b'"cat": "kernel", "name": "caf\xe9 ', 2)),
        ("loaded", KINETO_KERNELS, "invalid UTF-8 bytes or raw control characters")),
    "deeply nested args": (
        lambda d: _write(d / "deep.json", _text().replace(
            '"args": {', '"args": {"deep": ' + "[" * 50_000 + "]" * 50_000 + ", ", 1)),
        ("loaded", KINETO_KERNELS, None)),
    "args of the wrong type": (
        _mutated(lambda ev: [e.update(args=[1, "two"]) for e in _kernel_events(ev)[:5]]
                 + [e.update(args="text") for e in _kernel_events(ev)[5:10]]),
        ("loaded", KINETO_KERNELS, None)),
    "unknown ph": (_mutated(lambda ev: [e.update(ph="Q") for e in ev if e.get("cat") == "cpu_op"]),
                   ("loaded", KINETO_KERNELS, None)),
    "unknown cat": (
        _mutated(lambda ev: [e.update(cat="mystery_cat") for e in ev if e.get("cat") == "cpu_op"]),
        ("loaded", KINETO_KERNELS, None)),
    "cat is null or a number": (
        _mutated(lambda ev: [e.update(cat=None if i % 2 else 7)
                             for i, e in enumerate(ev) if e.get("cat") == "cpu_op"]),
        ("loaded", KINETO_KERNELS, None)),
    "name is an object, pid a word": (
        _mutated(lambda ev: _each(ev, 5, lambda e: e.update(name={"x": 1}, pid="gpu zero"))),
        ("loaded", KINETO_KERNELS, None)),
    "kernels without a name": (_mutated(lambda ev: _each(ev, 45, lambda e: e.pop("name"))),
                               ("loaded", KINETO_KERNELS, None)),
    "events that are not objects": (
        _mutated(lambda ev: ev.__setitem__(slice(10, 10), [1, "x", None, [1, 2], True])),
        ("loaded", KINETO_KERNELS, None)),
    "non-UTF-8 bytes in a kernel name": (
        lambda d: _write(d / "latin1.json", _text().encode().replace(
            b'"cat": "kernel", "name": "', b'"cat": "kernel", "name": "caf\xe9 \xff', 3)),
        ("loaded", KINETO_KERNELS, "invalid UTF-8 bytes or raw control characters")),
    "raw NUL and ESC bytes in a kernel name": (
        lambda d: _write(d / "raw.json", _text().encode().replace(
            b'"cat": "kernel", "name": "', b'"cat": "kernel", "name": "\x00\x1b[31m', 2)),
        ("loaded", KINETO_KERNELS, "invalid UTF-8 bytes or raw control characters")),
    "lone surrogate escapes (how Python's json writes undecodable bytes)": (
        _mutated(lambda ev: _each(ev, 3, lambda e: e.update(name="file_\udcff.py \ud800"))),
        ("loaded", KINETO_KERNELS, "invalid UTF-8 bytes or raw control characters")),
    "a raw newline inside a name": (
        lambda d: _write(d / "nl.json", _text().replace(
            '"cat": "kernel", "name": "', '"cat": "kernel", "name": "a\nb', 1)),
        ("refused", "not valid JSON")),
    "two JSON documents back to back": (lambda d: _write(d / "two.json", _text() * 2),
                                        ("refused", "not valid JSON")),
    "CPU-only (GPU events removed)": (
        _mutated(lambda ev: ev.__setitem__(slice(None), [
            e for e in ev if e.get("cat") not in oracle.GPU_CATS])),
        ("loaded", 0, "it is CPU-only. Record with torch.profiler activities=")),
    # .gz
    "gzip header, then garbage": (
        lambda d: _write(d / "bad.json.gz", b"\x1f\x8b\x08\x00" + b"not deflate data" * 8),
        ("refused", "the .gz file is damaged")),
    "gzip of text that is not a trace": (
        lambda d: _write(d / "log.json.gz", gzip.compress(b"step 1 loss 0.5\n" * 100)),
        ("refused", "unknown format")),
    "gzip of nothing": (lambda d: _write(d / "nothing.json.gz", gzip.compress(b"")),
                        ("refused", "the .gz file inflates to nothing")),
    "gzip in two members (cat a.gz b.gz)": (
        lambda d: _write(d / "two.json.gz", gzip.compress(_text()[:40_000].encode())
                         + gzip.compress(_text()[40_000:].encode())),
        ("loaded", KINETO_KERNELS, None)),
}


@pytest.fixture
def small_event_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader's limits on one event's size, scaled down (32 MB and 256 MB in use) so
    that events beyond them are a few MB to write and parse, not hundreds."""
    from tui.sources import kineto

    monkeypatch.setattr(kineto, "MAX_EVENT_BYTES", SMALL_LIMIT)
    monkeypatch.setattr(kineto, "HUGE_EVENT_BYTES", 4 * SMALL_LIMIT)


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CHROME_CASES))
def test_chrome_trace_corpus(case: str, tmp_path: Path, capsys, small_event_limits) -> None:
    build, expected = CHROME_CASES[case]
    rc, summary, err = _summary(capsys, build(tmp_path), "--no-cache")
    if expected[0] == "refused":
        assert_refused(rc, err, expected[1])
        return
    assert rc == 0 and err == "", err
    assert summary is not None
    _, kernels, warning = expected
    assert _kernels(summary) == kernels
    if warning is None:
        assert summary["warnings"] == []
    else:
        assert any(warning in w for w in summary["warnings"]), summary["warnings"]


@pytest.mark.slow
def test_bad_bytes_in_names_are_replaced_not_lost(tmp_path: Path, capsys) -> None:
    """Generated: kernel names given invalid UTF-8 and raw control bytes."""
    build = CHROME_CASES["non-UTF-8 bytes in a kernel name"][0]
    rc, summary, _ = _summary(capsys, build(tmp_path), "--no-cache")
    assert rc == 0 and summary is not None
    assert any(k["name"].startswith("caf\ufffd \ufffd") for k in summary["kernels"])
    build = CHROME_CASES["raw NUL and ESC bytes in a kernel name"][0]
    rc, summary, _ = _summary(capsys, build(tmp_path), "--no-cache")
    assert rc == 0 and summary is not None
    assert any(k["name"].startswith("\x00\x1b[31m") for k in summary["kernels"])
    build = CHROME_CASES["lone surrogate escapes (how Python's json writes undecodable bytes)"][0]
    rc, summary, _ = _summary(capsys, build(tmp_path), "--no-cache")
    assert rc == 0 and summary is not None
    assert "file_\ufffd.py \ufffd" in [k["name"] for k in summary["kernels"]]


def test_events_without_a_name_are_named_as_such(tmp_path: Path, capsys) -> None:
    build = CHROME_CASES["kernels without a name"][0]
    rc, summary, _ = _summary(capsys, build(tmp_path), "--no-cache")
    assert rc == 0 and summary is not None
    assert [k["name"] for k in summary["kernels"]] == ["(no name)"]


# ------------------------------------------------------------------ truncated traces


def _cut_points(text: str) -> dict[str, int]:
    """Offsets in the real sample's text where a crashed writer might have stopped."""
    kernel = text.index('"cat": "kernel"')
    event_start = text.rindex("{", 0, kernel)
    return {
        "in the header": text.index('"deviceProperties"') + 20,
        "right after the array opens": text.index("[", text.index('"traceEvents"')) + 1,
        "mid-event": event_start + 12,
        "mid-string (a kernel name)": text.index('"name": "', kernel) + 15,
        "mid-number (ts)": text.index('"ts": ', kernel) + 10,
        "inside args": text.index('"args": {', kernel) + 14,
        "right after an event closes": text.index("}\n  },", kernel) + 4,
        "between events": text.index("}\n  },", kernel) + 5,
        "at 50%": len(text) // 2,
        "at 90%": len(text) * 9 // 10,
        "just before the array closes": text.rindex("]") - 1,
        "in the trailer": text.rindex('"traceName"') + 5,
        "one byte short": len(text) - 1,
    }


CUTS = list(_cut_points(gzip.decompress(
    (SAMPLES / KINETO).read_bytes()).decode()))


@pytest.mark.slow
@pytest.mark.parametrize("where", CUTS)
@pytest.mark.parametrize("compressed", [False, True], ids=["json", "gz"])
def test_truncated_trace_loads_every_complete_event(where: str, compressed: bool,
                                                    tmp_path: Path, capsys) -> None:
    """Generated: the real sample cut at `where` (and, for gz, compressed after cutting)."""
    text = _text()
    cut = text[: _cut_points(text)[where]]
    path = tmp_path / ("cut.json.gz" if compressed else "cut.json")
    _write(path, gzip.compress(cut.encode()) if compressed else cut)
    rc, summary, err = _summary(capsys, path, "--no-cache")
    if where == "in the header":
        assert_refused(rc, err, 'no "traceEvents" array found')
        return
    complete = oracle.complete_events_in_prefix(cut)
    if not complete:
        assert_refused(rc, err, "cut off before its first complete event")
        return
    assert rc == 0, err
    assert summary is not None
    expected = sum(1 for e in complete if e.get("ph") == "X" and e.get("cat") == "kernel")
    assert _kernels(summary) == expected
    if where not in ("in the trailer", "one byte short"):
        assert any("cut off" in w for w in summary["warnings"]), summary["warnings"]


@pytest.mark.slow
@pytest.mark.parametrize("fraction", [0.05, 0.3, 0.6, 0.95])
def test_gz_file_cut_short_loads_or_refuses_cleanly(fraction: float, tmp_path: Path,
                                                    capsys) -> None:
    """Generated: the real compressed sample with its last bytes missing."""
    data = sample("gappy_training.pt.trace.json.gz").read_bytes()
    path = _write(tmp_path / "cut.json.gz", data[: int(len(data) * fraction)])
    rc, summary, err = _summary(capsys, path, "--no-cache")
    if rc == 2:
        assert_refused(rc, err, "")
        return
    assert summary is not None
    assert any("cut off" in w for w in summary["warnings"])
    if _kernels(summary) == 0:  # Kineto writes GPU events last: not reached yet
        assert any("part of the trace that could be read" in w for w in summary["warnings"])


@pytest.mark.slow
@pytest.mark.parametrize("fraction", [0.02, 0.3, 0.6, 0.9])
def test_gz_damaged_inside_loads_or_refuses_cleanly(fraction: float, tmp_path: Path,
                                                    capsys) -> None:
    """Generated: 64 bytes flipped inside the real sample's deflate stream."""
    data = bytearray(sample("gappy_training.pt.trace.json.gz").read_bytes())
    at = int(len(data) * fraction)
    data[at: at + 64] = bytes(b ^ 0x55 for b in data[at: at + 64])
    rc, summary, err = _summary(capsys, _write(tmp_path / "bad.json.gz", bytes(data)),
                                "--no-cache")
    if rc == 2:
        assert_refused(rc, err, "")
    else:
        assert summary is not None and any("cut off" in w for w in summary["warnings"])


def test_an_event_beyond_every_limit_is_refused_plainly(tmp_path: Path, monkeypatch,
                                                        capsys) -> None:
    from tui.sources import kineto

    monkeypatch.setattr(kineto, "MAX_EVENT_BYTES", SMALL_LIMIT)
    monkeypatch.setattr(kineto, "HUGE_EVENT_BYTES", SMALL_LIMIT)  # no second try
    trace = _mutated(lambda ev: _kernel_events(ev)[0]["args"].update(
        blob="x" * (9 * SMALL_LIMIT // 4)))(tmp_path)
    rc, _, err = _summary(capsys, trace, "--no-cache")
    assert_refused(rc, err,
                   f"an event is larger than {SMALL_LIMIT >> 20} MB, more than tui reads")


# ----------------------------------------------------------------------- gzip bombs


def _bomb(path: Path, inflated_mib: int) -> Path:
    """Generated: a .gz that starts like a trace and inflates to `inflated_mib` MiB of
    blanks. One 8 MiB member, repeated: deflate packs it about 1000:1."""
    member = gzip.compress(b" " * (8 << 20), compresslevel=9)
    head = gzip.compress(b'{"traceEvents": [')
    path.write_bytes(head + member * (inflated_mib // 8))
    return path


def test_gzip_bomb_is_stopped_with_a_clear_message(tmp_path: Path, monkeypatch,
                                                   capsys) -> None:
    monkeypatch.setenv("TUI_MAX_INFLATED_BYTES", "16M")
    bomb = _bomb(tmp_path / "bomb.json.gz", 256)
    assert bomb.stat().st_size < 300_000
    rc, _, err = _summary(capsys, bomb, "--no-cache")
    assert_refused(rc, err, "inflates to more than 16.0 MiB (the TUI_MAX_INFLATED_BYTES limit)")


def test_gzip_bomb_inflates_in_bounded_memory(tmp_path: Path, monkeypatch) -> None:
    """Python-side memory stays at a few chunks while 64 MiB are inflated and refused."""
    import tracemalloc

    from tui.core.errors import TraceError
    from tui.sources.chrome_json import extract_events

    monkeypatch.setenv("TUI_MAX_INFLATED_BYTES", "64M")
    bomb = _bomb(tmp_path / "bomb.json.gz", 512)
    tracemalloc.start()
    try:
        with pytest.raises(TraceError, match="inflates to more than 64.0 MiB"):
            extract_events(bomb, tmp_path / "events.json")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 48 << 20, f"peak {peak / 2**20:.0f} MiB"


def test_inflate_limit_policy(tmp_path: Path, monkeypatch) -> None:
    from tui.core.errors import TraceError
    from tui.sources import limits

    trace = _write(tmp_path / "t.json.gz", b"\x1f\x8b" + b"\0" * 10_000_000)
    monkeypatch.delenv("TUI_MAX_INFLATED_BYTES", raising=False)
    monkeypatch.setattr(limits.shutil, "disk_usage", lambda _: shutil._ntuple_diskusage(
        1 << 50, 0, 1 << 50))
    assert limits.max_inflated_bytes(trace, tmp_path)[0] == 200 * 10_000_002
    small = _write(tmp_path / "s.json.gz", b"\x1f\x8b")
    assert limits.max_inflated_bytes(small, tmp_path)[0] == 256 << 20  # the floor
    monkeypatch.setenv("TUI_MAX_INFLATED_BYTES", "1.5G")
    assert limits.max_inflated_bytes(trace, tmp_path) == (
        3 << 29, "the TUI_MAX_INFLATED_BYTES limit")
    monkeypatch.setattr(limits.shutil, "disk_usage", lambda _: shutil._ntuple_diskusage(
        8 << 30, 7 << 30, 1 << 30))  # 1 GiB free: a quarter is kept in reserve
    limit, why = limits.max_inflated_bytes(trace, tmp_path)
    assert limit == 768 << 20 and "free space" in why
    monkeypatch.setenv("TUI_MAX_INFLATED_BYTES", "lots")
    with pytest.raises(TraceError, match="is not a size"):
        limits.max_inflated_bytes(trace, tmp_path)


# ----------------------------------------------------------- paths that are no trace


def test_missing_file_directory_and_special_files(tmp_path: Path, capsys) -> None:
    for path, fragment in [
        (tmp_path / "missing.json", "no such file"),
        (tmp_path, "is a directory"),
        (Path("/dev/null"), "not a regular file"),
    ]:
        rc, _, err = _summary(capsys, path)
        assert_refused(rc, err, fragment)
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    rc, _, err = _summary(capsys, fifo)  # would block forever if it were opened
    assert_refused(rc, err, "not a regular file")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file(tmp_path: Path, capsys) -> None:
    path = tmp_path / "locked.json"
    shutil.copy(sample(KINETO), path)
    path.chmod(0)
    try:
        rc, _, err = _summary(capsys, path)
    finally:
        path.chmod(0o600)
    assert_refused(rc, err, "cannot be read")


def test_error_messages_never_carry_control_codes(tmp_path: Path, capsys) -> None:
    """A file name is untrusted too: it is echoed with its control characters escaped."""
    path = _write(tmp_path / "evil\x1b]0;title\x07.json", b"")
    rc, _, err = _summary(capsys, path)
    assert_refused(rc, err, "evil\\x1b]0;title\\x07.json")
    assert "\x1b" not in err and "\x07" not in err


# ------------------------------------------------------------- Nsight Systems inputs


def _nsys_variant(tmp: Path, *statements: str) -> Path:
    """Generated: a copy of the real nsys export, changed by SQL statements."""
    path = tmp / "variant.sqlite"
    shutil.copy(sample(NSYS), path)
    path.chmod(0o644)
    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()
    return path


K = "CUPTI_ACTIVITY_KIND_KERNEL"
# statements, then ("loaded", kernels, warning or None) or ("refused", fragment)
NSYS_CASES: dict[str, tuple[tuple[str, ...], tuple]] = {
    "unchanged": ((), ("loaded", NSYS_KERNELS, None)),
    "newer schema: extra tables, columns and version": ((
        "UPDATE META_DATA_EXPORT SET value = '9.1.0' WHERE name = 'EXPORT_SCHEMA_VERSION'",
        f"ALTER TABLE {K} ADD COLUMN futureMetric REAL",
        "CREATE TABLE CUPTI_ACTIVITY_KIND_FUTURE (start INTEGER, \"end\" INTEGER)",
    ), ("loaded", NSYS_KERNELS, None)),
    "older schema: no demangledName, no shared memory or grid columns": ((
        f"ALTER TABLE {K} DROP COLUMN demangledName",
        f"ALTER TABLE {K} DROP COLUMN staticSharedMemory",
        f"ALTER TABLE {K} DROP COLUMN gridX",
        "ALTER TABLE CUPTI_ACTIVITY_KIND_MEMCPY DROP COLUMN srcKind",
        "ALTER TABLE CUPTI_ACTIVITY_KIND_MEMSET DROP COLUMN memKind",
        "ALTER TABLE NVTX_EVENTS DROP COLUMN textId",
    ), ("loaded", NSYS_KERNELS, None)),
    "kernel names missing": ((
        f"ALTER TABLE {K} DROP COLUMN demangledName", f"ALTER TABLE {K} DROP COLUMN shortName",
        f"ALTER TABLE {K} DROP COLUMN mangledName",
    ), ("loaded", NSYS_KERNELS, "kernel names are missing")),
    "kernel start column renamed": ((f"ALTER TABLE {K} RENAME COLUMN start TO startNs",),
                                    ("loaded", 0, "skipped CUPTI_ACTIVITY_KIND_KERNEL")),
    "NVTX without eventType": (("ALTER TABLE NVTX_EVENTS DROP COLUMN eventType",),
                               ("loaded", NSYS_KERNELS, "skipped NVTX_EVENTS")),
    "StringIds missing": (("DROP TABLE StringIds",), ("loaded", NSYS_KERNELS,
                                                      "skipped NVTX_EVENTS")),
    "kernel table missing": ((f"DROP TABLE {K}",), ("loaded", 0, "no CUDA kernel table")),
    "runtime table missing": (("DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME",),
                              ("loaded", NSYS_KERNELS, None)),
    "copies and memsets missing": ((
        "DROP TABLE CUPTI_ACTIVITY_KIND_MEMCPY", "DROP TABLE CUPTI_ACTIVITY_KIND_MEMSET",
    ), ("loaded", NSYS_KERNELS, None)),
    "GPU info missing": (("DROP TABLE TARGET_INFO_GPU",), ("loaded", NSYS_KERNELS, None)),
    "export metadata damaged": (("ALTER TABLE META_DATA_EXPORT DROP COLUMN value",),
                                ("loaded", NSYS_KERNELS, None)),
    "GPU id is text": (("UPDATE TARGET_INFO_GPU SET id = 'x'",),
                       ("loaded", NSYS_KERNELS, "could not read the GPUs' names")),
    "kernel table is a view": ((
        f"CREATE TABLE k_rows AS SELECT * FROM {K}", f"DROP TABLE {K}",
        f"CREATE VIEW {K} AS SELECT * FROM k_rows",
    ), ("loaded", NSYS_KERNELS, None)),
    "names stored as BLOBs": (("UPDATE StringIds SET value = CAST(value AS BLOB)",),
                              ("loaded", NSYS_KERNELS, None)),
    "times at the edge of int64": ((
        f"UPDATE {K} SET start = 9223372036854775000, \"end\" = 9223372036854775807 "
        "WHERE rowid % 10 = 0",
    ), ("loaded", NSYS_KERNELS - NSYS_KERNELS // 10, None)),
    "end before start": ((f"UPDATE {K} SET \"end\" = start - 5 WHERE rowid % 10 = 0",),
                         ("loaded", NSYS_KERNELS - NSYS_KERNELS // 10, None)),
    "every activity table empty": ((
        f"DELETE FROM {K}", "DELETE FROM CUPTI_ACTIVITY_KIND_MEMCPY",
        "DELETE FROM CUPTI_ACTIVITY_KIND_MEMSET", "DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME",
        "DELETE FROM NVTX_EVENTS",
    ), ("refused", "holds no CUDA kernels, copies, API calls or NVTX ranges")),
    "every table unreadable": ((
        f"ALTER TABLE {K} DROP COLUMN start", "DROP TABLE CUPTI_ACTIVITY_KIND_MEMCPY",
        "DROP TABLE CUPTI_ACTIVITY_KIND_MEMSET", "DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME",
        "DROP TABLE NVTX_EVENTS",
    ), ("refused", "cannot read the nsys export: CUPTI_ACTIVITY_KIND_KERNEL")),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(NSYS_CASES))
def test_nsys_sqlite_corpus(case: str, tmp_path: Path, capsys) -> None:
    statements, expected = NSYS_CASES[case]
    rc, summary, err = _summary(capsys, _nsys_variant(tmp_path, *statements), "--no-cache")
    if expected[0] == "refused":
        assert_refused(rc, err, expected[1])
        return
    assert rc == 0, err
    assert summary is not None
    _, kernels, warning = expected
    assert _kernels(summary) == kernels
    if warning is None:
        assert summary["warnings"] == []
    else:
        assert any(warning in w for w in summary["warnings"]), summary["warnings"]


def test_sqlite_that_is_not_an_nsys_export(tmp_path: Path, capsys) -> None:
    path = tmp_path / "inventory.sqlite"  # generated: a database of something else
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE parts (name TEXT, count INTEGER)")
    db.execute("INSERT INTO parts VALUES ('bolt', 3)")
    db.commit()
    db.close()
    rc, _, err = _summary(capsys, path)
    assert_refused(rc, err, "not an Nsight Systems export")
    empty = tmp_path / "empty.sqlite"
    sqlite3.connect(empty).execute("VACUUM")
    empty.write_bytes(empty.read_bytes() or b"SQLite format 3\x00")
    rc, _, err = _summary(capsys, empty)
    assert_refused(rc, err, "")


@pytest.mark.parametrize("damage", ["cut at 0.1%", "cut at 40%", "cut at 95%",
                                    "header then garbage", "pages zeroed"])
def test_damaged_nsys_sqlite(damage: str, tmp_path: Path, capsys) -> None:
    """Generated: the real export cut short or overwritten."""
    data = sample(NSYS).read_bytes()
    if damage.startswith("cut"):
        share = float(damage.split()[-1].rstrip("%")) / 100
        data = data[: max(100, int(len(data) * share))]
    elif damage == "header then garbage":
        data = data[:100] + bytes(range(256)) * 400
    else:
        data = data[:4096] + b"\0" * (len(data) // 2) + data[4096 + len(data) // 2:]
    rc, summary, err = _summary(capsys, _write(tmp_path / "damaged.sqlite", data), "--no-cache")
    if rc == 2:
        assert_refused(rc, err, "")
    else:
        assert rc == 0 and summary is not None


# ------------------------------------------------------------- .nsys-rep and nsys


NSYS_REP_MAGIC = b"NVIDIA Tegra Profiler Report"


def _generated_report(tmp: Path) -> Path:
    """Generated: a file with the .nsys-rep magic and a damaged body (not a real report)."""
    return _write(tmp / "run.nsys-rep", NSYS_REP_MAGIC + b"\0" * 64 + b"damaged" * 100)


def test_nsys_rep_without_nsys_on_path(tmp_path: Path, monkeypatch, capsys) -> None:
    empty_bin = tmp_path / "bin"
    empty_bin.mkdir()
    monkeypatch.setenv("PATH", str(empty_bin))
    for flags in ((), ("--no-cache",)):
        rc, _, err = _summary(capsys, _generated_report(tmp_path), *flags)
        assert_refused(rc, err, "needs Nsight Systems' `nsys`, which is not on PATH")
        assert "nsys export --type sqlite" in err


@pytest.mark.parametrize("script", [
    "echo 'FATAL: the report file is corrupt' >&2; exit 1",
    "exit 0",  # claims success but writes nothing
])
def test_nsys_export_failing(script: str, tmp_path: Path, monkeypatch, capsys) -> None:
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    nsys = fake_bin / "nsys"  # a stand-in for a failing nsys, not NVIDIA's tool
    nsys.write_text(f"#!/bin/sh\n{script}\n")
    nsys.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake_bin}{os.pathsep}{os.environ.get('PATH', '')}")
    rc, _, err = _summary(capsys, _generated_report(tmp_path), "--no-cache")
    assert_refused(rc, err, "`nsys export` failed")
    assert list(tmp_path.glob("*.sqlite")) == []  # nothing written beside the report


# -------------------------------------------------------------- Nsight Compute input


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["magic only", "cut at 1%", "cut at 50%", "cut at 99.9%",
                                    "bytes flipped early", "a block zeroed"])
def test_damaged_ncu_rep(damage: str, tmp_path: Path, capsys) -> None:
    """Generated: the real .ncu-rep cut short or overwritten. It loads what it can with
    warnings, or is refused in one line."""
    data = sample("small_kernels.ncu-rep").read_bytes()
    if damage == "magic only":
        data = data[:4]
    elif damage.startswith("cut"):
        data = data[: int(len(data) * float(damage.split()[-1].rstrip("%")) / 100)]
    elif damage == "bytes flipped early":
        data = data[:100] + bytes(b ^ 0x5A for b in data[100:4196]) + data[4196:]
    else:
        mid = len(data) // 2
        data = data[:mid] + b"\0" * 4096 + data[mid + 4096:]
    path = _write(tmp_path / "damaged.ncu-rep", data)
    rc, summary, err = _summary(capsys, path)
    if rc == 2:
        assert_refused(rc, err, "")
    else:
        assert rc == 0 and summary is not None
    # the loader itself: results, or its own error type, never another exception
    import duckdb

    from tui.sources.ncu.load import NcuInputError, load_ncu

    try:
        load_ncu(path, duckdb.connect())
    except NcuInputError:
        assert rc == 2


def test_ncu_report_given_where_a_timeline_is_needed(capsys) -> None:
    rc = main(["query", str(sample("small_kernels.ncu-rep")), "SELECT 1"])
    assert_refused(rc, capsys.readouterr().err, "is an Nsight Compute report")


# ------------------------------------------------------ the same, as a user runs it


def _tui(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tui", *args], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=120)


@pytest.mark.slow
def test_as_a_subprocess(tmp_path: Path) -> None:
    """A few cases through the real entry point: exit codes and stderr as a shell sees them."""
    text = _text()
    cut = _write(tmp_path / "cut.json", text[: len(text) // 2])
    done = _tui("--summary", "--json", str(cut))
    assert done.returncode == 0 and done.stderr == ""
    assert any("cut off" in w for w in json.loads(done.stdout)["warnings"])
    bomb = _bomb(tmp_path / "bomb.json.gz", 64)
    done = _tui("--summary", str(bomb), env={"TUI_MAX_INFLATED_BYTES": "4M"})
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "inflates to more than 4.0 MiB" in done.stderr
    done = _tui("--summary", str(_nsys_variant(tmp_path, "DROP TABLE StringIds")))
    assert done.returncode == 0 and "skipped NVTX_EVENTS" in done.stdout
    done = _tui("query", str(tmp_path), "SELECT 1")
    assert done.returncode == 2
    assert done.stderr.strip() == f"tui: error: {tmp_path}: is a directory; give a trace file"
    done = _tui("--summary", "--debug", str(tmp_path / "missing.json"))
    assert done.returncode != 0 and "Traceback" in done.stderr  # --debug shows one


def test_zlib_damage_keeps_what_inflated_before_it(tmp_path: Path, capsys) -> None:
    """Generated: the real sample compressed as one stream whose end is overwritten."""
    text = _text()
    deflate = zlib.compressobj(9, zlib.DEFLATED, 31)
    data = bytearray(deflate.compress(text.encode()) + deflate.flush())
    data[-2000:] = b"\xff" * 2000
    rc, summary, err = _summary(capsys, _write(tmp_path / "end.json.gz", bytes(data)),
                                "--no-cache")
    if rc == 0:
        assert summary is not None and any("cut off" in w for w in summary["warnings"])
    else:
        assert_refused(rc, err, "")


@pytest.mark.parametrize("given", [["--memory", "lots"], ["--memory", "12x"]])
def test_a_memory_budget_that_is_not_a_size_is_one_line(given: list[str], capsys,
                                                        monkeypatch) -> None:
    monkeypatch.setenv("TUI_MEMORY", "1500MB")  # restored after: main() sets it
    assert main(["--summary", "--no-cache", *given, str(sample(NSYS))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not a size" in err and "--memory 1GB" in err


@pytest.mark.slow
def test_the_memory_budget_reaches_duckdb(monkeypatch, capsys) -> None:
    from tui.core.db import connect

    monkeypatch.setenv("TUI_MEMORY", "1500MB")  # restored after: main() sets it
    assert main(["--summary", "--no-cache", "--memory", "300MB", str(sample(NSYS))]) == 0
    assert NSYS.removesuffix(".sqlite") in capsys.readouterr().out
    con = connect()
    limit = con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    # the budget is the process's: DuckDB gets 70% of it
    assert limit in ("200.2 MiB", "210.0 MB"), limit
    monkeypatch.setenv("TUI_MEMORY", "1GB")
    limit = connect().execute("SELECT current_setting('memory_limit')").fetchone()[0]
    assert limit in ("667.5 MiB", "700.0 MB"), limit


@pytest.mark.parametrize(("budget", "cores", "threads"), [
    ("1GB", 16, 4), ("4GB", 16, 16), ("8GB", 16, 16), ("1GB", 2, 2), ("300MB", 16, 1),
    ("100MB", 16, 1)])
def test_duckdb_runs_a_thread_for_each_250mb_of_the_budget(budget: str, cores: int,
                                                           threads: int, monkeypatch) -> None:
    # DuckDB's threads hold memory its limit does not count: on a 16-core host, 16 of them
    # took a 1GB load past the budget, and the summary's medians ran out of memory
    from tui.core import db

    monkeypatch.setenv("TUI_MEMORY", budget)
    monkeypatch.delenv("TUI_THREADS", raising=False)
    monkeypatch.setattr(db.os, "sched_getaffinity", lambda _pid: set(range(cores)),
                        raising=False)
    setting = db.connect().execute("SELECT current_setting('threads')").fetchone()[0]
    assert db.duckdb_threads() == setting == threads


@pytest.mark.parametrize(("cap", "threads"), [("2", 2), ("64", 16), ("0", 16), ("many", 16),
                                              ("", 16)])
def test_tui_threads_caps_duckdb_s_threads(cap: str, threads: int, monkeypatch) -> None:
    """Several tui processes sharing the cores each keep to TUI_THREADS; a value that is
    not a positive number is ignored."""
    from tui.core import db

    monkeypatch.setenv("TUI_MEMORY", "8GB")
    monkeypatch.setenv("TUI_THREADS", cap)
    monkeypatch.setattr(db.os, "sched_getaffinity", lambda _pid: set(range(16)),
                        raising=False)
    setting = db.connect().execute("SELECT current_setting('threads')").fetchone()[0]
    assert db.duckdb_threads() == setting == threads


def _memory_limit_in(step: str, monkeypatch) -> tuple[list[str], str, int]:
    """DuckDB's memory_limit each time tui.loading.trace calls `step` while loading a trace under
    the 1GB budget, the limit after the load, and the host rows it loaded. The trace is
    taken for one that is not small (a small one keeps DuckDB's whole part:
    tests/loading/test_small_trace_shares.py)."""
    import tui.loading.trace
    from tui.loading.trace import open_trace

    monkeypatch.setattr(tui.loading.trace, "ONE_THREAD_BYTES", 0)

    seen: list[str] = []
    real = getattr(tui.loading.trace, step)

    def spying(con, *rest):
        seen.append(con.execute("SELECT current_setting('memory_limit')").fetchone()[0])
        return real(con, *rest)

    monkeypatch.setenv("TUI_MEMORY", "1GB")
    monkeypatch.setattr(tui.loading.trace, step, spying)
    with open_trace(sample("stacks_training.pt.trace.json.gz"), use_cache=False) as trace:
        after = trace.con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
        rows = trace.con.execute("SELECT count(*) FROM host_activities").fetchone()[0]
    return seen, after, rows


def test_the_stacks_are_derived_with_a_smaller_duckdb_share(monkeypatch) -> None:
    """50% of the budget while the launch stacks and idle intervals are derived (their
    temp tables and the nesting's arrays sit side by side), 70% before and after."""
    seen, after, _ = _memory_limit_in("build_stacks", monkeypatch)
    assert seen == ["476.8 MiB"] and after == "667.5 MiB"


def test_the_rows_are_written_with_a_smaller_duckdb_share(monkeypatch) -> None:
    """60% of the budget while the loaded rows are written into the schema (the host
    depths' arrays beside the GPU rows' sort), on both connections; 70% after."""
    seen, after, rows = _memory_limit_in("write_host_depths", monkeypatch)
    assert seen == ["572.2 MiB"] and after == "667.5 MiB" and rows > 0


@pytest.mark.slow
def test_a_load_that_outgrows_the_budget_is_tried_with_twice_it(monkeypatch, capsys) -> None:
    """60MB leaves DuckDB 42 MB, less than the JSON reader's 64 MB buffer: the load runs
    again with 120MB and says so; 10MB, then 20MB, is too little: one line, exit 2."""
    monkeypatch.setenv("TUI_MEMORY", "1GB")  # restored after: main() sets it
    trace = str(sample("stacks_training.pt.trace.json.gz"))
    assert main(["--summary", "--no-cache", "--memory", "60MB", trace]) == 0
    out = capsys.readouterr().out
    assert "loading needed more memory than the budget (60MB): loaded with 120MB" in out
    assert "GPU time by line of your code" in out
    assert main(["--summary", "--no-cache", "--memory", "10MB", trace]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "loading needs more memory than 20MB" in err
    assert "not valid JSON" not in err


@pytest.mark.slow
def test_a_summary_that_outgrows_its_share_is_tried_with_twice_the_budget(
        tmp_path: Path, shared_cache: Path, monkeypatch) -> None:
    """A launch-bound trace's summary (every idle interval classified) needs more than 30%
    of 50MB: summed up again with 100MB, the same summary, with a warning that says so;
    under 20MB, then 40MB, it is a TraceError (one line, exit 2 from the command)."""
    from tui.analysis.summary import trace_summary
    from tui.core.budget import budget_of
    from tui.core.errors import TraceError
    from tui.loading.trace import open_trace

    # a cache dir of its own, no summary kept in it (each is summed up here), its cache
    # file the run's: loaded once a run, not cold again
    trace_path = sample("launch_bound_inference.pt.trace.json.gz")
    copy_cache_files([trace_path], shared_cache, tmp_path)
    monkeypatch.setenv("TUI_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TUI_MEMORY", "1GB")
    with open_trace(trace_path) as trace:
        assert trace.from_cache
        whole = trace_summary(trace, 1_000_000)
        with budget_of("50MB"):
            again = trace_summary(trace, 1_000_000)
        assert trace.warnings[-1] == ("summing up needed more memory than the budget (50MB): "
                                      "summed up with 100MB; give it with --memory 100MB "
                                      "next time")
        assert again["diagnosis"] == whole["diagnosis"]
        assert len(list(again["gaps"])) == len(list(whole["gaps"])) > 0
        with budget_of("20MB"), pytest.raises(TraceError,
                                              match="summing it up needs more memory than 40MB"):
            trace_summary(trace, 1_000_000)
