"""The nsys rules on Kineto traces, against an independent reading of the events with
Python's json module: the runtime calls (cudaMemcpyAsync, cudaStreamSynchronize, ...) stand
in for nsys' runtime table and the copies' names ('Memcpy HtoD (Pageable -> Device)') for
its memory kinds. sync_habits is the Kineto recording of the workload whose nsys export
tests/analysis/test_nsys_rules.py checks against NVIDIA's own rows."""

from __future__ import annotations

import gzip
import json
import math
import re
import sqlite3
from collections import defaultdict
from decimal import Decimal
from functools import cache
from itertools import groupby
from pathlib import Path

import pytest

from tests.helpers.paths import sample
from tui.analysis.summary import trace_summary
from tui.loading.trace import open_trace

TRACES = ("sync_habits.pt.trace.json.gz", "gappy_training.pt.trace.json.gz")
GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")


@cache
def _events(name: str) -> tuple[dict, ...]:
    with gzip.open(sample(name)) as f:  # exact decimals: ts and dur are µs with 3 places
        trace = json.load(f, parse_float=Decimal)
    return tuple(e for e in trace["traceEvents"] if e.get("ph") == "X")


def _ns(us: Decimal | int) -> int:
    return int(Decimal(us) * 1000)


@cache
def _findings(name: str) -> dict[str, dict]:
    with open_trace(sample(name)) as loaded:
        summary = trace_summary(loaded, min_gap_ns=1_000_000)
    assert not summary["rules_not_checked"]
    return {f["rule"]: f for f in summary["findings"]}


def _runtime(name: str) -> list[dict]:
    return [e for e in _events(name) if e.get("cat") in ("cuda_runtime", "cuda_driver")]


def _rows(findings: dict[str, dict], rule: str) -> list[dict]:
    return findings[rule]["rows"] if rule in findings else []


@pytest.mark.slow
@pytest.mark.parametrize("name", TRACES)
def test_memcpy_async_pageable(name: str) -> None:
    calls = {e["args"]["correlation"]: e for e in _runtime(name)}
    expected = []
    for e in _events(name):
        if e.get("cat") != "gpu_memcpy":
            continue
        src, dst = re.search(r"\((\w+) -> (\w+)\)", e["name"]).groups()
        call = calls.get(e["args"]["correlation"])
        if "Pageable" in (src, dst) and call and re.match(r"(?i)cudaMemcpy.*Async",
                                                           call["name"]):
            expected.append((_ns(e["dur"]), _ns(e["ts"]), e["args"]["device"],
                             e["args"]["stream"], call["tid"], call["name"],
                             e["args"]["bytes"], src, dst, _ns(call["dur"])))
    expected.sort(key=lambda r: (-r[0], r[1]))
    ours = [(r["duration_ns"], r["start_ns"], r["device"], r["stream"], r["tid"], r["api"],
             r["bytes"], r["src_kind"], r["dst_kind"], r["api_duration_ns"])
            for r in _rows(_findings(name), "cuda_memcpy_async")]
    assert ours == expected
    assert len(expected) == {"sync_habits.pt.trace.json.gz": 12,
                             "gappy_training.pt.trace.json.gz": 5}[name]


@pytest.mark.parametrize("name", TRACES)
def test_api_sync(name: str) -> None:
    expected = sorted(
        ((_ns(e["dur"]), _ns(e["ts"]), e["pid"], e["tid"], e["name"]) for e in _runtime(name)
         if re.match(r"(?i)cuda(Device|Stream)Synchronize", e["name"])),
        key=lambda r: (-r[0], r[1]))
    ours = [(r["duration_ns"], r["start_ns"], r["pid"], r["tid"], r["api"])
            for r in _rows(_findings(name), "cuda_api_sync")]
    assert ours == expected
    assert len(expected) == {"sync_habits.pt.trace.json.gz": 19,
                             "gappy_training.pt.trace.json.gz": 11}[name]


@pytest.mark.parametrize("name", TRACES)
def test_no_synchronous_copies_or_sets(name: str) -> None:
    """PyTorch issues copies and sets with the Async calls only: the sync rules find none."""
    names = {e["name"] for e in _runtime(name)}
    assert not {n for n in names if re.match(r"(?i)cuda(Memcpy|Memset)(?!.*async)", n)}
    findings = _findings(name)
    assert "cuda_memcpy_sync" not in findings and "cuda_memset_sync" not in findings


def _time_util(name: str, chunks: int = 30, threshold: float = 50) -> list[tuple]:
    """nsys' gpu_time_util, read from the events: each device's span in `chunks` chunks
    (size rounded up to a ns), runs of chunks under `threshold`% merged, weighted average."""
    ops = defaultdict(list)
    for e in _events(name):
        if e.get("cat") in GPU_CATS:
            start = _ns(e["ts"])
            ops[e["args"]["device"]].append((start, start + _ns(e["dur"])))
    out = []
    for device, spans in ops.items():
        first, last = min(s for s, _ in spans), max(e for _, e in spans)
        size = math.ceil((last - first) / chunks)
        low = []
        for n in range(chunks):
            cs, ce = first + n * size, min(first + (n + 1) * size, last)
            if cs >= ce:
                continue
            used = sum(min(e, ce) - max(s, cs) for s, e in spans if s < ce and e > cs)
            if used / (ce - cs) * 100 < threshold:
                low.append((n, cs, ce, used / (ce - cs) * 100))
        for _, run in groupby(enumerate(low), key=lambda x: x[1][0] - x[0]):
            chunk = [c for _, c in run]
            weight = sum(ce - cs for _, cs, ce, _ in chunk)
            avg = sum((ce - cs) * pct for _, cs, ce, pct in chunk) / weight
            out.append((chunk[0][1], chunk[-1][2] - chunk[0][1], device, round(avg, 1)))
    return sorted(out, key=lambda r: (r[3], r[1], r[0]))


@pytest.mark.parametrize("name", TRACES)
def test_gpu_time_util(name: str) -> None:
    ours = [(r["start_ns"], r["duration_ns"], r["device"], r["in_use_pct"])
            for r in _rows(_findings(name), "gpu_time_util")]
    expected = _time_util(name)
    assert ours == expected
    assert expected  # both traces idle their GPU most of the time


def test_rules_not_checked_without_runtime_calls(tmp_path: Path) -> None:
    """Generated from a real export: without its CUDA runtime table, which call issued a
    copy is unknown, so the API rules say they were not checked (no crash, no rows), the
    GPU-side rules still run and pageable copies are still named from the copies alone."""
    path = tmp_path / "no_runtime.sqlite"
    path.write_bytes(sample("gappy_training.sqlite").read_bytes())
    db = sqlite3.connect(path)
    db.execute("DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME")
    db.commit()
    db.close()
    with open_trace(path) as loaded:
        summary = trace_summary(loaded, min_gap_ns=1_000_000)
    assert set(summary["rules_not_checked"]) == {
        "cuda_memcpy_async", "cuda_memcpy_sync", "cuda_memset_sync", "cuda_api_sync"}
    rules = {f["rule"] for f in summary["findings"]}
    assert {"gpu_gaps", "gpu_time_util", "pageable_copies"} <= rules
    assert not rules & set(summary["rules_not_checked"])
    pageable = next(f for f in summary["findings"] if f["rule"] == "pageable_copies")
    with open_trace(sample("gappy_training.sqlite")) as loaded:
        (count, total), = loaded.con.execute(
            "SELECT count(*), sum(duration_ns) FROM gpu_activities WHERE kind = 'memcpy' "
            "AND 'Pageable' IN (src_kind, dst_kind)").fetchall()
    assert (len(pageable["rows"]), pageable["cost_ns"]) == (count, total) == (56, total)
