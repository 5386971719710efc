"""Launch stacks and memory peaks read straight from a Kineto trace with the json module:
slow, obvious Python that shares no code with tui's SQL, for the stacks tests."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from tests.helpers.oracle import GPU_CATS, chrome_events, ns

RUNTIME_CATS = {"cuda_runtime", "cuda_driver"}


def frame_name(name: str) -> str:
    """A Python frame's name as tui keeps it: a built-in's without the address of the
    object it was called on ('<built-in method f of T object at 0x7f…>' as '… T object>')."""
    return re.sub(r" at 0x[0-9a-fA-F]+>$", ">", name)


def frames_per_launch(path: Path) -> list[tuple[int, list[str]]]:
    """(GPU duration in ns, names of the Python frames enclosing its launching call on its
    thread) for every GPU activity whose launching call is in the trace."""
    events = chrome_events(path)
    calls = {e["args"]["correlation"]: e for e in events
             if e.get("ph") == "X" and e.get("cat") in RUNTIME_CATS}
    frames = defaultdict(list)
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "python_function":
            frames[(e["pid"], e["tid"])].append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e))
    out = []
    for e in events:
        if e.get("ph") != "X" or e.get("cat") not in GPU_CATS:
            continue
        call = calls.get(e["args"].get("correlation"))
        if call is None:
            continue
        start, end = ns(call["ts"]), ns(call["ts"]) + ns(call["dur"])
        enclosing = [f for fs, fe, f in frames[(call["pid"], call["tid"])]
                     if fs <= start and end <= fe]
        enclosing.sort(key=lambda f: (ns(f["ts"]), -ns(f["dur"])))  # outermost first
        out.append((ns(e["dur"]), [frame_name(f["name"]) for f in enclosing]))
    return out


def gpu_time_by_frame(path: Path) -> dict[str, tuple[int, int, int]]:
    """frame name -> (inclusive GPU ns, self GPU ns, launches)."""
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for dur, names in frames_per_launch(path):
        for name in set(names):
            totals[name][0] += dur
            totals[name][2] += 1
        if names:
            totals[names[-1]][1] += dur
    return {name: (t[0], t[1], t[2]) for name, t in totals.items()}


def memory_peaks(path: Path) -> dict[tuple[int, int], tuple[int, int, int]]:
    """(Device Type, Device Id) -> (peak Total Allocated, first ts in ns it was reached,
    peak Total Reserved), from the `[memory]` instant events."""
    peaks: dict[tuple[int, int], tuple[int, int, int]] = {}
    for e in chrome_events(path):
        if e.get("ph") != "i" or e.get("name") != "[memory]":
            continue
        a = e["args"]
        key = (a["Device Type"], a["Device Id"])
        total, ts, reserved = a["Total Allocated"], ns(e["ts"]), a["Total Reserved"]
        old = peaks.get(key)
        if old is None:
            peaks[key] = (total, ts, reserved)
        else:
            best = (total, ts) if total > old[0] else (
                (old[0], min(old[1], ts)) if total == old[0] else old[:2])
            peaks[key] = (best[0], best[1], max(old[2], reserved))
    return peaks


def nsys_gpu_time_by_range(path: Path) -> dict[str, tuple[int, int, int]]:
    """For an nsys export: NVTX range name -> (inclusive GPU ns, self GPU ns, launches) of
    the kernels, copies and sets whose launching API call (same correlation id) lies in
    the range on the same thread, read with sqlite3."""
    import sqlite3

    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
    calls = {corr: (tid, start, end) for corr, tid, start, end in db.execute(
        "SELECT correlationId, globalTid, start, \"end\" FROM CUPTI_ACTIVITY_KIND_RUNTIME")}
    ranges = defaultdict(list)
    for tid, start, end, name in db.execute(
            "SELECT n.globalTid, n.start, n.\"end\", coalesce(n.text, s.value, '') "
            "FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId "
            "WHERE n.\"end\" IS NOT NULL AND n.eventType IN (59, 60, 70, 71)"):
        ranges[tid].append((start, end, name))
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for table in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                  "CUPTI_ACTIVITY_KIND_MEMSET"):
        if table not in tables:
            continue
        for corr, start, end in db.execute(f"SELECT correlationId, start, \"end\" FROM {table}"):
            call = calls.get(corr)
            if call is None:
                continue
            tid, cs, ce = call
            open_ = sorted((r for r in ranges[tid] if r[0] <= cs and ce <= r[1]),
                           key=lambda r: (r[0], -r[1]))
            for name in {r[2] for r in open_}:
                totals[name][0] += end - start
                totals[name][2] += 1
            if open_:
                totals[open_[-1][2]][1] += end - start
    db.close()
    return {name: (t[0], t[1], t[2]) for name, t in totals.items()}


def nsys_memory_peaks(path: Path) -> dict[int, tuple[int, int]]:
    """For an nsys export: device -> (peak of the running sum of device-side allocations
    minus frees, first time it was reached), read with sqlite3."""
    import sqlite3

    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    totals: dict[int, int] = defaultdict(int)
    peaks: dict[int, tuple[int, int]] = {}
    for start, device, size, kind, op in db.execute(
            "SELECT start, deviceId, bytes, memKind, memoryOperationType "
            "FROM CUDA_GPU_MEMORY_USAGE_EVENTS ORDER BY start, rowid"):
        if kind in (0, 1):  # host memory
            continue
        totals[device] += size if op == 0 else -size
        if device not in peaks or totals[device] > peaks[device][0]:
            peaks[device] = (totals[device], start)
    db.close()
    return peaks


def nsys_backtrace_stacks(path: Path, dropped: str, libraries: str) -> dict[int, list[str]]:
    """For an nsys export with CUDA API backtraces: correlation id -> the frames of the API
    call's chain that tui shows, innermost first ('symbol (module file name)'): frames
    whose module matches `dropped` left out, and bare addresses in `libraries` modules.
    Where nsys took a Python backtrace at the call too (nsys_python_backtraces), its frames
    follow, innermost first, named as Kineto names them ('torch/nn/modules/module.py(1097):
    cuda', the path below site-packages, or the file's name). Read with sqlite3 and re."""
    import re
    import sqlite3

    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    strings = dict(db.execute("SELECT id, value FROM StringIds"))
    python = nsys_python_backtraces(db, strings)
    chains: dict[int, list[tuple[int, str, str]]] = defaultdict(list)
    for chain, depth, symbol, module in db.execute(
            "SELECT id, stackDepth, symbol, module FROM CUDA_CALLCHAINS"):
        chains[chain].append((depth, strings[symbol], strings[module]))
    stacks: dict[int, list[str]] = {}
    for corr, chain, tid, start in db.execute(
            "SELECT correlationId, callchainId, globalTid, start FROM "
            "CUPTI_ACTIVITY_KIND_RUNTIME WHERE callchainId IS NOT NULL"):
        assert corr not in stacks, "one backtraced call per correlation id"
        stacks[corr] = [
            f"{symbol} ({module.rsplit('/', 1)[-1]})"
            for _, symbol, module in sorted(chains[chain])
            if not re.search(dropped, module)
            and not (re.fullmatch(r"0x[0-9a-fA-F]+", symbol) and re.search(libraries, module))
        ] + [_python_frame_name(*frame) for frame in python.get((tid, start), [])]
    db.close()
    return stacks


def nsys_python_backtraces(db, strings: dict[int, str]) -> dict[tuple[int, int], list]:
    """(globalTid, start) -> the frames of the Python backtrace nsys took there
    (--python-backtrace=cuda, exported with --include-json=true), innermost first, each
    (function, file, line): the JSON text of its NVTX mark, strings unescaped."""
    import html
    import json

    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
    if "NVTX_PAYLOAD_SCHEMAS" not in tables:
        return {}
    found = {}
    for tid, start, text in db.execute(
            "SELECT globalTid, start, jsonText FROM NVTX_EVENTS WHERE eventType = 34 AND "
            "domainId IN (SELECT domainId FROM NVTX_PAYLOAD_SCHEMAS "
            "WHERE name = 'Python Backtrace on CUDA') AND jsonText IS NOT NULL"):
        frames = json.loads(text)["Python Backtrace on CUDA"]["Frames"]
        found[(tid, start)] = [(html.unescape(strings[f["Function"]]),
                                html.unescape(strings[f["File"]]), f["Line"]) for f in frames]
    return found


def _python_frame_name(function: str, file: str, line: int) -> str:
    below = file.split("-packages/", 1)[1] if "-packages/" in file else file.rsplit("/", 1)[-1]
    return f"{below}({line}): {function}"


def nsys_gpu_time_by_backtrace_frame(path: Path, dropped: str,
                                     libraries: str) -> dict[str, tuple[int, int, int]]:
    """For an nsys export with CUDA API backtraces: frame -> (inclusive GPU ns, self GPU
    ns, launches) of the kernels, copies and sets whose launching call (same correlation
    id) has that frame in its chain (nsys_backtrace_stacks), self where it is innermost."""
    import sqlite3

    stacks = nsys_backtrace_stacks(path, dropped, libraries)
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for table in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                  "CUPTI_ACTIVITY_KIND_MEMSET"):
        for corr, start, end in db.execute(f"SELECT correlationId, start, \"end\" FROM {table}"):
            frames = stacks.get(corr)
            if not frames:
                continue
            for name in set(frames):
                totals[name][0] += end - start
                totals[name][2] += 1
            totals[frames[0]][1] += end - start
    db.close()
    return {name: (t[0], t[1], t[2]) for name, t in totals.items()}
