"""Scale a real Chrome trace (Kineto, or XLA's trace viewer JSON) up by repeating its
events, shifted in time (a generator).

Copied from the recording scripts beside the real traces (shared/realtraces); its output
is a *scaled* trace, not a recording: label it so wherever its figures are quoted.

Usage: python scale_trace.py IN.json OUT.json COPIES
The copies follow each other with a 1 ms pause, so the result is a longer
recording of the same real workload (ids, correlations and Python frame ids are offset
too: Kineto numbers a trace's Python frames uniquely).
"""
import json
import sys

try:
    import orjson  # the `bench` extra: 100s of MB of JSON in seconds
except ImportError:  # the standard library: slower, enough for the tests' small copies
    orjson = None

loads = orjson.loads if orjson else json.loads


def dumps(obj: object) -> bytes:
    return orjson.dumps(obj) if orjson else json.dumps(obj, separators=(",", ":")).encode()


src, dst, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
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
        out.write((b"" if first else b",\n") + dumps(e))
        first = False
    for c in range(copies):
        for e in timed:
            e2 = dict(e)
            e2["ts"] = float(e["ts"]) + c * span
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
            out.write((b"" if first else b",\n") + dumps(e2))
            first = False
    out.write(b"\n]}\n")
