"""Scale a real Chrome trace (Kineto, or XLA's trace viewer JSON) up by repeating its
events, shifted in time (a generator).

Copied from the recording scripts beside the real traces (shared/realtraces); its output
is a *scaled* trace, not a recording: label it so wherever its figures are quoted.

Usage: python scale_trace.py IN.json OUT.json COPIES [JOBS] [--pretty]
With JOBS, the copies are written by that many processes side by side (the same bytes).
Events are written one a line; with --pretty, each over several lines, indented, the shape
Kineto writes (the same events and numbers).
The copies follow each other with a 1 ms pause, so the result is a longer
recording of the same real workload (ids, correlations and Python frame ids are offset
too: Kineto numbers a trace's Python frames uniquely).
"""
import json
import os
import sys

try:
    import orjson  # the `bench` extra: 100s of MB of JSON in seconds
except ImportError:  # the standard library: slower, enough for the tests' small copies
    orjson = None

loads = orjson.loads if orjson else json.loads
PRETTY = "--pretty" in sys.argv
if PRETTY:
    sys.argv.remove("--pretty")


def dumps(obj: object) -> bytes:
    return orjson.dumps(obj) if orjson else json.dumps(obj, separators=(",", ":")).encode()


def dumps_event(obj: object) -> bytes:
    """One event: on one line, or with --pretty over several, indented."""
    if not PRETTY:
        return dumps(obj)
    if orjson:
        return orjson.dumps(obj, option=orjson.OPT_INDENT_2)
    return json.dumps(obj, indent=2).encode()


def copy_events(timed: list, c: int, first: bool) -> bytes:
    """Copy `c` of the timed events, each after ",\n" (the very first excepted)."""
    span_offset = c * span
    pieces = []
    for e in timed:
        e2 = dict(e)
        e2["ts"] = float(e["ts"]) + span_offset
        if "id" in e2 and isinstance(e2["id"], int):
            e2["id"] = e2["id"] + c * 10_000_000
        args = e2.get("args")
        if isinstance(args, dict) and "correlation" in args:
            e2["args"] = dict(args, correlation=args["correlation"] + c * 10_000_000)
        elif isinstance(args, dict) and str(args.get("correlation_id", "")).isdigit():
            # XLA writes its args as text: "correlation_id": "84"
            e2["args"] = dict(args, correlation_id=str(int(args["correlation_id"])
                                                      + c * 10_000_000))
        if isinstance(args, dict) and isinstance(args.get("Python id"), int):
            parent = args.get("Python parent id")
            e2["args"] = dict(e2.get("args", args), **{
                "Python id": args["Python id"] + c * 10_000_000,
                "Python parent id": parent + c * 10_000_000 if isinstance(parent, int)
                else parent})
        pieces.append((b"" if first else b",\n") + dumps_event(e2))
        first = False
    return b"".join(pieces)


def write_copies(path: str, first_copy: int, last_copy: int, first: bool) -> None:
    with open(path, "wb") as out:
        for c in range(first_copy, last_copy):
            out.write(copy_events(timed, c, first and c == first_copy))


src, dst, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
jobs = max(1, min(int(sys.argv[4]) if len(sys.argv) > 4 else 1, copies))
doc = loads(open(src, "rb").read())
events = doc["traceEvents"]
timed = [e for e in events if "ts" in e and e.get("ph") != "M"]
meta = (
    [e for e in events if e not in timed]
    if len(events) < 1000
    else [e for e in events if e.get("ph") == "M" or "ts" not in e]
)
t0 = min(float(e["ts"]) for e in timed)
t1 = max(float(e["ts"]) + float(e.get("dur", 0)) for e in timed)
span = t1 - t0 + 1000.0
with open(dst, "wb") as out:
    head = {k: v for k, v in doc.items() if k != "traceEvents"}
    out.write(dumps(head)[:-1] + b', "traceEvents": [\n')
    first = True
    for e in meta:
        out.write((b"" if first else b",\n") + dumps_event(e))
        first = False
    if jobs == 1:
        for c in range(copies):
            out.write(copy_events(timed, c, first and c == 0))
    else:  # each process writes its run of copies to a file of its own, joined in order
        import multiprocessing
        import shutil
        import tempfile

        bounds = [copies * k // jobs for k in range(jobs + 1)]
        with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(dst))) as tmp:
            paths = [os.path.join(tmp, f"copies-{k}") for k in range(jobs)]
            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                pool.starmap(write_copies, [(paths[k], bounds[k], bounds[k + 1],
                                             first and k == 0) for k in range(jobs)])
            for path in paths:
                with open(path, "rb") as part:
                    shutil.copyfileobj(part, out, 8 << 20)
    out.write(b"\n]}\n")
