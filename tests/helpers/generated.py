"""Traces GENERATED in a test, labelled as such: what no real recording holds."""

from __future__ import annotations

import json
from pathlib import Path


def evil_trace(path: Path) -> Path:
    """A two-kernel Kineto trace whose kernel name carries markup and an escape."""
    events = [
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
         "ts": 1000.0, "dur": 5.0, "args": {"correlation": 1}},
        {"ph": "X", "cat": "kernel", "name": "[bold]evil\x1b[31m kernel", "pid": 0,
         "tid": 7, "ts": 1010.0, "dur": 500.0,
         "args": {"device": 0, "stream": 7, "correlation": 1, "grid": [1, 1, 1],
                  "block": [32, 1, 1], "registers per thread": 8}},
        {"ph": "X", "cat": "kernel", "name": "plain", "pid": 0, "tid": 7, "ts": 1600.0,
         "dur": 100.0, "args": {"device": 0, "stream": 7, "correlation": 2}},
    ]
    path.write_text(json.dumps({"traceEvents": events}))
    return path
